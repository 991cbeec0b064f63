"""Chinese Dark Chess (revealed endgames) kernels: arrays and scalars in, arrays out.

- ``moves``: the board, piece and move codes; move generation (``moves_of_board``).
- ``index``: a material's ``desc``; placements <-> indices, canonical under the four board
  symmetries (``table_size``, ``index_of``, ``unrank``, ``canonical``, ``unrank_many``).
- ``edges``: a table's slots, children and parents (``census``, ``children``, ``parents``),
  as docs/kernel-contract.md asks.
- ``locate``: probing: boards to slots and symmetries, material keys, batch checks.
- ``text``: position text to board in one call (``read_text``), slot patterns as text.

The Python side (``tbdb.games.cdc``) picks the kernels and checks their inputs.
"""
