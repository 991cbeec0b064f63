"""Chess endgames of 3 to 5 pieces: the game's room.  Rules: docs/rules/chess.md.

- ``material``: materials as Syzygy names them (``KQvKR``), the stronger side first, and what
  their captures and promotions lead to.
- ``position``: the ``Position`` and ``Move`` value types and their text (FEN; UCI and SAN).
- ``tables``: a table's index space (``ChessSpace``).
- ``game``: ``ChessGame``, the plug-in the registry names.

Its kernels are in ``solvers/chess/`` (``tbdb.solvers.chess``).
"""
from tbdb.games.chess.material import Material, all_materials
from tbdb.games.chess.position import Move, Position, san
from tbdb.games.chess.game import ChessGame

__all__ = ["ChessGame", "Material", "Move", "Position", "all_materials", "san"]
