"""Qrels and runs as tables (``ndcg.input.table``): Parquet, Arrow IPC (file or stream) and CSV
with a header row, read with pyarrow into the fast engine's columns.

A table is recognised by its magic bytes (Parquet ``PAR1``, Arrow IPC ``ARROW1`` or a stream's
continuation marker) or, for CSV, by a name ending in ``.csv`` (gzip recognised as for TREC
text). Qrels have the columns ``query_id, doc_id, relevance``, runs ``query_id, doc_id,
score`` (ir_measures' names), unless other names are given. Ids are exact strings (integer
columns are written in decimal) under the grammar of a TREC field: not empty, no white space,
no control character. Numbers are exact decimals: strings in the grammar of
``ndcg.input.number``, integers as they are, and a floating-point value as the exact decimal of
its double. A bad value raises InputError naming the file, the row (1-based, the header not
counted) and the column; an error found when scoring names ``file:row``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from ndcgspec.engine.rank import exact_score
from ndcgspec.engine.read import (
    LineNumbers,
    QrelsColumns,
    RunColumns,
    RunPiece,
    double_is_exact,
    token_texts,
    words_of,
)
from ndcgspec.reference.decimals import BeyondLimits, exact_decimal, parse_decimal
from ndcgspec.reference.errors import InputError, NdcgSpecError, install_hint
from ndcgspec.reference.inputs import Judgment, Posting, add_judgment
from ndcgspec.reference.location import Location
from ndcgspec.reference.trec_io import FIELD_BYTES, FORBIDDEN, SEPARATORS, Source

QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
RUN_COLUMNS = ("query_id", "doc_id", "score")
CSV_SUFFIXES = (".csv", ".csv.gz")
# Rows read at a time: a batch's columns and their temporaries stay a few MiB.
BATCH_ROWS = 1 << 16
# What a Parquet row group of valid rows may hold per row and column, encoded: a value of at
# most FIELD_BYTES, its length, and a page header with min and max statistics of such values
# (a page holds one value at least); and per column chunk, its metadata.
ROW_GROUP_BYTES_PER_ROW = 4 * FIELD_BYTES + 128
ROW_GROUP_BYTES_FIXED = 1 << 16
# What may not appear in an id: what ends or separates a TREC field, or is forbidden in it.
NOT_IN_ID = FORBIDDEN.pattern + "|[" + "".join(f"\\x{b:02x}" for b in SEPARATORS + b"\n") + "]"
_EXACT_INTEGER = 2**53


@dataclass(frozen=True)
class TableColumns:
    """The names of the three columns of the qrels and of the run."""

    qrels: tuple[str, str, str] = QRELS_COLUMNS
    run: tuple[str, str, str] = RUN_COLUMNS


def _pyarrow(where: str) -> Any:
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.csv
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise InputError(
            f"reading a table needs pyarrow: {install_hint('tables')}", Location(where)
        ) from None
    return pyarrow


def table_format(source: Source) -> str | None:
    """``parquet``, ``arrow``, ``arrow-stream`` or ``csv`` for a table, None for TREC text."""
    source.file.seek(0)
    head = source.file.read(8)
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(b"ARROW1"):
        return "arrow"
    if head.startswith(b"\xff\xff\xff\xff"):
        return "arrow-stream"
    return "csv" if source.name.lower().endswith(CSV_SUFFIXES) else None


def _batches(source: Source, kind: str, names: Sequence[str]) -> Iterator[Any]:
    """The table's record batches, holding the columns `names` in that order."""
    pa = _pyarrow(source.name)
    source.file.seek(0)
    try:
        if kind == "parquet":
            reader = pa.parquet.ParquetFile(source.file)
            _check_schema(reader.schema_arrow, names, source.name)
            _check_row_groups(reader.metadata, names, source.name)
            # Id columns stay dictionary-encoded until their distinct values are checked: one
            # long id repeated by a dictionary would otherwise be copied into every row.
            source.file.seek(0)
            reader = pa.parquet.ParquetFile(source.file, read_dictionary=list(names[:2]))
            batches = reader.iter_batches(BATCH_ROWS, columns=list(names))
        elif kind == "arrow":
            reader = pa.ipc.open_file(source.file)
            _check_schema(reader.schema, names, source.name)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        elif kind == "arrow-stream":
            batches = pa.ipc.open_stream(source.file)
            _check_schema(batches.schema, names, source.name)
        else:
            options = pa.csv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()), include_columns=list(names)
            )
            text = source.text()
            # Every column is read as text: the types the header's reader guesses are not checked.
            header = pa.csv.open_csv(text, convert_options=pa.csv.ConvertOptions())
            _check_names(header.schema.names, names, source.name)
            text = source.text()
            batches = pa.csv.open_csv(text, convert_options=options)
        selected = (batch.select(list(names)) for batch in batches)
        yield from _decoded_ids(selected, names, source.name)
    except (pa.ArrowException, OSError) as error:
        raise InputError(f"not a readable {kind} table: {error}", Location(source.name)) from None


