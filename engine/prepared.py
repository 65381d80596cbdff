"""What every configuration of one pair of qrels and run shares (``ndcg.input``): the columns
read once (`read`), the run joined to the qrels by exact document id and ranked once (`rank`),
each configuration's ranking kept for the others that rank alike, and each query's judgments
and postings as the reference takes them, for the queries handed to it (`fallback`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ndcgspec.engine.choice_keys import ChoiceKey, label_key
from ndcgspec.engine.label_gains import GainClasses, gain_classes
from ndcgspec.engine.rank import (
    ConfigRanking,
    EmptySlots,
    KeyTable,
    Ranked,
    exact_score,
    rank_config,
    rank_rows,
    widen,
)
from ndcgspec.engine.read import QrelsColumns, RunColumns, token_texts
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.inputs import Judgment, Posting, Qrels, Run, add_judgment
from ndcgspec.reference.location import Location


def _judgment(qrels: QrelsColumns, row: int) -> Judgment:
    label = parse_decimal(qrels.label_texts[qrels.label_id[row]])
    return Judgment(label, Location(qrels.path, qrels.lines[row]))


def _reject_judged_twice(qrels: QrelsColumns, table: KeyTable) -> None:
    """Raise the reference's error (``ndcg.input.duplicate-judgment``) when a document is
    judged twice: the rows of the queries concerned go, in file order, through the
    reference's `add_judgment`, which raises at the first repeated line."""
    copies = np.flatnonzero(table.first != np.arange(len(qrels.qidx)))
    if copies.size == 0:
        return
    rows = np.flatnonzero(np.isin(qrels.qidx, qrels.qidx[copies]))
    judged: dict[str, dict[str, Judgment]] = {}
    for docid, row in zip(token_texts(qrels.words[rows]), rows.tolist(), strict=True):
        add_judgment(judged, qrels.qids[qrels.qidx[row]], docid, _judgment(qrels, row))


def reference_inputs(
    qrels: QrelsColumns, run: RunColumns, q: int
) -> tuple[dict[str, Judgment], list[Posting]]:
    """One query's judgments and postings as the plain readers build them."""
    judged = np.flatnonzero(qrels.qidx == q)
    judgments = {
        docid: _judgment(qrels, row)
        for docid, row in zip(token_texts(qrels.words[judged]), judged.tolist(), strict=True)
    }
    inexact = dict(zip(run.inexact_rows.tolist(), run.inexact_texts, strict=True))
    rows = np.flatnonzero(run.qidx == q)
    if run.file_row is not None:
        rows = rows[np.argsort(run.file_row[rows])]
    postings = [
        Posting(
            docid,
            exact_score(run, row, inexact),
            Location(run.path, run.lines[run.file_index(row)]),
        )
        for docid, row in zip(token_texts(run.words[rows]), rows.tolist(), strict=True)
    ]
    return judgments, postings


# Rankings a Prepared keeps: the configurations of one call rank alike in a few ways at most,
# while a sweep of thousands over one Prepared would otherwise hold them all. A few rows are
# kept in more ways (`Prepared.rankings_kept`): identify ranks each probe's few rows in dozens
# of ways, in turn (9,304 rankings asked 20,616 times in rank-validation's).
RANKINGS_KEPT = 8
RANKED_ROWS_KEPT = 1 << 16
# What a ranking costs beside its rows, in rows: its arrays and its key.
RANKING_OVERHEAD_ROWS = 128


@dataclass
class Prepared:
    """What every configuration shares: the columns and the run's ranking order; `inputs`
    are the reference's own qrels and run when the columns were built from them
    (`memory`)."""

    qrels: QrelsColumns
    run: RunColumns
    ranked: Ranked
    inputs: tuple[Qrels, Run] | None = None
    _rankings: dict[tuple[bytes, int, tuple[tuple[str, str], ...]], ConfigRanking] = field(
        default_factory=dict, repr=False
    )
    _rankings_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _classes: dict[tuple[ChoiceKey, ...], GainClasses] = field(default_factory=dict, repr=False)

    def gain_classes(self, config: Config) -> GainClasses:
        """`label_gains.gain_classes` of the qrels' labels under `config`, made once for every
        configuration that resolves labels alike (its ``ndcg.gain``, ``ndcg.fractional`` and
        ``ndcg.negative`` choices): a sweep of thousands of configurations over one input
        asks a few dozen. Read-only once made, and kept under the rankings' lock."""
        key = label_key(config)
        with self._rankings_lock:
            found = self._classes.get(key)
        if found is None:
            found = gain_classes(self.qrels.label_texts, config)
            found.of_label.flags.writeable = False
            with self._rankings_lock:
                self._classes[key] = found
        return found

    def ranking(self, classes: GainClasses, choices: dict[str, str]) -> ConfigRanking:
        """`rank.rank_config` of these rows: made once for every configuration that ranks
        them alike, i.e. with the same gain classes and the same duplicates, unjudged, ties
        and empty choices (nDCG and nDCG@10 do), the last `rankings_kept` of them kept.
        Read-only once made, and kept under a lock, so threads may share a Prepared."""
        key = (classes.of_label.tobytes(), classes.zero, tuple(sorted(choices.items())))
        with self._rankings_lock:
            found = self._rankings.get(key)
        if found is not None:
            return found
        made = rank_config(self.ranked, classes.of_label, classes.zero, choices)
        for array in vars(made).values():
            array.flags.writeable = False
        with self._rankings_lock:
            self._rankings[key] = made
            if len(self._rankings) > self.rankings_kept():
                del self._rankings[next(iter(self._rankings))]
        return made

    def rankings_kept(self) -> int:
        """How many rankings `ranking` keeps: RANKINGS_KEPT, or as many as hold
        RANKED_ROWS_KEPT rows, each counted with RANKING_OVERHEAD_ROWS."""
        rows = len(self.ranked.qidx) + RANKING_OVERHEAD_ROWS
        return max(RANKINGS_KEPT, RANKED_ROWS_KEPT // rows)

    def query_inputs(self, q: int) -> tuple[Mapping[str, Judgment], Sequence[Posting]]:
        """Query `q`'s judgments and postings as the reference takes them: the very objects
        given, or as the plain readers build them from the columns."""
        if self.inputs is None:
            return reference_inputs(self.qrels, self.run, q)
        qrels, run = self.inputs
        qid = self.qrels.qids[q]
        return qrels[qid], run.get(qid, ())


def prepare(
    qrels: QrelsColumns,
    run: RunColumns,
    inputs: tuple[Qrels, Run] | None = None,
    empty: EmptySlots | None = None,
) -> Prepared:
    """Join the run to the qrels by exact document id, and rank it once; the join's table
    takes its slots from `empty` where given (one caller's blocks, one after another)."""
    width = max(qrels.words.shape[1], run.words.shape[1])
    qrels.words, run.words = widen(qrels.words, width), widen(run.words, width)
    table = KeyTable(qrels.qidx, qrels.words, load=16, empty=empty)
    try:
        _reject_judged_twice(qrels, table)
        label_of_row = table.find(run.qidx, run.words, qrels.label_id)
    finally:
        table.release()
    ranked = rank_rows(run, label_of_row)
    return Prepared(qrels, run, ranked, inputs)
