"""Reading TREC qrels (``qid iter docid label``) and runs (``qid Q0 docid rank score tag``).

gzip is recognised by its magic bytes. Labels and scores are read as exact decimals
(``ndcg.precision``). Every problem is an InputError naming the file and line.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import InputError, NdcgSpecError
from ndcgspec.reference.inputs import Judgment, Posting

GZIP_MAGIC = b"\x1f\x8b"


def read_lines(path: str | Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, whitespace-separated fields) of every non-blank line of a text file,
    gunzipped when it starts with the gzip magic; an empty file is an error."""
    path = Path(path)
    compressed, number = False, 0
    try:
        with path.open("rb") as probe:
            compressed = probe.read(2) == GZIP_MAGIC
        opener = gzip.open if compressed else open
        with opener(path, "rb") as stream:
            seen = False
            for number, raw in enumerate(stream, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise InputError("line is not valid UTF-8", f"{path}:{number}") from None
                fields = text.split()
                if fields:
                    seen = True
                    yield number, fields
    except (OSError, EOFError, zlib.error) as error:
        # A damaged gzip stream fails part-way: name the line being read when it failed.
        where = f"{path}:{number + 1}" if compressed else str(path)
        what = "cannot read gzip data" if compressed else "cannot read"
        raise InputError(f"{what}: {getattr(error, 'strerror', None) or error}", where) from None
    if not seen:
        raise InputError("file is empty", str(path))


QRELS_LAYOUT = "qid iter docid label"
RUN_LAYOUT = "qid Q0 docid rank score tag"


def _fields(
    fields: list[str], layout: str, kind: str, where: str, extra: bool = False
) -> list[str]:
    """The fields of a line laid out as `layout`; a line with too few (or, unless `extra`
    fields are allowed, too many) is malformed."""
    count = len(layout.split())
    if len(fields) < count or (len(fields) > count and not extra):
        raise InputError(
            f"malformed {kind} line: expected {count} fields '{layout}', got {len(fields)}", where
        )
    return fields[:count]


def _decimal_field(text: str, what: str, where: str) -> Decimal:
    try:
        return parse_decimal(text)
    except NdcgSpecError:
        raise InputError(f"{what} {text!r} is not a finite decimal number", where) from None


def read_qrels(path: str | Path) -> dict[str, dict[str, Judgment]]:
    """TREC qrels: four fields a line; a document judged twice for a query is an error."""
    qrels: dict[str, dict[str, Judgment]] = {}
    for number, fields in read_lines(path):
        where = f"{path}:{number}"
        qid, _, docid, label = _fields(fields, QRELS_LAYOUT, "qrels", where)
        judged = qrels.setdefault(qid, {})
        if docid in judged:
            raise InputError(
                f"document {docid!r} is judged twice for query {qid!r} "
                f"(first at line {judged[docid].where.rsplit(':', 1)[1]})",
                where,
            )
        judged[docid] = Judgment(_decimal_field(label, "label", where), where)
    return qrels


def read_run(path: str | Path, extra_fields: bool = False) -> dict[str, list[Posting]]:
    """A TREC run: six fields a line; the rank field is ignored, ranking is by score.
    Duplicates are kept: the ``duplicates`` axis decides what they mean. With `extra_fields`,
    text after the sixth field is not read, as trec_eval reads its own test runs."""
    run: dict[str, list[Posting]] = {}
    for number, fields in read_lines(path):
        where = f"{path}:{number}"
        qid, _, docid, _, score, _ = _fields(fields, RUN_LAYOUT, "run", where, extra_fields)
        run.setdefault(qid, []).append(Posting(docid, _decimal_field(score, "score", where), where))
    return run