def _check_row_groups(metadata: Any, names: Sequence[str], where: str) -> None:
    """Refuse, before reading it, a Parquet row group whose column holds more bytes than its
    rows can in valid values (``ndcg.limits``, `ROW_GROUP_BYTES_PER_ROW`): what one block of
    the file costs to read stays within a bound of its row count."""
    paths = [metadata.schema.column(i).path for i in range(metadata.num_columns)]
    first = 1
    for index in range(metadata.num_row_groups):
        group = metadata.row_group(index)
        bound = group.num_rows * ROW_GROUP_BYTES_PER_ROW + ROW_GROUP_BYTES_FIXED
        for name in names:
            size = group.column(paths.index(name)).total_uncompressed_size
            if size > bound:
                raise InputError(
                    f"row group {index} ({group.num_rows} rows) holds {size} bytes of column "
                    f"{name!r}, more than rows of ids and numbers of at most {FIELD_BYTES} bytes "
                    "can (ndcg.limits)",
                    Location(where, first),
                )
        first += group.num_rows


def _decoded_ids(batches: Iterator[Any], names: Sequence[str], where: str) -> Iterator[Any]:
    """The batches with their dictionary-encoded columns (Parquet ids as read, Arrow IPC as
    written) decoded, the lengths of the values each row takes from a dictionary first held to
    the id length of ``ndcg.limits``, so that decoding copies at most that many bytes into each
    row."""
    pa = _pyarrow(where)
    pc = pa.compute
    first = 1
    for batch in batches:
        columns = []
        for name, column in zip(names, batch.columns, strict=True):
            if pa.types.is_dictionary(column.type):
                text = column.type.value_type
                if pa.types.is_string(text) or pa.types.is_large_string(text):
                    lengths = pc.take(pc.binary_length(column.dictionary), column.indices)
                else:
                    lengths = pa.array([0])
                long = pc.greater(lengths, FIELD_BYTES)
                if pc.any(long).as_py():
                    raise InputError(
                        f"column {name!r}: an id is longer than {FIELD_BYTES} bytes (ndcg.limits)",
                        Location(where, first + _first(long, pc)),
                    )
                column = column.cast(column.type.value_type)
            columns.append(column)
        yield pa.RecordBatch.from_arrays(columns, names=list(names))
        first += batch.num_rows


def _check_names(present: list[str], names: Sequence[str], where: str) -> None:
    missing = [n for n in names if n not in present]
    if missing:
        raise InputError(
            f"the table has no column {missing[0]!r}; its columns are {', '.join(present)}",
            Location(where),
        )
    repeated = [n for n in names if present.count(n) > 1]
    if repeated:
        raise InputError(
            f"the table has {present.count(repeated[0])} columns named {repeated[0]!r}, "
            "so which one to read is not known",
            Location(where),
        )


def _check_schema(schema: Any, names: Sequence[str], where: str) -> None:
    """Refuse, before a row is read, a table missing a column, or holding one whose type holds
    no id (the first two columns) or number (the third): a list or a struct, say, whose
    Parquet leaves are not named by the column. A column of nulls passes, for its first row to
    be named."""
    types = _pyarrow(where).types
    ids = (types.is_integer, types.is_string, types.is_large_string, types.is_null)
    numbers = (*ids, types.is_floating, types.is_decimal)
    _check_names(schema.names, names, where)
    for position, name in enumerate(names):
        kind = schema.field(name).type
        if types.is_dictionary(kind):
            kind = kind.value_type
        accepted, wanted = (
            (ids, "ids are strings or integers")
            if position < 2
            else (numbers, "numbers are wanted")
        )
        if not any(is_kind(kind) for is_kind in accepted):
            raise InputError(f"column {name!r} holds {kind}: {wanted}", Location(where))


