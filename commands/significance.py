"""Paired tests between every two runs under every convention of ``compare``, and the pairs
whose verdict changes with the convention.

For each pair (a, b) of runs, a before b in the order given, and each convention, the
differences a_q − b_q are taken over the queries entering both runs' means, of the per-query
nDCG decimals (`ndcgspec.inference.paired`); the sign-flip test and the t-test are run on them
(`ndcgspec.inference`), and each test's p-values are corrected over every pair and convention
at once (one family per test). A pair is significant at α when its adjusted p-value is at most
α, and its verdict under a convention is "a" or "b" (the run with the higher mean) or "none"."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from ndcgspec.commands.statistics_flags import TESTS
from ndcgspec.inference.bootstrap import RESAMPLES, percentile_interval
from ndcgspec.inference.correction import adjusted
from ndcgspec.inference.paired import Paired
from ndcgspec.inference.randomization import DRAWS, EXACT_LIMIT, drawn_signs, sign_flip
from ndcgspec.inference.ttest import paired_t
from ndcgspec.reference.decimals import (
    canonical_decimal,
    decimal_string,
    mpf_fraction,
    plain_digits,
    round_fraction,
)
from ndcgspec.reference.evaluate import Evaluation


@dataclass(frozen=True)
class Options:
    """How the tests are run and judged (the command's flags)."""

    alternative: str = "two-sided"
    correction: str = "holm"
    alpha: Fraction = Fraction(1, 20)
    seed: int = 0
    draws: int = DRAWS
    test: str = "randomization"
    ci: Fraction | None = None
    resamples: int = RESAMPLES


def exact_string(value: Fraction) -> str:
    """A fraction as the output's decimal string: correctly rounded to the spec's output
    digits (``ndcg.precision``), exact when it has no more."""
    return plain_digits(round_fraction(value))


def query_values(evaluation: Evaluation) -> dict[str, Decimal]:
    """The per-query nDCG decimals of the queries entering the mean, in qrels order."""
    return {
        q: Decimal(decimal_string(r.ndcg))
        for q, r in evaluation.per_query.items()
        if r.in_mean and r.ndcg is not None
    }


def _verdict(p_adjusted: Fraction, mean_difference: Fraction, options: Options) -> str:
    if p_adjusted > options.alpha or mean_difference == 0:
        return "none"
    return "a" if mean_difference > 0 else "b"


class _Signs:
    """The drawn sign vectors, once per number of queries, so every pair is tested on the
    same draws of the one seed."""

    def __init__(self, options: Options) -> None:
        self._options, self._drawn = options, {}

    def __call__(self, n: int) -> np.ndarray | None:
        if n <= EXACT_LIMIT:
            return None
        if n not in self._drawn:
            self._drawn[n] = drawn_signs(n, self._options.draws, self._options.seed)
        return self._drawn[n]


def paired_tests(
    runs: list[str],
    results: dict[str, dict[str, Evaluation]],
    options: Options,
) -> dict[str, Any]:
    """The JSON keys ``tests``, ``verdict_changes`` and, with a level, ``intervals``, for the
    runs under every convention of `results` (name → run → evaluation)."""
    signs = _Signs(options)
    rows: list[dict[str, Any]] = []
    intervals = []
    for measure, by_run in results.items():
        values = {run: query_values(by_run[run]) for run in runs}
        for a, b in combinations(runs, 2):
            paired = Paired.of(values[a], values[b])
            rows += _tests_of_pair(a, b, measure, paired, options, signs)
            if options.ci is not None and len(paired.differences) >= 2:
                interval = percentile_interval(
                    paired.differences, options.ci, options.resamples, options.seed
                )
                intervals.append(
                    {
                        "a": a,
                        "b": b,
                        "measure": measure,
                        "n": len(paired.differences),
                        "mean_difference": exact_string(interval.mean),
                        **interval_json(interval),
                    }
                )
    for test in TESTS:
        family = [row for row in rows if row["test"] == test]
        corrected = adjusted([row.pop("_p") for row in family], options.correction)
        for row, p in zip(family, corrected, strict=True):
            row["p_adjusted"] = float(p)
            row["significant"] = p <= options.alpha
            row["verdict"] = _verdict(p, row.pop("_mean"), options)
    out: dict[str, Any] = {
        "test_settings": {
            "verdict_test": options.test,
            "alternative": options.alternative,
            "correction": options.correction,
            "alpha": float(options.alpha),
            "seed": options.seed,
            "draws": options.draws,
            "enumerated_up_to": EXACT_LIMIT,
        },
        "tests": rows,
        "verdict_changes": verdict_changes(rows, options),
    }
    if options.ci is not None:
        out["intervals"] = intervals
    return out


def interval_json(interval: Any) -> dict[str, Any]:
    """The keys of a bootstrap interval in every JSON output."""
    return {
        "ci": {
            "level": canonical_decimal(round_fraction(interval.level)),
            "low": exact_string(interval.low),
            "high": exact_string(interval.high),
            "method": "percentile",
            "resamples": interval.resamples,
            "seed": interval.seed,
        }
    }


def _tests_of_pair(
    a: str, b: str, measure: str, paired: Paired, options: Options, signs: _Signs
) -> Iterable[dict[str, Any]]:
    n = len(paired.differences)
    if n < 2:
        return []
    mean = paired.mean_difference()
    common = {
        "a": a,
        "b": b,
        "measure": measure,
        "correction": options.correction,
        "alternative": options.alternative,
        "mean_difference": exact_string(mean),
        "n": n,
        "_mean": mean,
    }
    flipped = sign_flip(
        paired.differences, options.alternative, options.seed, options.draws, signs(n)
    )
    t = paired_t(paired.differences, options.alternative)
    t_p = mpf_fraction(t.p)
    return [
        {
            **common,
            "test": "randomization",
            "p": float(flipped.p),
            "_p": flipped.p,
            "exact": flipped.exact,
            "count": flipped.count,
            "total": flipped.total,
        },
        {
            **common,
            "test": "t",
            "p": float(t_p),
            "_p": t_p,
            "t": None if t.t is None else float(t.t),
            "df": t.df,
        },
    ]


def verdict_changes(rows: list[dict[str, Any]], options: Options) -> list[dict[str, Any]]:
    """The pairs of runs whose verdict under `options.test` differs between conventions, with
    each convention's p-values and verdict."""
    by_pair: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for row in rows:
        if row["test"] == options.test:
            by_pair.setdefault((row["a"], row["b"]), {})[row["measure"]] = {
                "verdict": row["verdict"],
                "p": row["p"],
                "p_adjusted": row["p_adjusted"],
                "mean_difference": row["mean_difference"],
            }
    return [
        {
            "a": a,
            "b": b,
            "test": options.test,
            "alpha": float(options.alpha),
            "verdicts": verdicts,
        }
        for (a, b), verdicts in by_pair.items()
        if len({v["verdict"] for v in verdicts.values()}) > 1
    ]


def _verdict_words(verdict: str, a: str, b: str) -> str:
    return {"a": f"{a} better", "b": f"{b} better", "none": "not significant"}[verdict]


def _p(value: float) -> str:
    return f"{value:.4g}"


def significance_text(data: dict[str, Any], options: Options) -> list[str]:
    """The lines of the report's paired tests and of the verdicts that change."""
    tests = data["tests"]
    family = sum(row["test"] == "randomization" for row in tests)
    lines = [
        "",
        f"Paired tests ({options.alternative}; {options.correction} over {family} tests of "
        f"each kind; alpha {float(options.alpha):g}; randomization: exact below "
        f"{EXACT_LIMIT + 1} queries, else {options.draws} sign-flip draws of seed "
        f"{options.seed})",
    ]
    by_key = {(r["a"], r["b"], r["measure"], r["test"]): r for r in tests}
    header = ["a", "b", "convention", "n", "mean a-b", "p rand", "adj", "p t", "adj", "verdict"]
    table = []
    for row in tests:
        if row["test"] != "randomization":
            continue
        t = by_key[(row["a"], row["b"], row["measure"], "t")]
        chosen = row if options.test == "randomization" else t
        table.append(
            [
                row["a"],
                row["b"],
                row["measure"],
                str(row["n"]),
                f"{float(row['mean_difference']):+.4f}",
                _p(row["p"]),
                _p(row["p_adjusted"]),
                _p(t["p"]),
                _p(t["p_adjusted"]),
                _verdict_words(chosen["verdict"], row["a"], row["b"]),
            ]
        )
    lines += _aligned(header, table)
    changes = data["verdict_changes"]
    lines += [
        "",
        f"Pairs whose verdict changes with the convention ({options.test} test, "
        f"alpha {float(options.alpha):g}, {options.correction}): {len(changes)}",
    ]
    for change in changes:
        a, b = change["a"], change["b"]
        lines.append(f"  {a} vs {b}")
        for measure, v in change["verdicts"].items():
            lines.append(
                f"    {measure}: {_verdict_words(v['verdict'], a, b)} "
                f"(p {_p(v['p'])}, adjusted {_p(v['p_adjusted'])})"
            )
    intervals = data.get("intervals", [])
    if intervals:
        level = intervals[0]["ci"]["level"]
        lines += ["", f"Bootstrap intervals of mean(a) - mean(b) (level {level})"]
    for interval in intervals:
        ci = interval["ci"]
        lines.append(
            f"  {interval['a']} - {interval['b']} under {interval['measure']}: "
            f"{float(interval['mean_difference']):+.4f} "
            f"[{float(ci['low']):+.4f}, {float(ci['high']):+.4f}]"
        )
    return lines


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
