"""What the search benchmarks (oware_search.py, cdc_search.py) share: match results with a
confidence interval, and the table they print."""
from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class Match:
    """Games of a player that probes tables against the same player without them, scored for
    the probing player (1 a win, 0.5 a draw, 0 a loss)."""
    name: str
    scores: list[float] = field(default_factory=list)
    nodes: dict[str, int] = field(default_factory=lambda: {"with": 0, "without": 0})
    seconds: dict[str, float] = field(default_factory=lambda: {"with": 0.0, "without": 0.0})
    moves: dict[str, int] = field(default_factory=lambda: {"with": 0, "without": 0})
    probes: int = 0
    table_moves: int = 0  # moves the probing player took straight from a table at the root

    @property
    def games(self) -> int:
        return len(self.scores)

    def wdl(self) -> tuple[int, int, int]:
        return (sum(s == 1 for s in self.scores), sum(s == 0.5 for s in self.scores),
                sum(s == 0 for s in self.scores))

    def score(self) -> tuple[float, float]:
        """Mean score and the half-width of its 95% confidence interval (normal approximation
        over the games' scores; with colours swapped per opening, each pair is one sample
        would be tighter, but games are close to independent here)."""
        n = len(self.scores)
        mean = sum(self.scores) / n
        var = sum((s - mean) ** 2 for s in self.scores) / (n - 1) if n > 1 else 0.0
        return mean, 1.96 * math.sqrt(var / n)

    def nps(self, side: str) -> float:
        return self.nodes[side] / self.seconds[side] if self.seconds[side] else 0.0

    def row(self) -> list[str]:
        w, d, l = self.wdl()
        mean, half = self.score()
        return [self.name, f"{self.games}", f"{w}-{d}-{l}",
                f"{100 * mean:.1f}% +- {100 * half:.1f}",
                f"{self.nodes['without'] / max(self.moves['without'], 1):,.0f}",
                f"{self.nodes['with'] / max(self.moves['with'], 1):,.0f}",
                f"{self.nps('without') / 1e6:.2f}M", f"{self.nps('with') / 1e6:.2f}M",
                f"{self.probes:,}", f"{self.table_moves:,}"]

    def to_dict(self) -> dict:
        w, d, l = self.wdl()
        mean, half = self.score()
        return {"match": self.name, "games": self.games, "wins": w, "draws": d, "losses": l,
                "score": mean, "ci95": half, "nodes_per_move_without":
                    self.nodes["without"] / max(self.moves["without"], 1),
                "nodes_per_move_with": self.nodes["with"] / max(self.moves["with"], 1),
                "nps_without": self.nps("without"), "nps_with": self.nps("with"),
                "probes": self.probes, "table_moves": self.table_moves}


HEADER = ["match", "games", "W-D-L (prober)", "prober's score, 95% CI", "nodes/move w/o",
          "nodes/move with", "nodes/s w/o", "nodes/s with", "probes", "table moves"]


def print_table(matches: list[Match]) -> None:
    rows = [HEADER] + [m.row() for m in matches]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(HEADER, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows[1:]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
