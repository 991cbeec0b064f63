"""Chinese Checkers' Numba kernels (arrays and scalars in, arrays out; the game is
``tbdb.games.chinese_checkers``).

    geometry.py   cells, neighbours and goals of the rhombus and the star (plain numpy)
    moves.py      steps and hop chains, moves of a board, perft
    index.py      the rhombus table index: colex ranks, mirror classes, slot <-> position, probing
    tables.py     the retrograde space of a rhombus table: census / children / parents
    distance.py   the star's single-agent distance tables: breadth-first levels and their check
"""
