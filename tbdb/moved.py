"""Old module names that still import: the modules that moved into tbdb's rooms.

``import tbdb.engine`` (now ``tbdb.retrograde.driver``) and the like keep working for code
written against an older tbdb; a finder on ``sys.meta_path`` hands back the module under its
new name, so both names are one module object.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "tbdb.engine": "tbdb.retrograde.driver", "tbdb.compact": "tbdb.retrograde.compact",
    "tbdb.budget": "tbdb.retrograde.budget", "tbdb.level_store": "tbdb.storage.shared_levels",
    "tbdb.memory": "tbdb.retrograde.memory",
    "tbdb.store": "tbdb.db.store", "tbdb.database": "tbdb.db.connect",
    "tbdb.catalogue": "tbdb.db.catalogue", "tbdb.models": "tbdb.db.models",
    "tbdb.untrusted": "tbdb.db.untrusted", "tbdb.sql_files": "tbdb.db.sql_files",
    "tbdb.sql_functions": "tbdb.db.sql_functions", "tbdb.verify_rows": "tbdb.db.verify_rows",
    "tbdb.storage.parquet": "tbdb.db.values_files",
    "tbdb.cluster_files": "tbdb.cluster.files", "tbdb.cluster_fs": "tbdb.cluster.fs",
    "tbdb.uci": "tbdb.protocols.uci", "tbdb.usi": "tbdb.protocols.usi",
    "tbdb.usi_fallback": "tbdb.protocols.usi_fallback",
    "tbdb.usi_tsume": "tbdb.protocols.usi_tsume", "tbdb.engine_session": "tbdb.protocols.session",
    "tbdb.sqlshell": "tbdb.cli.sql", "tbdb.command": "tbdb.cli",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in MOVED:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module):
        pass  # already run under its new name


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
