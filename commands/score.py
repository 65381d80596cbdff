"""The ``score`` command: nDCG of a TREC run against TREC qrels under one or more measures.

Either file may instead be a Parquet, Arrow IPC or CSV table (``ndcg.input.table``), of the
columns ``query_id, doc_id, relevance`` and ``query_id, doc_id, score`` unless
``--qrels-columns`` and ``--run-columns`` name others.

Output formats (``--format``):

- ``text``: trec_eval-like lines ``<measure>\\t<qid or all>\\t<value>``, the measure as the
  user wrote it, the value a decimal string of the spec's output digits (``ndcg.precision``),
  or of ``--digits N`` decimal places, or ``undefined``; ``-q`` adds a line per query before
  the ``all`` line.
- ``json``: one JSON result object per measure, one per line (JSON Lines), each with the keys
  ``measure`` (canonical), ``written`` (as given), ``fingerprint``, ``spec_version``,
  ``aggregate`` and ``per_query``
  (``{qid: {"ndcg", "dcg", "idcg"}}``); numbers are decimal strings or null. ``per_query`` is
  always present: it is part of the contract, so ``-q`` changes nothing in this format.

With neither ``-m`` nor ``--config`` the measure is ``nDCG``: every axis at the spec's default,
the whole ranking.

Several runs (``score QRELS RUN1 RUN2 ...``) print one after another, each what its own call
would print with each line naming the run: a first field in text, a ``run`` key in JSON, the
run's tag (the sixth field of its last line, trec_eval's ``runid``), or its file where it is a
table, is on Spark, or has the tag of an earlier run. The qrels are read once and each rank's
discount is computed once for them all. Each run's lines are computed before any of them is
printed, so an error leaves nothing of that run on stdout: it stops the command after the
lines of the runs before it.

Beside the numbers, on stderr: a note naming the qrels queries the run lacks (what the
aggregate does with them), and one naming the run's queries the qrels lack (never scored). A
run that shares no query with the qrels is an error, not a mean of 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from functools import partial
from typing import TYPE_CHECKING

from ndcgspec.analysis.run_labels import run_label
from ndcgspec.commands.score_notes import check_shared, missing_note, query_probes, unjudged_note
from ndcgspec.commands.score_output import text_lines
from ndcgspec.commands.statistics_flags import add_interval_flags, add_seed_flag
from ndcgspec.engine.read import keep_freed_memory
from ndcgspec.engine.read_ahead import hand_over_often
from ndcgspec.engine.scoring import scored_runs
from ndcgspec.engine.stream import QueryPresence, Scored
from ndcgspec.engine.table import QRELS_COLUMNS, RUN_COLUMNS, TableColumns
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config
from ndcgspec.reference.result import Result
from ndcgspec.reference.trec_io import STDIN, Source, opened

if TYPE_CHECKING:
    from ndcgspec.commands.score_statistics import ScoreStatistics


def config_from_file(path: str) -> Config:
    """The configuration of a YAML or JSON file (`measures.config_file`), whose YAML reader is
    imported only when a file is given: a plain `score` starts without PyYAML."""
    from ndcgspec.measures.config_file import load_config_file

    return load_config_file(path)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``score`` subcommand."""
    parser = subparsers.add_parser(
        "score",
        help="score a TREC run against TREC qrels",
        description="nDCG of a TREC run against TREC qrels (gzip, pipes and FIFOs accepted), "
        "or of Parquet, Arrow IPC or CSV tables (a header row; the file named *.csv), per "
        "measure. "
        "Without -m or --config the measure is nDCG with every axis at the spec's default.",
    )
    parser.add_argument(
        "qrels", metavar="QRELS", help="qrels file: qid iter docid label; '-' is standard input"
    )
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="run file: qid Q0 docid rank score tag; '-' is standard input; several runs print "
        "one after another, the qrels read once, each line naming its run by its tag (or its "
        "file, where it is a table, is on Spark or repeats a tag)",
    )
    parser.add_argument(
        "-m",
        "--measure",
        dest="configs",
        action="append",
        type=lambda text: (text, partial(parse_measure, text)),
        metavar="MEASURE",
        help="a measure string or preset name, optionally with @k, e.g. 'nDCG@10', "
        "'trec_eval@10'; repeatable",
    )
    parser.add_argument(
        "--config",
        dest="configs",
        action="append",
        type=lambda path: (None, partial(config_from_file, path)),
        metavar="FILE",
        help="a YAML or JSON file holding one configuration object; repeatable",
    )
    parser.add_argument(
        "--qrels-columns",
        type=column_names,
        default=QRELS_COLUMNS,
        metavar="QUERY,DOC,RELEVANCE",
        help="a qrels table's columns (Parquet, Arrow or CSV with a header); "
        f"default {','.join(QRELS_COLUMNS)}",
    )
    parser.add_argument(
        "--run-columns",
        type=column_names,
        default=RUN_COLUMNS,
        metavar="QUERY,DOC,SCORE",
        help=f"a run table's columns; default {','.join(RUN_COLUMNS)}",
    )
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: trec_eval-like lines 'measure<TAB>query<TAB>value'; json: JSON Lines, one "
        "object per measure (and run) on a line of its own",
    )
    parser.add_argument(
        "-q", "--per-query", action="store_true", help="text format: add a line per query"
    )
    parser.add_argument(
        "--digits",
        type=int,
        choices=range(41),
        metavar="N",
        help="text format: round values to N decimal places (JSON keeps every digit)",
    )
    parser.add_argument(
        "--engine",
        choices=["local", "spark"],
        default="local",
        help="local: this process; spark: Apache Spark, partitioned by query (TREC text or "
        "Parquet files Spark reads; needs ndcgspec[spark]); the same result either way",
    )
    parser.add_argument(
        "--master",
        metavar="URL",
        help="--engine spark: the Spark master (local[4], spark://host:7077, yarn, ...)",
    )
    add_interval_flags(parser, "each measure's mean")
    add_seed_flag(parser)
    parser.add_argument(
        "--judged",
        action="store_true",
        help="add judged@k beside each measure with a cutoff k (also: -m judged@K)",
    )
    parser.set_defaults(handler=run_score)


