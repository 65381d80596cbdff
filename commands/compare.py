"""The ``compare`` command: do conclusions about runs survive another nDCG convention?

The runs are scored under the ``-m`` measures (without them `DEFAULT_CONVENTIONS`; with
``--presets`` every preset of ``spec/presets.yaml``) and compared (`ndcgspec.analysis.comparison`,
the paired tests `ndcgspec.analysis.pair_tests`) into one report
(`ndcgspec.commands.compare_report`); this module gives it as text
(`ndcgspec.commands.compare_text`: a summary that fits 100 columns, or with ``--full`` every
table), JSON, or a table for papers (`ndcgspec.commands.compare_tables`), and with ``--out DIR``
PNG figures and a self-contained HTML page (`ndcgspec.commands.compare_page`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from ndcgspec.analysis.comparison import Comparison, Convention, compare
from ndcgspec.analysis.judged import judged_at
from ndcgspec.analysis.provenance import input_digest, provenance
from ndcgspec.commands.compare_report import CompareReport
from ndcgspec.commands.compare_tables import latex_table, markdown_table
from ndcgspec.commands.compare_text import TAU_TABLE_MAX, report_text
from ndcgspec.commands.score_notes import check_shared, missing_note, unjudged_note
from ndcgspec.commands.significance import exact_string, paired_tests
from ndcgspec.commands.statistics_flags import (
    add_correction_flag,
    add_interval_flags,
    add_test_flags,
    options_of,
)
from ndcgspec.harness.outputs import output_path, staged
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.config import presets
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.reference.trec_io import STDIN, Source, opened, read_qrels, read_run

DEFAULT_CONVENTIONS = ("trec_eval@10", "burges2005@10", "sklearn@10", "jarvelin2002@10")
"""Four conventions of nDCG@10 a paper's reader meets, each named for its source
(``spec/presets.yaml``): trec_eval's (TREC's official scorer), Burges et al.'s exponential gain
(learning to rank), scikit-learn's (tie-averaged, ideal of the retrieved) and Järvelin and
Kekäläinen's original discount."""


