"""One schema for every game: a table catalogue, generic value tables, per-table statistics.

The per-game tables of revisions 0001/0002 (cdc_tables, cdc_values, cdc_squares, oware_runs,
oware_positions, oware_convergence) are copied into the generic tables and dropped; their
readable views come back from sql/games/*.sql, which every build (re)applies.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# Frozen copies of sql/01..03 as of this revision: views change in later migrations, never here.
VIEWS = r"""
CREATE OR REPLACE VIEW draw_analysis AS
SELECT
    t.game,
    t.table_name,
    s.label AS material,
    s.pieces,
    s.side_to_move,
    s.positions,
    s.wins,
    s.draws,
    s.losses,
    s.illegal,
    CASE WHEN s.positions > 0 THEN s.draws / s.positions END AS draw_rate,
    s.longest_win,
    s.longest_loss
FROM tb_stats AS s
JOIN tb_tables AS t USING (table_id);

CREATE OR REPLACE VIEW symmetry_stats AS
SELECT
    t.game,
    t.table_name,
    t.raw_positions,
    t.positions AS canonical_rows,
    CASE WHEN t.positions > 0 THEN t.raw_positions / t.positions END AS reduction_factor,
    t.positions_answered,
    CASE WHEN t.positions > 0 THEN t.positions_answered / t.positions END
        AS total_reduction_factor,
    t.fixed_positions,
    t.illegal,
    t.mode
FROM tb_tables AS t
JOIN build_checkpoints AS c ON c.game = t.game AND c.table_name = t.table_name
WHERE c.state = 'done';

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

# The data of revisions 0001/0002 in the generic tables: CDC tables first (by material_id),
# then the Oware books; conventions as tbdb/games/cdc/ and tbdb/games/oware/ write them.
COPY = r"""
CREATE TEMP TABLE _ids AS
SELECT row_number() OVER (ORDER BY kind, key) AS table_id, kind, key
FROM (SELECT 0 AS kind, material_id AS key FROM cdc_tables
      UNION ALL SELECT 1, seeds FROM oware_convergence);

CREATE TEMP TABLE _cdc AS
SELECT i.table_id, t.*, c.finished, c.seconds,
       (SELECT count(*) FROM cdc_values v WHERE v.material_id = t.material_id) AS nrows,
       (SELECT sum(multiplicity) FROM cdc_values v WHERE v.material_id = t.material_id) AS raw,
       (SELECT coalesce(sum(multiplicity) FILTER (WHERE multiplicity < 4), 0) FROM cdc_values v
        WHERE v.material_id = t.material_id) AS fixed
FROM cdc_tables t
JOIN _ids i ON i.kind = 0 AND i.key = t.material_id
LEFT JOIN build_checkpoints c ON c.game = 'cdc' AND c.table_name = t.material;

INSERT INTO tb_tables
SELECT table_id, 'cdc', material, 'index',
       json_object('letters', letters, 'material', material, 'pieces', pieces, 'size', size,
                   'swapped', swapped_material)::VARCHAR,
       'cdc:' || shape, 2 * size, nrows, raw,
       raw * CASE WHEN swapped_material = material THEN 1 ELSE 2 END, fixed, 0, 'edges',
       coalesce(seconds, 0), coalesce(finished, now()::TIMESTAMP)
FROM _cdc;

INSERT INTO tb_index_values
SELECT c.table_id, v.side * c.size + v.idx, v.result, v.distance, v.best_move, v.multiplicity
FROM cdc_values v JOIN _cdc c USING (material_id)
ORDER BY c.table_id, v.side, v.idx;

INSERT INTO tb_texts
SELECT 'cdc:' || shape, idx, pattern FROM cdc_squares ORDER BY shape, idx;

INSERT INTO tb_stats
WITH per AS (
    SELECT material_id, side,
           SUM(multiplicity) AS positions,
           COALESCE(SUM(multiplicity) FILTER (WHERE result = 1), 0) AS wins,
           COALESCE(SUM(multiplicity) FILTER (WHERE result = 0), 0) AS draws,
           COALESCE(SUM(multiplicity) FILTER (WHERE result = -1), 0) AS losses,
           MAX(distance) FILTER (WHERE result = 1) AS longest_win,
           MAX(distance) FILTER (WHERE result = -1) AS longest_loss
    FROM cdc_values GROUP BY material_id, side
)
SELECT c.table_id, c.material, c.pieces, CASE p.side WHEN 0 THEN 'red' ELSE 'black' END,
       p.positions, p.wins, p.draws, p.losses, 0, p.longest_win, p.longest_loss
FROM per p JOIN _cdc c USING (material_id)
UNION ALL
SELECT c.table_id, c.swapped_material, c.pieces, CASE p.side WHEN 0 THEN 'black' ELSE 'red' END,
       p.positions, p.wins, p.draws, p.losses, 0, p.longest_win, p.longest_loss
FROM per p JOIN _cdc c USING (material_id)
WHERE c.swapped_material <> c.material;

INSERT INTO tb_tables
SELECT i.table_id, 'oware', c.table_name, 'runs',
       json_object('horizon', 200, 'moves_stable_from', o.moves_stable_from, 'seeds', o.seeds,
                   'stable_from', o.stable_from)::VARCHAR,
       'oware:' || c.table_name, o.positions, o.runs, o.positions, o.positions, 0, 0, 'runs',
       coalesce(c.seconds, 0), coalesce(c.finished, now()::TIMESTAMP)
FROM oware_convergence o
JOIN _ids i ON i.kind = 1 AND i.key = o.seeds
JOIN build_checkpoints c ON c.game = 'oware' AND c.table_name = printf('seeds-%02d', o.seeds);

INSERT INTO tb_score_runs
SELECT i.table_id, r.idx, r.turns_left_from, r.turns_left_to, r.score, r.best_move
FROM oware_runs r JOIN _ids i ON i.kind = 1 AND i.key = r.seeds
ORDER BY i.table_id, r.idx, r.turns_left_from;

INSERT INTO tb_texts
SELECT printf('oware:seeds-%02d', seeds), idx, position FROM oware_positions ORDER BY seeds, idx;

INSERT INTO tb_stats
SELECT i.table_id, CAST(r.seeds AS VARCHAR) || ' seeds', r.seeds, 'mover',
       COUNT(*), COUNT(*) FILTER (WHERE score > 0), COUNT(*) FILTER (WHERE score = 0),
       COUNT(*) FILTER (WHERE score < 0), 0, NULL, NULL
FROM oware_runs r JOIN _ids i ON i.kind = 1 AND i.key = r.seeds
WHERE r.turns_left_to = 200
GROUP BY i.table_id, r.seeds;

DROP TABLE _cdc;
DROP TABLE _ids
"""

