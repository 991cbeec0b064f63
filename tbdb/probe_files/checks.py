"""``tbdb verify --db DIR``: every file of a directory against its manifest, its checksums
and what lookups take on trust (``verify_dir``), or against the database it was exported from
(``compare_dir``, ``--against DB``: its kind's layout compares, ``Storage.probe_file.compare``)."""
from __future__ import annotations

import os

from tbdb.storage import storage_of
from tbdb.probe_files.container import ProbeFile, check_inside
from tbdb.probe_files.directory import ProbeDir, header_mismatch, sha256_file
from tbdb.probe_files.header import ProbeFileError
from tbdb.probe_files.verify_values import value_problems


def verify_dir(path: str, game: str | None = None) -> tuple[int, list[str]]:
    """(files checked, problems): every file of the manifest (of ``game``, a game's name)
    against its size, its sha256, its header and its sections' checksums."""
    d = ProbeDir(path)
    problems = []
    entries = {k: e for k, e in d.entries.items() if game is None or k[0] == game}
    sound: set = set()  # the tables whose files pass: their values are checked next
    for (g, t), e in sorted(entries.items()):
        fpath = os.path.join(path, e["path"])
        try:
            check_inside(fpath, path, "probe file")
            if os.path.getsize(fpath) != e["size"]:
                problems.append(f"{e['path']}: {os.path.getsize(fpath)} bytes, the manifest "
                                f"says {e['size']} (truncated or replaced)")
                continue
            if sha256_file(fpath) != e["sha256"]:
                f = ProbeFile(fpath)
                bad = f.verify() or ["the header does not match the manifest's sha256"]
                f.close()
                problems.append(f"{e['path']}: {bad[0]}")
                continue
            f = ProbeFile(fpath)
            differs = header_mismatch(e, f)
            f.close()
            if differs:  # what lookups refuse (entries swapped, a count edited): refused here
                problems.append(f"{e['path']}: not the file its manifest lists: {differs}; "
                                f"export it again")
                continue
            sound.add((g, t))
        except FileNotFoundError:
            problems.append(f"{e['path']}: missing (table {t!r} of {g}); export it again with: "
                            f"tbdb export --db DB --out {path} --game {g} --table {t}")
        except ProbeFileError as exc:
            problems.append(f"{e['path']}: {exc}")
    try:
        problems += value_problems(d, d.entries, sound)
    finally:
        d.close()
    return len(entries), problems


def compare_dir(path: str, db: str, game: str | None = None) -> tuple[int, list[str]]:
    """(files compared, problems): every slot, key and run of every file of directory
    ``path`` (of ``game``) decoded and compared with table ``db`` holds, field by field (a file
    exported with --no-moves is compared without best moves).  The database is opened
    read-only."""
    from tbdb import games
    from tbdb.db.store import Store
    d = ProbeDir(path)
    name = games.get(game).name if game else None
    problems: list[str] = []
    checked = 0
    states: dict[str, dict[str, str]] = {}  # per game: one catalogue query, not one per file
    with Store(db, read_only=True) as store:
        for (g, t), e in sorted(d.entries.items()):
            if name is not None and g != name:
                continue
            if g not in states:
                states[g] = store.states(g)
            row = store.table(g, t)
            if row is None or states[g].get(t) != "done":
                problems.append(f"{e['path']}: table {t!r} of {g} is not built in {db!r}")
                continue
            f = d.open_file(g, t)
            try:
                table = storage_of(f.storage).probe_file.table(storage_of(row), d, row, f)
                wrong = storage_of(row).probe_file.compare(table, f, store, row)
            except ProbeFileError as exc:
                wrong = [str(exc)]
            problems += [f"{e['path']}: {w}" for w in wrong]
            checked += 1
    d.close()
    return checked, problems
