"""The reference's per-rank trace of a case, as the pytest plugin's failure report and
``ndcgspec cases show`` print it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ndcgspec.reference import NdcgSpecError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.precision import decimal_string
from ndcgspec.suite.loaded import LoadedCase

TRACE_DIGITS = 10
TRACE_RANKS = 20


def _trace_text(value: Any) -> str:
    """A value as the trace prints it: TRACE_DIGITS significant digits, "-" when undefined."""
    return "-" if value is None else str(decimal_string(value, TRACE_DIGITS))


def reference_trace(loaded: LoadedCase, qids: list[str], data: Path | None) -> Iterator[str]:
    """The reference's per-rank trace of the queries `qids`, as text lines; a published case's
    files are read below the data root `data`, the one the session ran the case with."""
    try:
        qrels, run = loaded.case.inputs(data)
        evaluation = evaluate(loaded.case.config, qrels, run)
    except NdcgSpecError as error:
        yield f"  the reference rejects this input: {error}"
        return
    for qid in qids:
        result = evaluation.per_query.get(qid)
        if result is None:
            continue
        yield (
            f"  query {qid}: nDCG = {_trace_text(result.ndcg)}  DCG = {_trace_text(result.dcg)}"
            f"  IDCG = {_trace_text(result.idcg)}"
        )
        yield "    rank  docid  label  gain  discount  dcg  | ideal gain  idcg"
        for row in result.trace[:TRACE_RANKS]:
            label = "-" if row.label is None else str(row.label)
            yield (
                f"    {row.rank}  {row.docid or '-'}  {label}  {_trace_text(row.gain)}"
                f"  {_trace_text(row.discount)}  {_trace_text(row.dcg)}"
                f"  | {_trace_text(row.ideal_gain)}  {_trace_text(row.idcg)}"
            )
        if len(result.trace) > TRACE_RANKS:
            yield f"    ... {len(result.trace) - TRACE_RANKS} more ranks"