def conventions_of(
    measures: Sequence[str], cutoff: int | None, every_preset: bool = False
) -> list[Convention]:
    """The ``-m`` measures, then every preset when asked, or else without measures
    `DEFAULT_CONVENTIONS`; each at `cutoff` when one is given."""
    written = list(measures) + ([p.id for p in presets()] if every_preset else [])
    named = [(m, parse_measure(m)) for m in dict.fromkeys(written or DEFAULT_CONVENTIONS)]
    if cutoff is not None:
        named = [(f"{n}@{cutoff}", c.replace(cutoff=cutoff)) for n, c in named]
    return [Convention(n, c) for n, c in named]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compare`` subcommand."""
    parser = subparsers.add_parser(
        "compare",
        help="compare runs under every convention: ranks, Kendall's tau, flips",
        description="Score every RUN against QRELS under each -m measure (by default "
        f"{', '.join(DEFAULT_CONVENTIONS)}; --presets: every preset) and report how the "
        "conventions spread the scores, reorder the runs, and why, and which differences "
        "between runs are significant under each.",
    )
    parser.add_argument("--qrels", required=True, metavar="QRELS", help="qrels file")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files (two or more)")
    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        default=[],
        metavar="MEASURE",
        help=f"a convention to compare (repeatable; default: {', '.join(DEFAULT_CONVENTIONS)})",
    )
    parser.add_argument(
        "--presets",
        action="store_true",
        help="compare under every preset of the spec too (long tables)",
    )
    parser.add_argument(
        "--name",
        dest="names",
        action="append",
        default=[],
        metavar="NAME",
        help=(
            "names of the runs, in order, repeated or comma-separated (default: each run's "
            "tag, trec_eval's runid; or, where it has none or an earlier run has it, the file "
            "name without .gz and input.)"
        ),
    )
    parser.add_argument(
        "--cutoff", type=int, metavar="K", help="apply cutoff K to every convention"
    )
    parser.add_argument(
        "--top",
        type=int,
        default=10,
        metavar="N",
        help="queries where the conventions disagree most shown by --full and JSON (10)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="print every table, where the default text is a summary 100 characters wide: "
        "the queries behind each flip and where the conventions disagree most, Kendall's "
        "tau-b between conventions, every pair's p-values",
    )
    parser.add_argument(
        "--tau-table",
        action="store_true",
        help="print the whole table of Kendall's tau-b between every two conventions (--full "
        f"prints it up to {TAU_TABLE_MAX} conventions; beyond, the pairs that agree least)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "latex", "markdown"),
        default="text",
        help="text, json, or a table for papers: latex (booktabs) or markdown",
    )
    parser.add_argument(
        "--out", metavar="DIR", help="also write compare.json, the PNG figures and compare.html"
    )
    parser.add_argument(
        "--title", default="nDCG conventions compared", help="title of the HTML page"
    )
    add_statistics_flags(parser)
    parser.set_defaults(handler=run_compare)


def add_statistics_flags(parser: argparse.ArgumentParser) -> None:
    """The paired tests, intervals and judged@k of the report (`commands.significance`)."""
    add_test_flags(parser)
    add_correction_flag(parser)
    add_interval_flags(parser, "each pair's mean difference")
    parser.add_argument(
        "--judged", action="store_true", help="add judged@k of each run at each cutoff"
    )


def compare_report(
    args: argparse.Namespace, comparison: Comparison, inputs: Inputs
) -> CompareReport:
    """The report: the comparison with its paired tests, provenance and, when asked,
    judged@k."""
    return CompareReport(
        comparison,
        args.top,
        paired_tests(comparison.runs, comparison.results, options_of(args)),
        provenance(
            {"qrels": input_digest(inputs.qrels), "runs": [input_digest(r) for r in inputs.runs]},
            [c.config for c in comparison.conventions],
        ),
        judged_report(inputs, comparison) if args.judged else None,
    )


def judged_report(inputs: Inputs, comparison: Comparison) -> dict[str, dict[str, str | None]]:
    """Per run, judged@k at every cutoff of the conventions, as exact decimal strings."""
    qrels = read_qrels(inputs.qrels)
    cutoffs = sorted({k for c in comparison.conventions if (k := c.config.cutoff) is not None})
    out: dict[str, dict[str, str | None]] = {}
    for name, source in zip(comparison.runs, inputs.runs, strict=True):
        run = read_run(source)
        out[name] = {}
        for k in cutoffs:
            mean = judged_at(qrels, run, k)[1]
            out[name][f"judged@{k}"] = None if mean is None else exact_string(mean)
    return out


@dataclass(frozen=True)
class Inputs:
    """The qrels and the runs, each opened once: standard input is read once, for the
    scores, judged@k and the digests of provenance alike."""

    qrels: Source
    runs: list[Source]

    @classmethod
    def opened(cls, args: argparse.Namespace, stack: ExitStack) -> Inputs:
        paths = [args.qrels, *args.runs]
        if paths.count(STDIN) > 1:
            raise NdcgSpecError("standard input ('-') can be only one of the qrels and the runs")
        sources = [stack.enter_context(opened(path)) for path in paths]
        return cls(sources[0], sources[1:])


def say_query_coverage(comparison: Comparison, qrels: str) -> None:
    """The notes on stderr of each run's queries missing from the qrels or the qrels'
    missing from it (as ``score`` gives them); an error for a run sharing none."""
    for run, presence in comparison.presence.items():
        check_shared(presence, qrels, run)
        missing = presence.missing()
        if missing:
            print(missing_note(missing, len(presence.qrels), run), file=sys.stderr)
        if presence.unjudged:
            print(unjudged_note(presence.unjudged, run), file=sys.stderr)


def run_compare(args: argparse.Namespace) -> int:
    """Compare, print, and write the figures and page when asked; exit status 0."""
    if len(args.runs) < 2:
        raise NdcgSpecError("compare needs at least two runs")
    if args.out:
        output_path(Path(args.out), "--out", folder=True)
        from ndcgspec.commands.compare_page import pyplot

        pyplot()
    conventions = conventions_of(args.measures, args.cutoff, args.presets)
    if len(conventions) < 2:
        # Said before any input is read: one convention ranks the runs but compares nothing.
        raise NdcgSpecError(
            f"compare needs at least two conventions; one was given ({conventions[0].name}): "
            "add another -m, or --presets"
        )
    with ExitStack() as stack:
        inputs = Inputs.opened(args, stack)
        comparison = compare(
            inputs.qrels,
            inputs.runs,
            conventions,
            [name for names in args.names for name in names.split(",")],
            progress=sys.stderr.isatty(),
        )
        say_query_coverage(comparison, inputs.qrels.name)
        if len(comparison.conventions) < 2:
            why = "; ".join(f"{name}: {reason}" for name, reason in comparison.excluded.items())
            raise NdcgSpecError(
                f"fewer than two conventions score every run; nothing to compare ({why})"
            )
        report = compare_report(args, comparison, inputs)
    if args.out:
        from ndcgspec.commands.compare_page import write_page

        with staged(Path(args.out)) as stage:
            write_page(report, stage, args.title)
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2))
    elif args.format == "latex":
        print(latex_table(report))
    elif args.format == "markdown":
        print(markdown_table(report))
    else:
        defaulted = not args.measures and not args.presets
        print("\n".join(report_text(report, defaulted, args.full, args.tau_table)))
    return 0
