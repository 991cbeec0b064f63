"""Chinese Dark Chess (revealed endgames): the game's room.  Rules: docs/rules/cdc.md.

- ``material``: pieces and material signatures (``Material``, ``KGvR``): what names a table.
- ``position``: the ``Position`` and ``Move`` value types and their text (``4g2K/8/8/8 r``,
  ``b1xd1``).
- ``tables``: a table's index space (``CdcSpace``) and the tables a material's captures lead to.
- ``game``: ``CdcGame``, the plug-in the registry names (plan, describe, locate, batch forms).

Its kernels are in ``solvers/cdc/`` (``tbdb.solvers.cdc``), its SQL views in sql/games/cdc.sql.
"""
from tbdb.games.cdc.material import BLACK, LETTERS, MAX_PER_SIDE, MAX_PIECES, RED, Material, \
    PieceCode, all_materials, piece_letter
from tbdb.games.cdc.position import SIDE_NAMES, Move, Position, Square, parse_square, square_name
from tbdb.games.cdc.game import CdcGame

__all__ = ["BLACK", "LETTERS", "MAX_PER_SIDE", "MAX_PIECES", "RED", "SIDE_NAMES", "CdcGame",
           "Material", "Move", "PieceCode", "Position", "Square", "all_materials", "parse_square",
           "piece_letter", "square_name"]
