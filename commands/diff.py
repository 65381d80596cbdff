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
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ndcgspec.analysis.coverage import Coverage
from ndcgspec.analysis.pair_tests import pair_test
from ndcgspec.analysis.provenance import input_digest, provenance
from ndcgspec.commands.significance import bootstrap, exact_string, interval_json
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
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.reference.result import Result
from ndcgspec.reference.trec_io import STDIN, Source, opened

SHOWN = 4


def register(subparsers: argparse._SubParsersAction) -> None:
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


def _mean(result: Result, queries: tuple[str, ...]) -> str:
    """The exact mean of the result's values over the paired queries."""
    return exact_string(exact_mean([result.per_query[q] for q in queries]))


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
    results = [Result.from_json(s.results[0], written) for s in (baseline, candidate)]
    return GatePair(*results, config, coverage)


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


def gate(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON report of ``diff``."""
    options = options_of(args)
    with ExitStack() as stack:
        sources = _opened_inputs(args, stack)
        scored = (scored_runs_of if args.qrels else scored_files_of)(args, sources)
        inputs = {role: input_digest(source) for role, source in sources.items()}
    baseline, candidate = scored.baseline, scored.candidate
    paired = Paired.of(_values(candidate), _values(baseline))
    n = len(paired.differences)
    if n < 2:
        raise NdcgSpecError(f"the runs share {n} scored queries; the test needs two or more")
    mean = paired.mean_difference()
    tested = pair_test("candidate", "baseline", baseline.measure, paired, options)
    decided = tested.adjusted.decided
    significant = decided and tested.adjusted.p <= options.alpha
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
    report: dict[str, Any] = {
        "verdict": "fail" if reasons else "pass",
        "reasons": reasons,
        "measure": baseline.measure,
        "canonical": baseline.canonical,
        "fingerprint": baseline.fingerprint,
        "n": n,
        "baseline": {"path": sources["baseline"].name, "mean": _mean(baseline, paired.queries)},
        "candidate": {
            "path": sources["candidate"].name,
            "mean": _mean(candidate, paired.queries),
        },
        "mean_difference": exact_string(mean),
        "max_drop": None if args.max_drop is None else format(args.max_drop, "f"),
        "missing": {role: list(queries) for role, queries in scored.coverage.lacking.items()},
        "allow_missing": args.allow_missing,
        "test": {
            "test": options.test,
            "alternative": options.alternative,
            "p": float(tested.estimate.p),
            "p_interval": [float(tested.estimate.low), float(tested.estimate.high)],
            "draws": tested.estimate.draws,
            "alpha": float(options.alpha),
            "decided": decided,
            "significant": significant,
        },
        "regressed": [
            {
                "query": q,
                "baseline": format(baseline.per_query[q], "f"),
                "candidate": format(candidate.per_query[q], "f"),
                "difference": format(d, "f"),
            }
            for d, q in regressed[: args.top]
        ],
        "provenance": provenance(inputs, [scored.config] if scored.config else []),
    }
    if scored.config is None:
        report["provenance"]["configurations"] = [
            {"canonical": baseline.canonical, "fingerprint": baseline.fingerprint}
        ]
    if args.ci is not None:
        found = bootstrap(paired.differences, args.ci, args.ci_method, args.bootstrap, args.seed)
        report |= interval_json(found, args.ci, args.ci_method)
    return report


def text_report(report: dict[str, Any]) -> list[str]:
    """The lines ``diff`` prints."""
    test = report["test"]
    lines = [
        f"{report['verdict'].upper()}: {report['measure']} ({report['canonical']}, "
        f"fingerprint {report['fingerprint']}) over {report['n']} queries",
        *(
            f"  {role:<9} {float(report[role]['mean']):.{SHOWN}f}  {report[role]['path']}"
            for role in ("baseline", "candidate")
        ),
        f"  mean difference {float(report['mean_difference']):+.{SHOWN}f}; {test['test']} test "
        f"({test['alternative']}): p {test['p']:.4g}, alpha {test['alpha']:g}",
    ]
    if "ci" in report:
        ci = report["ci"]
        ends = (
            f"[{float(ci['low']):+.{SHOWN}f}, {float(ci['high']):+.{SHOWN}f}]"
            if ci["low"] is not None
            else f"none: {ci['undefined']}"
        )
        lines.append(f"  {ci['level']} {ci['method']} interval of the difference: {ends}")
    lines += [f"  {note}" for note in _notes(report)]
    lines += [f"  fails: {reason}" for reason in report["reasons"]]
    if report["regressed"]:
        lines.append("  most regressed queries:")
        lines += ["    {}: {} -> {} ({})".format(*_regressed_cells(r)) for r in report["regressed"]]
    return lines


def _notes(report: dict[str, Any]) -> list[str]:
    """What the report says beside its reasons: a verdict the draws left undecided, and the
    queries missing where --allow-missing let them pass."""
    test = report["test"]
    notes = []
    if not test["decided"]:
        low, high = test["p_interval"]
        notes.append(
            f"undecided: alpha lies inside the p-value's interval [{low:.4g}, {high:.4g}] "
            f"after {test['draws']} draws (--max-draws); not counted as worse"
        )
    if report["allow_missing"]:
        lacking = Coverage({role: tuple(queries) for role, queries in report["missing"].items()})
        notes += [f"allowed: {reason}" for reason in lacking.reasons()]
    return notes


def _regressed_cells(row: dict[str, str]) -> tuple[str, str, str, str]:
    """A regressed query, its two values and their difference, as printed."""
    return (
        row["query"],
        f"{float(row['baseline']):.{SHOWN}f}",
        f"{float(row['candidate']):.{SHOWN}f}",
        f"{float(row['difference']):+.{SHOWN}f}",
    )


def markdown_report(report: dict[str, Any]) -> list[str]:
    """A Markdown summary for a CI step to publish."""
    test = report["test"]
    mark = "✅ pass" if report["verdict"] == "pass" else "❌ fail"
    lines = [
        f"### ndcgspec diff: {mark}",
        "",
        f"`{report['canonical']}` (fingerprint `{report['fingerprint']}`), {report['n']} queries",
        "",
        "| | mean |",
        "|---|---:|",
        f"| baseline | {float(report['baseline']['mean']):.{SHOWN}f} |",
        f"| candidate | {float(report['candidate']['mean']):.{SHOWN}f} |",
        f"| difference | {float(report['mean_difference']):+.{SHOWN}f} |",
        "",
        f"{test['test']} test ({test['alternative']}): p = {test['p']:.4g}, "
        f"alpha = {test['alpha']:g}.",
    ]
    lines += [f"- {note}" for note in _notes(report)]
    lines += [f"- fails: {reason}" for reason in report["reasons"]]
    if report["regressed"]:
        lines += ["", "| query | baseline | candidate | difference |", "|---|---:|---:|---:|"]
        lines += ["| {} | {} | {} | {} |".format(*_regressed_cells(r)) for r in report["regressed"]]
    return lines


def junit_report(report: dict[str, Any]) -> list[str]:
    """A JUnit XML report of one test case, failed when the gate fails."""
    failed = report["verdict"] == "fail"
    name = quoteattr(report["measure"])
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuite name="ndcgspec diff" tests="1" failures="{int(failed)}" errors="0">',
        f'  <testcase classname="ndcgspec.diff" name={name}>',
    ]
    if failed:
        message = quoteattr("; ".join(report["reasons"]))
        body = escape("\n".join(text_report(report)))
        lines.append(f"    <failure message={message}>{body}</failure>")
    lines += ["  </testcase>", "</testsuite>"]
    return lines


def run_diff(args: argparse.Namespace) -> int:
    """Gate, print; exit status 0 for pass, 1 for fail (a refusal raises: status 2)."""
    report = gate(args)
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        render = {"text": text_report, "markdown": markdown_report, "junit": junit_report}
        print("\n".join(render[args.format](report)))
    return 0 if report["verdict"] == "pass" else 1
