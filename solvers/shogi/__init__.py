"""Shogi's Numba kernels (arrays and scalars in, arrays out; the game is ``tbdb.games.shogi``).

    moves.py    board and move codes, legal moves, make / unmake, perft
    index.py    table descriptions, rank / unrank, canonical form (colour swap, mirror), probing
    tables.py   the retrograde space of a table: census / children / parents
    text.py     SFEN parsed, checked, rewritten and placed in its table in one call
"""
