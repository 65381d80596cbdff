"""``ndcgspec.score``: nDCG of a run against qrels from Python, exact.

Qrels and runs may be TREC file paths (gzip accepted), paths of Parquet, Arrow IPC or CSV
tables (``ndcg.input.table``), ``{qid: {docid: value}}`` dicts (the shape pytrec_eval takes) or
pandas DataFrames. Tables and DataFrames have ir_measures' columns ``query_id, doc_id,
relevance`` and ``query_id, doc_id, score`` unless `qrels_columns` and `run_columns` name
others. Measures are measure strings of
``spec/grammar.yaml``: canonical (``nDCG@10``), presets (``trec_eval@10``), trec_eval names
(``ndcg_cut.10``) and ir_measures strings (``nDCG(judged_only=True)@5``). Values are exact
decimals of the spec's output digits (``ndcg.precision``) with a float view.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ndcgspec.engine.memory import Inputs
from ndcgspec.engine.scoring import score_files
from ndcgspec.engine.table import QRELS_COLUMNS, RUN_COLUMNS, TableColumns
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.reference.inputs import Judgment, Posting, qrels_from_labels, run_from_scores
from ndcgspec.reference.trec_io import read_qrels, read_run

#: A TREC file path, ``{qid: {docid: value}}``, or a pandas DataFrame of ir_measures' columns.
Source = str | os.PathLike[str] | Mapping[str, Mapping[str, Any]] | Any


class ScoreError(NdcgSpecError):
    """Input or a measure that cannot be scored: `file` and `line` name where (None for
    in-memory input), `anchor` the spec anchor of the rule that refused it when known."""

    def __init__(self, error: NdcgSpecError) -> None:
        super().__init__(str(error))
        where = getattr(error, "where", None) or ""
        path, sep, line = where.rpartition(":")
        self.file: str | None = path if sep and line.isdigit() else (where or None)
        self.line: int | None = int(line) if sep and line.isdigit() else None
        self.anchor: str | None = getattr(error, "anchor", None)


@dataclass(frozen=True)
class Result:
    """One measure's scores: `measure` as written, its canonical form and fingerprint, the
    aggregate and the per-query nDCG as exact decimals (None when undefined)."""

    measure: str
    canonical: str
    fingerprint: str
    aggregate: Decimal | None
    per_query: dict[str, Decimal | None]

    def __float__(self) -> float:
        """The aggregate as a float (NaN when undefined)."""
        return float("nan") if self.aggregate is None else float(self.aggregate)

    def per_query_float(self) -> dict[str, float]:
        """The per-query values as floats (NaN when undefined)."""
        return {q: float("nan") if v is None else float(v) for q, v in self.per_query.items()}


def _decimal(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)


def _exact(value: Any) -> str | int | Decimal:
    # A binary float is the exact decimal of its value, as in a table (``ndcg.input.table``):
    # the number a float implementation is given, so one rule holds for every input kind.
    return Decimal(value) if isinstance(value, float) else value


def _from_frame(frame: Any, columns: tuple[str, str, str]) -> list[tuple[str, str, Any]]:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise NdcgSpecError(
            f"DataFrame lacks column {missing[0]!r}; expected columns {', '.join(columns)}"
        )
    return [(str(q), str(d), v) for q, d, v in frame[list(columns)].itertuples(index=False)]


def _qrels(source: Source, columns: tuple[str, str, str]) -> Mapping[str, Mapping[str, Judgment]]:
    if isinstance(source, (str, os.PathLike)):
        return read_qrels(source)
    if hasattr(source, "itertuples"):
        labels: dict[str, dict[str, Any]] = {}
        for row, (qid, docid, label) in enumerate(_from_frame(source, columns)):
            if docid in labels.setdefault(qid, {}):
                raise NdcgSpecError(
                    f"qrels row {row}: document {docid!r} is judged twice for query {qid!r}"
                )
            labels[qid][docid] = _exact(label)
        return qrels_from_labels(labels)
    return qrels_from_labels(
        {str(q): {str(d): _exact(v) for d, v in docs.items()} for q, docs in source.items()}
    )


def _run(source: Source, columns: tuple[str, str, str]) -> Mapping[str, list[Posting]]:
    if isinstance(source, (str, os.PathLike)):
        return read_run(source)
    if hasattr(source, "itertuples"):
        pairs: dict[str, list[tuple[str, Any]]] = {}
        for qid, docid, value in _from_frame(source, columns):
            pairs.setdefault(qid, []).append((docid, _exact(value)))
        return run_from_scores(pairs)
    return run_from_scores(
        {str(q): {str(d): _exact(v) for d, v in docs.items()} for q, docs in source.items()}
    )


def score(
    qrels: Source,
    run: Source,
    measures: str | Iterable[str] = "nDCG",
    *,
    qrels_columns: tuple[str, str, str] = QRELS_COLUMNS,
    run_columns: tuple[str, str, str] = RUN_COLUMNS,
) -> dict[str, Result]:
    """Score `run` against `qrels` under each measure; the results keyed by the measure as
    written. Bad input or an unknown measure raises ScoreError (file, line or table row,
    anchor)."""
    wanted = [measures] if isinstance(measures, str) else list(measures)
    try:
        configs = [parse_measure(text) for text in wanted]
        if all(isinstance(s, (str, os.PathLike)) for s in (qrels, run)):
            columns = TableColumns(tuple(qrels_columns), tuple(run_columns))
            outputs = score_files(configs, qrels, run, columns)
        else:
            inputs = Inputs(_qrels(qrels, qrels_columns), _run(run, run_columns))
            outputs = [inputs.result(config) for config in configs]
    except NdcgSpecError as error:
        raise ScoreError(error) from error
    return {
        text: Result(
            measure=text,
            canonical=out["measure"],
            fingerprint=out["fingerprint"],
            aggregate=_decimal(out["aggregate"]),
            per_query={q: _decimal(r["ndcg"]) for q, r in out["per_query"].items()},
        )
        for text, out in zip(wanted, outputs, strict=True)
    }
