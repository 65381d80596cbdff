"""The paired tests of ``compare`` as its report gives them (`Significance`): the JSON keys
``tests``, ``test_settings``, ``verdict_changes`` and ``intervals``, and their lines of text;
and a bootstrap interval as every report states it (`StatedInterval`). The tests
themselves are `ndcgspec.analysis.pair_tests`. A pair is significant at α when its adjusted
p-value is at most α and that verdict is decided (α outside the Monte-Carlo interval of the
adjusted p-value, `inference.family`); its verdict under a convention is "a" or "b" (the run
with the higher mean), "none", or "undecided"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ndcgspec.analysis.pair_tests import PairTest, Untested, pair_tests, untested_pairs
from ndcgspec.commands.text_table import SHOWN_MOST, paged, wrapped
from ndcgspec.inference.bootstrap import INTERVALS, Interval, UndefinedInterval
from ndcgspec.inference.monte_carlo import MONTE_CARLO_LEVEL
from ndcgspec.inference.paired_tests import PAIRED_TESTS
from ndcgspec.inference.randomization import EXACT_LIMIT
from ndcgspec.inference.settings import TESTS, Options
from ndcgspec.reference.decimals import canonical_decimal, plain_digits, round_fraction
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


@dataclass(frozen=True)
class StatedInterval:
    """A bootstrap interval as every report states it: the interval `found`, or why there is
    none, at `level` by `method`."""

    found: Interval | str
    level: Fraction
    method: str

    def level_text(self) -> str:
        """The level as the report writes it."""
        return canonical_decimal(round_fraction(self.level))

    def ends(self) -> tuple[float, float] | None:
        """The ends as printed, from their output strings; None when there is no interval."""
        if not isinstance(self.found, Interval):
            return None
        return float(exact_string(self.found.low)), float(exact_string(self.found.high))

    def to_json(self) -> dict[str, dict[str, str | int | None]]:
        """The keys of the interval in every JSON output: its ends, or null ends and why
        there are none."""
        found = self.found
        ends: dict[str, str | None]
        if isinstance(found, Interval):
            ends = {"low": exact_string(found.low), "high": exact_string(found.high)}
        else:
            ends = {"low": None, "high": None, "undefined": found}
        return {
            "ci": {
                "level": self.level_text(),
                **ends,
                "method": self.method,
                "resamples": found.resamples if isinstance(found, Interval) else None,
                "seed": found.seed if isinstance(found, Interval) else None,
            }
        }


@dataclass(frozen=True)
class PairInterval:
    """The bootstrap interval of one pair's mean difference under one convention."""

    row: PairTest
    interval: StatedInterval

    def to_json(self) -> dict[str, Any]:
        """The pair's object in the ``intervals`` list of the JSON output."""
        row = self.row
        return {
            "a": row.a,
            "b": row.b,
            "measure": row.measure,
            "n": len(row.paired.differences),
            "mean_difference": exact_string(row.paired.mean_difference()),
            **self.interval.to_json(),
        }


@dataclass(frozen=True)
class VerdictChange:
    """A pair of runs whose decided verdicts differ between conventions: its test under each
    convention (measure → test)."""

    a: str
    b: str
    rows: dict[str, PairTest]

    def to_json(self, options: Options) -> dict[str, Any]:
        """The pair's object in the ``verdict_changes`` list of the JSON output."""
        return {
            "a": self.a,
            "b": self.b,
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
                for measure, row in self.rows.items()
            },
        }


@dataclass(frozen=True)
class Significance:
    """The paired tests of ``compare``'s report: every test of every pair under every
    convention, the pairs no test can take, the verdicts that change, and, with a level, the
    bootstrap intervals."""

    options: Options
    tests: list[PairTest]
    untested: list[Untested]
    changes: list[VerdictChange]
    intervals: list[PairInterval] | None

    def to_json(self) -> dict[str, Any]:
        """The JSON keys ``test_settings``, ``tests``, ``untested``, ``verdict_changes`` and,
        with a level, ``intervals``."""
        options = self.options
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
            "tests": [_row_json(row, options) for row in self.tests],
            "untested": [asdict(u) for u in self.untested],
            "verdict_changes": [change.to_json(options) for change in self.changes],
        }
        if self.intervals is not None:
            out["intervals"] = [interval.to_json() for interval in self.intervals]
        return out


