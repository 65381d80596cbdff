"""The ``diff`` command: a score-regression gate for CI.

``ndcgspec diff --qrels QRELS BASELINE CANDIDATE -m MEASURE`` scores two runs, or, without
``--qrels``, reads two outputs of ``score --format json``. The candidate fails when its mean
drops below the baseline's by more than ``--max-drop``; when it is significantly worse: the
paired test (``--test``, the sign-flip test by default) of the differences candidate −
baseline, alternative "less" by default, gives p ≤ ``--alpha``, a family of one test drawn on
until that verdict is decided (`analysis.pair_tests.pair_test`); or when the inputs do not list
the same queries (`analysis.coverage`): a candidate that drops a hard query raises its mean
under ``ndcg.aggregate.run``, the oldest way to pass a gate. ``--allow-missing`` lets missing
queries pass and the report still names them. Two score files are compared only when they were
computed under the same configuration (fingerprint). Each input is read once (standard input
too). Exit status 0 for pass, 1 for fail, 2 for a refusal or an error. Output as text, JSON
(``"verdict": "pass" | "fail"``), a Markdown summary a CI step can publish, or a JUnit XML
report."""

from __future__ import annotations

import argparse
import json
import zlib
from contextlib import ExitStack
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ndcgspec.analysis.coverage import Coverage
from ndcgspec.analysis.pair_tests import PairTest, pair_test
from ndcgspec.analysis.provenance import Cited, Provenance, input_digest, provenance
from ndcgspec.commands.significance import StatedInterval, bootstrap, exact_string
from ndcgspec.commands.statistics_flags import (
    GATE_TERMS,
    add_interval_flags,
    add_test_flags,
    options_of,
)
from ndcgspec.engine.scoring import scored_runs
from ndcgspec.engine.stream import QueryPresence
from ndcgspec.inference.exact import mean as exact_mean
from ndcgspec.inference.paired import Paired
from ndcgspec.inference.settings import Options
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.reference.result import Result
from ndcgspec.reference.trec_io import STDIN, Source, opened

