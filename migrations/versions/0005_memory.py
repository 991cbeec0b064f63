"""What each table's solve took: ``tb_tables.estimate_bytes`` (the peak the build expected when
it chose the table's mode against ``--memory``) and ``peak_bytes`` (the resident memory
measured while it solved and wrote).  Tables built before this revision have neither (NULL).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # appended last: the catalogue row is bulk-loaded by position (INSERT ... SELECT *)
    op.add_column("tb_tables", sa.Column("estimate_bytes", sa.BigInteger))
    op.add_column("tb_tables", sa.Column("peak_bytes", sa.BigInteger))


def downgrade() -> None:
    op.drop_column("tb_tables", "peak_bytes")
    op.drop_column("tb_tables", "estimate_bytes")
