"""Scoring a run one block of queries at a time, so that memory is set by the largest block and
not by the file (``ndcg.definition.inputs``: every query is scored from its own rows alone).

The qrels are read whole; the run is read piece by piece (`read.run_pieces`), on a thread of
its own a few pieces ahead of the scoring (`read_ahead`). Rows are held
until at least `BLOCK_ROWS` are, and then every query known to be complete is scored as one
block and let go. A run grouped by query is read once: a query is complete when the next one
starts. A query whose rows resume after its block was scored is found on the fly; the run is
then read a second time, after a first pass that notes the last piece of each query, so that an
ungrouped run is scored exactly, holding only the queries it interleaves.

Each block gives its queries' correctly rounded entries and an exact share of the mean
(`mean.MeanPart`); the shares add in any order and the mean is rounded once at the end
(`combined`), so the aggregate is the one of the whole file, digit for digit. An input error in
any block sends the whole file through `prepared.prepare` once, so that the error raised is the
first the reference raises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ndcgspec.engine.evaluate import evaluate_prepared, evaluate_queries
from ndcgspec.engine.mean import MeanPart, NeedsMoreDigits
from ndcgspec.engine.prepared import prepare
from ndcgspec.engine.rank import EmptySlots, widen
from ndcgspec.engine.read import (
    LineNumbers,
    QrelsColumns,
    RunColumns,
    RunPiece,
    read_qrels_columns,
    read_run_columns,
    run_capacity,
    run_pieces,
)
from ndcgspec.engine.read_ahead import ReadAhead
from ndcgspec.engine.result_digits import Entries, ResultDigits
from ndcgspec.engine.route import LOG
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import plain_digits
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.trec_io import Source, opened

# Rows held before the complete queries among them are scored: a block's columns and the
# temporaries of ranking it stay some tens of MiB, and per-block work stays a small share.
BLOCK_ROWS = 1 << 18


class NotGrouped(Exception):
    """A query's rows resume after the block holding its earlier rows was scored."""


def _joined(pieces: list[RunPiece]) -> RunPiece:
    """Pieces end to end, document ids widened to the widest."""
    if len(pieces) == 1:
        return pieces[0]
    width = max(p.words.shape[1] for p in pieces)
    offsets = np.cumsum([0, *(len(p.qidx) for p in pieces[:-1])])
    return RunPiece(
        np.concatenate([p.qidx for p in pieces]),
        np.concatenate([widen(p.words, width) for p in pieces]),
        np.concatenate([p.score for p in pieces]),
        np.concatenate([p.lines for p in pieces]),
        np.concatenate([o + p.inexact for o, p in zip(offsets, pieces, strict=True)]),
        [t for p in pieces for t in p.inexact_texts],
    )


def _taken(piece: RunPiece, keep: np.ndarray) -> RunPiece:
    """The rows of `piece` where `keep` is true, in order."""
    kept = keep[piece.inexact]
    new_index = np.cumsum(keep) - 1
    return RunPiece(
        piece.qidx[keep],
        piece.words[keep],
        piece.score[keep],
        piece.lines[keep],
        new_index[piece.inexact[kept]],
        [t for t, k in zip(piece.inexact_texts, kept.tolist(), strict=True) if k],
    )


def _sliced(piece: RunPiece, start: int, stop: int) -> RunPiece:
    """Rows `start` to `stop` of `piece`, as views of it."""
    rows = slice(start, stop)
    first, last = np.searchsorted(piece.inexact, [start, stop]).tolist()
    return RunPiece(
        piece.qidx[rows],
        piece.words[rows],
        piece.score[rows],
        piece.lines[rows],
        piece.inexact[first:last] - start,
        piece.inexact_texts[first:last],
    )


def _split(piece: RunPiece, keep: np.ndarray) -> tuple[RunPiece, RunPiece]:
    """The rows of `piece` where `keep` is true and the others, each in order; views of
    `piece` when the kept rows come first, as in a run grouped by query."""
    count = int(np.count_nonzero(keep))
    if keep[:count].all():
        return _sliced(piece, 0, count), _sliced(piece, count, len(keep))
    return _taken(piece, keep), _taken(piece, ~keep)


