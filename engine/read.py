"""Columnar reading of TREC qrels and runs for the fast engine (``ndcg.definition.inputs``).

The bytes are tokenised in chunks with numpy, exactly as `trec_io.read_lines` splits them:
lines end at "\\n" and fields are separated by whitespace. Document ids become big-endian
64-bit words (byte order is then numeric order, ``ndcg.ties.docid-desc``), labels stay exact
decimal texts, and scores become doubles that are exact when that is provable (at most 15
significant digits); any other score keeps its text so that ties can be decided exactly
(``ndcg.precision``).

Whatever this reader does not handle raises `Unsupported`; the caller then reads with the plain
`trec_io` readers, which also report every input error with its ``file:line``.
"""

from __future__ import annotations

import bisect
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache

import numpy as np

from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.reference.trec_io import FIELD_BYTES, FORBIDDEN, LINE_BYTES, SEPARATORS, Source

# Pieces of 2 MiB: the temporaries of tokenising one piece stay some MiB, and a piece read
# ahead (`read_ahead`) is worth handing to the scorer.
CHUNK_BYTES = 1 << 21
_SLACK = 32
# The shortest lines: one-byte fields, one separator between them, "\n".
_SHORTEST_LINE = {4: 8, 6: 12}
# A first guess at how much a gzip file inflates, before its columns grow by doubling.
_GZIP_GUESS = 8
_FALLBACK_ROWS = 1 << 20
# A double holds every decimal of at most this many significant digits injectively
# (DBL_DIG), so equal doubles then mean equal decimals.
EXACT_DIGITS = 15
_ALLOWED_CONTROLS = np.frombuffer(SEPARATORS + b"\n", np.uint8)
_WORD_MASKS = np.array([0] + [((1 << (8 * r)) - 1) << (8 * (8 - r)) for r in range(1, 9)], ">u8")
_POWERS_OF_TEN = 10.0 ** np.arange(EXACT_DIGITS + 1)
# Tokens of at most this many bytes are told apart by a count of each value of their bytes.
SHORT_TOKEN_BYTES = 2


# glibc's mallopt parameters (malloc.h): the free memory at the top of the heap kept rather
# than returned to the system, and the size from which an allocation is a mapping of its own.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
KEPT_FREE_BYTES = 1 << 28
# The largest that glibc's own adjustment of the threshold reaches on 64-bit systems.
OWN_MAPPING_BYTES = 1 << 25


def _glibc() -> bool:
    """Whether the C library is glibc (no confstr on Windows, no such name elsewhere)."""
    try:
        return "glibc" in (os.confstr("CS_GNU_LIBC_VERSION") or "")
    except (AttributeError, ValueError, OSError):
        return False


@cache
def keep_freed_memory() -> None:
    """Have the C allocator keep the memory that one piece or block of queries frees for the
    next, once per process, under glibc (elsewhere nothing is done). Each allocates and frees
    tens of MiB of temporaries; by default glibc returns the free top of its heap to the
    system beyond 128 KiB and maps each large array apart, raising both limits only as it
    sees large arrays freed, so the next piece took the same pages from the system again.
    At 5,000 queries, 1,000 judged per query: 250,000 page faults and 0.7 s of system time
    of 3.8 s of CPU, kept 36,000 faults and 3.4 s; heavy ties 95,000, 26,000, 2.2 -> 2.0 s.
    Up to KEPT_FREE_BYTES of freed memory stays with the process: its peak resident memory
    grew by 5 % (265 -> 278 MiB with 1,000 judged per query). Called by the commands that
    score files (``ndcgspec score``, ``ndcgspec trec_eval``), never by the engine itself: a
    program that imports ndcgspec keeps its allocator as it set it."""
    if not _glibc():
        return
    # Imported here: only a process that scores a file needs it.
    import ctypes

    libc = ctypes.CDLL(None)
    libc.mallopt(_M_MMAP_THRESHOLD, OWN_MAPPING_BYTES)
    libc.mallopt(_M_TRIM_THRESHOLD, KEPT_FREE_BYTES)


class Unsupported(Exception):
    """Input the fast reader leaves to the plain reader; the message says why."""


