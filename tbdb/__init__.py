"""tbdb: endgame tablebases built with Numba, stored in DuckDB, queried in SQL and Python.

    import tbdb
    tbdb.build("cdc", db="tb.duckdb", max_pieces=3)
    tb = tbdb.open("tb.duckdb")
    r = tb.lookup("4g2K/8/8/8 r")     # r.outcome, r.distance, r.best_move, r.moves
"""
from tbdb.api import Tablebase, lookup, open
from tbdb.build import build, verify
from tbdb.errors import (BuildOptionError, DatabaseBusyError, InvalidMaterialError, InvalidMoveError,
                         InvalidOptionError, InvalidPositionError, MissingTableError, TbdbError,
                         UnknownGameError)
from tbdb.results import LookupResult, MoveResult

__all__ = [
    "Tablebase", "open", "lookup", "build", "verify", "LookupResult", "MoveResult",
    "TbdbError", "DatabaseBusyError", "InvalidPositionError", "InvalidMoveError", "InvalidMaterialError",
    "UnknownGameError", "MissingTableError", "InvalidOptionError", "BuildOptionError",
]
__version__ = "0.1.0"
