"""The ``trec_eval`` command: trec_eval 10.0's command line and output for its nDCG family.

``ndcgspec trec_eval [-q] [-c] [-J] [-n] [-l N] [-M N] -m MEASURE ... QRELS RUN`` prints what
``trec_eval`` prints for ``ndcg``, ``ndcg_cut[.k,...]``, ``ndcg_rel``, ``Rndcg`` (with
'level=gain' parameters) and ``runid``, ``num_q``: the lines ``%-22s\\t%s\\t%6.4f``, per query
with -q in trec_eval's query order (strcmp of the query ids), measures in trec_eval's order,
then the summary. The values are the exact reference's under trec_eval's configuration
(``ndcgspec.measures.trec_eval_names``), rounded once to 4 decimals: ``ndcg`` and ``ndcg_cut``
computed by the engine, on the qrels and the run as its columnar reader reads them where it
can (`TrecQrels`, `ColumnRun`), ``ndcg_rel`` and ``Rndcg`` from the reference's per-rank trace.

What trec_eval does outside the spec is reproduced on the input, with its source: labels are
read with atol from their text, so "1e3", "1.5e1" and "1.9" are all 1 (get_qrels.c); scores
are read with atof, i.e. rounded to the nearest double, so scores equal as doubles tie
(get_trec_results.c); -M keeps the first N documents of each query in trec_eval's ranking
order before anything else (form_res_rels.c). What trec_eval leaves undefined is refused.

One difference remains possible by construction: trec_eval rounds its double, ndcgspec the
exact value, so the two can print different 4th decimals when the value lies within a few
units of 1e-16 of a rounding boundary (xx.xxxx5); none of the test data comes that close.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext
from functools import cached_property

import mpmath
import numpy as np

from ndcgspec.engine.evaluate import evaluate_prepared
from ndcgspec.engine.memory import Inputs
from ndcgspec.engine.memory import qrels_columns as memory_qrels_columns
from ndcgspec.engine.prepared import prepare
from ndcgspec.engine.read import (
    QrelsColumns,
    Unsupported,
    keep_freed_memory,
    read_qrels_columns,
    read_run_columns,
    run_capacity,
    run_pieces,
)
from ndcgspec.engine.result_digits import ResultDigits
from ndcgspec.engine.support import not_computed
from ndcgspec.measures.trec_eval_names import (
    GAIN_MEASURES,
    NDCG_MEASURES,
    ONE_CONFIGURATION_MEASURES,
    TrecMeasure,
    atol,
    check_gain_order,
    measure_config,
    parse_trec_measure,
    trec_eval_config,
)
from ndcgspec.reference.config import Config
from ndcgspec.reference.contexts import computing_mp
from ndcgspec.reference.discount import RankWeights
from ndcgspec.reference.errors import ConfigError, InputError
from ndcgspec.reference.inputs import Judgment, Posting
from ndcgspec.reference.location import Location
from ndcgspec.reference.precision import decimal_string, working_precision
from ndcgspec.reference.query import QueryResult, evaluate_query
from ndcgspec.reference.trec_io import (
    STDIN,
    Source,
    opened,
    read_qrels,
    read_run,
    run_tag,
)

#: trec_eval's summary line format (meas_print_final.c) and the run's tag column.
LINE = "{name:<22}\t{qid}\t{value}"
#: A label text whose atol is the integer it writes (with no digit beyond a C long's).
PLAIN_INTEGER = re.compile(r"[+-]?[0-9]+")
#: What C's printf writes for the NaN that 0.0 / 0 gives on x86-64 (m_Rndcg.c).
C_NAN = "-nan"
MEAN_DIGITS = 100


@dataclass(frozen=True)
class Options:
    """trec_eval's flags as ``ndcgspec trec_eval`` reads them (trec_eval.c main)."""

    measures: tuple[TrecMeasure, ...]
    per_query: bool = False
    complete: bool = False
    judged_only: bool = False
    summary: bool = True
    relevance_level: int = 1
    max_per_topic: int | None = None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``trec_eval`` subcommand."""
    parser = subparsers.add_parser(
        "trec_eval",
        help="trec_eval's command line and output for its nDCG measures",
        description="trec_eval 10.0's command line for ndcg, ndcg_cut, ndcg_rel and Rndcg "
        "(and runid, num_q): the same measure names, columns, 4 decimals and query order.",
    )
    parser.add_argument("qrels", metavar="QRELS", help="qrels file: qid iter docid label")
    parser.add_argument(
        "runs", nargs="+", metavar="RUN",
        help="run file: qid Q0 docid rank score tag; several runs print one after another, "
        "each what its own call would print, the qrels read once",
    )  # fmt: skip
    parser.add_argument(
        "-m", "--measure", action="append", default=[], metavar="MEASURE[.PARAMS]",
        help="ndcg, ndcg_cut[.5,10], ndcg_rel, Rndcg (with level=gain parameters), runid, "
        "num_q; repeatable",
    )  # fmt: skip
    parser.add_argument("-q", "--query_eval_wanted", action="store_true", help="per query too")
    parser.add_argument(
        "-c", "--complete_rel_info_wanted", action="store_true",
        help="average over every qrels query; a query missing from the run scores 0",
    )  # fmt: skip
    parser.add_argument(
        "-J", "--Judged_docs_only", action="store_true",
        help="remove unjudged documents before ranking",
    )  # fmt: skip
    parser.add_argument("-n", "--nosummary", action="store_true", help="no summary lines")
    # -l and -M are read in `options_from_args` as trec_eval reads them (atol), not by argparse.
    parser.add_argument(
        "-l", "--level_for_rel", default="1", metavar="N",
        help="minimum label of a relevant document (Rndcg: a query with none scores 0)",
    )  # fmt: skip
    parser.add_argument(
        "-M", "--Max_retrieved_per_topic", default=None, metavar="N",
        help="keep the first N documents of each ranking",
    )  # fmt: skip
    parser.set_defaults(handler=run_trec_eval)


def options_from_args(args: argparse.Namespace) -> Options:
    """Validated options; trec_eval's default measure set ('official') holds no nDCG."""
    if not args.measure:
        raise ConfigError(
            "trec_eval's default measures ('official') hold no nDCG measure; name them with -m, "
            f"e.g. -m ndcg -m ndcg_cut.10 ({', '.join(NDCG_MEASURES)})"
        )
    level = flag_number("-l", args.level_for_rel)
    cap = args.Max_retrieved_per_topic
    most = None if cap is None else flag_number("-M", cap)
    if most is not None and most < 0:
        raise ConfigError("-M must be >= 0")
    first: dict[str, TrecMeasure] = {}
    for text in args.measure:
        measure = parse_trec_measure(text)
        # trec_eval uses the first parameters given for a measure (meas_init.c).
        first.setdefault(measure.name, measure)
    return Options(
        measures=tuple(first.values()),
        per_query=args.query_eval_wanted,
        complete=args.complete_rel_info_wanted,
        judged_only=args.Judged_docs_only,
        summary=not args.nosummary,
        relevance_level=level,
        max_per_topic=most,
    )