def paired_tests(
    runs: list[str],
    results: dict[str, dict[str, Evaluation]],
    options: Options,
) -> Significance:
    """The paired tests of the runs under every convention of `results`, with their
    intervals when `options` asks for a level."""
    tested = pair_tests(runs, results, options)
    intervals = None if options.ci is None else _intervals(tested, options)
    return Significance(
        options, tested, untested_pairs(runs, results), verdict_changes(tested, options), intervals
    )


def _intervals(tested: Sequence[PairTest], options: Options) -> list[PairInterval]:
    """The bootstrap interval of every pair's mean difference under every convention."""
    assert options.ci is not None
    # Each pair under each convention once, whichever tests were run on its differences.
    pairs = {(row.a, row.b, row.measure): row for row in tested}
    return [
        PairInterval(
            row,
            StatedInterval(
                bootstrap(
                    row.paired.differences,
                    options.ci,
                    options.ci_method,
                    options.resamples,
                    options.seed,
                ),
                options.ci,
                options.ci_method,
            ),
        )
        for row in pairs.values()
    ]


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


def verdict_changes(tested: Sequence[PairTest], options: Options) -> list[VerdictChange]:
    """The pairs of runs whose decided verdicts under `options.test` differ between
    conventions, with each convention's test (an undecided verdict is listed beside them, but
    is no change by itself: it would depend on the seed)."""
    by_pair: dict[tuple[str, str], dict[str, PairTest]] = {}
    for row in tested:
        if row.test == options.test:
            by_pair.setdefault((row.a, row.b), {})[row.measure] = row
    return [
        VerdictChange(a, b, rows)
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


def significance_text(significance: Significance, full: bool = False) -> list[str]:
    """The lines of the report's paired tests: how they are run, the pairs no test can take,
    the verdicts left undecided, the pairs whose verdict changes with the convention and, when
    asked, the intervals; with `full` every test of every pair too, and each changed verdict
    with its p-values, where the summary gives the changes as one table (at most
    `SHOWN_MOST` pairs)."""
    options = significance.options
    lines = ["", *_settings_lines(significance, full)]
    if full:
        lines += _test_table(significance)
    for untested in significance.untested:
        lines += wrapped(
            f"not tested: {untested.a} vs {untested.b} under {untested.measure}: "
            f"{untested.shared} shared queries with a value, a paired test needs two or more",
            "  ",
        )
    lines += _undecided_lines(significance)
    changes = significance.changes
    # In the summary the changes follow the line on how the tests ran; in full, their table.
    lines += [
        *([""] if full else []),
        *wrapped(
            f"Pairs whose verdict changes with the convention ({options.test} test, "
            f"alpha {float(options.alpha):g}, {options.correction} "
            f"{_family_words(significance)}): {len(changes)}"
        ),
    ]
    lines += _change_lines(significance) if full else _change_table(significance)
    intervals = significance.intervals or []
    if intervals:
        level = intervals[0].interval.level_text()
        lines += ["", f"Bootstrap intervals of mean(a) - mean(b) (level {level})"]
    for stated in intervals:
        found = stated.interval.ends()
        shown = (
            f"[{found[0]:+.4f}, {found[1]:+.4f}]"
            if found is not None
            else f"no interval: {stated.interval.found}"
        )
        lines += wrapped(
            f"{stated.row.a} - {stated.row.b} under {stated.row.measure}: "
            f"{_mean_difference(stated.row):+.4f} {shown}",
            "  ",
        )
    return lines


def _test_table(significance: Significance) -> list[str]:
    """Every pair under every convention: its differences' count and mean, each test's
    p-value and adjusted p-value, and the verdict of the chosen test."""
    options = significance.options
    by_key = {(r.a, r.b, r.measure, r.test): r for r in significance.tests}
    header = ["a", "b", "convention", "n", "mean a-b"]
    for test in PAIRED_TESTS.values():
        header += [f"p {test.short}", "adj"]
    header.append("verdict")
    table = []
    # Every test is run on every pair: the rows of the first give the pairs.
    for row in (r for r in significance.tests if r.test == TESTS[0]):
        pair = (row.a, row.b, row.measure)
        cells = [*pair, str(len(row.paired.differences)), f"{_mean_difference(row):+.4f}"]
        for name in PAIRED_TESTS:
            tested = by_key[(*pair, name)]
            cells += [_p(float(tested.estimate.p)), _p(float(tested.adjusted.p))]
        chosen = by_key[(*pair, options.test)]
        table.append([*cells, _verdict_words(chosen.verdict(options.alpha), row.a, row.b)])
    return _aligned(header, table)


def _change_lines(significance: Significance) -> list[str]:
    """Each pair whose verdict changes, with its verdict and p-values under each convention."""
    options = significance.options
    lines = []
    for change in significance.changes:
        a, b = change.a, change.b
        lines.append(f"  {a} vs {b}")
        for measure, row in change.rows.items():
            lines += wrapped(
                f"{measure}: {_verdict_words(row.verdict(options.alpha), a, b)} "
                f"(p {_p(float(row.estimate.p))}, adjusted {_p(float(row.adjusted.p))})",
                "    ",
            )
    return lines


def _change_table(significance: Significance) -> list[str]:
    """The pairs whose verdict changes (at most `SHOWN_MOST`), a row each, a column per
    convention, each cell the run significantly better under it, "-" neither, "?" undecided
    and "" untested."""
    options = significance.options
    changes = significance.changes
    if not changes:
        return []
    names = list(dict.fromkeys(measure for change in changes for measure in change.rows))
    rows = []
    for change in changes[:SHOWN_MOST]:
        cell = {"a": change.a, "b": change.b, "none": "-", "undecided": "?"}
        rows.append(
            [
                f"{change.a} vs {change.b}",
                *(
                    ""
                    if (row := change.rows.get(name)) is None
                    else cell[row.verdict(options.alpha)]
                    for name in names
                ),
            ]
        )
    lines = [
        "  each cell the run significantly better under the convention; -: neither; ?: undecided",
        *paged(["pair", *names], rows),
    ]
    if len(changes) > SHOWN_MOST:
        lines.append(f"  and {len(changes) - SHOWN_MOST} more (--full lists every one)")
    return lines


def _mean_difference(row: PairTest) -> float:
    """The pair's mean difference as printed, from its output string."""
    return float(exact_string(row.paired.mean_difference()))


def _family_words(significance: Significance) -> str:
    """How the family a correction runs over reads in the report."""
    if significance.options.family == "all":
        size = sum(row.test == TESTS[0] for row in significance.tests)
        return f"over all {size} pairs and conventions"
    return "within each convention"


def _settings_lines(significance: Significance, full: bool) -> list[str]:
    """The report's first lines on the tests: how they are run and corrected, and with `full`
    how they are drawn."""
    options = significance.options
    tests = significance.tests
    sizes = "/".join(map(str, sorted({r.family_size for r in tests}))) or "0"
    drawn = sorted({d for r in tests if (d := r.estimate.draws) is not None})
    family = (
        f"all {sizes} pairs and conventions"
        if options.family == "all"
        else f"the {sizes} pairs of each convention"
    )
    draws = "-".join(dict.fromkeys(str(d) for d in (drawn[:1] + drawn[-1:]))) or "no"
    lines = wrapped(
        f"Paired tests ({options.alternative}; {options.correction} over {family}, per test; "
        f"alpha {float(options.alpha):g})"
    )
    if full:
        lines += wrapped(
            f"randomization: every sign vector up to {EXACT_LIMIT} queries, else {draws} "
            f"sign-flip draws of seed {options.seed}, drawn on (up to {options.max_draws}) "
            f"while alpha lies inside the {float(MONTE_CARLO_LEVEL):g} Monte-Carlo interval "
            "of an adjusted p-value",
            "  ",
        )
    return lines


def _undecided_lines(significance: Significance) -> list[str]:
    """A line on the verdicts the draws could not decide, if any."""
    options = significance.options
    undecided = [r for r in significance.tests if r.test == options.test and not r.adjusted.decided]
    if not undecided:
        return []
    return wrapped(
        f"undecided: {len(undecided)} verdicts, alpha inside the "
        f"{float(MONTE_CARLO_LEVEL):g} Monte-Carlo interval of the adjusted p-value after "
        f"{options.max_draws} draws (raise --max-draws to decide them)",
        "  ",
    )


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