def run_blocks(
    pieces: Iterator[RunPiece], queries: int, last_piece: np.ndarray | None = None
) -> Iterator[RunPiece]:
    """The rows of the run in blocks of whole queries, each of at least `BLOCK_ROWS` rows but
    the last. With `last_piece` (the index of each query's last piece) a query is complete
    after its last piece; without it, when a later query starts, and NotGrouped is raised when
    a complete query's rows resume."""
    done = np.zeros(queries, bool)
    held: list[RunPiece] = []
    count = 0
    for index, piece in enumerate(pieces):
        if last_piece is None and np.any(done[piece.qidx]):
            raise NotGrouped
        held.append(piece)
        count += len(piece.qidx)
        if count < BLOCK_ROWS:
            continue
        if last_piece is None:
            last = next(p.qidx[-1] for p in reversed(held) if len(p.qidx))
            complete = [p.qidx != last for p in held]
        else:
            complete = [last_piece[p.qidx] <= index for p in held]
        # Joined only when a block is let go: a query larger than a block is not copied again
        # with each piece.
        if not any(np.any(c) for c in complete):
            continue
        block, rest = _split(_joined(held), np.concatenate(complete))
        yield block
        done[block.qidx] = True
        held = [rest]
        count = len(rest.qidx)
    if count:
        yield _joined(held)


def _last_pieces(pieces: Iterator[RunPiece], queries: int) -> np.ndarray:
    """The index of the last piece of the run holding each of the qrels' `queries`."""
    last = np.full(queries, -1, np.int64)
    for index, piece in enumerate(pieces):
        last[piece.qidx] = index
    return last


class QrelsByQuery:
    """The qrels rows of any set of queries, each query's rows in file order."""

    def __init__(self, qrels: QrelsColumns) -> None:
        self.qrels = qrels
        # Queries are numbered in order of first appearance, so the rows of a file grouped by
        # query (most are) are already in query order: sorting 5 M of them is no longer paid.
        grouped = bool(np.all(qrels.qidx[1:] >= qrels.qidx[:-1]))
        self.order = None if grouped else np.argsort(qrels.qidx, kind="stable")
        ordered = qrels.qidx if self.order is None else qrels.qidx[self.order]
        # Searched for in their own type: numpy would otherwise convert all 5 M (40 MiB).
        queries = np.arange(len(qrels.qids) + 1, dtype=ordered.dtype)
        self.bounds = np.searchsorted(ordered, queries)

    def of(self, queries: np.ndarray) -> QrelsColumns:
        """The qrels of `queries` alone; query `queries[i]` becomes query i."""
        qrels = self.qrels
        starts = self.bounds[queries]
        counts = self.bounds[queries + 1] - starts
        before = np.cumsum(counts) - counts
        rows = np.repeat(starts - before, counts) + np.arange(counts.sum())
        if self.order is not None:
            rows = self.order[rows]
        # A file's qrels (the text reader's, a table's) number their lines run-length coded.
        assert isinstance(qrels.lines, LineNumbers)
        taken = _as_slice(rows)
        return QrelsColumns(
            qrels.path,
            [qrels.qids[q] for q in queries.tolist()],
            np.repeat(np.arange(len(queries), dtype=np.int32), counts),
            qrels.words[taken],
            qrels.label_id[taken],
            qrels.label_texts,
            qrels.lines.at(rows),
        )


def _as_slice(rows: np.ndarray) -> np.ndarray | slice:
    """`rows`, or the slice of the same rows when they follow each other (the queries of a
    block of a run in the qrels' order): then a block's qrels are views, not copies."""
    if len(rows) and rows[-1] - rows[0] == len(rows) - 1 and np.all(np.diff(rows) == 1):
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def first_appearances(qidx: np.ndarray) -> np.ndarray:
    """The distinct values of `qidx` in order of first appearance. Only the first row of
    each run of equal values can be one (a block of a run grouped by query has one run per
    query), so those are sorted, not every row: of a block of 262,144 rows of 262 queries,
    0.08 ms where np.unique of every row took 2.3 ms."""
    heads = qidx[np.flatnonzero(np.r_[True, qidx[1:] != qidx[:-1]])] if len(qidx) else qidx
    firsts = np.unique(heads, return_index=True)[1]
    return heads[np.sort(firsts)]