def flag_number(flag: str, text: str) -> int:
    """The value of -l or -M as trec_eval reads it, with atol (trec_eval.c main): "2_0" is 2,
    "1e3" is 1."""
    try:
        return atol(text)
    except OverflowError as error:
        raise ConfigError(f"{flag} {error}") from None


def run_trec_eval(args: argparse.Namespace) -> int:
    """Read, compute every line, then print, run after run; exit status 0. A run given as '-'
    is read from stdin, as trec_eval reads it; each run is opened once, since the runid needs
    a second pass over it, and its errors name it ('<stdin>' for '-')."""
    keep_freed_memory()
    options = options_from_args(args)
    if [args.qrels, *args.runs].count(STDIN) > 1:
        raise InputError("standard input ('-') can be only one of the qrels and the runs")
    wants_runid = any(m.name == "runid" for m in options.measures)
    with opened(args.qrels) as qrels_source:
        qrels = TrecQrels(qrels_source)
        columns = engine_qrels(options, qrels)
        for path in args.runs:
            with opened(path) as source:
                run = column_run(columns, source) or read_run(source, extra_fields=True)
                runid = run_tag(source) if wants_runid else ""
            lines = trec_eval_lines(options, qrels, run, runid)
            if lines:
                print("\n".join(lines), flush=True)
    return 0


def atol_label(text: str, where: Location) -> Decimal:
    """A label as trec_eval reads it, with atol (get_qrels.c): the number its leading sign and
    digits write, whatever follows them; beyond a C long, where atol is undefined, an error.
    ``ndcg.fractional.truncate`` models atol on the value, which differs for "1e3"; the text
    is read here, so the preset's truncation leaves these integers as they are."""
    try:
        return Decimal(atol(text))
    except OverflowError as error:
        raise InputError(f"label {error}", where) from None