SHOWN = 4


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``diff`` subcommand."""
    parser = subparsers.add_parser(
        "diff",
        help="a score-regression gate: fail when a candidate run is worse than a baseline",
        description="Compare a CANDIDATE with a BASELINE: two runs scored against --qrels, or "
        "two outputs of 'score --format json' (refused when their configurations differ). "
        "Exit 1 (fail) when the candidate's mean drops by more than --max-drop, when it is "
        "significantly worse (the --test on the per-query differences candidate - baseline, "
        "one-sided by default, at --alpha; one test, so no correction), or when the inputs "
        "do not list the same queries (each named; --allow-missing lets that pass); 0 "
        "(pass) otherwise, 2 on a refusal or an error.",
    )
    parser.add_argument("--qrels", metavar="QRELS", help="qrels: BASELINE and CANDIDATE are runs")
    parser.add_argument("baseline", metavar="BASELINE", help="baseline run or score JSON")
    parser.add_argument("candidate", metavar="CANDIDATE", help="candidate run or score JSON")
    parser.add_argument(
        "-m",
        "--measure",
        metavar="MEASURE",
        help="the measure (runs: default nDCG; score files: the result written so, needed "
        "when a file holds several)",
    )
    parser.add_argument(
        "--max-drop",
        type=_drop,
        metavar="D",
        help="fail when mean(baseline) - mean(candidate) exceeds D (default: no budget)",
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="pass although the candidate, the baseline or the qrels lack queries another "
        "lists (the report still names them); the test then pairs the queries both results "
        "score",
    )
    add_test_flags(parser, alternative="less", terms=GATE_TERMS)
    add_interval_flags(parser, "the mean difference")
    parser.add_argument(
        "--top", type=_listed_count, default=10, metavar="N", help="regressed queries listed (10)"
    )
    parser.add_argument("--format", choices=("text", "json", "markdown", "junit"), default="text")
    parser.set_defaults(handler=run_diff)


def _listed_count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number, 0 or more")
    return int(text)


def _drop(text: str) -> Decimal:
    try:
        value = parse_decimal(text)
    except NdcgSpecError:
        raise argparse.ArgumentTypeError(f"{text!r}: a decimal number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a drop of 0 or more")
    return value


def _values(result: Result) -> dict[str, Decimal]:
    return {q: v for q, v in result.per_query.items() if v is not None}


def result_of_file(source: Source, measure: str | None) -> Result:
    """The result a ``score --format json`` file holds for `measure` (its only one when
    None)."""
    path = source.name
    results = []
    try:
        lines = source.text().read().decode("utf-8").splitlines()
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:
        raise NdcgSpecError(f"{path}: cannot read: {error}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            found = json.loads(line)
            written = found.get("written") if isinstance(found, dict) else None
            results.append(Result.read(found, written if isinstance(written, str) else None))
        except ValueError as error:
            raise NdcgSpecError(
                f"{path}:{number}: not a result of 'score --format json' ({error})"
            ) from None
    if not results:
        raise NdcgSpecError(f"{path}: holds no result of 'score --format json'")
    if measure is None:
        if len(results) > 1:
            raise NdcgSpecError(f"{path}: holds {len(results)} results; name one with -m")
        return results[0]
    for result in results:
        if measure in (result.measure, result.canonical):
            return result
    canonical = parse_measure(measure).canonical()
    for result in results:
        if result.canonical == canonical:
            return result
    raise NdcgSpecError(f"{path}: holds no result of the measure {measure!r}")


def refused_pair(baseline: Result, candidate: Result) -> str | None:
    """Why two score files cannot be compared, or None when they can."""
    if baseline.fingerprint != candidate.fingerprint:
        return (
            f"the score files were computed under different configurations: "
            f"{baseline.canonical} (fingerprint {baseline.fingerprint}) against "
            f"{candidate.canonical} (fingerprint {candidate.fingerprint})"
        )
    return None


@dataclass(frozen=True)
class GatePair:
    """The two results a gate compares, the configuration it scored them under (None for
    score files), and which queries each input lists."""

    baseline: Result
    candidate: Result
    config: Config | None
    coverage: Coverage


def _listed(presence: QueryPresence) -> list[str]:
    """The queries a run lists: those of the qrels, in qrels order, then the others."""
    return [q for q in presence.qrels if q in presence.in_run] + list(presence.unjudged)


def scored_runs_of(args: argparse.Namespace, sources: dict[str, Source]) -> GatePair:
    """Both runs scored against the qrels, and the queries each of the three lists."""
    config = parse_measure(args.measure) if args.measure else Config.default()
    written = args.measure or config.canonical()
    runs = [sources["baseline"], sources["candidate"]]
    baseline, candidate = (scored for _, scored in scored_runs([config], sources["qrels"], runs))
    coverage = Coverage.of(
        {
            "qrels": baseline.presence.qrels,
            "baseline": _listed(baseline.presence),
            "candidate": _listed(candidate.presence),
        }
    )
    return GatePair(
        Result.from_json(baseline.results[0], written),
        Result.from_json(candidate.results[0], written),
        config,
        coverage,
    )


def scored_files_of(args: argparse.Namespace, sources: dict[str, Source]) -> GatePair:
    """The results two score files hold, refused when computed under different
    configurations, and the queries each scores."""
    baseline = result_of_file(sources["baseline"], args.measure)
    candidate = result_of_file(sources["candidate"], args.measure)
    reason = refused_pair(baseline, candidate)
    if reason:
        raise NdcgSpecError(f"refused: {reason}")
    listed = {"baseline": list(_values(baseline)), "candidate": list(_values(candidate))}
    return GatePair(baseline, candidate, None, Coverage.of(listed))


def _opened_inputs(args: argparse.Namespace, stack: ExitStack) -> dict[str, Source]:
    """Each input opened once, so that standard input is read once, for the scores and its
    digest alike."""
    paths = {"qrels": args.qrels} if args.qrels else {}
    paths |= {"baseline": args.baseline, "candidate": args.candidate}
    if list(paths.values()).count(STDIN) > 1:
        roles = " and the ".join(r for r, p in paths.items() if p == STDIN)
        raise NdcgSpecError(f"standard input ('-') can be only one input, not the {roles}")
    return {role: stack.enter_context(opened(path)) for role, path in paths.items()}


@dataclass(frozen=True)
class Side:
    """One input of the gate as the report names it: its path and its exact mean over the
    paired queries."""

    path: str
    mean: Fraction

    def to_json(self) -> dict[str, str]:
        """The side's object in the JSON report."""
        return {"path": self.path, "mean": exact_string(self.mean)}


@dataclass(frozen=True)
class Regressed:
    """A query whose value the candidate lowers: both values and their difference."""

    query: str
    baseline: Decimal
    candidate: Decimal
    difference: Decimal

    def to_json(self) -> dict[str, str]:
        """The query's object in the report's ``regressed`` list."""
        return {
            "query": self.query,
            "baseline": format(self.baseline, "f"),
            "candidate": format(self.candidate, "f"),
            "difference": format(self.difference, "f"),
        }

    def cells(self) -> tuple[str, str, str, str]:
        """The query, its two values and their difference, as printed."""
        return (
            self.query,
            f"{float(self.baseline):.{SHOWN}f}",
            f"{float(self.candidate):.{SHOWN}f}",
            f"{float(self.difference):+.{SHOWN}f}",
        )


