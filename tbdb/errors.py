"""The errors tbdb raises; each quotes the input that caused it."""


class TbdbError(Exception):
    """Base class of every tbdb error."""


class InvalidPositionError(TbdbError, ValueError):
    """Position text that does not parse, or describes an impossible position."""


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



def quote(text, limit: int = 200) -> str:
    """``repr(text)``, or for a very long text its start and its length: an error quotes what
    the user typed, but one line must not echo 4,300 digits back."""
    if isinstance(text, str) and len(text) > limit:
        return f"{text[:limit // 2]!r}... ({len(text):,} characters)"
    return repr(text)