class TrecQrels:
    """A qrels file as trec_eval reads it, labels with atol (get_qrels.c), read at most once
    into each form a run needs: the engine's columns, read by the columnar reader when every
    label is a plain integer (whose atol is the decimal it writes), and the reference's
    judgments, read by the plain reader otherwise or when the reference computes."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._columns: QrelsColumns | None = None
        self._judgments: dict[str, dict[str, Judgment]] | None = None

    def columns(self) -> QrelsColumns:
        """The engine's columns; Unsupported for judgments the columns cannot hold."""
        if self._columns is None:
            try:
                columns = read_qrels_columns(self.source)
                if all(_plain_integer(text) for text in columns.label_texts):
                    self._columns = columns
            except Unsupported:
                pass
        if self._columns is None:
            self._columns = memory_qrels_columns(self.judgments())
        return self._columns

    def judgments(self) -> dict[str, dict[str, Judgment]]:
        """The reference's judgments, each label its atol (`atol_label`)."""
        if self._judgments is None:
            self._judgments = read_qrels(self.source, atol_label)
        return self._judgments

    @cached_property
    def top_labels(self) -> dict[str, int]:
        """Each query's highest label, queries in the file's order, worked out once for every
        run: from the columns when they are read, else from the judgments (both hold the same
        labels)."""
        if self._columns is None:
            judged = self.judgments().items()
            return {qid: max(int(j.label) for j in js.values()) for qid, js in judged}
        columns = self._columns
        levels = np.array([int(Decimal(text)) for text in columns.label_texts], np.int64)
        tops = np.full(len(columns.qids), np.iinfo(np.int64).min, np.int64)
        np.maximum.at(tops, columns.qidx, levels[columns.label_id])
        return dict(zip(columns.qids, tops.tolist(), strict=True))


def _plain_integer(text: str) -> bool:
    """Whether atol reads the label `text` as the integer it writes, within a C long."""
    if not PLAIN_INTEGER.fullmatch(text):
        return False
    try:
        atol(text)
    except OverflowError:
        return False
    return True


class ColumnRun:
    """A run read by the engine's columnar reader, every score its nearest double (atof), and
    ranked once: the input of `ndcg` and `ndcg_cut` without -M, scored as `score` scores files
    (``engine/prepared.py``, ``engine/evaluate.py``), where the plain reader's postings cost
    several times more."""

    def __init__(self, columns: QrelsColumns, source: Source) -> None:
        pieces = (
            replace(piece, inexact=piece.inexact[:0], inexact_texts=[])
            for piece in run_pieces(source, columns.qids)
        )
        run = read_run_columns(pieces, source.name, len(columns.qids), run_capacity(source))
        self.queries = {q for q, listed in zip(columns.qids, run.present, strict=True) if listed}
        self.prepared = prepare(columns, run)

    def __contains__(self, qid: object) -> bool:
        return qid in self.queries

    def result(self, config: Config) -> ResultDigits:
        """The result of `config`, computed by the engine."""
        return evaluate_prepared(self.prepared, config)


def engine_qrels(options: Options, qrels: TrecQrels) -> QrelsColumns | None:
    """The qrels as the engine's columns, made once for every run, when every measure is one
    the engine computes and no -M cuts the rankings; None when the plain reader must read the
    runs: -M, ``ndcg_rel`` or ``Rndcg``, a configuration the engine does not declare, or
    judgments the columns cannot hold."""
    measures = [m for m in options.measures if m.name in NDCG_MEASURES]
    if options.max_per_topic is not None or any(
        m.name not in ONE_CONFIGURATION_MEASURES for m in measures
    ):
        return None
    base = trec_eval_config(options.complete, options.judged_only)
    if any(not_computed(measure_config(m, base)) for m in measures):
        return None
    try:
        return qrels.columns()
    except Unsupported:
        return None


def column_run(columns: QrelsColumns | None, source: Source) -> ColumnRun | None:
    """The run as a `ColumnRun` against the qrels' `columns`; None when there are none, or
    when the columnar reader declines the run (whose error the plain reader then reports)."""
    if columns is None:
        return None
    try:
        return ColumnRun(columns, source)
    except Unsupported:
        return None


def as_double(postings: Sequence[Posting]) -> list[Posting]:
    """Scores as trec_eval holds them: atof, the nearest double (get_trec_results.c)."""
    return [replace(p, score=Decimal(float(p.score))) for p in postings]


def first_documents(postings: Sequence[Posting], count: int | None) -> list[Posting]:
    """-M: the first `count` documents in trec_eval's order, score descending, ties by
    document id descending (``ndcg.ties.docid-desc``; form_res_rels.c comp_sim_docno)."""
    if count is None:
        return list(postings)
    ranked = sorted(postings, key=lambda p: (p.score, p.docid.encode("utf-8")), reverse=True)
    return ranked[:count]


