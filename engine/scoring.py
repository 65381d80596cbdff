"""Scoring qrels and runs under several configurations: the engine behind ``ndcgspec score``.

Each file is opened once (`trec_io.opened`), and every configuration is evaluated on the same
inputs (``ndcg.definition.inputs``). A file is TREC text or a table (`table`: Parquet, Arrow,
CSV); each result is the JSON result object of `Evaluation.to_json`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from ndcgspec.engine import table
from ndcgspec.engine.read import (
    QrelsColumns,
    Unsupported,
    read_qrels_columns,
    read_run_columns,
    run_capacity,
    run_pieces,
)
from ndcgspec.engine.route import log_if_asked, routed
from ndcgspec.engine.stream import (
    Pieces,
    QueryPresence,
    Scored,
    noting_unjudged,
    score_columns,
    score_trec_run,
)
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import Judgment, Posting
from ndcgspec.reference.location import Location
from ndcgspec.reference.trec_io import STDIN, Source, opened, read_qrels, read_run


def scored_files(
    configs: Sequence[Config],
    qrels_path: str | Path,
    run_path: str | Path,
    columns: table.TableColumns | None = None,
) -> Scored:
    """The JSON result object of each configuration, in order, for one qrels file and one run
    ("-" is standard input), each TREC text or a table whose columns `columns` names, and
    which qrels queries the run lists; an unreadable or malformed file raises InputError
    naming ``file:line`` (``file:row`` in a table). The fast engine computes them, or the
    plain reference (`route.routed`)."""
    [(_, scored)] = scored_runs(configs, qrels_path, [run_path], columns)
    return scored


def scored_runs(
    configs: Sequence[Config],
    qrels_path: str | os.PathLike[str] | Source,
    run_paths: Sequence[str | os.PathLike[str] | Source],
    columns: table.TableColumns | None = None,
    per_query: bool = True,
) -> Iterator[tuple[Source, Scored]]:
    """`scored_files` of each run in turn against one qrels file, read once for them all
    (`QrelsFile`), with the run opened: it stays open until the next is asked for. Each run
    is opened when its turn comes, so an error in one is raised after the results of those
    before it. Without `per_query` each result's ``per_query`` is empty, and the engine
    makes only the means' digits."""
    if [str(qrels_path), *map(str, run_paths)].count(STDIN) > 1:
        raise InputError("standard input ('-') can be only one of the qrels and the runs")
    log_if_asked()
    with opened(qrels_path) as source:
        qrels = QrelsFile(source, columns or table.TableColumns())
        for run_path in run_paths:
            with opened(run_path) as run:
                yield run, _scored_run(configs, qrels, run, per_query)


class QrelsFile:
    """One qrels file, TREC text or a table, read at most once into each form the runs scored
    against it need: the engine's columns and the plain reference's judgments. A columnar
    reader's refusal is kept too, so that every run meets it without reading again."""

    def __init__(self, source: Source, columns: table.TableColumns) -> None:
        self.source = source
        self.kind = table.table_format(source)
        self.names = columns
        self._columns: QrelsColumns | Unsupported | None = None
        self._judgments: dict[str, dict[str, Judgment]] | None = None

    def columns(self) -> QrelsColumns:
        """The engine's columns; Unsupported for TREC text the columnar reader declines."""
        if self._columns is None:
            try:
                self._columns = (
                    table.qrels_columns(self.source, self.kind, self.names.qrels)
                    if self.kind
                    else read_qrels_columns(self.source)
                )
            except Unsupported as reason:
                self._columns = reason
        if isinstance(self._columns, Unsupported):
            raise self._columns
        return self._columns

    def judgments(self) -> dict[str, dict[str, Judgment]]:
        """The plain reference's judgments (`trec_io.read_qrels`, or the table's)."""
        if self._judgments is None:
            self._judgments = (
                table.reference_qrels(self.columns()) if self.kind else read_qrels(self.source)
            )
        return self._judgments


def _scored_run(
    configs: Sequence[Config], qrels: QrelsFile, run: Source, per_query: bool
) -> Scored:
    """`scored_files` of one opened run against `qrels`."""
    run_kind = table.table_format(run)
    if qrels.kind or run_kind:
        return _score_tables(configs, qrels, run, run_kind, per_query)
    return routed(
        configs,
        lambda: score_trec_run(configs, qrels.columns(), run, per_query),
        lambda: _plain(configs, qrels.judgments(), read_run(run), per_query=per_query),
    )


