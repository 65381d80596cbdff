"""The paired tests of ``compare`` as its report gives them: the JSON keys ``tests``,
``test_settings``, ``verdict_changes`` and ``intervals``, and their lines of text. The tests
themselves are `ndcgspec.analysis.pair_tests`. A pair is significant at α when its adjusted
p-value is at most α and that verdict is decided (α outside the Monte-Carlo interval of the
adjusted p-value, `inference.family`); its verdict under a convention is "a" or "b" (the run
with the higher mean), "none", or "undecided"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ndcgspec.analysis.pair_tests import PairTest, pair_tests, untested_pairs
from ndcgspec.inference.bootstrap import INTERVALS, Interval, UndefinedInterval
from ndcgspec.inference.monte_carlo import MONTE_CARLO_LEVEL
from ndcgspec.inference.paired_tests import PAIRED_TESTS
from ndcgspec.inference.randomization import EXACT_LIMIT
from ndcgspec.inference.settings import TESTS, Options
from ndcgspec.reference.decimals import (
    canonical_decimal,
    plain_digits,
    round_fraction,
)
from ndcgspec.reference.evaluate import Evaluation


def exact_string(value: Fraction) -> str:
    """A fraction as the output's decimal string: correctly rounded to the spec's output
    digits (``ndcg.precision``), exact when it has no more."""
    return plain_digits(round_fraction(value))


def _row_json(row: PairTest, options: Options) -> dict[str, Any]:
    """A test's object in the ``tests`` list of the JSON output."""
    out: dict[str, Any] = {
        "a": row.a,
        "b": row.b,
        "measure": row.measure,
        "correction": options.correction,
        "family": row.family,
        "family_size": row.family_size,
        "alternative": options.alternative,
        "mean_difference": exact_string(row.paired.mean_difference()),
        "n": len(row.paired.differences),
        "test": row.test,
        "p": float(row.estimate.p),
        "p_interval": [float(row.estimate.low), float(row.estimate.high)],
    }
    out |= row.outcome.report()
    verdict = row.verdict(options.alpha)
    return out | {
        "p_adjusted": float(row.adjusted.p),
        "p_adjusted_interval": [float(row.adjusted.low), float(row.adjusted.high)],
        "decided": row.adjusted.decided,
        "significant": verdict in ("a", "b"),
        "verdict": verdict,
    }


def paired_tests(
    runs: list[str],
    results: dict[str, dict[str, Evaluation]],
    options: Options,
) -> dict[str, Any]:
    """The JSON keys ``test_settings``, ``tests``, ``verdict_changes`` and, with a level,
    ``intervals``, for the runs under every convention of `results`."""
    tested = pair_tests(runs, results, options)
    out: dict[str, Any] = {
        "test_settings": {
            "verdict_test": options.test,
            "alternative": options.alternative,
            "correction": options.correction,
            "family": options.family,
            "alpha": float(options.alpha),
            "seed": options.seed,
            "draws": options.draws,
            "max_draws": options.max_draws,
            "monte_carlo_level": float(MONTE_CARLO_LEVEL),
            "enumerated_up_to": EXACT_LIMIT,
        },
        "tests": [_row_json(row, options) for row in tested],
        "untested": [asdict(u) for u in untested_pairs(runs, results)],
        "verdict_changes": verdict_changes(tested, options),
    }
    if options.ci is not None:
        out["intervals"] = _intervals(tested, options)
    return out


def _intervals(tested: Sequence[PairTest], options: Options) -> list[dict[str, Any]]:
    """The bootstrap interval of every pair's mean difference under every convention."""
    assert options.ci is not None
    # Each pair under each convention once, whichever tests were run on its differences.
    pairs = {(row.a, row.b, row.measure): row for row in tested}
    out = []
    for row in pairs.values():
        differences = row.paired.differences
        found = bootstrap(
            differences, options.ci, options.ci_method, options.resamples, options.seed
        )
        out.append(
            {
                "a": row.a,
                "b": row.b,
                "measure": row.measure,
                "n": len(differences),
                "mean_difference": exact_string(row.paired.mean_difference()),
                **interval_json(found, options.ci, options.ci_method),
            }
        )
    return out


def bootstrap(
    values: Sequence[Decimal], level: Fraction, method: str, resamples: int, seed: int
) -> Interval | str:
    """The bootstrap interval of the mean of `values` by `method`, or why there is none (fewer
    than two values, or an interval the method leaves undefined)."""
    if len(values) < 2:
        return f"a bootstrap interval needs two or more queries with a value, not {len(values)}"
    try:
        return INTERVALS[method](values, level, resamples, seed)
    except UndefinedInterval as why:
        return str(why)


def interval_json(found: Interval | str, level: Fraction, method: str) -> dict[str, Any]:
    """The keys of a bootstrap interval in every JSON output: its ends, or null ends and why
    there are none."""
    ends: dict[str, Any] = {"low": None, "high": None, "undefined": found}
    if isinstance(found, Interval):
        ends = {"low": exact_string(found.low), "high": exact_string(found.high)}
    return {
        "ci": {
            "level": canonical_decimal(round_fraction(level)),
            **ends,
            "method": method,
            "resamples": found.resamples if isinstance(found, Interval) else None,
            "seed": found.seed if isinstance(found, Interval) else None,
        }
    }