@dataclass
class LineNumbers:
    """The file line of each kept row, run-length coded: row r is on line r + offsets[i] for
    the last i with starts[i] <= r. A file without blank or dropped lines needs one pair."""

    starts: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    rows: int = 0

    def __getitem__(self, row: int) -> int:
        return row + self.offsets[bisect.bisect_right(self.starts, row) - 1]

    def at(self, rows: np.ndarray) -> np.ndarray:
        """The lines of many rows at once."""
        offsets = np.asarray(self.offsets, np.int64)
        return rows + offsets[np.searchsorted(self.starts, rows, "right") - 1]

    def extend(self, lines: np.ndarray) -> None:
        """Add the lines of the next rows."""
        offsets = lines.astype(np.int64) - np.arange(self.rows, self.rows + len(lines))
        # Offsets are at least 1: -1 before the first row starts the first pair.
        new = np.flatnonzero(np.diff(offsets, prepend=self.offsets[-1] if self.offsets else -1))
        self.starts += (self.rows + new).tolist()
        self.offsets += offsets[new].tolist()
        self.rows += len(lines)


class _Column:
    """A column filled piece by piece in one buffer reserved for at most `capacity` rows: no
    piece is kept apart and nothing is copied unless the reservation (a guess for gzip files)
    is exceeded; the pages of the reservation that no row reaches are never touched."""

    def __init__(self, dtype: type, capacity: int, width: int = 0) -> None:
        try:
            self.data: np.ndarray = np.empty((capacity, width) if width else capacity, dtype)
        except MemoryError:
            # A system that commits memory when it is reserved: start small and grow.
            rows = min(capacity, _FALLBACK_ROWS)
            self.data = np.empty((rows, width) if width else rows, dtype)
        self.size = 0

    def extend(self, values: np.ndarray) -> None:
        """Append rows; word columns may be wider than those held, which are zero padded."""
        end = self.size + len(values)
        if end > len(self.data) or values.shape[1:] > self.data.shape[1:]:
            rows = len(self.data) if end <= len(self.data) else max(end, 2 * len(self.data))
            width = np.maximum(values.shape, self.data.shape)[1:]
            try:
                grown = np.zeros((rows, *width), self.data.dtype)
            except MemoryError:
                # The reservation, widened, is more than the system grants: grow by doubling.
                grown = np.zeros((max(end, 2 * self.size), *width), self.data.dtype)
            held = self.array()
            grown[tuple(slice(0, n) for n in held.shape)] = held
            self.data = grown
        if values.ndim == 2:
            self.data[self.size : end, : values.shape[1]] = values
            self.data[self.size : end, values.shape[1] :] = 0
        else:
            self.data[self.size : end] = values
        self.size = end

    def array(self) -> np.ndarray:
        return self.data[: self.size]


def _capacity(source: Source, fields: int) -> int:
    """The most rows the input can hold (a guess for gzip files)."""
    return (_GZIP_GUESS if source.compressed else 1) * source.size // _SHORTEST_LINE[fields] + 1


@dataclass
class QrelsColumns:
    """The rows of a qrels file, in file order."""

    path: str
    qids: list[str]
    qidx: np.ndarray
    words: np.ndarray
    label_id: np.ndarray
    label_texts: list[str]
    lines: LineNumbers | np.ndarray


@dataclass
class RunColumns:
    """The rows of a run whose query is in the qrels, in file order until ranking puts them in
    ranking order; then `file_row` holds each row's index in file order.

    `score` is exact for rows not in `inexact_rows` (indices in file order); those rows keep
    their text in `inexact_texts` (same order), to be read as exact decimals when ties must be
    decided. `lines` is indexed in file order too.
    """

    path: str
    present: np.ndarray
    qidx: np.ndarray
    words: np.ndarray
    score: np.ndarray
    inexact_rows: np.ndarray
    inexact_texts: list[str]
    lines: LineNumbers | np.ndarray
    file_row: np.ndarray | None = None

    def file_index(self, row: int) -> int:
        """The index in file order of the row now at `row`."""
        return row if self.file_row is None else int(self.file_row[row])


@dataclass
class _Chunk:
    data: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    lines: np.ndarray


def _last_line_end(data: np.ndarray) -> int:
    """The offset of the last "\\n" in `data`, -1 if none: looked for in windows growing back
    from the end (lines are short), where listing every line end of a 1 MiB piece took
    0.25-0.6 ms."""
    window = 1 << 12
    while True:
        low = max(0, len(data) - window)
        found = np.flatnonzero(data[low:] == 10)
        if found.size:
            return low + int(found[-1])
        if not low:
            return -1
        window <<= 4


