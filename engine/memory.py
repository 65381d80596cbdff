"""The engine on in-memory inputs: the reference's `Qrels` and `Run` (``ndcg.definition.inputs``)
scored as `evaluate` scores files, giving exactly the digits of ``reference.evaluate(...)``.

The inputs become the engine's columns: the qrels' queries in their order, each judgment a
row, each label its exact decimal text; the run's postings of qrels queries in their order
(input order, ``ndcg.ties.input``), each score a double where it keeps the decimal
(`read.double_is_exact`, the columnar readers' rule) and otherwise kept as its
decimal text. The objects themselves go with the columns (`prepared.Prepared.inputs`), so a
query the engine leaves to the reference, and every error, is the reference's on the very
judgments and postings given: the same message, anchor and axis. A configuration the engine
does not declare (`support`), or input the columns cannot hold (a document id with a NUL
character or one that is not UTF-8, a label or score that is not finite, qrels without a
judgment), is evaluated by the reference (fail closed).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from functools import partial

import numpy as np

from ndcgspec.engine.discounts import kept_weights
from ndcgspec.engine.evaluate import evaluate_prepared
from ndcgspec.engine.prepared import Prepared, prepare
from ndcgspec.engine.read import (
    QrelsColumns,
    RunColumns,
    Unsupported,
    double_is_exact,
    words_of,
)
from ndcgspec.engine.result_digits import ResultDigits
from ndcgspec.engine.route import routed
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import canonical_decimal
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import Qrels, Run

PATH = "<memory>"


def id_words(docids: Sequence[str]) -> np.ndarray:
    """Each id's UTF-8 bytes as big-endian 64-bit words, zero padded (`read.words_of`).
    Unsupported for an id holding a NUL character (the padding) or not UTF-8."""
    try:
        encoded = [docid.encode("utf-8") for docid in docids]
    except UnicodeEncodeError:
        raise Unsupported("a document id is not UTF-8") from None
    if any(b"\0" in e for e in encoded):
        raise Unsupported("a document id holds a NUL character")
    lengths = np.array([len(e) for e in encoded], np.int64)
    starts = np.cumsum(lengths) - lengths
    # words_of reads whole words from any start: 16 bytes of padding past the last id.
    data = np.frombuffer(b"".join(encoded) + bytes(16), np.uint8)
    count = max(1, int(-(-lengths.max() // 8))) if len(lengths) else 1
    return words_of(data, starts, lengths, count)


def _finite(value: Decimal) -> Decimal:
    if not value.is_finite():
        raise Unsupported(f"{value} is not a finite decimal")
    return value


def _rows(qidx: list[int], docids: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The query index and document id words of each row, and its line: its 1-based place
    (the reference reports an error at the object given, never at this line)."""
    return np.array(qidx, np.int32), id_words(docids), np.arange(1, len(qidx) + 1)


def qrels_columns(qrels: Qrels) -> QrelsColumns:
    """The qrels as columns, queries in their order, judgments in theirs."""
    qids = list(qrels)
    docids: list[str] = []
    qidx: list[int] = []
    label_of: dict[str, int] = {}
    label_id: list[int] = []
    for q, judged in enumerate(qrels.values()):
        for docid, judgment in judged.items():
            docids.append(docid)
            qidx.append(q)
            text = canonical_decimal(_finite(judgment.label))
            label_id.append(label_of.setdefault(text, len(label_of)))
    if not qidx:
        # As the columnar reader, which declines an empty file.
        raise Unsupported("no judgment")
    query, words, lines = _rows(qidx, docids)
    labels = np.array(label_id, np.int32)
    return QrelsColumns(PATH, qids, query, words, labels, list(label_of), lines)


def run_columns(run: Run, qids: Sequence[str]) -> RunColumns:
    """The postings of the qrels' queries as columns, in the run's order."""
    index = {qid: q for q, qid in enumerate(qids)}
    present = np.zeros(len(qids), bool)
    docids: list[str] = []
    qidx: list[int] = []
    scores: list[float] = []
    inexact_rows: list[int] = []
    inexact_texts: list[str] = []
    for qid, postings in run.items():
        q = index.get(qid)
        if q is None:
            continue
        present[q] = True
        for posting in postings:
            score = _finite(posting.score)
            double = float(score)
            if not double_is_exact(score, double):
                inexact_rows.append(len(qidx))
                inexact_texts.append(canonical_decimal(score))
            docids.append(posting.docid)
            qidx.append(q)
            scores.append(double)
    query, words, lines = _rows(qidx, docids)
    inexact = np.array(inexact_rows, np.int64)
    return RunColumns(PATH, present, query, words, np.array(scores), inexact, inexact_texts, lines)


def _prepared(qrels: Qrels, run: Run, columns: QrelsColumns | None = None) -> Prepared:
    """The inputs as the engine's columns (the qrels' `columns` when already made), ranked;
    Unsupported when the columns cannot hold them."""
    columns = columns or qrels_columns(qrels)
    return prepare(columns, run_columns(run, columns.qids), (qrels, run))


class Inputs:
    """In-memory qrels and run turned into columns and ranked once, for any number of
    configurations (``ndcg.definition.inputs``); `columns`, the qrels' `qrels_columns` made
    once, lets many runs share them."""

    def __init__(self, qrels: Qrels, run: Run, columns: QrelsColumns | None = None) -> None:
        self.qrels, self.run = qrels, run
        self.prepared: Prepared | None = None
        self.declined: str | None = None
        try:
            self.prepared = _prepared(qrels, run, columns)
        except Unsupported as reason:
            self.declined = str(reason)

    def _engine(self, config: Config) -> ResultDigits:
        if self.prepared is None:
            raise Unsupported(self.declined)
        return evaluate_prepared(self.prepared, config)

    def result(self, config: Config) -> ResultDigits:
        """The result of `config`: the digits of ``reference.evaluate(config, qrels, run)``,
        exactly, or the InputError it raises."""
        return routed(
            [config],
            partial(self._engine, config),
            partial(_reference, config, self.qrels, self.run),
        )


def _reference(config: Config, qrels: Qrels, run: Run) -> ResultDigits:
    return ResultDigits.of(evaluate(config, qrels, run, weights=kept_weights(config)))


def evaluate_inputs(config: Config, qrels: Qrels, run: Run) -> ResultDigits:
    """The result of `config` for in-memory qrels and run, as `Inputs.result`;
    a configuration the engine does not declare goes to the reference before any column is
    built."""
    return routed(
        [config],
        lambda: evaluate_prepared(_prepared(qrels, run), config),
        partial(_reference, config, qrels, run),
    )