def verdict_changes(tested: Sequence[PairTest], options: Options) -> list[dict[str, Any]]:
    """The pairs of runs whose decided verdicts under `options.test` differ between
    conventions, with each convention's p-values and verdict (an undecided verdict is listed
    beside them, but is no change by itself: it would depend on the seed)."""
    by_pair: dict[tuple[str, str], dict[str, PairTest]] = {}
    for row in tested:
        if row.test == options.test:
            by_pair.setdefault((row.a, row.b), {})[row.measure] = row
    return [
        {
            "a": a,
            "b": b,
            "test": options.test,
            "alpha": float(options.alpha),
            "verdicts": {
                measure: {
                    "verdict": row.verdict(options.alpha),
                    "p": float(row.estimate.p),
                    "p_adjusted": float(row.adjusted.p),
                    "p_adjusted_interval": [float(row.adjusted.low), float(row.adjusted.high)],
                    "mean_difference": exact_string(row.paired.mean_difference()),
                }
                for measure, row in rows.items()
            },
        }
        for (a, b), rows in by_pair.items()
        if len({row.verdict(options.alpha) for row in rows.values()} - {"undecided"}) > 1
    ]


def _verdict_words(verdict: str, a: str, b: str) -> str:
    return {
        "a": f"{a} better",
        "b": f"{b} better",
        "none": "not significant",
        "undecided": "undecided",
    }[verdict]


def _p(value: float) -> str:
    return f"{value:.4g}"


def significance_text(data: dict[str, Any], options: Options) -> list[str]:
    """The lines of the report's paired tests and of the verdicts that change."""
    tests = data["tests"]
    lines = ["", *_settings_lines(data, options)]
    by_key = {(r["a"], r["b"], r["measure"], r["test"]): r for r in tests}
    header = ["a", "b", "convention", "n", "mean a-b"]
    for test in PAIRED_TESTS.values():
        header += [f"p {test.short}", "adj"]
    header.append("verdict")
    table = []
    # Every test is run on every pair: the rows of the first give the pairs.
    for row in (r for r in tests if r["test"] == TESTS[0]):
        pair = (row["a"], row["b"], row["measure"])
        cells = [*pair, str(row["n"]), f"{float(row['mean_difference']):+.4f}"]
        for name in PAIRED_TESTS:
            cells += [_p(by_key[(*pair, name)]["p"]), _p(by_key[(*pair, name)]["p_adjusted"])]
        chosen = by_key[(*pair, options.test)]
        table.append([*cells, _verdict_words(chosen["verdict"], row["a"], row["b"])])
    lines += _aligned(header, table)
    for untested in data["untested"]:
        lines.append(
            f"  not tested: {untested['a']} vs {untested['b']} under {untested['measure']}: "
            f"{untested['shared']} shared queries with a value, a paired test needs two or more"
        )
    lines += _undecided_lines(data, options)
    changes = data["verdict_changes"]
    lines += [
        "",
        f"Pairs whose verdict changes with the convention ({options.test} test, "
        f"alpha {float(options.alpha):g}, {options.correction} {_family_words(data)}): "
        f"{len(changes)}",
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
        ends = (
            f"[{float(ci['low']):+.4f}, {float(ci['high']):+.4f}]"
            if ci["low"] is not None
            else f"no interval: {ci['undefined']}"
        )
        lines.append(
            f"  {interval['a']} - {interval['b']} under {interval['measure']}: "
            f"{float(interval['mean_difference']):+.4f} {ends}"
        )
    return lines


def _family_words(data: dict[str, Any]) -> str:
    """How the family a correction runs over reads in the report."""
    if data["test_settings"]["family"] == "all":
        size = sum(row["test"] == TESTS[0] for row in data["tests"])
        return f"over all {size} pairs and conventions"
    return "within each convention"


def _settings_lines(data: dict[str, Any], options: Options) -> list[str]:
    """The report's first lines on the tests: how they are run, corrected and drawn."""
    sizes = "/".join(map(str, sorted({r["family_size"] for r in data["tests"]}))) or "0"
    drawn = sorted({r["total"] - 1 for r in data["tests"] if r.get("exact") is False})
    family = (
        f"all {sizes} pairs and conventions"
        if options.family == "all"
        else f"the {sizes} pairs of each convention"
    )
    draws = "-".join(dict.fromkeys(str(d) for d in (drawn[:1] + drawn[-1:]))) or "no"
    return [
        f"Paired tests ({options.alternative}; {options.correction} over {family}, per test; "
        f"alpha {float(options.alpha):g})",
        f"  randomization: every sign vector up to {EXACT_LIMIT} queries, else {draws} "
        f"sign-flip draws of seed {options.seed}, drawn on (up to {options.max_draws}) while "
        f"alpha lies inside the {float(MONTE_CARLO_LEVEL):g} Monte-Carlo interval of an "
        "adjusted p-value",
    ]


def _undecided_lines(data: dict[str, Any], options: Options) -> list[str]:
    """A line on the verdicts the draws could not decide, if any."""
    undecided = [r for r in data["tests"] if r["test"] == options.test and not r["decided"]]
    if not undecided:
        return []
    return [
        f"  undecided: {len(undecided)} verdicts, alpha inside the "
        f"{float(MONTE_CARLO_LEVEL):g} Monte-Carlo interval of the adjusted p-value after "
        f"{options.max_draws} draws (raise --max-draws to decide them)"
    ]


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
