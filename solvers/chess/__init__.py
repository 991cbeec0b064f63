"""Chess endgame kernels: arrays and scalars in, arrays out.

- ``moves``: the board, piece and move codes; legal moves (en passant, promotions, no
  castling), make/unmake, attacks, perft.
- ``index``: a material's ``desc``; placements <-> slots, canonical under the board's
  symmetries (8 without pawns, the left-right mirror with them).
- ``edges``: a table's slots, children and parents (``census``, ``children``, ``parents``),
  as docs/kernel-contract.md asks; ``follow`` lists a position's moves and follows them to
  their child slots, ``parents`` undoes them.

The Python side (``tbdb.games.chess``) picks the kernels and checks their inputs.
"""
