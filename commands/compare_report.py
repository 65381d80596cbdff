"""What ``compare`` reports, as one record: the comparison of the runs under the conventions
(`ndcgspec.analysis.comparison`), their paired tests (`ndcgspec.commands.significance`), the
provenance of the inputs and, when asked, judged@k; its text, tables, page and JSON are
written from it."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import mpmath

from ndcgspec.analysis.comparison import (
    Comparison,
    flips,
    kendall_tau,
    query_disagreement,
    ranks,
    reversed_pairs,
    spread,
)
from ndcgspec.analysis.provenance import Provenance
from ndcgspec.commands.significance import Significance
from ndcgspec.reference.decimals import round_fraction
from ndcgspec.reference.precision import decimal_string, mpf_fraction


def output_decimal(value: mpmath.mpf) -> Decimal:
    """A value as the JSON report writes it: correctly rounded to the spec's output digits
    (``ndcg.precision``)."""
    return round_fraction(mpf_fraction(value))


@dataclass(frozen=True)
class Agreement:
    """What one convention concludes about the runs beside what the first convention does:
    Kendall's τ-b between their orders of the runs (None when either ties every pair), the
    pairs of runs they order oppositely, of how many; the pairs the chosen test finds
    significant under it, of the pairs tested; and the pairs whose decided verdict differs
    from their decided verdict under the first (an undecided verdict is no change: it would
    depend on the seed, as in ``verdict_changes``)."""

    convention: str
    tau: float | None
    reversed: int
    pairs: int
    significant: int
    tested: int
    changed: int


@dataclass(frozen=True)
class CompareReport:
    """The report of ``compare``: the `comparison`, the `top` queries where the conventions
    disagree most that it shows, the paired tests, the provenance, and per run judged@k at
    every cutoff of the conventions as exact decimal strings (None when not asked)."""

    comparison: Comparison
    top: int
    significance: Significance
    provenance: Provenance
    judged: dict[str, dict[str, str | None]] | None

    def names(self) -> list[str]:
        """The conventions' names, in order."""
        return [c.name for c in self.comparison.conventions]

    def mean(self, run: str, name: str) -> Decimal:
        """The run's mean under the convention, as the JSON report writes it."""
        return output_decimal(self.comparison.score(run, name))

    def agreement(self) -> list[Agreement]:
        """Each convention, the first included, against the first."""
        comparison = self.comparison
        options = self.significance.options
        names = self.names()
        verdicts: dict[str, dict[tuple[str, str], str]] = {name: {} for name in names}
        for row in self.significance.tests:
            if row.test == options.test:
                verdicts[row.measure][row.a, row.b] = row.verdict(options.alpha)
        first = verdicts[names[0]]
        runs = len(comparison.runs)
        return [
            Agreement(
                name,
                kendall_tau(comparison, names[0], name),
                reversed_pairs(comparison, names[0], name),
                runs * (runs - 1) // 2,
                sum(verdict in ("a", "b") for verdict in verdicts[name].values()),
                len(verdicts[name]),
                sum(
                    verdict != theirs and "undecided" not in (verdict, theirs)
                    for pair, verdict in verdicts[name].items()
                    if (theirs := first.get(pair)) is not None
                ),
            )
            for name in names
        ]

    def to_json(self) -> dict[str, Any]:
        """The JSON object ``compare --format json`` prints."""
        comparison = self.comparison
        names = self.names()

        out: dict[str, Any] = {
            "runs": comparison.runs,
            "conventions": {c.name: c.config.canonical() for c in comparison.conventions},
            "excluded": comparison.excluded,
            "scores": {
                run: {n: decimal_string(comparison.score(run, n)) for n in names}
                for run in comparison.runs
            },
            "spread": {run: decimal_string(spread(comparison, run)[0]) for run in comparison.runs},
            "ranks": {n: ranks(comparison, n) for n in names},
            "kendall_tau": {a: {b: kendall_tau(comparison, a, b) for b in names} for a in names},
            "reversed_pairs": {
                a: {b: reversed_pairs(comparison, a, b) for b in names} for a in names
            },
            "flips": [
                {
                    "a": f.a,
                    "b": f.b,
                    "a_above_b_under": f.ahead,
                    "a_below_b_under": f.behind,
                    "contributions": [
                        {"query": q, "moves": decimal_string(v)} for q, v in f.contributions
                    ],
                }
                for f in flips(comparison)
            ],
            "queries": [
                {
                    "query": row.query,
                    "run": row.run,
                    "spread": decimal_string(row.spread),
                    "lowest": {"convention": row.low[1], "ndcg": decimal_string(row.low[0])},
                    "highest": {"convention": row.high[1], "ndcg": decimal_string(row.high[0])},
                }
                for row in query_disagreement(comparison)[: self.top]
            ],
        }
        out |= self.significance.to_json()
        out["provenance"] = self.provenance.to_json()
        if self.judged is not None:
            out["judged"] = self.judged
        return out