def _first(mask: Any, pc: Any) -> int:
    return int(pc.index(mask, True).as_py())


def _ids(array: Any, column: str, where: str, row: int) -> Any:
    """The ids of a column (strings or integers, `_check_schema`) as a large_string array, every
    one checked."""
    pa = _pyarrow(where)
    pc = pa.compute
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.cast(array.type.value_type)
    if array.null_count:
        at = _first(array.is_null(), pc)
        raise InputError(f"column {column!r} has no value", Location(where, row + at))
    text = not pa.types.is_integer(array.type)
    array = array.cast(pa.large_string())
    if text:
        try:
            array.validate(full=True)
        except pa.ArrowInvalid:
            raise InputError(
                f"column {column!r} holds text that is not UTF-8", Location(where)
            ) from None
    long = pc.greater(pc.binary_length(array), FIELD_BYTES)
    if pc.any(long).as_py():
        raise InputError(
            f"column {column!r}: an id is longer than {FIELD_BYTES} bytes (ndcg.limits)",
            Location(where, row + _first(long, pc)),
        )
    bad = pc.or_(pc.equal(pc.utf8_length(array), 0), pc.match_substring_regex(array, NOT_IN_ID))
    if pc.any(bad).as_py():
        at = _first(bad, pc)
        raise InputError(
            f"column {column!r}: id {array[at].as_py()!r} is empty or holds white space or a "
            "control character",
            Location(where, row + at),
        )
    return array


