"""Core schema: build checkpoints, CDC tables, and the first views.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# A frozen copy of sql/*.sql as of this revision: views change in later migrations, never here.
VIEWS = r"""
-- Text forms of CDC squares and moves, computed from the compact stored columns.
-- Squares: 0 = a1, 7 = h1, 24 = a4.  Move codes: from * 32 + to, plus 1024 for a capture.
CREATE OR REPLACE MACRO cdc_square_name(s) AS
    chr(97 + s % 8) || CAST(s // 8 + 1 AS VARCHAR);

CREATE OR REPLACE MACRO cdc_move_text(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         ELSE cdc_square_name((code % 1024) // 32)
              || CASE WHEN code >= 1024 THEN 'x' ELSE '-' END
              || cdc_square_name(code % 32) END;

-- A position's text: the index layout's pattern (cdc_squares.pattern, slots written A, B, C, D)
-- with each slot's letter put in, and the side to move.
CREATE OR REPLACE MACRO cdc_position_text(pattern, letters, side) AS
    translate(pattern, 'ABCD', letters) || CASE WHEN side = 0 THEN ' r' ELSE ' b' END;

-- One row per stored (canonical) CDC position, readable.
-- result is for the side to move; distance in plies; multiplicity = placements the row stands for.
CREATE OR REPLACE VIEW cdc_positions AS
SELECT
    t.material,
    t.pieces,
    CASE v.side WHEN 0 THEN 'red' ELSE 'black' END AS side_to_move,
    cdc_position_text(q.pattern, t.letters, v.side) AS position,
    CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS result,
    v.distance,
    cdc_move_text(v.best_move) AS best_move,
    v.material_id,
    v.idx,
    v.multiplicity
FROM cdc_values AS v
JOIN cdc_tables AS t USING (material_id)
JOIN cdc_squares AS q ON q.shape = t.shape AND q.idx = v.idx;

-- Per game, material and side to move: how positions divide into wins, draws and losses.
-- Counts are over every placement a player would count (rows weighted by multiplicity), and a
-- CDC table XvY also reports YvX (colours and side to move swapped).
CREATE OR REPLACE VIEW draw_analysis AS
WITH cdc AS (
    SELECT
        material_id,
        side,
        SUM(multiplicity) AS positions,
        COALESCE(SUM(multiplicity) FILTER (WHERE result = 1), 0) AS wins,
        COALESCE(SUM(multiplicity) FILTER (WHERE result = 0), 0) AS draws,
        COALESCE(SUM(multiplicity) FILTER (WHERE result = -1), 0) AS losses,
        MAX(distance) FILTER (WHERE result = 1) AS longest_win,
        MAX(distance) FILTER (WHERE result = -1) AS longest_loss
    FROM cdc_values
    GROUP BY material_id, side
),
oriented AS (
    SELECT t.material, t.pieces, c.side, c.positions, c.wins, c.draws, c.losses, c.longest_win,
           c.longest_loss
    FROM cdc AS c JOIN cdc_tables AS t USING (material_id)
    UNION ALL
    SELECT t.swapped_material, t.pieces, 1 - c.side, c.positions, c.wins, c.draws, c.losses, c.longest_win,
           c.longest_loss
    FROM cdc AS c JOIN cdc_tables AS t USING (material_id)
    WHERE t.swapped_material <> t.material
)
SELECT
    'cdc' AS game,
    material,
    pieces,
    CASE side WHEN 0 THEN 'red' ELSE 'black' END AS side_to_move,
    CAST(positions AS BIGINT) AS positions,
    CAST(wins AS BIGINT) AS wins,
    CAST(draws AS BIGINT) AS draws,
    CAST(losses AS BIGINT) AS losses,
    draws / positions AS draw_rate,
    longest_win,
    longest_loss
FROM oriented;

-- Per stored table: how much the symmetries save.
-- raw_positions: the material's own placements x 2 sides to move; positions_answered adds the
-- colour-swapped material the same rows answer; fixed_positions: placements that a
-- non-identity board symmetry maps to themselves.
CREATE OR REPLACE VIEW symmetry_stats AS
SELECT
    'cdc' AS game,
    t.material AS table_name,
    t.swapped_material AS also_answers,
    CAST(SUM(v.multiplicity) AS BIGINT) AS raw_positions,
    COUNT(*) AS canonical_rows,
    SUM(v.multiplicity) / COUNT(*) AS reduction_factor,
    CAST(SUM(v.multiplicity) * CASE WHEN t.swapped_material = t.material THEN 1 ELSE 2 END
         AS BIGINT) AS positions_answered,
    SUM(v.multiplicity) * CASE WHEN t.swapped_material = t.material THEN 1 ELSE 2 END
        / COUNT(*) AS total_reduction_factor,
    CAST(COALESCE(SUM(v.multiplicity) FILTER (WHERE v.multiplicity < 4), 0) AS BIGINT)
        AS fixed_positions
FROM cdc_values AS v
JOIN cdc_tables AS t USING (material_id)
GROUP BY t.material, t.swapped_material;

-- Per game: how far a build has come, from the checkpoint rows (what a resume will skip).
CREATE OR REPLACE VIEW build_progress AS
SELECT
    game,
    COUNT(*) AS tables,
    COUNT(*) FILTER (WHERE state = 'done') AS done,
    COUNT(*) FILTER (WHERE state = 'building') AS building,
    COUNT(*) FILTER (WHERE state = 'pending') AS pending,
    CAST(SUM(rows) FILTER (WHERE state = 'done') AS BIGINT) AS rows_done,
    SUM(seconds) FILTER (WHERE state = 'done') AS seconds_done
FROM build_checkpoints
GROUP BY game;
"""


def upgrade() -> None:
    op.create_table(
        "build_checkpoints",
        sa.Column("game", sa.String, primary_key=True),
        sa.Column("table_name", sa.String, primary_key=True),
        sa.Column("state", sa.String, nullable=False),
        sa.Column("rows", sa.BigInteger),
        sa.Column("started", sa.DateTime),
        sa.Column("finished", sa.DateTime),
        sa.Column("seconds", sa.Float),
    )
    op.create_table(
        "cdc_tables",
        sa.Column("material_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("material", sa.String, nullable=False),
        sa.Column("swapped_material", sa.String, nullable=False),
        sa.Column("pieces", sa.SmallInteger, nullable=False),
        sa.Column("letters", sa.String, nullable=False),
        sa.Column("shape", sa.String, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "cdc_values",
        sa.Column("material_id", sa.Integer, nullable=False),
        sa.Column("side", sa.SmallInteger, nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("result", sa.SmallInteger, nullable=False),
        sa.Column("distance", sa.SmallInteger, nullable=False),
        sa.Column("best_move", sa.SmallInteger, nullable=False),
        sa.Column("multiplicity", sa.SmallInteger, nullable=False),
    )
    op.create_table(
        "cdc_squares",
        sa.Column("shape", sa.String, nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("pattern", sa.String, nullable=False),
        sa.Column("s0", sa.SmallInteger),
        sa.Column("s1", sa.SmallInteger),
        sa.Column("s2", sa.SmallInteger),
        sa.Column("s3", sa.SmallInteger),
    )
    for statement in split_sql(VIEWS):
        op.execute(statement)


def downgrade() -> None:
    for view in ("build_progress", "symmetry_stats", "draw_analysis", "cdc_positions"):
        op.execute(f"DROP VIEW IF EXISTS {view}")
    for macro in ("cdc_position_text", "cdc_move_text", "cdc_square_name"):
        op.execute(f"DROP MACRO IF EXISTS {macro}")
    for table in ("cdc_squares", "cdc_values", "cdc_tables", "build_checkpoints"):
        op.drop_table(table)


def split_sql(text: str) -> list[str]:
    """Statements of a .sql text (comments dropped; no statement here has a ';' in a string)."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