def _chunks(source: Source) -> Iterator[tuple[np.ndarray, int, int]]:
    """Pieces of the text that end at a line end (in a buffer with slack after them, so
    that eight bytes can be read at any token start), with the number of lines in them and
    before them. The buffer is reused: use a piece before the next."""
    try:
        stream = source.text()
        buffer = np.zeros(2 * CHUNK_BYTES + _SLACK, np.uint8)
        held, before = 0, 0
        while True:
            if held + CHUNK_BYTES + _SLACK > len(buffer):
                buffer = np.concatenate([buffer, np.zeros(len(buffer), np.uint8)])
            got = stream.readinto(buffer.data[held : held + CHUNK_BYTES])
            if not got:
                break
            end = held + got
            # The bytes held from the piece before end no line.
            cut = held + _last_line_end(buffer[held:end]) + 1
            if cut == held:
                if end > LINE_BYTES:
                    # A line beyond ``ndcg.limits``: the plain reader refuses it.
                    raise Unsupported(f"{source.name}: a line longer than {LINE_BYTES} bytes")
                held = end
                continue
            lines = int(np.count_nonzero(buffer[held:cut] == 10))
            yield buffer[: cut + _SLACK], lines, before
            before += lines
            buffer[: end - cut] = buffer[cut:end].copy()
            held = end - cut
        if held:
            buffer[held] = 10
            yield buffer[: held + 1 + _SLACK], 1, before
    except OSError as error:
        raise Unsupported(f"{source.name}: unreadable: {error}") from None
    except (EOFError, zlib.error) as error:
        raise Unsupported(f"{source.name}: damaged gzip data: {error}") from None


def _tokenise(data: np.ndarray, line_count: int, before: int, fields: int, name: str) -> _Chunk:
    """Field boundaries of every non-blank line of a piece from `_chunks` of `line_count`
    lines."""
    view = data[: len(data) - _SLACK]
    if view.max() >= 0x7F:
        try:
            decoded = view.tobytes().decode("utf-8")
        except UnicodeDecodeError:
            raise Unsupported(f"{name}: a line is not valid UTF-8") from None
        if FORBIDDEN.search(decoded):
            raise Unsupported(f"{name}: control characters")
    # Below 33 only the separators, "\n" and space may appear (``ndcg.input``); then every
    # byte up to 32 separates fields. Most files hold only "\n": look closer otherwise.
    low = view < 32
    if np.count_nonzero(low) != line_count and np.any(
        np.isin(view[low], _ALLOWED_CONTROLS, invert=True)
    ):
        raise Unsupported(f"{name}: control characters")
    space = view <= 32
    lines = np.arange(before + 1, before + 1 + line_count, dtype=np.int64)
    separated = _single_separators(space, view, line_count, fields)
    if separated is not None:
        starts, ends = separated
        return _Chunk(data, starts.reshape(-1, fields), ends.reshape(-1, fields), lines)
    start_mask = np.empty(len(view), bool)
    start_mask[0] = not space[0]
    np.greater(space[:-1], space[1:], out=start_mask[1:])
    starts = np.flatnonzero(start_mask)
    np.less(space[:-1], space[1:], out=start_mask[:-1])
    start_mask[-1] = False
    ends = np.flatnonzero(start_mask) + 1
    line_ends = np.flatnonzero(view == 10)
    if not _one_row_per_line(starts, ends, line_ends, fields):
        per_line = np.diff(np.searchsorted(starts, line_ends), prepend=0)
        if np.any((per_line != fields) & (per_line != 0)):
            raise Unsupported(f"{name}: a line does not have {fields} fields")
        lines = before + 1 + np.flatnonzero(per_line)
    return _Chunk(data, starts.reshape(-1, fields), ends.reshape(-1, fields), lines)