def id_words(array: Any) -> np.ndarray:
    """Each id's UTF-8 bytes as big-endian 64-bit words, zero padded (``read.words_of``)."""
    _, offsets, data = array.buffers()
    bounds = np.frombuffer(offsets, np.int64)[array.offset : array.offset + len(array) + 1]
    padded = np.zeros(int(bounds[-1]) + 16, np.uint8)
    padded[: int(bounds[-1] - bounds[0])] = np.frombuffer(data, np.uint8)[bounds[0] : bounds[-1]]
    starts, lengths = bounds[:-1] - bounds[0], np.diff(bounds)
    count = max(1, int(-(-lengths.max() // 8))) if len(lengths) else 1
    return words_of(padded, starts, lengths, count)


def _number_texts(array: Any, column: str, where: str, row: int) -> tuple[np.ndarray, list[str]]:
    """Each row's index into the distinct numbers of a column, and each distinct number as an
    exact decimal text (``ndcg.input.number``; a double as its exact decimal). The column holds
    numbers or text (`_check_schema`)."""
    pa = _pyarrow(where)
    pc = pa.compute
    if array.null_count:
        at = _first(array.is_null(), pc)
        raise InputError(f"column {column!r} has no value", Location(where, row + at))
    kind = array.type
    encoded = pc.dictionary_encode(array)
    texts = []
    for value in encoded.dictionary.to_pylist():
        try:
            texts.append(_exact_text(value))
        except NdcgSpecError as error:
            at = _first(_equal(array, value, kind, pa), pc)
            problem = error if isinstance(error, BeyondLimits) else "is not a finite decimal number"
            raise InputError(
                f"column {column!r}: {value!r} {problem}", Location(where, row + at)
            ) from None
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), texts


def _equal(array: Any, value: Any, kind: Any, pa: Any) -> Any:
    """Where `array` holds `value`; a NaN, which equals nothing, where the array is NaN."""
    if isinstance(value, float) and value != value:
        return pa.compute.is_nan(array)
    return pa.compute.equal(array, pa.scalar(value, kind))


def _exact_text(value: float | int | Decimal | str) -> str:
    """The exact decimal text of a value of a number column (`exact_decimal`): text as it is
    written, once it is read."""
    exact = exact_decimal(value)
    return value if isinstance(value, str) else str(exact)


def qrels_columns(source: Source, kind: str, names: Sequence[str]) -> QrelsColumns:
    """A qrels table as columns; queries in order of first appearance."""
    pa = _pyarrow(source.name)
    batches = list(_batches(source, kind, names))
    table = pa.Table.from_batches(batches) if batches else None
    if table is None or table.num_rows == 0:
        raise InputError("the table has no rows", Location(source.name))
    queries = pa.compute.dictionary_encode(_ids(table.column(0), names[0], source.name, 1))
    docs = _ids(table.column(1), names[1], source.name, 1)
    label_id, texts = _number_texts(table.column(2).combine_chunks(), names[2], source.name, 1)
    lines = LineNumbers()
    lines.extend(np.arange(1, table.num_rows + 1))
    return QrelsColumns(
        source.name,
        queries.dictionary.to_pylist(),
        queries.indices.to_numpy().astype(np.int32),
        id_words(docs),
        label_id.astype(np.int32),
        texts,
        lines,
    )


def _scores(
    array: Any, column: str, where: str, row: int
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Doubles of a score column, the rows whose double is not known to be exact (``read``'s
    rule: `rank.exact_score` reads an exact row's decimal back from its double) and their
    decimal texts. A double is its own exact decimal."""
    pa = _pyarrow(where)
    if array.null_count == 0 and pa.types.is_floating(array.type):
        values = array.cast(pa.float64()).to_numpy()
        if np.all(np.isfinite(values)):
            return values + 0.0, np.zeros(0, np.int64), []
    if array.null_count == 0 and pa.types.is_integer(array.type):
        integers = array.to_numpy()
        inexact = np.flatnonzero(np.abs(integers.astype(np.float64)) >= _EXACT_INTEGER)
        return integers.astype(np.float64), inexact, [str(integers[i]) for i in inexact]
    index, texts = _number_texts(array, column, where, row)
    decimals = [parse_decimal(t) for t in texts]
    doubles = np.array([float(d) for d in decimals])
    exact = np.array([double_is_exact(d, f) for d, f in zip(decimals, doubles, strict=True)])
    inexact = np.flatnonzero(~exact[index]) if len(texts) else np.zeros(0, np.int64)
    return doubles[index] + 0.0, inexact, [texts[i] for i in index[inexact].tolist()]


def run_pieces(
    source: Source, kind: str, names: Sequence[str], qrels_qids: list[str]
) -> Iterator[RunPiece]:
    """A run table batch by batch, keeping only the rows of queries in the qrels."""
    pa = _pyarrow(source.name)
    known = pa.array(qrels_qids, pa.large_string())
    first = 1
    for batch in _batches(source, kind, names):
        queries = _ids(batch.column(0), names[0], source.name, first)
        docs = _ids(batch.column(1), names[1], source.name, first)
        values, inexact, texts = _scores(batch.column(2), names[2], source.name, first)
        qidx = pa.compute.index_in(queries, value_set=known).fill_null(-1).to_numpy()
        rows = np.flatnonzero(qidx >= 0)
        kept = qidx[inexact] >= 0
        yield RunPiece(
            qidx[rows].astype(np.int32),
            id_words(docs)[rows],
            values[rows],
            first + rows,
            np.searchsorted(rows, inexact[kept]),
            [t for t, k in zip(texts, kept.tolist(), strict=True) if k],
            tuple(pa.compute.unique(queries.filter(pa.array(qidx < 0))).to_pylist()),
        )
        first += batch.num_rows
    if first == 1:
        raise InputError("the table has no rows", Location(source.name))


def reference_qrels(qrels: QrelsColumns) -> dict[str, dict[str, Judgment]]:
    """The qrels as the plain reference takes them."""
    judged: dict[str, dict[str, Judgment]] = {}
    rows = range(len(qrels.qidx))
    for docid, row in zip(token_texts(qrels.words), rows, strict=True):
        label = parse_decimal(qrels.label_texts[qrels.label_id[row]])
        where = Location(qrels.path, qrels.lines[row])
        add_judgment(judged, qrels.qids[qrels.qidx[row]], docid, Judgment(label, where))
    return judged


def reference_run(run: RunColumns, qids: list[str]) -> dict[str, list[Posting]]:
    """The run (its rows of qrels queries) as the plain reference takes it."""
    inexact = dict(zip(run.inexact_rows.tolist(), run.inexact_texts, strict=True))
    postings: dict[str, list[Posting]] = {}
    for docid, row in zip(token_texts(run.words), range(len(run.qidx)), strict=True):
        posting = Posting(docid, exact_score(run, row, inexact), Location(run.path, run.lines[row]))
        postings.setdefault(qids[run.qidx[row]], []).append(posting)
    return postings
