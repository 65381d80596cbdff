"""Reading TREC qrels (``qid iter docid label``) and runs (``qid Q0 docid rank score tag``) as
``ndcg.input`` defines them.

Each input is opened once (`opened`): "-" is standard input, and a pipe or FIFO is copied once
to a temporary file, so that the fast engine and these readers can both read what it held.
gzip is recognised by its magic bytes; a leading UTF-8 byte-order mark is not part of the
text. Labels and scores are exact decimals in the number grammar of ``ndcg.input.number``.
Every problem is an InputError naming the file and line.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import re
import shutil
import stat
import tempfile
import zlib
from collections.abc import Callable, Generator, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from ndcgspec.reference.decimals import BeyondLimits, parse_decimal
from ndcgspec.reference.errors import InputError, NdcgSpecError
from ndcgspec.reference.inputs import Judgment, Posting, add_judgment
from ndcgspec.reference.location import Location
from ndcgspec.spec import load_spec

GZIP_MAGIC = b"\x1f\x8b"
STDIN = "-"
STDIN_NAME = "<stdin>"
BOM = codecs.BOM_UTF8.decode("utf-8")
SEPARATORS: bytes = load_spec()["input"]["field_separators"].encode("ascii")
FORBIDDEN: re.Pattern[str] = re.compile(load_spec()["input"]["forbidden_characters"])
_FIELD = re.compile(f"[^{re.escape(SEPARATORS.decode('ascii'))}\n]+")
_COPY_BYTES = 1 << 20
LINE_BYTES: int = load_spec()["limits"]["line_bytes"]
FIELD_BYTES: int = load_spec()["limits"]["field_bytes"]


@dataclass(frozen=True)
class Source:
    """One input, opened once: `name` is what messages call it, `file` its bytes as stored
    (seekable), `size` their count."""

    name: str
    file: io.BufferedIOBase
    compressed: bool
    size: int

    def text(self) -> io.BufferedIOBase:
        """The text from its start, gunzipped, after the byte-order mark if there is one.
        The stream is the source's: read it, do not close it."""
        self.file.seek(0)
        stream = gzip.GzipFile(fileobj=self.file, mode="rb") if self.compressed else self.file
        if stream.read(len(codecs.BOM_UTF8)) != codecs.BOM_UTF8:
            stream.seek(0)
        return stream


def _cannot_read(error: BaseException, where: Location, what: str = "cannot read") -> InputError:
    return InputError(f"{what}: {getattr(error, 'strerror', None) or error}", where)


@contextmanager
def opened(path: str | os.PathLike[str] | Source) -> Iterator[Source]:
    """`path` opened once for every reader ("-": standard input); anything but a regular file
    (a pipe, a FIFO, a terminal, process substitution) is copied once to a temporary file,
    since it can be read only once. A Source is handed back as it is."""
    if isinstance(path, Source):
        yield path
        return
    name = STDIN_NAME if str(path) == STDIN else str(path)
    with ExitStack() as stack:
        try:
            raw = os.fdopen(os.dup(0), "rb") if str(path) == STDIN else open(path, "rb")  # noqa: SIM115
            file: io.BufferedIOBase = stack.enter_context(raw)
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                file = stack.enter_context(tempfile.TemporaryFile())
                shutil.copyfileobj(raw, file, _COPY_BYTES)
            size = file.seek(0, os.SEEK_END)
            file.seek(0)
            compressed = file.read(len(GZIP_MAGIC)) == GZIP_MAGIC
        except OSError as error:
            raise _cannot_read(error, Location(name)) from None
        yield Source(name, file, compressed, size)