def _prefix(result: QueryResult, k: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """DCG@k and IDCG@k from the reference's trace (which runs to the longer list's end)."""
    if not result.trace:
        return computing_mp().zero, computing_mp().zero
    row = result.trace[min(k, len(result.trace)) - 1]
    return row.dcg, row.idcg


def ndcg_at(result: QueryResult, k: int) -> mpmath.mpf:
    """nDCG@k, 0 when IDCG@k is 0 (``ndcg.empty.zero``)."""
    dcg, idcg = _prefix(result, k)
    return dcg / idcg if idcg > 0 else computing_mp().zero


def ndcg_rel(result: QueryResult) -> mpmath.mpf:
    """m_ndcg_rel.c: nDCG at the rank of each retrieved document of positive gain, and the
    full nDCG for each positive-gain document not retrieved, averaged over the R documents of
    positive gain; 0 when that sum is 0."""
    positive = sum(1 for row in result.trace if row.ideal_gain is not None)
    if positive == 0:
        return computing_mp().zero
    found = [row.rank for row in result.trace if row.gain is not None and row.gain > 0]
    total = computing_mp().fsum(ndcg_at(result, rank) for rank in found)
    total += (positive - len(found)) * ndcg_at(result, len(result.trace))
    return total / positive if total > 0 else computing_mp().zero


def rndcg(result: QueryResult, ranked: int, relevant: int) -> mpmath.mpf:
    """m_Rndcg.c: nDCG@i at each rank i where the ideal list's gain changes (R levels), and
    at the ranking's end when it runs more than one past the ideal list, averaged; 0 when
    no document reaches the relevance level, NaN (as trec_eval's 0/0) when there is no point."""
    if relevant == 0:
        return computing_mp().zero
    ideal = [row.ideal_gain for row in result.trace if row.ideal_gain is not None]
    points = [i for i in range(1, len(ideal) + 1) if [*ideal, 0][i] != ideal[i - 1]]
    if ranked > len(ideal) + 1:
        points.append(ranked)
    values = [ndcg_at(result, i) for i in points if _prefix(result, i)[1] > 0]
    return computing_mp().fsum(values) / len(values) if values else computing_mp().nan


def relevant_count(judgments: dict[str, Judgment], level: int) -> int:
    """Judged documents at or above -l among levels >= 0, labels read with atol
    (form_res_rels.c num_rel)."""
    return sum(1 for j in judgments.values() if int(j.label) >= max(level, 0))


def evaluated_queries(
    top_labels: dict[str, int], run: dict[str, list[Posting]] | ColumnRun, complete: bool
) -> list[str]:
    """trec_eval's queries: those of the qrels (each with its highest label) in strcmp order;
    without -c a qrels query missing from the run stops trec_eval 10.0 (trec_eval.c main,
    exit 4), so it is an error."""
    queries = sorted(top_labels, key=lambda q: q.encode("utf-8"))
    missing = [q for q in queries if q not in run]
    if missing and not complete:
        raise InputError(
            f"query {missing[0]!r} of the qrels is not in the run ({len(missing)} missing); "
            "trec_eval 10.0 stops there without -c; give -c to score missing queries 0"
        )
    if not any(q in run for q in queries):
        raise InputError("no query has both results and relevance judgments")
    for qid in queries:
        if top_labels[qid] < 0:
            raise InputError(
                f"query {qid!r} has only negative labels: trec_eval 10.0 then reads the "
                "previous query's relevance levels (form_res_rels.c), so its value is undefined"
            )
    return queries


def format_value(value: Decimal) -> str:
    """C's ``%6.4f`` of the value, rounded half to even."""
    if value.is_nan():
        return f"{C_NAN:>6}"
    return format(value, "6.4f")


def as_decimal(value: mpmath.mpf) -> Decimal:
    """A value the reference computed, as its correctly rounded decimal (NaN kept)."""
    if mpmath.isnan(value):
        return Decimal("NaN")
    text = decimal_string(value)
    # decimal_string keeps only None as None.
    assert text is not None
    return Decimal(text)


def trec_eval_lines(
    options: Options,
    qrels: TrecQrels,
    run: dict[str, list[Posting]] | ColumnRun,
    runid: str,
) -> list[str]:
    """Every line trec_eval prints for these options and inputs. ``ndcg`` and ``ndcg_cut`` are
    each one configuration's nDCG, which the engine computes (``engine/memory.py``, the
    reference's digits); ``ndcg_rel`` and ``Rndcg`` average nDCG over ranks of the
    reference's trace."""
    base = trec_eval_config(options.complete, options.judged_only)
    top_labels = qrels.top_labels
    queries = evaluated_queries(top_labels, run, options.complete)
    wanted = {m.name: m for m in options.measures}
    ndcg_measures = [wanted[name] for name in NDCG_MEASURES if name in wanted]
    for measure in ndcg_measures:
        if measure.name in GAIN_MEASURES and measure.gains:
            for qid in queries:
                check_gain_order(measure, top_labels[qid])
    inputs: ColumnRun | Inputs
    if isinstance(run, ColumnRun):
        judged: dict[str, dict[str, Judgment]] = {}
        ranked: dict[str, list[Posting]] = {}
        inputs = run
    else:
        judgments = qrels.judgments()
        judged = {qid: judgments[qid] for qid in queries}
        ranked = {
            qid: first_documents(as_double(run.get(qid, ())), options.max_per_topic)
            for qid in queries
        }
        inputs = Inputs(judged, {qid: postings for qid, postings in ranked.items() if postings})
    traced = [m for m in ndcg_measures if m.name not in ONE_CONFIGURATION_MEASURES]
    traces = reference_traces(traced, base, judged, ranked)
    per_query: dict[str, list[tuple[str, Decimal]]] = {qid: [] for qid in queries}
    for measure in ndcg_measures:
        config = measure_config(measure, base)
        if measure.name in ONE_CONFIGURATION_MEASURES:
            cutoffs = measure.cutoffs if measure.name == "ndcg_cut" else [None]
            for label, k in zip(measure.labels(), cutoffs, strict=True):
                scored = inputs.result(config.replace(cutoff=k)).per_query
                for qid in queries:
                    # A query -M leaves no document retrieves nothing: DCG 0, and nDCG 0
                    # whatever its ideal DCG (``ndcg.empty.zero``), so no nDCG is undefined.
                    ndcg = scored[qid]["ndcg"] if qid in scored else "0"
                    assert ndcg is not None
                    per_query[qid].append((label, Decimal(ndcg)))
            continue
        for qid in queries:
            value = traced_value(measure, traces[(config, qid)], options, judged[qid])
            per_query[qid].append((measure.labels()[0], value))
    lines = []
    if options.per_query:
        for qid, values in per_query.items():
            lines += [LINE.format(name=n, qid=qid, value=format_value(v)) for n, v in values]
    if options.summary:
        lines += summary_lines(options, per_query, runid, wanted)
    return lines


def reference_traces(
    measures: Sequence[TrecMeasure],
    base: Config,
    judged: dict[str, dict[str, Judgment]],
    ranked: dict[str, list[Posting]],
) -> dict[tuple[Config, str], QueryResult]:
    """The reference's result, with its per-rank trace, of each query under each
    configuration of `measures`; every query weighs rank i alike, so each rank's discount is
    computed once per configuration."""
    weights = {c: RankWeights(c) for c in {measure_config(m, base) for m in measures}}
    with working_precision():
        return {
            (config, qid): evaluate_query(qid, judged[qid], ranked[qid], config, weight)
            for config, weight in weights.items()
            for qid in judged
        }


def traced_value(
    measure: TrecMeasure, result: QueryResult, options: Options, judgments: dict[str, Judgment]
) -> Decimal:
    """``ndcg_rel`` or ``Rndcg`` of one query, from the reference's result under the
    measure's configuration."""
    with working_precision():
        if measure.name == "ndcg_rel":
            return as_decimal(ndcg_rel(result))
        ranked = sum(1 for row in result.trace if row.docid is not None)
        return as_decimal(rndcg(result, ranked, relevant_count(judgments, options.relevance_level)))


def summary_lines(
    options: Options,
    per_query: dict[str, list[tuple[str, mpmath.mpf]]],
    runid: str,
    wanted: dict[str, TrecMeasure],
) -> list[str]:
    """runid, num_q, then each measure's mean over the evaluated queries (meas_avg.c)."""
    lines = []
    if "runid" in wanted:
        lines.append(LINE.format(name="runid", qid="all", value=runid))
    if "num_q" in wanted:
        lines.append(LINE.format(name="num_q", qid="all", value=len(per_query)))
    columns = list(zip(*per_query.values(), strict=True))
    # Each value has at most 40 significant digits: the sum is exact, the quotient far finer
    # than the 4 decimals printed.
    with localcontext(prec=MEAN_DIGITS):
        for column in columns:
            values = [v for _, v in column]
            undefined = any(v.is_nan() for v in values)
            mean = Decimal("NaN") if undefined else sum(values, Decimal(0)) / len(values)
            lines.append(LINE.format(name=column[0][0], qid="all", value=format_value(mean)))
    return lines