def _block_columns(
    qrels: QrelsByQuery, block: RunPiece, path: str
) -> tuple[QrelsColumns, RunColumns]:
    """The qrels and run columns of one block, its queries numbered from 0 by first row."""
    queries = first_appearances(block.qidx)
    local = np.zeros(len(qrels.qrels.qids), np.int32)
    local[queries] = np.arange(len(queries), dtype=np.int32)
    run = RunColumns(
        path,
        np.ones(len(queries), bool),
        local[block.qidx],
        block.words,
        block.score,
        block.inexact.astype(np.int64),
        block.inexact_texts,
        block.lines,
    )
    return qrels.of(queries), run


def _absent(qrels: QrelsByQuery, seen: np.ndarray, path: str) -> tuple[QrelsColumns, RunColumns]:
    """The qrels queries the run never lists, with an empty run."""
    queries = np.flatnonzero(~seen)
    empty = np.zeros(0, np.int64)
    run = RunColumns(
        path,
        np.zeros(len(queries), bool),
        empty.astype(np.int32),
        np.zeros((0, 1), np.uint64),
        np.zeros(0),
        empty,
        [],
        empty,
    )
    return qrels.of(queries), run


def combined(config: Config, qids: list[str], per_query: Entries, part: MeanPart) -> ResultDigits:
    """The result of the whole file from every block's entries and share of the mean: the
    queries in qrels order, the mean rounded once (``ndcg.aggregate``, ``ndcg.precision``).
    NeedsMoreDigits when the shares cannot round the mean."""
    mean = part.rounded_mean()
    ordered = {q: per_query[q] for q in qids if q in per_query}
    return ResultDigits(config, None if mean is None else plain_digits(mean), ordered)


Pieces = Callable[[], Iterator[RunPiece]]


@dataclass(frozen=True)
class QueryPresence:
    """Which queries of the qrels the run lists: what ``ndcg.aggregate`` decides on (a query
    missing from the run scores 0 in the mean of ``qrels``, and is left out by ``run``); and
    the run's queries the qrels lack, which no aggregate scores (``ndcg.definition.inputs``)."""

    qrels: tuple[str, ...]
    in_run: frozenset[str]
    unjudged: tuple[str, ...]

    @classmethod
    def of(
        cls, qrels: Sequence[str], listed: Iterable[bool], unjudged: Iterable[str]
    ) -> QueryPresence:
        """The qrels queries, in qrels order, whether the run lists each, and the run's
        queries the qrels lack, in run order."""
        in_run = frozenset(q for q, seen in zip(qrels, listed, strict=True) if seen)
        return cls(tuple(qrels), in_run, tuple(unjudged))

    def missing(self) -> list[str]:
        """The qrels queries the run does not list, in qrels order."""
        return [q for q in self.qrels if q not in self.in_run]


@dataclass(frozen=True)
class Scored:
    """The JSON result object of each configuration, in order, and which qrels queries the
    run lists."""

    results: list[dict[str, Any]]
    presence: QueryPresence


def _score_blocks(
    configs: Sequence[Config],
    qrels: QrelsColumns,
    pieces: Pieces,
    path: str,
    last: np.ndarray | None,
    per_query: bool,
) -> tuple[list[ResultDigits], list[bool]]:
    """Every configuration scored block by block, then `combined`; and which qrels queries
    the run lists. Without `per_query` no result holds an entry per query."""
    by_query = QrelsByQuery(qrels)
    entries_of: list[Entries] = [{} for _ in configs]
    parts = [MeanPart() for _ in configs]
    seen = np.zeros(len(qrels.qids), bool)
    empty = EmptySlots()

    def score(columns: tuple[QrelsColumns, RunColumns]) -> None:
        prep = prepare(*columns, empty=empty)
        for i, config in enumerate(configs):
            entries, part = evaluate_queries(prep, config, per_query)
            entries_of[i].update(entries)
            parts[i] = parts[i].combine(part)

    for block in run_blocks(pieces(), len(qrels.qids), last):
        seen[block.qidx] = True
        score(_block_columns(by_query, block, path))
    if not seen.all():
        score(_absent(by_query, seen, path))
    results = [
        combined(config, qrels.qids, entries, part)
        for config, entries, part in zip(configs, entries_of, parts, strict=True)
    ]
    return results, seen.tolist()