def fields_of(line: bytes, where: Location) -> list[str]:
    """The fields of one line of text (``ndcg.input``): UTF-8 without forbidden characters,
    split at runs of the field separators, within ``ndcg.limits``."""
    if len(line) - line.endswith(b"\n") > LINE_BYTES:
        raise InputError(f"line is longer than {LINE_BYTES} bytes (ndcg.limits)", where)
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("line is not valid UTF-8", where) from None
    forbidden = FORBIDDEN.search(text)
    if forbidden and forbidden[0] == BOM:
        raise InputError("line holds a byte-order mark, as where two files were joined", where)
    if forbidden:
        raise InputError(f"line holds the control character U+{ord(forbidden[0]):04X}", where)
    fields = _FIELD.findall(text)
    if any(len(field) > FIELD_BYTES // 4 and len(field.encode()) > FIELD_BYTES for field in fields):
        raise InputError(f"a field is longer than {FIELD_BYTES} bytes (ndcg.limits)", where)
    return fields


def _lines(stream: io.BufferedIOBase) -> Iterator[bytes]:
    """The lines of `stream`, none read past LINE_BYTES (``ndcg.limits``): a longer line comes
    back cut there, for `fields_of` to refuse, so that no line costs more."""
    while line := stream.readline(LINE_BYTES + 2):
        yield line


def read_lines(path: str | Path | Source) -> Generator[tuple[Location, list[str]], None, None]:
    """(file and line, fields) of every non-blank line of a text file, gunzipped when it
    starts with the gzip magic; an empty file is an error."""
    with opened(path) as source:
        number, seen = 0, False
        try:
            for number, line in enumerate(_lines(source.text()), start=1):
                where = Location(source.name, number)
                fields = fields_of(line, where)
                if fields:
                    seen = True
                    yield where, fields
        except (OSError, EOFError, zlib.error) as error:
            # A damaged gzip stream fails part-way: name the line being read when it failed.
            if not source.compressed:
                raise _cannot_read(error, Location(source.name)) from None
            raise _cannot_read(
                error, Location(source.name, number + 1), "cannot read gzip data"
            ) from None
        if not seen:
            raise InputError("file is empty", Location(source.name))


QRELS_LAYOUT = "qid iter docid label"
RUN_LAYOUT = "qid Q0 docid rank score tag"
RUN_TAG_FIELD = 5
_TAIL_LINES = 64


def _fields(
    fields: list[str], layout: str, kind: str, where: Location, extra: bool = False
) -> list[str]:
    """The fields of a line laid out as `layout`; a line with too few (or, unless `extra`
    fields are allowed, too many) is malformed."""
    count = len(layout.split())
    if len(fields) < count or (len(fields) > count and not extra):
        raise InputError(
            f"malformed {kind} line: expected {count} fields '{layout}', got {len(fields)}", where
        )
    return fields[:count]


def field_decimal(text: str, what: str, where: Location) -> Decimal:
    """A label or score field as an exact decimal (``ndcg.input.number``)."""
    try:
        return parse_decimal(text)
    except BeyondLimits as error:
        raise InputError(f"{what} {text!r} {error}", where) from None
    except NdcgSpecError:
        raise InputError(f"{what} {text!r} is not a finite decimal number", where) from None


def spec_label(text: str, where: Location) -> Decimal:
    """A label as ``ndcg.input.number`` reads it: the exact decimal written ("1e3" is 1000)."""
    return field_decimal(text, "label", where)


def read_qrels(
    path: str | Path | Source, label: Callable[[str, Location], Decimal] = spec_label
) -> dict[str, dict[str, Judgment]]:
    """TREC qrels: four fields a line, each label read by `label` from its text and
    location; a document judged twice for a query is an error
    (``ndcg.input.duplicate-judgment``)."""
    qrels: dict[str, dict[str, Judgment]] = {}
    for where, fields in read_lines(path):
        qid, _, docid, text = _fields(fields, QRELS_LAYOUT, "qrels", where)
        add_judgment(qrels, qid, docid, Judgment(label(text, where), where))
    return qrels


def run_tag(path: str | Path | Source) -> str:
    """The runid trec_eval prints and names a run by: the tag (sixth field) of the run's last
    line that holds one (trec_eval 10.0's get_trec_results.c), "" when none does. Found by
    scanning the bytes for the last lines, not by reading every line's fields again."""
    with opened(path) as source:
        stream = source.text()
        last: list[bytes] = []
        pending = b""
        while chunk := stream.read(_COPY_BYTES):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            last = (last + lines)[-_TAIL_LINES:]
        candidates = [*last, pending]
        name = source.name
    for line in reversed(candidates):
        fields = fields_of(line, Location(name))
        if len(fields) > RUN_TAG_FIELD:
            return fields[RUN_TAG_FIELD]
    return ""


def read_run(path: str | Path | Source, extra_fields: bool = False) -> dict[str, list[Posting]]:
    """A TREC run: six fields a line; the rank field is ignored, ranking is by score.
    Duplicates are kept: the ``duplicates`` axis decides what they mean. With `extra_fields`,
    text after the sixth field is not read, as trec_eval reads its own test runs."""
    run: dict[str, list[Posting]] = {}
    for where, fields in read_lines(path):
        qid, _, docid, _, score, _ = _fields(fields, RUN_LAYOUT, "run", where, extra_fields)
        run.setdefault(qid, []).append(Posting(docid, field_decimal(score, "score", where), where))
    return run
