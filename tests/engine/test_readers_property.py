"""The readers under hostile bytes (``ndcg.input``): whatever the qrels and run hold, scoring
gives the plain reference's values on every digit, or one line naming the file (and the line,
for a problem of a line) — never a traceback. The same error comes from the fast engine's
path and from the plain reference alone."""

from __future__ import annotations

import gzip
import re
import tempfile
from pathlib import Path

from conftest import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ndcgspec.engine.scoring import score_files, score_files_plain
from ndcgspec.reference import Config, NdcgSpecError

CONFIGS = [
    Config.from_mapping({"duplicates": "first"}),
    Config.from_mapping({"duplicates": "first", "unjudged": "condense", "cutoff": 3}),
]
QIDS = ["q1", "q2", "\u00e9"]
DOCIDS = ["d1", "d2", "d3", "D1", "a\u00a0b", "\u00e9", "x" * 40, "http://e.org/d/00000001"]
NUMBERS = ["0", "1", "2", "-1", "0.5", ".5", "1.", "+3", "1e1", "2E-1", "0.10", "007"]
NOT_NUMBERS = ["1_0", "\u0662", "\uff12", "\U0001d7d0", "nan", "-inf", "1e", "0x1", "--1"]
SEPARATORS = [" ", "\t", "  ", "\x0b", "\x0c", " \r"]
# Hypothesis draws the first value of a list most often.
RARELY = st.sampled_from([False] * 9 + [True])
# Bytes dropped anywhere: control characters (C0, DEL, C1), a BOM inside the text (a field
# character there), invalid UTF-8.
INTRUDERS = [b"\x00", b"\x01", b"\x1c", b"\x7f", "\u0085".encode(), b"\xef\xbb\xbf", b"\xff"]


def lines(fields: int, number_at: int) -> st.SearchStrategy[list[list[str]]]:
    """Rows of `fields` tokens: a query id, document ids, a number at `number_at`."""
    token = st.sampled_from(DOCIDS)
    number = st.sampled_from(NUMBERS)
    good = st.tuples(
        st.sampled_from(QIDS), *[number if i == number_at else token for i in range(1, fields)]
    ).map(list)
    return st.lists(good, min_size=1, max_size=8)


@st.composite
def trec_bytes(draw: st.DrawFn, fields: int, number_at: int) -> bytes:
    """A TREC file as bytes: separators of every kind, CRLF or LF, blank lines, perhaps a
    byte-order mark, perhaps an intruding byte somewhere, perhaps gzip-compressed."""
    rows = draw(lines(fields, number_at))
    if draw(RARELY):
        rows[draw(st.integers(0, len(rows) - 1))][number_at] = draw(st.sampled_from(NOT_NUMBERS))
    if draw(RARELY):
        # A row of too few or too many fields.
        odd = st.lists(st.sampled_from(DOCIDS), min_size=1, max_size=fields + 1)
        rows[draw(st.integers(0, len(rows) - 1))] = draw(odd)
    if number_at == 4:
        # A run's second field; a qrels's second field is any token.
        rows = [[r[0], "Q0", *r[2:]] if len(r) == fields else r for r in rows]
    if draw(st.booleans()):
        # A blank line, or one of separators only.
        rows.insert(draw(st.integers(0, len(rows))), ["", ""])
    end = draw(st.sampled_from(["\n", "\r\n"]))
    text = "".join(draw(st.sampled_from(SEPARATORS)).join(r) + end for r in rows)
    data = text.encode("utf-8")
    if draw(RARELY):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from(INTRUDERS)) + data[at:]
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return gzip.compress(data) if draw(st.booleans()) else data


def _outcome(score, qrels: Path, run: Path) -> tuple[str, object]:
    try:
        return "values", score(CONFIGS, qrels, run)
    except NdcgSpecError as error:
        return "error", str(error)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=trec_bytes(4, 3), run=trec_bytes(6, 4))
def test_hostile_bytes_give_the_reference_value_or_one_line(qrels: bytes, run: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = Path(folder) / "qrels", Path(folder) / "run"
        qrels_path.write_bytes(qrels)
        run_path.write_bytes(run)
        got = _outcome(score_files, qrels_path, run_path)
        assert got == _outcome(score_files_plain, qrels_path, run_path)
    kind, value = got
    event(kind)
    if kind == "error":
        message = str(value)
        assert "\n" not in message
        where = re.match(
            rf"({re.escape(str(qrels_path))}|{re.escape(str(run_path))})(:\d+)?: ", message
        )
        assert where, message
        # Only a whole-file problem has no line.
        assert where[2] or message.endswith(": file is empty"), message
