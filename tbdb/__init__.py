"""tbdb: endgame tablebases built with Numba, stored in DuckDB, queried in SQL and Python.

    import tbdb
    tbdb.build("cdc", db="tb.duckdb", max_pieces=3)
    tb = tbdb.open("tb.duckdb")
    r = tb.lookup("4g2K/8/8/8 r")     # r.outcome, r.distance, r.best_move, r.moves, r.line()
"""
import importlib
import sys
import types

from tbdb.errors import (BuildOptionError, ClosedError, DamagedTableError, DatabaseBusyError,
                         InvalidArrayError, InvalidMaterialError, InvalidMoveError,
                         InvalidOptionError, InvalidPositionError, MissingTableError,
                         NotADatabaseError, TbdbError, UnknownGameError)

# Loaded on first use: `import tbdb` stays cheap, so the tbdb command can install its signal
# handlers before NumPy, Numba and DuckDB load (tbdb/cli/__init__.py).
_LAZY = {"Tablebase": "tbdb.api", "open": "tbdb.api", "lookup": "tbdb.api",
         "build": "tbdb.build", "verify": "tbdb.build", "LookupResult": "tbdb.results",
         "MoveResult": "tbdb.results", "LineStep": "tbdb.results"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tbdb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    def __setattr__(self, name, value):
        # importing the submodule tbdb.build sets it as the attribute `build`: the name is the
        # function's (as it was when this file imported it eagerly)
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

from tbdb import moved as _moved  # noqa: E402  (old module names: tbdb.engine, tbdb.store, ...)

_moved.install()

__all__ = [
    "Tablebase", "open", "lookup", "build", "verify", "LookupResult", "MoveResult", "LineStep",
    "TbdbError", "DatabaseBusyError", "NotADatabaseError", "DamagedTableError",
    "InvalidPositionError", "InvalidArrayError", "InvalidMoveError", "InvalidMaterialError",
    "UnknownGameError",
    "MissingTableError", "InvalidOptionError", "BuildOptionError", "ClosedError",
]
__version__ = "0.2.0"
