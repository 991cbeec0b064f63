"""tbdb: endgame tablebases built with Numba, stored in DuckDB, queried in SQL and Python.

    import tbdb
    tbdb.build("cdc", db="tb.duckdb", max_pieces=3)
    tb = tbdb.open("tb.duckdb")
    r = tb.lookup("4g2K/8/8/8 r")     # r.outcome, r.distance, r.best_move, r.moves, r.line()
"""
from tbdb.api import Tablebase, lookup, open
from tbdb.build import build, verify
from tbdb.errors import (BuildOptionError, DamagedTableError, DatabaseBusyError,
                         InvalidArrayError, InvalidMaterialError, InvalidMoveError,
                         InvalidOptionError, InvalidPositionError, MissingTableError,
                         NotADatabaseError, TbdbError, UnknownGameError)
from tbdb.results import LineStep, LookupResult, MoveResult

__all__ = [
    "Tablebase", "open", "lookup", "build", "verify", "LookupResult", "MoveResult", "LineStep",
    "TbdbError", "DatabaseBusyError", "NotADatabaseError", "DamagedTableError",
    "InvalidPositionError", "InvalidArrayError", "InvalidMoveError", "InvalidMaterialError",
    "UnknownGameError",
    "MissingTableError", "InvalidOptionError", "BuildOptionError",
]
__version__ = "0.2.0"