OLD_VIEWS = ("oware_values", "build_progress", "symmetry_stats", "draw_analysis",
             "cdc_positions")
OLD_MACROS = ("cdc_position_text", "cdc_move_text", "cdc_square_name")
OLD_TABLES = ("oware_convergence", "oware_positions", "oware_runs", "cdc_squares", "cdc_values",
              "cdc_tables")


def upgrade() -> None:
    op.create_table(
        "build_levels",
        sa.Column("game", sa.String, nullable=False),
        sa.Column("table_name", sa.String, nullable=False),
        sa.Column("level", sa.SmallInteger, nullable=False),
        sa.Column("rows", sa.BigInteger, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("finished", sa.DateTime, nullable=False),
    )
    op.create_table(
        "tb_tables",
        sa.Column("table_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("game", sa.String, nullable=False),
        sa.Column("table_name", sa.String, nullable=False),
        sa.Column("storage", sa.String, nullable=False),
        sa.Column("params", sa.String, nullable=False),
        sa.Column("layout", sa.String),
        sa.Column("slots", sa.BigInteger, nullable=False),
        sa.Column("positions", sa.BigInteger, nullable=False),
        sa.Column("raw_positions", sa.BigInteger, nullable=False),
        sa.Column("positions_answered", sa.BigInteger, nullable=False),
        sa.Column("fixed_positions", sa.BigInteger, nullable=False),
        sa.Column("illegal", sa.BigInteger, nullable=False),
        sa.Column("mode", sa.String, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("built", sa.DateTime, nullable=False),
    )
    op.create_table(
        "tb_stats",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("label", sa.String, nullable=False),
        sa.Column("pieces", sa.SmallInteger, nullable=False),
        sa.Column("side_to_move", sa.String, nullable=False),
        sa.Column("positions", sa.BigInteger, nullable=False),
        sa.Column("wins", sa.BigInteger, nullable=False),
        sa.Column("draws", sa.BigInteger, nullable=False),
        sa.Column("losses", sa.BigInteger, nullable=False),
        sa.Column("illegal", sa.BigInteger, nullable=False),
        sa.Column("longest_win", sa.SmallInteger),
        sa.Column("longest_loss", sa.SmallInteger),
    )
    op.create_table(
        "tb_index_values",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("idx", sa.BigInteger, nullable=False),
        sa.Column("result", sa.SmallInteger, nullable=False),
        sa.Column("distance", sa.SmallInteger, nullable=False),
        sa.Column("best_move", sa.Integer, nullable=False),
        sa.Column("multiplicity", sa.SmallInteger, nullable=False),
    )
    op.create_table(
        "tb_key_values",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("level", sa.SmallInteger, nullable=False),
        sa.Column("key0", sa.BigInteger, nullable=False),
        sa.Column("key1", sa.BigInteger, nullable=False),
        sa.Column("key_constraint", sa.SmallInteger, nullable=False),
        sa.Column("result", sa.SmallInteger, nullable=False),
        sa.Column("distance", sa.SmallInteger, nullable=False),
        sa.Column("best_move", sa.Integer, nullable=False),
        sa.Column("multiplicity", sa.SmallInteger, nullable=False),
    )
    op.create_table(
        "tb_score_runs",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("idx", sa.BigInteger, nullable=False),
        sa.Column("turns_left_from", sa.SmallInteger, nullable=False),
        sa.Column("turns_left_to", sa.SmallInteger, nullable=False),
        sa.Column("score", sa.SmallInteger, nullable=False),
        sa.Column("best_move", sa.Integer, nullable=False),
    )
    op.create_table(
        "tb_texts",
        sa.Column("layout", sa.String, nullable=False),
        sa.Column("idx", sa.BigInteger, nullable=False),
        sa.Column("text", sa.String, nullable=False),
    )
    for statement in split_sql(COPY):
        op.execute(statement)
    for view in OLD_VIEWS:
        op.execute(f"DROP VIEW IF EXISTS {view}")
    for macro in OLD_MACROS:
        op.execute(f"DROP MACRO IF EXISTS {macro}")
    for table in OLD_TABLES:
        op.drop_table(table)
    for statement in split_sql(VIEWS):
        op.execute(statement)


def downgrade() -> None:
    raise NotImplementedError("the generic schema keeps data the per-game tables of 0002 cannot "
                              "hold (other games, key tables); there is no way back")


def split_sql(text: str) -> list[str]:
    """Statements of a .sql text (comments dropped; no statement here has a ';' in a string)."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