@dataclass(frozen=True)
class DiffReport:
    """The report of ``diff``: why the gate fails (none: it passes), the measure, both sides,
    the test of the differences candidate − baseline, the queries lacking and most
    regressed, the provenance and, when asked, the interval of the mean difference."""

    reasons: list[str]
    measure: str
    canonical: str
    fingerprint: str
    baseline: Side
    candidate: Side
    paired: Paired
    tested: PairTest
    options: Options
    max_drop: Decimal | None
    coverage: Coverage
    allow_missing: bool
    regressed: list[Regressed]
    provenance: Provenance
    interval: StatedInterval | None

    def verdict(self) -> str:
        """ "fail" when there is a reason to, else "pass"."""
        return "fail" if self.reasons else "pass"

    def significant(self) -> bool:
        """Whether the test's verdict is decided and its p-value at most α."""
        return _significant(self.tested, self.options)

    def sides(self) -> tuple[tuple[str, Side], tuple[str, Side]]:
        """Both sides by their role."""
        return ("baseline", self.baseline), ("candidate", self.candidate)

    def to_json(self) -> dict[str, Any]:
        """The JSON report of ``diff``."""
        estimate = self.tested.estimate
        report: dict[str, Any] = {
            "verdict": self.verdict(),
            "reasons": self.reasons,
            "measure": self.measure,
            "canonical": self.canonical,
            "fingerprint": self.fingerprint,
            "n": len(self.paired.differences),
            "baseline": self.baseline.to_json(),
            "candidate": self.candidate.to_json(),
            "mean_difference": exact_string(self.paired.mean_difference()),
            "max_drop": None if self.max_drop is None else format(self.max_drop, "f"),
            "missing": {role: list(queries) for role, queries in self.coverage.lacking.items()},
            "allow_missing": self.allow_missing,
            "test": {
                "test": self.options.test,
                "alternative": self.options.alternative,
                "p": float(estimate.p),
                "p_interval": [float(estimate.low), float(estimate.high)],
                "draws": estimate.draws,
                "alpha": float(self.options.alpha),
                "decided": self.tested.adjusted.decided,
                "significant": self.significant(),
            },
            "regressed": [r.to_json() for r in self.regressed],
            "provenance": self.provenance.to_json(),
        }
        if self.interval is not None:
            report |= self.interval.to_json()
        return report


def _significant(tested: PairTest, options: Options) -> bool:
    return tested.adjusted.decided and tested.adjusted.p <= options.alpha


def gate(args: argparse.Namespace) -> DiffReport:
    """The report of ``diff``."""
    options = options_of(args)
    with ExitStack() as stack:
        sources = _opened_inputs(args, stack)
        scored = (scored_runs_of if args.qrels else scored_files_of)(args, sources)
        inputs = {role: input_digest(source) for role, source in sources.items()}
    baseline, candidate = scored.baseline, scored.candidate
    before, after = _values(baseline), _values(candidate)
    paired = Paired.of(after, before)
    n = len(paired.differences)
    if n < 2:
        raise NdcgSpecError(f"the runs share {n} scored queries; the test needs two or more")
    mean = paired.mean_difference()
    tested = pair_test("candidate", "baseline", baseline.measure, paired, options)
    significant = _significant(tested, options)
    reasons = []
    if not args.allow_missing:
        reasons += scored.coverage.reasons()
    if args.max_drop is not None and -mean > Fraction(args.max_drop):
        reasons.append(f"the mean drops by {float(-mean):.{SHOWN}f}, more than {args.max_drop}")
    # Significance says "worse" under the alternative "less", or two-sided with a drop.
    worse = significant and (
        options.alternative == "less" or (options.alternative == "two-sided" and mean < 0)
    )
    if worse:
        reasons.append(
            f"the candidate is significantly worse ({options.test} test, "
            f"{options.alternative}, p {float(tested.estimate.p):.4g} <= alpha "
            f"{float(options.alpha):g})"
        )
    regressed = sorted(
        (d, q) for q, d in zip(paired.queries, paired.differences, strict=True) if d < 0
    )
    found = provenance(inputs, [scored.config] if scored.config else [])
    if scored.config is None:
        found = replace(found, configurations=(Cited(baseline.canonical, baseline.fingerprint),))
    interval = None
    if args.ci is not None:
        bounds = bootstrap(paired.differences, args.ci, args.ci_method, args.bootstrap, args.seed)
        interval = StatedInterval(bounds, args.ci, args.ci_method)
    return DiffReport(
        reasons=reasons,
        measure=baseline.measure,
        canonical=baseline.canonical,
        fingerprint=baseline.fingerprint,
        baseline=Side(sources["baseline"].name, _mean(baseline, paired.queries)),
        candidate=Side(sources["candidate"].name, _mean(candidate, paired.queries)),
        paired=paired,
        tested=tested,
        options=options,
        max_drop=args.max_drop,
        coverage=scored.coverage,
        allow_missing=args.allow_missing,
        regressed=[Regressed(q, before[q], after[q], d) for d, q in regressed[: args.top]],
        provenance=found,
        interval=interval,
    )


