"""Tic-tac-toe kernels: the smallest complete game on the level-by-level engine.

- ``index``: boards <-> codes (``encode``, ``decode``), canonical keys under the 8 symmetries
  (``SYM``, ``INVERSE``, ``canonical``, ``canonical_many``), a key's level and orbit size.
- ``moves``: terminal values (``has_line``, ``status``), every move of many keys with the
  canonical key after it (``expand``), and ``perft``.

The Python side (``tbdb.games.tictactoe``) picks the kernels and checks their inputs.
"""
