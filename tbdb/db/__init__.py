"""The database: a DuckDB file as tbdb writes and reads it.

``connect`` opens a file (paths checked, tbdb's settings, read-only connections);
``untrusted`` is what a read-only connection checks before it believes a file; ``store`` is
the open database a build writes and lookups read; ``models`` the schema (migrations in
``migrations/``); ``catalogue`` the built tables and checkpoints; ``sql_files`` and
``sql_functions`` the views and functions; ``verify_rows`` the catalogue checked against the
rows; ``values_files`` the Parquet values files a cluster build leaves, which the database
records and reads through a view.  The storage kinds (``tbdb.storage``) own the rows of each table.
"""