def _mean(result: Result, queries: tuple[str, ...]) -> Fraction:
    """The exact mean of the result's values over the paired queries."""
    values = _values(result)
    return exact_mean([values[q] for q in queries])


def _printed(value: Fraction) -> float:
    """An exact value as printed, from its output string."""
    return float(exact_string(value))


def text_report(report: DiffReport) -> list[str]:
    """The lines ``diff`` prints."""
    lines = [
        f"{report.verdict().upper()}: {report.measure} ({report.canonical}, "
        f"fingerprint {report.fingerprint}) over {len(report.paired.differences)} queries",
        *(
            f"  {role:<9} {_printed(side.mean):.{SHOWN}f}  {side.path}"
            for role, side in report.sides()
        ),
        f"  mean difference {_printed(report.paired.mean_difference()):+.{SHOWN}f}; "
        f"{report.options.test} test ({report.options.alternative}): "
        f"p {float(report.tested.estimate.p):.4g}, alpha {float(report.options.alpha):g}",
    ]
    if report.interval is not None:
        found = report.interval.ends()
        ends = (
            f"[{found[0]:+.{SHOWN}f}, {found[1]:+.{SHOWN}f}]"
            if found is not None
            else f"none: {report.interval.found}"
        )
        lines.append(
            f"  {report.interval.level_text()} {report.interval.method} interval of the "
            f"difference: {ends}"
        )
    lines += [f"  {note}" for note in _notes(report)]
    lines += [f"  fails: {reason}" for reason in report.reasons]
    if report.regressed:
        lines.append("  most regressed queries:")
        lines += ["    {}: {} -> {} ({})".format(*r.cells()) for r in report.regressed]
    return lines


def _notes(report: DiffReport) -> list[str]:
    """What the report says beside its reasons: a verdict the draws left undecided, and the
    queries missing where --allow-missing let them pass."""
    notes = []
    if not report.tested.adjusted.decided:
        estimate = report.tested.estimate
        notes.append(
            f"undecided: alpha lies inside the p-value's interval [{float(estimate.low):.4g}, "
            f"{float(estimate.high):.4g}] after {estimate.draws} draws (--max-draws); not "
            "counted as worse"
        )
    if report.allow_missing:
        notes += [f"allowed: {reason}" for reason in report.coverage.reasons()]
    return notes


def markdown_report(report: DiffReport) -> list[str]:
    """A Markdown summary for a CI step to publish."""
    options = report.options
    mark = "✅ pass" if report.verdict() == "pass" else "❌ fail"
    lines = [
        f"### ndcgspec diff: {mark}",
        "",
        f"`{report.canonical}` (fingerprint `{report.fingerprint}`), "
        f"{len(report.paired.differences)} queries",
        "",
        "| | mean |",
        "|---|---:|",
        f"| baseline | {_printed(report.baseline.mean):.{SHOWN}f} |",
        f"| candidate | {_printed(report.candidate.mean):.{SHOWN}f} |",
        f"| difference | {_printed(report.paired.mean_difference()):+.{SHOWN}f} |",
        "",
        f"{options.test} test ({options.alternative}): "
        f"p = {float(report.tested.estimate.p):.4g}, alpha = {float(options.alpha):g}.",
    ]
    lines += [f"- {note}" for note in _notes(report)]
    lines += [f"- fails: {reason}" for reason in report.reasons]
    if report.regressed:
        lines += ["", "| query | baseline | candidate | difference |", "|---|---:|---:|---:|"]
        lines += ["| {} | {} | {} | {} |".format(*r.cells()) for r in report.regressed]
    return lines


def junit_report(report: DiffReport) -> list[str]:
    """A JUnit XML report of one test case, failed when the gate fails."""
    failed = report.verdict() == "fail"
    name = quoteattr(report.measure)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuite name="ndcgspec diff" tests="1" failures="{int(failed)}" errors="0">',
        f'  <testcase classname="ndcgspec.diff" name={name}>',
    ]
    if failed:
        message = quoteattr("; ".join(report.reasons))
        body = escape("\n".join(text_report(report)))
        lines.append(f"    <failure message={message}>{body}</failure>")
    lines += ["  </testcase>", "</testsuite>"]
    return lines


def run_diff(args: argparse.Namespace) -> int:
    """Gate, print; exit status 0 for pass, 1 for fail (a refusal raises: status 2)."""
    report = gate(args)
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        render = {"text": text_report, "markdown": markdown_report, "junit": junit_report}
        print("\n".join(render[args.format](report)))
    return 0 if report.verdict() == "pass" else 1
