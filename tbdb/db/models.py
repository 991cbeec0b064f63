"""The schema, one for every game, as SQLAlchemy table models (migrations in ``migrations/``).

A game never adds a table: its tables are rows of ``tb_tables`` and their values rows of one of
three value tables, by how the table is keyed and what it stores:

* ``tb_index_rows`` -- a dense index (row number of a position in its table's index function);
  win/draw/loss, distance and best move (CDC).  A table may keep these rows in a Parquet file
  instead (a cluster build): ``tb_index_files`` records the file, and the view
  ``tb_index_values`` reads both.
* ``tb_key_values`` -- an exact canonical key of two 64-bit words plus a small constraint
  (e.g. the board UTTT's mover must play in); win/draw/loss, distance and best move
  (tic-tac-toe).  Keys are exact encodings, never lossy hashes: no two positions ever share a
  row.
* ``tb_score_runs`` -- a net score by plies left, as runs of plies over which score and best
  move stay the same (Oware).

Bulk tables carry no primary key or index on purpose: DuckDB loads them many times faster without,
prunes scans with its zone maps on the insertion order, and cannot ALTER an indexed table.
Their natural keys are documented per table.
"""
from sqlalchemy import (BigInteger, Column, DateTime, Float, Integer, MetaData, SmallInteger,
                        String, Table)

metadata = MetaData()

# One row per table of a build: pending -> building -> done.  'done' is committed in the same
# transaction as the table's rows, so a done row always means a complete table.
build_checkpoints = Table(
    "build_checkpoints", metadata,
    Column("game", String, primary_key=True),
    Column("table_name", String, primary_key=True),
    Column("state", String, nullable=False),
    Column("rows", BigInteger),
    Column("started", DateTime),
    Column("finished", DateTime),
    Column("seconds", Float),
)

# Levels of a level-by-level table already stored (a killed build resumes after the last one);
# natural key (game, table_name, level).
build_levels = Table(
    "build_levels", metadata,
    Column("game", String, nullable=False),
    Column("table_name", String, nullable=False),
    Column("level", SmallInteger, nullable=False),
    Column("rows", BigInteger, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("finished", DateTime, nullable=False),
)

# The catalogue: one row per stored table of any game; natural key (game, table_name).
tb_tables = Table(
    "tb_tables", metadata,
    Column("table_id", Integer, primary_key=True, autoincrement=False),
    Column("game", String, nullable=False),
    Column("table_name", String, nullable=False),
    Column("storage", String, nullable=False),  # 'index', 'key' or 'runs'
    Column("params", String, nullable=False),  # JSON: what the game needs to read the table
    Column("layout", String),  # key into tb_texts (texts shared by tables of one layout)
    Column("slots", BigInteger, nullable=False),  # index range (index tables), else rows
    Column("positions", BigInteger, nullable=False),  # stored rows
    Column("raw_positions", BigInteger, nullable=False),  # positions the rows stand for
    Column("positions_answered", BigInteger, nullable=False),  # with colour/player swaps
    Column("fixed_positions", BigInteger, nullable=False),  # raw positions a symmetry fixes
    Column("illegal", BigInteger, nullable=False),  # stored positions the rules forbid
    Column("mode", String, nullable=False),  # how it was solved: edges, edge-free, levels, ...
    Column("seconds", Float, nullable=False),
    Column("built", DateTime, nullable=False),
    Column("estimate_bytes", BigInteger),  # the peak expected when its mode was chosen
    Column("peak_bytes", BigInteger),  # the resident memory measured while solved and written
)

# Per table and, as a player names them, a label (e.g. a piece signature) and side to move: how its
# positions divide (counted as a player counts them).  draw_analysis reads it; natural key
# (table_id, label, side_to_move).
tb_stats = Table(
    "tb_stats", metadata,
    Column("table_id", Integer, nullable=False),
    Column("label", String, nullable=False),
    Column("pieces", SmallInteger, nullable=False),
    Column("side_to_move", String, nullable=False),
    Column("positions", BigInteger, nullable=False),
    Column("wins", BigInteger, nullable=False),
    Column("draws", BigInteger, nullable=False),
    Column("losses", BigInteger, nullable=False),
    Column("illegal", BigInteger, nullable=False),
    Column("longest_win", SmallInteger),
    Column("longest_loss", SmallInteger),
)

# Values of dense-index tables; natural key (table_id, idx).  result: 1 win, 0 draw, -1 loss
# for the side to move, -2 a position the rules forbid; distance in plies; best_move a game
# move code (-1 none); multiplicity the raw positions a canonical row stands for.
tb_index_rows = Table(
    "tb_index_rows", metadata,
    Column("table_id", Integer, nullable=False),
    Column("idx", BigInteger, nullable=False),
    Column("result", SmallInteger, nullable=False),
    Column("distance", SmallInteger, nullable=False),
    Column("best_move", Integer, nullable=False),
    Column("multiplicity", SmallInteger, nullable=False),
)

# Dense-index tables whose rows stay in a Parquet file (idx, result, distance, best_move,
# multiplicity as in tb_index_rows, less table_id): the file's absolute path or URL, its rows,
# bytes and sha256.  Natural key table_id.
tb_index_files = Table(
    "tb_index_files", metadata,
    Column("table_id", Integer, nullable=False),
    Column("path", String, nullable=False),
    Column("rows", BigInteger, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("sha256", String, nullable=False),
)

# Values of key tables; natural key (table_id, key0, key1, key_constraint).  level orders the
# build (every move lowers it); other columns as in tb_index_rows.
tb_key_values = Table(
    "tb_key_values", metadata,
    Column("table_id", Integer, nullable=False),
    Column("level", SmallInteger, nullable=False),
    Column("key0", BigInteger, nullable=False),
    Column("key1", BigInteger, nullable=False),
    Column("key_constraint", SmallInteger, nullable=False),
    Column("result", SmallInteger, nullable=False),
    Column("distance", SmallInteger, nullable=False),
    Column("best_move", Integer, nullable=False),
    Column("multiplicity", SmallInteger, nullable=False),
)

# Score-by-plies-left tables: per position (idx) the runs of plies left (turns_left_from ..
# turns_left_to) over which (score, best_move) is constant; a position's last run ends at the
# table's horizon.  Natural key (table_id, idx, turns_left_from).
tb_score_runs = Table(
    "tb_score_runs", metadata,
    Column("table_id", Integer, nullable=False),
    Column("idx", BigInteger, nullable=False),
    Column("turns_left_from", SmallInteger, nullable=False),
    Column("turns_left_to", SmallInteger, nullable=False),
    Column("score", SmallInteger, nullable=False),
    Column("best_move", Integer, nullable=False),
)

# Readable text per index of a layout (shared by every table with that layout), for the games'
# readable views; natural key (layout, idx).
tb_texts = Table(
    "tb_texts", metadata,
    Column("layout", String, nullable=False),
    Column("idx", BigInteger, nullable=False),
    Column("text", String, nullable=False),
)
