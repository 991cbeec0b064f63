"""The schema as SQLAlchemy table models; Alembic migrations in ``migrations/`` create it.

Bulk tables carry no primary key or index on purpose: DuckDB loads them ~15x faster without,
prunes scans with its zone maps, and cannot ALTER a table that has an index.  Their natural key
is documented per table.
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

# A stored CDC material table; a table for XvY also answers swapped_material (YvX).
cdc_tables = Table(
    "cdc_tables", metadata,
    Column("material_id", Integer, primary_key=True, autoincrement=False),
    Column("material", String, nullable=False),
    Column("swapped_material", String, nullable=False),
    Column("pieces", SmallInteger, nullable=False),
    Column("letters", String, nullable=False),  # piece letters in index (slot) order
    Column("shape", String, nullable=False),  # index layout: the key into cdc_squares
    Column("size", BigInteger, nullable=False),  # indices per side to move
)

# One row per canonical CDC position; natural key (material_id, side, idx).
cdc_values = Table(
    "cdc_values", metadata,
    Column("material_id", Integer, nullable=False),
    Column("side", SmallInteger, nullable=False),  # 0 red, 1 black to move
    Column("idx", Integer, nullable=False),
    Column("result", SmallInteger, nullable=False),  # 1 win, 0 draw, -1 loss for the mover
    Column("distance", SmallInteger, nullable=False),  # plies
    Column("best_move", SmallInteger, nullable=False),  # from*32+to (+1024 capture); -1 none
    Column("multiplicity", SmallInteger, nullable=False),  # placements the row stands for
)

# The squares of every index of an index layout (shared by all materials of that shape);
# natural key (shape, idx).  pattern is the board text with slot j written as 'ABCD'[j]
# (cdc_position_text puts the letters in); s<j> is the square of slot j, NULL past the pieces.
cdc_squares = Table(
    "cdc_squares", metadata,
    Column("shape", String, nullable=False),
    Column("idx", Integer, nullable=False),
    Column("pattern", String, nullable=False),
    Column("s0", SmallInteger),
    Column("s1", SmallInteger),
    Column("s2", SmallInteger),
    Column("s3", SmallInteger),
)

# Oware books: one row per run of plies-left t (turns_left_from..turns_left_to) over which a
# position's (score, best_move) is constant; natural key (seeds, idx, turns_left_from).
oware_runs = Table(
    "oware_runs", metadata,
    Column("seeds", SmallInteger, nullable=False),
    Column("idx", Integer, nullable=False),
    Column("turns_left_from", SmallInteger, nullable=False),
    Column("turns_left_to", SmallInteger, nullable=False),
    Column("score", SmallInteger, nullable=False),  # net seeds the mover still gains
    Column("best_move", SmallInteger, nullable=False),  # lowest optimal house 0-5; -1 none
)

# The text of every Oware position of a built book; natural key (seeds, idx).
oware_positions = Table(
    "oware_positions", metadata,
    Column("seeds", SmallInteger, nullable=False),
    Column("idx", Integer, nullable=False),
    Column("position", String, nullable=False),
)

# Per book: from which plies-left on nothing changes any more (scores; scores and best moves).
oware_convergence = Table(
    "oware_convergence", metadata,
    Column("seeds", SmallInteger, primary_key=True, autoincrement=False),
    Column("stable_from", SmallInteger, nullable=False),
    Column("moves_stable_from", SmallInteger, nullable=False),
    Column("positions", BigInteger, nullable=False),
    Column("runs", BigInteger, nullable=False),
)
