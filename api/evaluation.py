"""``ndcgspec.score``: nDCG of a run against qrels from Python, exact.

Qrels and runs may be TREC file paths (gzip accepted), paths of Parquet, Arrow IPC or CSV
tables (``ndcg.input.table``), ``{qid: {docid: value}}`` dicts (the shape pytrec_eval takes) or
pandas DataFrames. Tables and DataFrames have ir_measures' columns ``query_id, doc_id,
relevance`` and ``query_id, doc_id, score`` unless `qrels_columns` and `run_columns` name
others. Measures are measure strings of
``spec/grammar.yaml``: canonical (``nDCG@10``), presets (``trec_eval@10``), trec_eval names
(``ndcg_cut.10``) and ir_measures strings (``nDCG(judged_only=True)@5``). Values are exact
decimals of the spec's output digits (``ndcg.precision``) with a float view.

Each measure's scores are a `Result` (``ndcgspec.Result``, defined in
`ndcgspec.reference.result`, the record ``ndcgspec score`` prints too): ``measure`` as
written, ``canonical``, ``fingerprint``, ``aggregate`` and ``per_query`` (nDCG per query,
with ``dcg`` and ``idcg``) as exact Decimals, None when undefined; ``float(result)`` is the
aggregate as a float, ``to_json()`` the object ``ndcgspec score --format json`` prints.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from ndcgspec.engine.memory import Inputs
from ndcgspec.engine.scoring import score_files
from ndcgspec.engine.table import QRELS_COLUMNS, RUN_COLUMNS, TableColumns
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.errors import InputError, NdcgSpecError
from ndcgspec.reference.inputs import Judgment, Posting, qrels_from_labels, run_from_scores
from ndcgspec.reference.result import Result
from ndcgspec.reference.trec_io import read_qrels, read_run

#: A TREC file path, ``{qid: {docid: value}}``, or a pandas DataFrame of ir_measures' columns.
Source = str | os.PathLike[str] | Mapping[str, Mapping[str, Any]] | Any


class ScoreError(NdcgSpecError):
    """Input or a measure that cannot be scored: `file` and `line` name where (None for
    in-memory input, `line` None for a whole file), `anchor` the spec anchor of the rule that
    refused it when known; all three the fields of the error scoring raised."""

    def __init__(self, error: NdcgSpecError) -> None:
        super().__init__(str(error))
        self.file, self.line = error.file, error.line
        self.anchor: str | None = error.anchor if isinstance(error, InputError) else None


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
    return {text: Result.from_json(out, text) for text, out in zip(wanted, outputs, strict=True)}
