"""Oware books: runs of equal values by plies left, position texts, convergence per book.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# Frozen copies of sql/03_draw_analysis.sql (now with Oware) and sql/06_oware.sql.
VIEWS = r"""
-- Per game, material and side to move: how positions divide into wins, draws and losses.
-- CDC: counts are over every placement a player would count (rows weighted by multiplicity), and
-- a table XvY also reports YvX (colours and side to move swapped).
-- Oware: per seed count, positions seen from the mover, with 200 plies left: a win, draw or loss
-- is a positive, zero or negative net score (no distances: the value is a score).
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
),
oware AS (
    SELECT
        seeds,
        COUNT(*) AS positions,
        COUNT(*) FILTER (WHERE score > 0) AS wins,
        COUNT(*) FILTER (WHERE score = 0) AS draws,
        COUNT(*) FILTER (WHERE score < 0) AS losses
    FROM oware_runs
    WHERE turns_left_to = 200
    GROUP BY seeds
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
FROM oriented
UNION ALL
SELECT
    'oware' AS game,
    CAST(seeds AS VARCHAR) || ' seeds' AS material,
    seeds AS pieces,
    'mover' AS side_to_move,
    positions,
    wins,
    draws,
    losses,
    draws / positions AS draw_rate,
    NULL AS longest_win,
    NULL AS longest_loss
FROM oware;

-- Oware books, readable: score is the value for every plies-left t in
-- [turns_left_from, turns_left_to]; a position's last run reaches 200.
CREATE OR REPLACE VIEW oware_values AS
SELECT
    r.seeds,
    r.idx,
    p.position,
    r.turns_left_from,
    r.turns_left_to,
    r.score,
    CASE WHEN r.best_move < 0 THEN NULL ELSE r.best_move END AS best_move
FROM oware_runs AS r
JOIN oware_positions AS p USING (seeds, idx);
"""


def upgrade() -> None:
    op.create_table(
        "oware_runs",
        sa.Column("seeds", sa.SmallInteger, nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("turns_left_from", sa.SmallInteger, nullable=False),
        sa.Column("turns_left_to", sa.SmallInteger, nullable=False),
        sa.Column("score", sa.SmallInteger, nullable=False),
        sa.Column("best_move", sa.SmallInteger, nullable=False),
    )
    op.create_table(
        "oware_positions",
        sa.Column("seeds", sa.SmallInteger, nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("position", sa.String, nullable=False),
    )
    op.create_table(
        "oware_convergence",
        sa.Column("seeds", sa.SmallInteger, primary_key=True, autoincrement=False),
        sa.Column("stable_from", sa.SmallInteger, nullable=False),
        sa.Column("moves_stable_from", sa.SmallInteger, nullable=False),
        sa.Column("positions", sa.BigInteger, nullable=False),
        sa.Column("runs", sa.BigInteger, nullable=False),
    )
    for statement in split_sql(VIEWS):
        op.execute(statement)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS oware_values")
    op.execute("DROP VIEW IF EXISTS draw_analysis")
    for table in ("oware_convergence", "oware_positions", "oware_runs"):
        op.drop_table(table)
    # draw_analysis as revision 0001 had it
    from importlib import import_module
    core = import_module("tbdb.migrations.versions.0001_core")
    for statement in split_sql(core.VIEWS):
        if "VIEW draw_analysis" in statement:
            op.execute(statement)


def split_sql(text: str) -> list[str]:
    """Statements of a .sql text (comments dropped; no statement here has a ';' in a string)."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
