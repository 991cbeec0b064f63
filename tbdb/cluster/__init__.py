"""Cluster builds on Dask distributed: one task per table, each after the tables it reads.

``dask_build`` plans and runs the tasks; ``files`` writes a solved table as Parquet plus a
manifest; ``fs`` is where those files live (a directory or an fsspec URL).  ``tbdb import``
copies them into a database.  Names of ``dask_build`` import from here too, as they did when
the cluster was one module.
"""
from __future__ import annotations


def __getattr__(name: str):
    # ``from tbdb.cluster import build_cluster`` (the module this package replaced)
    import importlib
    dask_build = importlib.import_module("tbdb.cluster.dask_build")
    try:
        return getattr(dask_build, name)
    except AttributeError:
        raise AttributeError(f"module 'tbdb.cluster' has no attribute {name!r}") from None
