"""Scoring qrels and runs under several configurations: the engine behind ``ndcgspec score``.

Each file is opened once (`trec_io.opened`), and every configuration is evaluated on the same
inputs (``ndcg.definition.inputs``). A file is TREC text or a table (`table`: Parquet, Arrow,
CSV); each result is the JSON result object of `Evaluation.to_json`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
from ndcgspec.engine.stream import Pieces, QueryPresence, Scored, score_columns, score_files_fast
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import InputError, Location
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import Judgment, Posting
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
    if str(qrels_path) == str(run_path) == STDIN:
        raise InputError("standard input ('-') can be only one of qrels and run")
    log_if_asked()
    with opened(qrels_path) as qrels, opened(run_path) as run:
        kinds = table.table_format(qrels), table.table_format(run)
        if any(kinds):
            tables = columns or table.TableColumns()
            return _score_tables(configs, qrels, run, kinds, tables)
        return routed(
            configs,
            partial(score_files_fast, configs, qrels, run),
            partial(_plain_trec, configs, qrels, run),
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
) -> Scored:
    """Every configuration evaluated by the plain reference: the definition."""
    results = [evaluate(config, judgments, postings).to_json() for config in configs]
    return Scored(results, QueryPresence.of(list(judgments), [q in postings for q in judgments]))


def _plain_trec(
    configs: Sequence[Config], qrels: str | Path | Source, run: str | Path | Source
) -> Scored:
    return _plain(configs, read_qrels(qrels), read_run(run))


def score_files_plain(
    configs: Sequence[Config], qrels: str | Path | Source, run: str | Path | Source
) -> list[dict[str, Any]]:
    """`score_files` of TREC files computed by the plain reference alone: the definition."""
    return _plain_trec(configs, qrels, run).results


def read_qrels_file(path: str | Path, names: Sequence[str]) -> dict[str, dict[str, Judgment]]:
    """The qrels of one file, TREC text or a table with the columns `names`
    (``ndcg.input.table``), as the plain reference takes them."""
    with opened(path) as source:
        kind = table.table_format(source)
        if kind is None:
            return read_qrels(source)
        return table.reference_qrels(table.qrels_columns(source, kind, names))


def read_run_file(path: str | Path, names: Sequence[str], qids: list[str]) -> dict[str, list]:
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
    qrels: Source,
    run: Source,
    kinds: tuple[str | None, str | None],
    columns: table.TableColumns,
) -> Scored:
    """`scored_files` when the qrels, the run or both are tables (``ndcg.input.table``)."""
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
    engine = partial(score_columns, configs, qrels_columns, pieces, run.name, capacity)
    reference = partial(_plain_columns, configs, qrels_columns, pieces, run.name)
    return routed(configs, _run_declined(engine, run), _run_declined(reference, run))


def _plain_columns(
    configs: Sequence[Config], qrels: QrelsColumns, pieces: Pieces, path: str
) -> Scored:
    """`scored_files` of columns computed by the plain reference."""
    run = read_run_columns(pieces(), path, len(qrels.qids))
    return _plain(configs, table.reference_qrels(qrels), table.reference_run(run, qrels.qids))
