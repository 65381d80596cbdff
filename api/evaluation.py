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

import numbers
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

import numpy as np

from ndcgspec.engine.memory import Inputs
from ndcgspec.engine.memory import qrels_columns as memory_qrels_columns
from ndcgspec.engine.read import QrelsColumns, Unsupported
from ndcgspec.engine.scoring import read_qrels_file, read_run_file, scored_runs
from ndcgspec.engine.table import NOT_IN_ID, QRELS_COLUMNS, RUN_COLUMNS, TableColumns
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.decimals import BeyondLimits, exact_decimal
from ndcgspec.reference.errors import InputError, NdcgSpecError
from ndcgspec.reference.inputs import Judgment, Posting, add_judgment
from ndcgspec.reference.result import Result
from ndcgspec.reference.trec_io import FIELD_BYTES

_NOT_IN_ID = re.compile(NOT_IN_ID)

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


def _exact(value: Any, what: str) -> Decimal:
    """A label or score as an exact decimal (`reference.decimals.exact_decimal`: one rule for
    every kind, ``ndcg.input.table``), or a ScoreError's message naming `what`."""
    try:
        return exact_decimal(value)
    except BeyondLimits as error:
        raise NdcgSpecError(f"{what}: {value!r} {error}") from None
    except NdcgSpecError:
        raise NdcgSpecError(f"{what}: {value!r} is not a finite decimal number") from None
    except TypeError:
        raise NdcgSpecError(f"{what}: {value!r} ({type(value).__name__}) is not a number") from None


def _id(value: Any, what: str) -> str:
    """An id as the table reader takes it (``ndcg.input.table``): a string, or an integer
    written in decimal, under the grammar of a TREC field and ``ndcg.limits``; a float, a
    NaN, None or anything else is refused, never written out as "1.0", "nan" or "None"."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if not isinstance(value, str):
        raise NdcgSpecError(
            f"{what} {value!r} is a {type(value).__name__}: ids are strings or integers"
        )
    try:
        length = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise NdcgSpecError(f"{what} {value!r} is not UTF-8 text") from None
    if length > FIELD_BYTES:
        raise NdcgSpecError(f"{what} is longer than {FIELD_BYTES} bytes (ndcg.limits)")
    if not value or _NOT_IN_ID.search(value):
        raise NdcgSpecError(
            f"{what} {value!r} is empty or holds white space or a control character"
        )
    return value


def _columns(
    frame: Any, columns: tuple[str, str, str], kind: str
) -> Iterator[tuple[Any, Any, Any]]:
    """The rows of a DataFrame's three columns, each named once in it."""
    names = list(frame.columns)
    for column in columns:
        if column not in names:
            raise NdcgSpecError(
                f"{kind} DataFrame lacks column {column!r}; expected columns {', '.join(columns)}"
            )
        if names.count(column) > 1:
            raise NdcgSpecError(
                f"{kind} DataFrame has {names.count(column)} columns named {column!r}, so "
                "which one to read is not known"
            )
    rows: Iterator[tuple[Any, Any, Any]] = frame[list(columns)].itertuples(index=False, name=None)
    return rows


def _entries(
    source: Any, kind: str, columns: tuple[str, str, str]
) -> Iterator[tuple[Any, Any, Any, str]]:
    """(query id, document id, value, where) of each entry of a dict or DataFrame, in order;
    anything else is a TypeError naming it."""
    if hasattr(source, "itertuples") and hasattr(source, "columns"):
        for row, (qid, docid, value) in enumerate(_columns(source, columns, kind), start=1):
            yield qid, docid, value, f"{kind} row {row}"
        return
    if not isinstance(source, Mapping):
        raise TypeError(
            f"{kind} must be a path, a {{query: {{document: value}}}} dict or a DataFrame, "
            f"got {type(source).__name__}"
        )
    for qid, docs in source.items():
        if isinstance(docs, Mapping):
            pairs: Iterable[Any] = docs.items()
        elif kind == "run" and isinstance(docs, (list, tuple)):
            pairs = docs
        else:
            raise TypeError(
                f"{kind} query {qid!r} holds a {type(docs).__name__}, not a "
                "{document: value} dict"
            )
        for pair in pairs:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                raise TypeError(f"run query {qid!r}: {pair!r} is not a (document, score) pair")
            docid, value = pair
            yield qid, docid, value, f"{kind} query {qid!r}"


def _path(source: Any) -> str | os.PathLike[str] | None:
    """`source` if it names a file; bytes are no path here."""
    if isinstance(source, (bytes, bytearray)):
        raise TypeError(f"a path is a str or os.PathLike, not {type(source).__name__}")
    return source if isinstance(source, (str, os.PathLike)) else None


def _paths(sources: Sequence[Source]) -> list[str | os.PathLike[str]] | None:
    """The paths `sources` name, in order, or None when one names no file (those after it
    are not looked at)."""
    paths = []
    for source in sources:
        path = _path(source)
        if path is None:
            return None
        paths.append(path)
    return paths


