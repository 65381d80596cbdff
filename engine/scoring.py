"""Scoring qrels and runs under several configurations: the engine behind ``ndcgspec score``.

Each file is opened once (`trec_io.opened`), and every configuration is evaluated on the same
inputs (``ndcg.definition.inputs``). A file is TREC text or a table (`table`: Parquet, Arrow,
CSV); each result is the JSON result object of `Evaluation.to_json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from ndcgspec.engine import table
from ndcgspec.engine.evaluate import LOG
from ndcgspec.engine.read import (
    QrelsColumns,
    Unsupported,
    read_qrels_columns,
    read_run_columns,
    run_capacity,
    run_pieces,
)
from ndcgspec.engine.stream import (
    Pieces,
    QueryPresence,
    refuse_undeclared,
    score_columns,
    score_files_fast,
)
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import InputError, Location
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.trec_io import STDIN, Source, opened, read_qrels, read_run


def score_files(
    configs: Sequence[Config],
    qrels_path: str | Path,
    run_path: str | Path,
    columns: table.TableColumns | None = None,
    presence: QueryPresence | None = None,
) -> list[dict[str, Any]]:
    """The JSON result object of each configuration, in order, for one qrels file and one run
    ("-" is standard input), each TREC text or a table whose columns `columns` names; an
    unreadable or malformed file raises InputError naming ``file:line`` (``file:row`` in a
    table). The fast engine computes them; a configuration it does not declare, or TREC input
    it declines, goes to the plain reference, the reason logged at INFO. `presence`, when
    given, notes which qrels queries the run lists."""
    if str(qrels_path) == str(run_path) == STDIN:
        raise InputError("standard input ('-') can be only one of qrels and run")
    presence = presence or QueryPresence()
    with opened(qrels_path) as qrels, opened(run_path) as run:
        kinds = table.table_format(qrels), table.table_format(run)
        if any(kinds):
            tables = columns or table.TableColumns()
            return _score_tables(configs, qrels, run, kinds, tables, presence)
        try:
            return score_files_fast(configs, qrels, run, presence)
        except Unsupported as reason:
            LOG.info("plain reference used: %s", reason)
        return score_files_plain(configs, qrels, run, presence)


def score_files_plain(
    configs: Sequence[Config],
    qrels: str | Path | Source,
    run: str | Path | Source,
    presence: QueryPresence | None = None,
) -> list[dict[str, Any]]:
    """`score_files` of TREC files computed by the plain reference alone: the definition."""
    judgments, postings = read_qrels(qrels), read_run(run)
    if presence is not None:
        presence.note(list(judgments), [q in postings for q in judgments])
    return [evaluate(config, judgments, postings).to_json() for config in configs]


def _trec_declined(reader: Any, source: Source, reason: Unsupported) -> InputError:
    """The plain reader's error for TREC text the columnar reader declined."""
    reader(source)
    return InputError(str(reason), Location(source.name))


def _score_tables(
    configs: Sequence[Config],
    qrels: Source,
    run: Source,
    kinds: tuple[str | None, str | None],
    columns: table.TableColumns,
    presence: QueryPresence,
) -> list[dict[str, Any]]:
    """`score_files` when the qrels, the run or both are tables (``ndcg.input.table``)."""
    qrels_kind, run_kind = kinds
    if qrels_kind:
        qrels_columns = table.qrels_columns(qrels, qrels_kind, columns.qrels)
    else:
        try:
            qrels_columns = read_qrels_columns(qrels)
        except Unsupported as reason:
            raise _trec_declined(read_qrels, qrels, reason) from None
    pieces: Pieces
    if run_kind:
        pieces = partial(table.run_pieces, run, run_kind, columns.run, qrels_columns.qids)
        capacity = table.BATCH_ROWS
    else:
        pieces = partial(run_pieces, run, qrels_columns.qids)
        capacity = run_capacity(run)
    try:
        try:
            refuse_undeclared(configs)
        except Unsupported as reason:
            LOG.info("plain reference used: %s", reason)
            return _plain_columns(configs, qrels_columns, pieces, run.name, presence)
        return score_columns(configs, qrels_columns, pieces, run.name, capacity, presence)
    except Unsupported as reason:
        raise _trec_declined(read_run, run, reason) from None


def _plain_columns(
    configs: Sequence[Config],
    qrels: QrelsColumns,
    pieces: Pieces,
    path: str,
    presence: QueryPresence,
) -> list[dict[str, Any]]:
    """`score_files` of columns computed by the plain reference."""
    run = read_run_columns(pieces(), path, len(qrels.qids))
    presence.note(qrels.qids, run.present.tolist())
    judgments = table.reference_qrels(qrels)
    postings = table.reference_run(run, qrels.qids)
    return [evaluate(config, judgments, postings).to_json() for config in configs]