def column_names(text: str) -> tuple[str, str, str]:
    """Three column names, comma-separated (``ndcg.input.table``)."""
    names = tuple(name.strip() for name in text.split(","))
    if len(names) != 3 or not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: three comma-separated column names wanted")
    return names


def _scored_on_spark(
    configs: list[Config], args: argparse.Namespace, run: str, columns: TableColumns
) -> Scored:
    """`scored_files` on Spark, and which qrels queries the run lists: from `query_probes`
    scored with the measures."""
    from ndcgspec.spark.session import scored_files_spark

    (*results, every, both), unjudged = scored_files_spark(
        [*configs, *query_probes()], args.qrels, run, columns, master=args.master
    )
    listed = [q in both.per_query for q in every.per_query]
    presence = QueryPresence.of(list(every.per_query), listed, unjudged)
    return Scored([result.to_json() for result in results], presence)


def _scored_runs(
    configs: list[Config],
    args: argparse.Namespace,
    qrels: str | Source,
    columns: TableColumns,
    per_query: bool,
) -> Iterator[tuple[str | Source, Scored]]:
    """Each run, still open where the local engine read it, with its scores; the local
    engine makes each query's digits only with `per_query`."""
    if args.engine == "spark":
        for run in args.runs:
            yield run, _scored_on_spark(configs, args, run, columns)
        return
    yield from scored_runs(configs, qrels, args.runs, columns, per_query)


def run_score(args: argparse.Namespace) -> int:
    """Score each run, then print its lines, run after run; notes on stderr when the run
    and the qrels do not list the same queries; exit status 0."""
    keep_freed_memory()
    hand_over_often()
    asked: list[tuple[str | None, Callable[[], Config]]] = args.configs or []
    judged_asked = args.judged or any(w and "judged" in w.lower() for w, _ in asked)
    statistics: type[ScoreStatistics] | None = None
    judged: list[tuple[str, int]] = []
    if judged_asked or args.ci is not None or args.format == "json":
        # Only then: a plain `score` imports none of the statistics (a fast start).
        from ndcgspec.commands import score_statistics

        statistics = score_statistics.ScoreStatistics
        judged = score_statistics.judged_measures(asked)
    taken = {written for written, _ in judged}
    makers = [(w, make) for w, make in asked if w not in taken]
    if not makers and not judged:
        makers = [(None, Config.default)]
    configs = [make() for _, make in makers]
    if args.judged:
        judged += [(f"judged@{c.cutoff}", c.cutoff) for c in configs if c.cutoff]
    columns = TableColumns(args.qrels_columns, args.run_columns)
    with ExitStack() as stack:
        qrels = args.qrels
        if args.engine == "local" and not (qrels == STDIN and STDIN in args.runs):
            # Opened once here, so that the digests of provenance read the bytes scored.
            qrels = stack.enter_context(opened(qrels))
        tags: set[str] = set()
        # Per-query values are printed with -q, in JSON, and read by the statistics alone.
        per_query = args.per_query or statistics is not None
        for run, scored in _scored_runs(configs, args, qrels, columns, per_query):
            name = getattr(run, "name", str(run))
            check_shared(scored.presence, getattr(qrels, "name", str(qrels)), name)
            lines = _run_lines(args, statistics, qrels, run, configs, makers, scored, judged)
            named = name if len(args.runs) > 1 else None
            missing = scored.presence.missing()
            if missing:
                print(missing_note(missing, len(scored.presence.qrels), named), file=sys.stderr)
            if scored.presence.unjudged:
                print(unjudged_note(scored.presence.unjudged, named), file=sys.stderr)
            if named:
                lines = _labelled(lines, run_label(run, tags, name), args.format)
            print("\n".join(lines), flush=True)
    return 0


def _labelled(lines: list[str], label: str, output: str) -> list[str]:
    """A run's lines, each naming it: a first field in text, a ``run`` key in JSON Lines."""
    if output == "json":
        return [json.dumps({"run": label, **json.loads(line)}) for line in lines]
    return [f"{label}\t{line}" for line in lines]


def _run_lines(
    args: argparse.Namespace,
    statistics: type[ScoreStatistics] | None,
    qrels: str | Source,
    run: str | Source,
    configs: list[Config],
    makers: list[tuple[str | None, Callable[[], Config]]],
    scored: Scored,
    judged: list[tuple[str, int]],
) -> list[str]:
    """What one run's call prints: its results in the output format, then judged@k."""
    scores = [
        Result.from_json(r, written) for (written, _), r in zip(makers, scored.results, strict=True)
    ]
    if statistics is None:
        return text_lines(scores, args.per_query, args.digits)
    output = statistics.of(args, qrels, run, configs, scores, judged)
    for note in output.notes:
        print(note, file=sys.stderr)
    if args.format == "json":
        return output.json_lines(scores) + output.judged
    return output.text(scores) + output.judged
