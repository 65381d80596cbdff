"""One query's trace for ``ndcgspec explain --query --qrels --run``: the rank-by-rank table of
``ndcg.definition.dcg`` and ``ndcg.definition.idcg`` and the query's exact nDCG, DCG and IDCG.
Apart from `ndcgspec.commands.explain`, so that explaining a measure without a trace imports
neither the reference's evaluation nor mpmath."""

from __future__ import annotations

from decimal import Decimal

import mpmath

from ndcgspec.commands.score_output import UNDEFINED
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import canonical_decimal
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.precision import decimal_string
from ndcgspec.reference.query import QueryResult
from ndcgspec.reference.trec_io import read_qrels, read_run

TRACE_DECIMALS = 6
TRACE_COLUMNS = (
    "rank",
    "docid",
    "label",
    "gain",
    "discount",
    "discounted gain",
    "DCG",
    "ideal gain",
    "IDCG",
)


def traced_query(config: Config, qid: str, qrels_path: str, run_path: str) -> QueryResult:
    """The result of one query, with its trace; InputError when the query is not scored."""
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    if qid not in qrels:
        found = "is only in the run, and run queries absent from the qrels are never scored"
        raise InputError(f"query {qid!r} {found if qid in run else 'is not in the qrels'}")
    result = evaluate(config, {qid: qrels[qid]}, {qid: run[qid]} if qid in run else {})
    if qid not in result.per_query:
        raise InputError(
            f"query {qid!r} is absent from the run, so aggregate=run does not score it"
        )
    return result.per_query[qid]


def _fixed(value: mpmath.mpf | Decimal | None) -> str:
    exact = value if isinstance(value, Decimal) else decimal_string(value)
    return "-" if exact is None else f"{Decimal(exact):.{TRACE_DECIMALS}f}"


def trace_lines(result: QueryResult) -> list[str]:
    """The rank-by-rank table of one query (``QueryResult.trace``), then its exact values.

    A ranked document without a label is unjudged; "-" marks the end of a list."""
    rows = [TRACE_COLUMNS]
    for row in result.trace:
        if row.docid is None:
            label = "-"
        else:
            label = "unjudged" if row.label is None else canonical_decimal(row.label)
        rows.append(
            (
                str(row.rank),
                row.docid or "-",
                label,
                _fixed(row.gain),
                _fixed(row.discount),
                _fixed(row.discounted_gain),
                _fixed(row.dcg),
                _fixed(row.ideal_gain),
                _fixed(row.idcg),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(TRACE_COLUMNS))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]
    if not result.trace:
        lines.append("(no ranked document and no ideal document)")
    for name, value in (("nDCG", result.ndcg), ("DCG", result.dcg), ("IDCG", result.idcg)):
        lines.append(f"{name} = {decimal_string(value) or UNDEFINED}")
    return lines