def score_files(
    configs: Sequence[Config],
    qrels_path: str | Path,
    run_path: str | Path,
    columns: table.TableColumns | None = None,
) -> list[dict[str, Any]]:
    """`scored_files` without which queries the run lists."""
    return scored_files(configs, qrels_path, run_path, columns).results


def _plain(
    configs: Sequence[Config],
    judgments: Mapping[str, Mapping[str, Judgment]],
    postings: Mapping[str, Sequence[Posting]],
    dropped: Iterable[str] = (),
    per_query: bool = True,
) -> Scored:
    """Every configuration evaluated by the plain reference: the definition; `dropped` names
    the run's queries the qrels lack whose rows `postings` no longer holds."""
    results = [evaluate(config, judgments, postings).to_json() for config in configs]
    if not per_query:
        results = [{**result, "per_query": {}} for result in results]
    unjudged = dict.fromkeys([*dropped, *(q for q in postings if q not in judgments)])
    presence = QueryPresence.of(list(judgments), [q in postings for q in judgments], unjudged)
    return Scored(results, presence)


def score_files_plain(
    configs: Sequence[Config], qrels: str | Path | Source, run: str | Path | Source
) -> list[dict[str, Any]]:
    """`score_files` of TREC files computed by the plain reference alone: the definition."""
    return _plain(configs, read_qrels(qrels), read_run(run)).results


def read_qrels_file(
    path: str | os.PathLike[str], names: Sequence[str]
) -> dict[str, dict[str, Judgment]]:
    """The qrels of one file, TREC text or a table with the columns `names`
    (``ndcg.input.table``), as the plain reference takes them."""
    with opened(path) as source:
        kind = table.table_format(source)
        if kind is None:
            return read_qrels(source)
        return table.reference_qrels(table.qrels_columns(source, kind, names))


def read_run_file(
    path: str | os.PathLike[str], names: Sequence[str], qids: list[str]
) -> dict[str, list[Posting]]:
    """The run of one file, TREC text or a table with the columns `names`, as the plain
    reference takes it; of a table, the rows of the queries `qids` alone, as `score` keeps."""
    with opened(path) as source:
        kind = table.table_format(source)
        if kind is None:
            return read_run(source)
        pieces = table.run_pieces(source, kind, names, qids)
        return table.reference_run(read_run_columns(pieces, source.name, len(qids)), qids)


def _trec_declined(reader: Any, source: Source, reason: Unsupported) -> InputError:
    """The plain reader's error for TREC text the columnar reader declined."""
    reader(source)
    return InputError(str(reason), Location(source.name))


def _run_declined(score: Callable[[], Scored], run: Source) -> Callable[[], Scored]:
    """`score`, raising `_trec_declined` for a TREC run the columnar reader declines: beside a
    table, TREC text is read by the columnar reader alone."""

    def scored() -> Scored:
        try:
            return score()
        except Unsupported as reason:
            raise _trec_declined(read_run, run, reason) from None

    return scored


def _score_tables(
    configs: Sequence[Config],
    qrels: QrelsFile,
    run: Source,
    run_kind: str | None,
    per_query: bool,
) -> Scored:
    """`scored_files` when the qrels, the run or both are tables (``ndcg.input.table``)."""
    try:
        qrels_columns = qrels.columns()
    except Unsupported as reason:
        raise _trec_declined(read_qrels, qrels.source, reason) from None
    pieces: Pieces
    if run_kind:
        pieces = partial(table.run_pieces, run, run_kind, qrels.names.run, qrels_columns.qids)
        capacity = table.BATCH_ROWS
    else:
        pieces = partial(run_pieces, run, qrels_columns.qids)
        capacity = run_capacity(run)
    engine = partial(score_columns, configs, qrels_columns, pieces, run.name, capacity, per_query)
    reference = partial(_plain_columns, configs, qrels_columns, pieces, run.name, per_query)
    return routed(configs, _run_declined(engine, run), _run_declined(reference, run))


def _plain_columns(
    configs: Sequence[Config], qrels: QrelsColumns, pieces: Pieces, path: str, per_query: bool
) -> Scored:
    """`scored_files` of columns computed by the plain reference."""
    unjudged: dict[str, None] = {}
    run = read_run_columns(noting_unjudged(pieces, unjudged)(), path, len(qrels.qids))
    judgments = table.reference_qrels(qrels)
    postings = table.reference_run(run, qrels.qids)
    return _plain(configs, judgments, postings, unjudged, per_query)