def _single_separators(
    space: np.ndarray, view: np.ndarray, line_count: int, fields: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Token starts and ends when every line is `fields` non-empty tokens with one separator
    between them and nothing before the first or after the last (most files): then the
    separator bytes alone bound every token, found in one pass. None otherwise. Every
    `fields`-th separator a line end, and as many of them as the piece has lines: they are
    all its line ends."""
    separators = np.flatnonzero(space)
    if (
        len(separators) != fields * line_count
        or space[0]
        or np.any(view[separators[fields - 1 :: fields]] != 10)
        or np.any(np.diff(separators) == 1)
    ):
        return None
    starts = np.empty(len(separators), np.int64)
    starts[0] = 0
    np.add(separators[:-1], 1, out=starts[1:])
    return starts, separators


def _one_row_per_line(
    starts: np.ndarray, ends: np.ndarray, line_ends: np.ndarray, fields: int
) -> bool:
    """Whether every line holds exactly `fields` tokens: then the k-th group of `fields`
    tokens starts after line end k − 1 and ends before line end k."""
    if len(starts) != fields * len(line_ends):
        return False
    firsts, lasts = starts[::fields], ends[fields - 1 :: fields]
    return bool(np.all(firsts[1:] > line_ends[:-1]) and np.all(lasts <= line_ends))


def double_is_exact(decimal: Decimal, double: float) -> bool:
    """Whether a score read as `double` keeps `decimal`: at most EXACT_DIGITS significant
    digits and the double's shortest repr is that decimal (`rank.exact_score` reads it back
    from the double); otherwise the reader keeps the decimal's text."""
    return (
        len(decimal.normalize().as_tuple().digits) <= EXACT_DIGITS
        and bool(np.isfinite(double))
        and Decimal(repr(float(double))) == decimal
    )


def words_of(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, count: int) -> np.ndarray:
    """The token bytes as `count` big-endian 64-bit words each, zero padded."""
    unaligned = np.ndarray((len(data) - 7,), ">u8", data.data, 0, (1,))
    out = np.empty((len(starts), count), np.uint64)
    shortest = int(lengths.min()) if len(lengths) else 0
    for j in range(count):
        if shortest >= 8 * (j + 1):
            # Every token fills this word: nothing to mask.
            out[:, j] = unaligned[starts + 8 * j]
            continue
        kept = np.clip(lengths - 8 * j, 0, 8)
        # A word past a token's end is masked to zero: read it anywhere within the data.
        out[:, j] = unaligned[np.where(kept > 0, starts + 8 * j, 0)] & _WORD_MASKS[kept]
    return out


