"""Index values kept in Parquet files outside the database (cluster builds).

The stored rows move to ``tb_index_rows``; ``tb_index_files`` records, per table whose values
stay in a Parquet file, the file and its size, rows and sha256; ``tb_index_values`` becomes a
view of both (``sql/04_index_values.sql`` is its form with no files; ``tbdb.db.store`` rewrites it
with the files' paths whenever a file is recorded or dropped).  Every query that read
``tb_index_values`` reads the same rows as before.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# frozen copy of sql/04_index_values.sql as of this revision
VIEW = """
CREATE OR REPLACE VIEW tb_index_values AS
SELECT table_id, idx, result, distance, best_move, multiplicity
FROM tb_index_rows
"""


def upgrade() -> None:
    op.execute("ALTER TABLE tb_index_values RENAME TO tb_index_rows")
    op.create_table(
        "tb_index_files",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("path", sa.String, nullable=False),
        sa.Column("rows", sa.BigInteger, nullable=False),
        sa.Column("bytes", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String, nullable=False),
    )
    op.execute(VIEW)


def downgrade() -> None:
    conn = op.get_bind()
    if conn.execute(sa.text("SELECT count(*) FROM tb_index_files")).scalar():
        raise NotImplementedError("tables keep their values in Parquet files: copy them into "
                                  "the database first (tbdb import DIR)")
    op.execute("DROP VIEW tb_index_values")
    op.drop_table("tb_index_files")
    op.execute("ALTER TABLE tb_index_rows RENAME TO tb_index_values")
