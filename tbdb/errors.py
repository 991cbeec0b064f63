"""The errors tbdb raises; each quotes the input that caused it."""


class TbdbError(Exception):
    """Base class of every tbdb error."""


class InvalidPositionError(TbdbError, ValueError):
    """Position text that does not parse, or describes an impossible position."""


class InvalidArrayError(TbdbError, ValueError):
    """Arrays of the batch form (``lookup_arrays``) of the wrong shape or type, or holding a row
    that is no position of the encoding; the message names the first such row."""


class InvalidMoveError(TbdbError, ValueError):
    """Move text that does not parse or is not legal in the position."""


class InvalidMaterialError(TbdbError, ValueError):
    """A material signature (``KGvR``) that is malformed or outside what tbdb can build."""


class UnknownGameError(TbdbError, KeyError):
    """A game name tbdb does not know."""

    def __str__(self):  # KeyError would print the repr of its argument
        return str(self.args[0])


class MissingTableError(TbdbError, KeyError):
    """The position's table is not in the database."""

    def __str__(self):
        return str(self.args[0])


class DatabaseBusyError(TbdbError, OSError):
    """Another process (a running build) holds the database file."""


class NotADatabaseError(TbdbError, ValueError):
    """A file that is not a tbdb database (not DuckDB, damaged, or without tbdb's schema), or a
    tbdb database this version cannot read (written by a newer tbdb, or needing an upgrade)."""


class DamagedDatabaseError(NotADatabaseError):
    """A tbdb database file that DuckDB cannot read whole: cut short (truncated), or with
    blocks overwritten (their checksums do not match)."""


class DamagedTableError(TbdbError, KeyError):
    """A built table is missing rows it must have."""

    def __str__(self):
        return str(self.args[0])


class MissingValuesFileError(TbdbError, FileNotFoundError):
    """A table whose values the database keeps in a Parquet file (a cluster build) that is
    missing or no longer the file recorded (moved, deleted, or changed)."""


class InvalidOptionError(TbdbError, ValueError):
    """An option (of a build or a lookup) that the game does not take, or a value it cannot use."""


BuildOptionError = InvalidOptionError


class ClosedError(TbdbError, ValueError):
    """A tablebase used after ``close()``: a lookup, or a result's ``moves``, ``line()`` or
    derived best move, which read the tablebase when first asked for (its mapped files are
    unmapped by then: reading them crashed, or looked like damage)."""



def quote(value, limit: int = 200) -> str:
    """``repr(value)`` for an error message, or for a long one its first ``limit // 2``
    characters, an ellipsis and the length: an error quotes what the user gave, but one line must
    not echo 100,000 characters back (the command line, the web API's 400s, Python alike)."""
    if isinstance(value, str):
        if len(value) > limit:
            return f"{value[:limit // 2]!r}... ({len(value):,} characters)"
        return repr(value)
    text = repr(value)  # bytes, lists, arrays: their repr, cut the same way
    if len(text) > limit:
        return f"{text[:limit // 2]}... ({len(text):,} characters)"
    return text


def one_line(exc: BaseException) -> str:
    """An exception's first line (its type's name when it says nothing): what a command or an
    engine prints of it."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