def _token_words(chunk: _Chunk, field: int) -> tuple[np.ndarray, np.ndarray]:
    starts, lengths = chunk.starts[:, field], chunk.ends[:, field] - chunk.starts[:, field]
    if len(lengths) and lengths.max() > FIELD_BYTES:
        # A field beyond ``ndcg.limits``: the plain reader refuses it.
        raise Unsupported(f"a field longer than {FIELD_BYTES} bytes")
    count = int(-(-lengths.max() // 8)) if len(lengths) else 1
    return words_of(chunk.data, starts, lengths, count), lengths


def _texts(chunk: _Chunk, field: int, rows: np.ndarray) -> list[str]:
    starts, ends = chunk.starts[rows, field].tolist(), chunk.ends[rows, field].tolist()
    data = chunk.data.data
    return [str(data[s:e], "utf-8") for s, e in zip(starts, ends, strict=True)]


def _segments(chunk: _Chunk, field: int) -> tuple[np.ndarray, list[str]]:
    """Start row of each run of equal tokens in a column, and each run's text."""
    words, lengths = _token_words(chunk, field)
    changed = np.ones(len(lengths), bool)
    changed[1:] = (lengths[1:] != lengths[:-1]) | np.any(words[1:] != words[:-1], axis=1)
    first = np.flatnonzero(changed)
    return first, _texts(chunk, field, first)


def _distinct_tokens(words: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct tokens of a column as rows of words, ascending, and the index of each
    row's token among them. Tokens hold no zero byte, so the zero-padded words identify the
    text."""
    if len(lengths) and words.shape[1] == 1 and lengths.max() <= SHORT_TOKEN_BYTES:
        # Labels of at most two bytes (nearly all: "0" to "4", "-1", "10") are numbered by a
        # count of each value of their two leading bytes, one pass, where np.unique sorts:
        # 1.2 ms of a piece of 50,000 labels (0.12 s of 5 M judgments), this 0.1 ms.
        shift = np.uint64(64 - 8 * SHORT_TOKEN_BYTES)
        leading = (words[:, 0] >> shift).astype(np.intp)
        counts = np.bincount(leading)
        present = np.flatnonzero(counts)
        index = np.zeros(len(counts), np.intp)
        index[present] = np.arange(len(present))
        return (present.astype(np.uint64) << shift).reshape(-1, 1), index[leading]
    # A token of one word is keyed by it alone, whose sort is several times a void's.
    keys = (
        words[:, 0]
        if words.shape[1] == 1
        else words.view(np.dtype((np.void, 8 * words.shape[1]))).ravel()
    )
    firsts, inverse = np.unique(keys, return_index=True, return_inverse=True)[1:]
    return words[firsts], inverse.ravel()


def read_qrels_columns(source: Source) -> QrelsColumns:
    """A qrels file as columns; qids in order of first appearance, as `trec_io.read_qrels`."""
    qids: dict[str, int] = {}
    labels: dict[str, int] = {}
    capacity = _capacity(source, 4)
    qidx, label_id = _Column(np.int32, capacity), _Column(np.int32, capacity)
    words, lines = _Column(np.uint64, capacity, 1), LineNumbers()
    for data, line_count, before in _chunks(source):
        chunk = _tokenise(data, line_count, before, 4, source.name)
        first, names = _segments(chunk, 0)
        segment_qidx = np.array([qids.setdefault(n, len(qids)) for n in names], np.int32)
        qidx.extend(np.repeat(segment_qidx, np.diff(first, append=len(chunk.lines))))
        words.extend(_token_words(chunk, 2)[0])
        distinct, inverse = _distinct_tokens(*_token_words(chunk, 3))
        local = [labels.setdefault(text, len(labels)) for text in token_texts(distinct)]
        label_id.extend(np.array(local, np.int32)[inverse])
        lines.extend(chunk.lines)
    if lines.rows == 0:
        raise Unsupported(f"{source.name}: empty")
    texts = list(labels)
    for text in texts:
        try:
            parse_decimal(text)
        except NdcgSpecError:
            raise Unsupported(f"{source.name}: label {text!r} is not a decimal") from None
    return QrelsColumns(
        source.name, list(qids), qidx.array(), words.array(), label_id.array(), texts, lines
    )


def token_texts(words: np.ndarray) -> list[str]:
    """The text of each token from its row of zero-padded big-endian words (tokens hold no
    NUL byte, so the padding is all that a bytes view strips)."""
    raw = np.ascontiguousarray(words.astype(">u8")).view(f"S{8 * words.shape[1]}")
    return [token.decode("utf-8") for token in raw.ravel().tolist()]


@dataclass
class _Scores:
    values: np.ndarray
    inexact: np.ndarray
    texts: list[str]


def _scores(chunk: _Chunk, field: int, rows: np.ndarray, name: str) -> _Scores:
    """Doubles of the score tokens of `rows`; exact (Clinger's fast path: an integer below
    2^53 divided by an exact power of ten) for plain decimals of at most 15 digits."""
    starts, ends = chunk.starts[rows, field], chunk.ends[rows, field]
    lengths = ends - starts
    width = int(lengths.max()) if len(rows) else 1
    count = min(-(-width // 8), 3)
    raw = words_of(chunk.data, starts, np.minimum(lengths, 8 * count), count)
    columns = raw.astype(">u8").view(np.uint8).reshape(len(rows), 8 * count).T.copy()
    mantissa = np.zeros(len(rows), np.int64)
    # Counts of at most 24 bytes.
    digits = np.zeros(len(rows), np.int8)
    fraction = np.zeros(len(rows), np.int8)
    dots = np.zeros(len(rows), np.int8)
    other = np.zeros(len(rows), bool)
    negative = columns[0] == 45
    # Bytes past the longest token are zero padding in every row: nothing to read there.
    for j, byte in enumerate(columns[:width]):
        digit = byte - np.uint8(48)
        is_digit = digit < 10
        is_dot = byte == 46
        mantissa = np.where(is_digit, mantissa * 10 + digit, mantissa)
        digits += is_digit
        fraction += is_digit & (dots > 0)
        dots += is_dot
        allowed = is_digit | is_dot | (byte == 0)
        if j == 0:
            allowed |= negative | (byte == 43)
        other |= ~allowed
    # Sign, digits and at most one point, every byte seen: in the number grammar.
    formed = ~other & (dots <= 1) & (digits >= 1) & (lengths <= 8 * count)
    plain = formed & (digits <= EXACT_DIGITS)
    values = mantissa / _POWERS_OF_TEN[np.minimum(fraction, EXACT_DIGITS)]
    values = np.where(negative, -values, values)
    inexact = np.flatnonzero(~plain)
    texts = _texts(chunk, field, rows[inexact])
    for at, text, seen in zip(inexact.tolist(), texts, formed[inexact].tolist(), strict=True):
        # float() of a plain decimal's text is its correctly rounded double, as of the Decimal.
        if seen:
            values[at] = float(text)
            continue
        try:
            values[at] = float(parse_decimal(text))
        except NdcgSpecError:
            raise Unsupported(f"{name}: score {text!r} is not a finite decimal") from None
    return _Scores(values + 0.0, inexact, texts)


@dataclass
class RunPiece:
    """The rows of one piece of a run (`_chunks`) whose query is in the qrels, in file order:
    `qidx` indexes the qrels queries, `lines` holds each row's file line, `inexact` the rows
    (of this piece) whose score keeps its text in `inexact_texts`. `unjudged` names the
    piece's queries that the qrels lack, whose rows it drops (``ndcg.definition.inputs``), as
    read; the blocks joined and split from pieces for scoring carry none."""

    qidx: np.ndarray
    words: np.ndarray
    score: np.ndarray
    lines: np.ndarray
    inexact: np.ndarray
    inexact_texts: list[str]
    unjudged: tuple[str, ...] = ()


def run_pieces(source: Source, qrels_qids: list[str]) -> Iterator[RunPiece]:
    """A run piece by piece, keeping only the rows of queries in the qrels (the others never
    count, ``ndcg.definition.inputs``); a run without a non-blank line is Unsupported."""
    index = {q: i for i, q in enumerate(qrels_qids)}
    seen = False
    for data, line_count, before in _chunks(source):
        chunk = _tokenise(data, line_count, before, 6, source.name)
        seen |= len(chunk.lines) > 0
        first, names = _segments(chunk, 0)
        segment_qidx = np.array([index.get(n, -1) for n in names], np.int32)
        row_qidx = np.repeat(segment_qidx, np.diff(first, append=len(chunk.lines)))
        rows = np.flatnonzero(row_qidx >= 0)
        scores = _scores(chunk, 4, np.arange(len(chunk.lines)), source.name)
        kept = row_qidx[scores.inexact] >= 0
        yield RunPiece(
            row_qidx[rows],
            _token_words(chunk, 2)[0][rows],
            scores.values[rows],
            chunk.lines[rows],
            np.searchsorted(rows, scores.inexact[kept]),
            [t for t, k in zip(scores.texts, kept.tolist(), strict=True) if k],
            tuple(
                dict.fromkeys(n for n, q in zip(names, segment_qidx.tolist(), strict=True) if q < 0)
            ),
        )
    if not seen:
        raise Unsupported(f"{source.name}: empty")


def read_run_columns(
    pieces: Iterator[RunPiece], path: str, queries: int, capacity: int = _FALLBACK_ROWS
) -> RunColumns:
    """A whole run as columns (its pieces put end to end); `present` marks the `queries` of
    the qrels that the run lists; `capacity` rows are reserved first."""
    present = np.zeros(queries, bool)
    qidx, score = _Column(np.int32, capacity), _Column(np.float64, capacity)
    words, lines = _Column(np.uint64, capacity, 1), LineNumbers()
    inexact_rows: list[np.ndarray] = []
    inexact_texts: list[str] = []
    for piece in pieces:
        present[piece.qidx] = True
        inexact_rows.append(qidx.size + piece.inexact)
        inexact_texts += piece.inexact_texts
        qidx.extend(piece.qidx)
        words.extend(piece.words)
        score.extend(piece.score)
        lines.extend(piece.lines)
    return RunColumns(
        path,
        present,
        qidx.array(),
        words.array(),
        score.array(),
        np.concatenate(inexact_rows or [np.zeros(0, np.int64)]).astype(np.int64, copy=False),
        inexact_texts,
        lines,
    )


def run_capacity(source: Source) -> int:
    """The most rows a TREC run can hold (a guess for gzip files)."""
    return _capacity(source, 6)
