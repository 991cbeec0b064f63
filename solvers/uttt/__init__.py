"""Ultimate Tic-Tac-Toe kernels (Numba: arrays and scalars in, arrays out).

- ``moves``: the position state row, move generation, playing a move, game end, perft
- ``keys``: exact canonical keys (two int64 words), their symmetries, encode / decode
- ``levels``: ``expand`` for the level-by-level engine, legality of a reduced position, the
  enumeration of every legal position with at most K empty cells
- ``batch``: the batch form, rows of cells / side / constraint -> canonical keys
"""