def noting_unjudged(pieces: Pieces, unjudged: dict[str, None]) -> Pieces:
    """`pieces`, each read adding to `unjudged` the queries of its lines that the qrels lack
    (``ndcg.definition.inputs``), in order of first appearance."""

    def read() -> Iterator[RunPiece]:
        for piece in pieces():
            unjudged.update(dict.fromkeys(piece.unjudged))
            yield piece

    return read


def _scored_passes(
    configs: Sequence[Config],
    qrels: QrelsColumns,
    pieces: Pieces,
    path: str,
    capacity: int,
    per_query: bool,
) -> tuple[list[ResultDigits], list[bool]]:
    """`score_columns`'s results, and which qrels queries the run lists: one pass over a run
    grouped by query, two over another, the whole run at once where a block cannot be
    scored alone."""
    try:
        try:
            return _score_blocks(configs, qrels, pieces, path, None, per_query)
        except NotGrouped:
            LOG.info("%s is not grouped by query: read twice", path)
            last = _last_pieces(pieces(), len(qrels.qids))
            return _score_blocks(configs, qrels, pieces, path, last, per_query)
    except (InputError, NeedsMoreDigits) as reason:
        # The whole file at once: the reference's first error, or a mean the reference
        # computes from every query's true value (`evaluate.evaluate_prepared`).
        LOG.info("the whole run at once: %s", reason)
        run = read_run_columns(pieces(), path, len(qrels.qids), capacity)
        prep = prepare(qrels, run)
        results = [evaluate_prepared(prep, config) for config in configs]
        if not per_query:
            results = [replace(result, per_query={}) for result in results]
        return results, run.present.tolist()


def score_columns(
    configs: Sequence[Config],
    qrels: QrelsColumns,
    pieces: Pieces,
    path: str,
    capacity: int,
    per_query: bool = True,
) -> Scored:
    """The JSON result object of each configuration (all of them computed by the engine) for
    the qrels and the run whose pieces `pieces` reads from the start each time it is called,
    and which queries the run and the qrels share; `capacity` is a first guess of the run's
    rows. Without `per_query` the objects' ``per_query`` is empty: no query's digits are
    made, only the mean's."""
    unjudged: dict[str, None] = {}
    with closing(ReadAhead(pieces)) as ahead:
        results, listed = _scored_passes(
            configs, qrels, noting_unjudged(ahead, unjudged), path, capacity, per_query
        )
    json = [result.to_json() for result in results]
    return Scored(json, QueryPresence.of(qrels.qids, listed, unjudged))


def score_trec_run(
    configs: Sequence[Config], qrels: QrelsColumns, run: Source, per_query: bool = True
) -> Scored:
    """`score_columns` of a TREC run against qrels already read, every configuration one the
    engine declares; raises Unsupported for a run the columnar reader declines."""
    pieces = partial(run_pieces, run, qrels.qids)
    return score_columns(configs, qrels, pieces, run.name, run_capacity(run), per_query)


def score_files_fast(
    configs: Sequence[Config],
    qrels: str | Path | Source,
    run: str | Path | Source,
    per_query: bool = True,
) -> Scored:
    """`score_trec_run` of TREC files, every configuration one the engine declares
    (`route.routed` makes sure of that); raises Unsupported for input the columnar reader
    declines (among them every input error, which the plain readers then report)."""
    with opened(qrels) as qrels_source, opened(run) as run_source:
        return score_trec_run(configs, read_qrels_columns(qrels_source), run_source, per_query)