def _qrels(source: Source, columns: tuple[str, str, str]) -> Mapping[str, Mapping[str, Judgment]]:
    path = _path(source)
    if path is not None:
        return read_qrels_file(path, columns)
    qrels: dict[str, dict[str, Judgment]] = {}
    if isinstance(source, Mapping):
        # A query given with no judgment is a query of the qrels all the same, as
        # `reference.inputs.qrels_from_labels` keeps it: its IDCG is 0 and the empty axis
        # scores it, as it scores a file's query with nothing relevant. Left out, it would
        # change the mean unseen.
        for qid in source:
            qrels.setdefault(_id(qid, f"qrels query {qid!r}: query id"), {})
    for qid, docid, value, where in _entries(source, "qrels", columns):
        # Ids equal as strings (1 and "1") are one id, as in a file: judged twice is an error.
        query, doc = _id(qid, f"{where}: query id"), _id(docid, f"{where}: document id")
        try:
            add_judgment(qrels, query, doc, Judgment(_exact(value, f"{where}: label")))
        except InputError as error:
            raise NdcgSpecError(f"{where}: {error} (ids equal as strings are one id)") from None
    return qrels


def _run(
    source: Source, columns: tuple[str, str, str], qids: Iterable[str]
) -> Mapping[str, list[Posting]]:
    path = _path(source)
    if path is not None:
        return read_run_file(path, columns, list(qids))
    run: dict[str, list[Posting]] = {}
    for qid, docid, value, where in _entries(source, "run", columns):
        # A document listed twice (1 and "1") is two lines of a file: the duplicates axis rules.
        query, doc = _id(qid, f"{where}: query id"), _id(docid, f"{where}: document id")
        run.setdefault(query, []).append(Posting(doc, _exact(value, f"{where}: score")))
    return run


def _measures(measures: Any) -> list[str]:
    wanted = [measures] if isinstance(measures, str) else measures
    if not isinstance(wanted, Iterable) or isinstance(wanted, (bytes, Mapping)):
        raise TypeError(f"measures must be a measure string or a list of them, got {measures!r}")
    wanted = list(wanted)
    strange = [m for m in wanted if not isinstance(m, str)]
    if strange:
        raise TypeError(f"a measure is a string, got {strange[0]!r}")
    return wanted


def _column_names(names: Any, argument: str, value: str) -> None:
    """Refuse `names` unless they are three distinct strings, the columns of the query, the
    document and the `value`: a table's reader takes them by position."""
    if (
        isinstance(names, str)
        or not isinstance(names, Sequence)
        or len(names) != 3
        or not all(isinstance(name, str) for name in names)
        or len(set(names)) != 3
    ):
        raise TypeError(
            f"{argument} must be three distinct column names (query, document, {value}), "
            f"got {names!r}"
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
    [results] = score_runs(
        qrels, [run], measures, qrels_columns=qrels_columns, run_columns=run_columns
    )
    return results


def score_runs(
    qrels: Source,
    runs: Sequence[Source],
    measures: str | Iterable[str] = "nDCG",
    *,
    qrels_columns: tuple[str, str, str] = QRELS_COLUMNS,
    run_columns: tuple[str, str, str] = RUN_COLUMNS,
) -> list[dict[str, Result]]:
    """`score` of each of `runs` against `qrels`, in order: what one call of `score` per run
    gives, with the qrels read and the measures parsed once, and each rank's discount computed
    once for every run. The first run that cannot be scored raises its ScoreError."""
    if isinstance(runs, (str, os.PathLike, Mapping)) or not isinstance(runs, Sequence):
        raise TypeError(
            f"runs must be a list of runs, got {type(runs).__name__}; score() takes one run"
        )
    wanted = _measures(measures)
    _column_names(qrels_columns, "qrels_columns", "relevance")
    _column_names(run_columns, "run_columns", "score")
    try:
        configs = [parse_measure(text) for text in wanted]
        paths = _paths([qrels, *runs])
        if paths is not None:
            columns = TableColumns((*qrels_columns,), (*run_columns,))
            outputs = [s.results for _, s in scored_runs(configs, paths[0], paths[1:], columns)]
        else:
            judged = _qrels(qrels, qrels_columns)
            shared = _shared_columns(judged)
            outputs = []
            for run in runs:
                inputs = Inputs(judged, _run(run, run_columns, judged), shared)
                outputs.append([inputs.result(config).to_json() for config in configs])
    except NdcgSpecError as error:
        raise ScoreError(error) from error
    return [
        {text: Result.from_json(out, text) for text, out in zip(wanted, results, strict=True)}
        for results in outputs
    ]


def _shared_columns(judged: Mapping[str, Mapping[str, Judgment]]) -> QrelsColumns | None:
    """The engine's columns of in-memory qrels, made once for every run; None when they cannot
    hold them, which each run's `Inputs` then finds for itself."""
    try:
        return memory_qrels_columns(judged)
    except Unsupported:
        return None
