"""Alembic environment: migrations run on the connection tbdb already holds.

DuckDB refuses two differently configured connections to one file within a process, so tbdb
passes its own SQLAlchemy connection in ``config.attributes["connection"]``.
"""
from alembic import context
from alembic.ddl.impl import DefaultImpl

from tbdb.db.models import metadata


class AlembicDuckDBImpl(DefaultImpl):
    """Teach Alembic the duckdb dialect (duckdb-engine does not register one)."""
    __dialect__ = "duckdb"
    transactional_ddl = True


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        from sqlalchemy import create_engine
        url = context.config.get_main_option("sqlalchemy.url") or "duckdb:///tbdb.duckdb"
        with create_engine(url).connect() as connection:
            _run(connection)
            connection.commit()
    else:
        _run(connection)


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
