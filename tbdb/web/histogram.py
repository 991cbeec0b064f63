"""How one stored table's values spread out: positions per (outcome, distance), or per score for
score games (Oware), for the tables page's histograms.

The catalogue keeps only totals per table (``tb_stats``: wins, draws, losses, longest win), not
a distribution, so this is a GROUP BY over the table's stored rows.  A table's rows were
bulk-loaded together, so DuckDB's zone maps skip the other tables' row groups and the scan
reads a few narrow columns of this table only, quick enough up to ``cap`` rows.  Above ``cap``
rows (10^7) it reads a systematic sample instead: ``SLICES`` runs of consecutive slots (index
or key order) spread evenly over the table, ``SAMPLE_ROWS`` (10^6) rows in all, and scales
the counts up.  Runs of slots, not DuckDB's TABLESAMPLE: a sample clause turns off the
zone-map pruning, so sampling a small table next to a big one would read both; a range of
slots keeps it.  The bars keep their shape, the counts are estimates and a rare distance (the
longest win) may be missed; the answer says so (``sample``: the fraction of the rows read).
The served file is read-only, so the app computes each histogram once and keeps it.
"""
from __future__ import annotations

from dataclasses import dataclass

from tbdb.errors import MissingTableError, quote
from tbdb.storage import storage_of

CAP = 10_000_000
SAMPLE_ROWS = 1_000_000
SLICES = 16  # each slice costs a few ms of its own; 16 keep the sample spread

# each storage kind (``tbdb.storage``) names its table of values, the GROUP BY over one table's
# rows ({src}: that table, sampled or not; parameter $id: the table_id) and how its rows read as
# bins.  Distances count positions as the rows stand for them (multiplicity: the raw positions
# a canonical row is); illegal rows and empty slots are left out, as draw_analysis counts them
# apart.


@dataclass(frozen=True)
class Bin:
    """Stored rows and the positions they stand for with one value: an outcome and a distance
    in plies, or (score games) a score with the most plies left."""
    rows: int
    positions: int
    outcome: str | None = None
    distance: int | None = None
    score: int | None = None

    def to_dict(self) -> dict:
        out = {"rows": self.rows, "positions": self.positions}
        if self.score is not None:
            out["score"] = self.score
        else:
            out["outcome"], out["distance"] = self.outcome, self.distance
        return out


@dataclass(frozen=True)
class Histogram:
    game: str
    table: str
    kind: str  # "distance" or "score"
    bins: tuple[Bin, ...]
    sample: float | None = None  # the fraction of the rows read when sampled (counts scaled up)

    def to_dict(self) -> dict:
        return {"game": self.game, "table": self.table, "kind": self.kind, "sample": self.sample,
                "rows": sum(b.rows for b in self.bins),
                "positions": sum(b.positions for b in self.bins),
                "bins": [b.to_dict() for b in self.bins]}


def histogram(tb, game: str, table: str, cap: int = CAP,
              sample_rows: int = SAMPLE_ROWS) -> Histogram:
    """The histogram of a built table of ``game`` (``tb``: an open tablebase), exact up to
    ``cap`` stored rows and estimated from a sample of about ``sample_rows`` rows above.
    Raises MissingTableError quoting the name when the file has no such table."""
    found = tb.sql("SELECT table_id, storage FROM tb_tables WHERE game = ? AND table_name = ?",
                   params=[game, table]).fetchall()
    if not found:
        known = [r[0] for r in tb.sql("SELECT table_name FROM tb_tables WHERE game = ? "
                                      "ORDER BY table_name", params=[game]).fetchall()]
        shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "") or "none"
        raise MissingTableError(f"no {game} table {quote(table)} in this file "
                                f"(built {game} tables: {shown})")
    table_id, name = found[0]
    storage = storage_of(name)
    values = storage.values
    (total,), = tb.sql(f"SELECT count(*) FROM {values} WHERE table_id = $id",
                       params={"id": table_id}).fetchall()
    sample = None
    src = values
    if total > cap:
        src = _slices(tb, values, storage.order, storage.columns, table_id,
                      min(1.0, sample_rows / total))
        (read,), = tb.sql(f"SELECT count(*) FROM {src}", params={"id": table_id}).fetchall()
        sample = read / total
    rows = tb.sql(storage.histogram_sql.format(src=src), params={"id": table_id}).fetchall()
    scale = 1 / sample if sample else 1
    bins = tuple(Bin(**kw) for kw in storage.histogram_bins(rows, scale))
    return Histogram(game, table, storage.histogram_kind, bins, sample)


def _slices(tb, values: str, order: str, columns: str, table_id: int, fraction: float) -> str:
    """A FROM item of about ``fraction`` of a table's rows: SLICES ranges of the ``order``
    column, evenly spread between its smallest and largest value in the table."""
    (lo, hi), = tb.sql(f"SELECT min({order}), max({order}) FROM {values} WHERE table_id = $id",
                       params={"id": table_id}).fetchall()
    span = int(hi) - int(lo) + 1
    width = max(1, int(span * fraction / SLICES))
    starts = sorted({int(lo) + span * k // SLICES for k in range(SLICES)})
    parts = [f"SELECT {columns} FROM {values} WHERE table_id = $id AND {order} BETWEEN {a} AND "
             f"{a + width - 1}" for a in starts]
    return "(" + " UNION ALL ".join(parts) + ")"
