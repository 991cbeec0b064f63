"""What each game's position text looks like, in plain Python (no NumPy, no game module): what
``Game.recognises`` asks first, so that a lookup on probe files can tell a text's game before
any game is imported (``tbdb.probe_files.text_lookups``).  A game whose recognising also
parses the text (Chinese Checkers) says here only what it checks before parsing
(``PARSES``)."""
from __future__ import annotations

import re

FEN = re.compile(r"([1-8PNBRQKpnbrqk]+/){7}[1-8PNBRQKpnbrqk]+ [wb] \S+ \S+( \d+ \d+)?")
TICTACTOE = re.compile(r"[xo.]{9}")
UTTT = re.compile(r"start|[xoXOD.]{81} [xo] [0-8-]")
STAR_DISTANCE = "star-distance-"  # Chinese Checkers' one-player star tables
HOUSES = 12  # Oware


def cdc(text: str) -> bool:
    return text.count("/") == 3 and text[-2:] in (" r", " b")


def chess(text: str) -> bool:
    return bool(FEN.fullmatch(text.strip()))


def chinese_checkers(text: str) -> bool:
    """The rhombus ("7x7-3 ..."), a small star ("star37-3 ...") or a star distance placement;
    the game then parses it."""
    return text.startswith(STAR_DISTANCE) or (text[:1] in "3456789" and "x" in text[:3]) or \
        text[:7] in ("star13-", "star37-", "star73-")


def oware(text: str) -> bool:
    return text.count(" ") == HOUSES - 1 and "/" not in text


def shogi(text: str) -> bool:
    parts = text.split()
    if parts[:1] == ["sfen"]:
        parts = parts[1:]
    return parts == ["startpos"] or (len(parts) in (3, 4) and parts[0].count("/") == 8)


def tictactoe(text: str) -> bool:
    return bool(TICTACTOE.fullmatch(text))


def uttt(text: str) -> bool:
    return bool(UTTT.fullmatch(text))


#: per game name (``tbdb.games.REGISTRY``'s): whether a text is written in its notation
LOOKS = {"cdc": cdc, "chess": chess, "chinese-checkers": chinese_checkers, "oware": oware,
         "shogi": shogi, "tictactoe": tictactoe, "uttt": uttt}

#: the games that also parse a text to recognise it (``LOOKS`` is their first check only)
PARSES = frozenset({"chinese-checkers"})
