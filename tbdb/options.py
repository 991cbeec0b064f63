"""Options a game declares for its builds, lookups and perft: name, type, range, default, help.

The command line is built from them (``--max-pieces`` for ``max_pieces``) and so are the
checks of a Python call: a value of the wrong type or out of range raises
``InvalidOptionError`` quoting it and stating what is allowed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from tbdb.errors import InvalidOptionError, quote


@dataclass(frozen=True)
class Option:
    name: str  # the Python keyword; the flag is --name-with-dashes
    help: str
    type: type = int  # int or str
    default: Any = None  # None: not given unless the user gives it
    min: int | None = None
    max: int | None = None
    choices: Sequence[str] | None = None
    metavar: str | None = None
    names: Sequence[str] = ()  # an int option's text values too (--board 7 or --board star37)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def describe(self) -> str:
        """What values are allowed, for messages and ``tbdb games``."""
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.type is int and self.names:
            return (Option(self.name, self.help, min=self.min, max=self.max).describe()
                    + " or one of " + ", ".join(repr(c) for c in self.names))
        if self.type is int:
            if self.min is not None and self.max is not None:
                return f"an integer from {self.min} to {self.max}"
            if self.min is not None:
                return f"an integer >= {self.min}"
            return "an integer"
        return "text"

    def convert(self, value: Any, text: bool = False, label: str | None = None) -> Any:
        """The value checked; with ``text`` (the command line) converted from text first.  A
        message names the option as it was given: its flag on the command line, its keyword in
        Python, else ``label`` (a positional argument)."""
        name = label or (self.flag if text else self.name)
        if isinstance(value, str) and value in self.names:
            return value
        if self.type is int:
            if isinstance(value, str) and text:
                text = value.strip()
                # int() would accept '٣' and '1_000'; the documented form is ASCII digits
                if not (text.isascii() and text.lstrip("-").isdigit()) or len(text) > 12:
                    raise InvalidOptionError(f"{name} must be {self.describe()}, "
                                             f"not {quote(value)}")
                value = int(text)
            elif isinstance(value, bool) or not _is_integer(value):
                raise InvalidOptionError(f"{name} must be {self.describe()}, not "
                                         f"{quote(value)}")
            value = int(value)
            if (self.min is not None and value < self.min) or \
                    (self.max is not None and value > self.max):
                raise InvalidOptionError(f"{name} must be {self.describe()}, not "
                                         f"{quote(value)}")
            return value
        if not isinstance(value, str):
            raise InvalidOptionError(f"{name} must be {self.describe()}, not {quote(value)}")
        if self.choices and value not in self.choices:
            raise InvalidOptionError(f"{name} must be {self.describe()}, not {quote(value)}")
        return value


def check_names(what: str, declared: Iterable[Option], given: dict[str, Any]) -> None:
    """Unknown option names raise ``InvalidOptionError`` (values are checked elsewhere)."""
    resolve(what, declared, {k: None for k in given}, defaults=False)


def _is_integer(value: Any) -> bool:
    import numbers
    return isinstance(value, numbers.Integral)


def resolve(what: str, declared: Iterable[Option], given: dict[str, Any],
            defaults: bool = True, text: bool = False) -> dict[str, Any]:
    """``given`` checked against ``declared``: unknown names and bad values raise
    ``InvalidOptionError``; declared defaults fill in what was not given (when ``defaults``).
    ``text``: values come from the command line as text."""
    if not given and not declared:  # a game without options (the common lookup): nothing to do
        return {}
    declared = {o.name: o for o in declared}
    unknown = [k for k in given if k not in declared]
    if unknown:
        names = ", ".join(f"{k if len(str(k)) <= 40 else quote(k)}={quote(given[k])}"
                          for k in unknown)
        known = ", ".join(sorted(declared)) or "no options"
        raise InvalidOptionError(f"{what} does not take {names} (it takes: {known})")
    out = {}
    for name, option in declared.items():
        if given.get(name) is not None:
            out[name] = option.convert(given[name], text)
        elif defaults and option.default is not None:
            out[name] = option.default
    return out
