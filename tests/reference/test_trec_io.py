"""The TREC readers (``ndcg.input``): exact decimals, gzip, a byte-order mark, the number
grammar, control characters, duplicate judgments, and a one-line InputError naming file and
line, the same from the plain readers and the fast engine."""

from __future__ import annotations

import gzip
import math
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from ndcgspec.engine.scoring import score_files, score_files_plain
from ndcgspec.engine.stream import score_files_fast
from ndcgspec.reference import Config, InputError, Location, NdcgSpecError
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.suite.load import inline_inputs

QRELS = "q1 0 a 2.50\n\nq1 0 b 0\nq2 0 c 1\n"
RUN = "q1 Q0 b 1 0.1 t\nq1 Q0 a 2 0.10 t\nq2 Q0 c 1 -3e2 t\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_qrels_labels_are_exact_decimals_by_query(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path, "qrels", QRELS))
    assert {q: {d: j.label for d, j in docs.items()} for q, docs in qrels.items()} == {
        "q1": {"a": Decimal("2.5"), "b": Decimal(0)},
        "q2": {"c": Decimal(1)},
    }
    # The blank line 2 still counts: the judgment of b stands on line 3.
    assert qrels["q1"]["b"].where == Location(str(tmp_path / "qrels"), 3)


def test_run_scores_are_exact_and_run_order_is_kept(tmp_path: Path) -> None:
    run = read_run(write(tmp_path, "run", RUN))
    assert [(p.docid, p.score) for p in run["q1"]] == [("b", Decimal("0.1")), ("a", Decimal("0.1"))]
    assert run["q2"][0].score == Decimal(-300)
    # Exact: 0.1 is one tenth, not the nearest binary double.
    assert run["q1"][0].score * 10 == 1


def test_run_keeps_duplicates_for_the_duplicates_axis(tmp_path: Path) -> None:
    run = read_run(write(tmp_path, "run", "q1 Q0 a 1 2 t\nq1 Q0 a 2 1 t\n"))
    assert [p.docid for p in run["q1"]] == ["a", "a"]


def test_text_after_the_run_tag_is_read_only_when_allowed(tmp_path: Path) -> None:
    path = write(tmp_path, "run", "q1 Q0 a 1 0.5 t note\n")
    with pytest.raises(InputError, match=r"run:1: malformed run line: expected 6 fields .*got 7"):
        read_run(path)
    assert [(p.docid, p.score) for p in read_run(path, extra_fields=True)["q1"]] == [
        ("a", Decimal("0.5"))
    ]
    short = write(tmp_path, "short", "q1 Q0 a 1 0.5\n")
    with pytest.raises(InputError, match=r"short:1: malformed run line: .*got 5"):
        read_run(short, extra_fields=True)


def test_gzip_files_read_like_plain_ones(tmp_path: Path) -> None:
    (tmp_path / "qrels.gz").write_bytes(gzip.compress(QRELS.encode()))
    # The magic bytes decide, not the name.
    (tmp_path / "run.txt").write_bytes(gzip.compress(RUN.encode()))
    plain_qrels = read_qrels(write(tmp_path, "qrels", QRELS))
    assert {q: {d: j.label for d, j in docs.items()} for q, docs in plain_qrels.items()} == {
        q: {d: j.label for d, j in docs.items()}
        for q, docs in read_qrels(tmp_path / "qrels.gz").items()
    }
    assert [(p.docid, p.score) for p in read_run(tmp_path / "run.txt")["q1"]] == [
        ("b", Decimal("0.1")),
        ("a", Decimal("0.1")),
    ]


BAD_QRELS = {
    "three fields": (b"q1 0 a 1\nq1 0 b\n", 2, "expected 4 fields"),
    "five fields": (b"q1 0 a 1 x\n", 1, "expected 4 fields"),
    "non-numeric label": (b"q1 0 a 1\nq1 0 b high\n", 2, "'high' is not a finite decimal"),
    "nan label": (b"q1 0 a NaN\n", 1, "'NaN' is not a finite decimal"),
    "infinite label": (b"q1 0 a -inf\n", 1, "'-inf' is not a finite decimal"),
    "judged twice": (b"q1 0 a 1\nq2 0 a 1\nq1 0 a 2\n", 3, "judged twice for query 'q1'"),
    "not utf-8": (b"q1 0 a 1\nq1 0 \xff 1\n", 2, "not valid UTF-8"),
}
BAD_RUNS = {
    "five fields": (b"q1 Q0 a 1 0.5\n", 1, "expected 6 fields"),
    "non-numeric score": (b"q1 Q0 a 1 0.5 t\nq1 Q0 b 2 x1 t\n", 2, "'x1' is not a finite decimal"),
    "infinite score": (b"q1 Q0 a 1 Infinity t\n", 1, "'Infinity' is not a finite decimal"),
    "nan score": (b"q1 Q0 a 1 nan t\n", 1, "'nan' is not a finite decimal"),
}


def _error_of(reader, path: Path) -> str:
    with pytest.raises(InputError) as caught:
        reader(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("reader", "data", "line", "fragment"),
    [pytest.param(read_qrels, *case, id=f"qrels {name}") for name, case in BAD_QRELS.items()]
    + [pytest.param(read_run, *case, id=f"run {name}") for name, case in BAD_RUNS.items()],
)
def test_bad_lines_name_file_and_line(
    tmp_path: Path, reader, data: bytes, line: int, fragment: str
) -> None:
    path = tmp_path / "input.txt"
    path.write_bytes(data)
    message = _error_of(reader, path)
    assert message.startswith(f"{path}:{line}: ")
    assert fragment in message


@pytest.mark.parametrize("text", ["", "\n  \n\t\n"], ids=["no bytes", "blank lines"])
@pytest.mark.parametrize("reader", [read_qrels, read_run])
def test_empty_file_is_an_error(tmp_path: Path, reader, text: str) -> None:
    path = write(tmp_path, "empty.txt", text)
    assert _error_of(reader, path) == f"{path}: file is empty"


def test_empty_gzip_is_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.gz"
    path.write_bytes(gzip.compress(b""))
    assert _error_of(read_qrels, path) == f"{path}: file is empty"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.txt"
    assert _error_of(read_run, path).startswith(f"{path}: cannot read")


def _damaged_gzip(kind: str) -> bytes:
    whole = gzip.compress(QRELS.encode() * 50)
    if kind == "truncated":
        return whole[: len(whole) // 2]
    if kind == "corrupt deflate data":
        return whole[:20] + b"\x00" * 40 + whole[60:]
    return b"\x1f\x8b" + b"not a gzip stream at all"


@pytest.mark.parametrize("kind", ["truncated", "corrupt deflate data", "bad header"])
def test_damaged_gzip_is_a_one_line_error_with_a_line(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "qrels.gz"
    path.write_bytes(_damaged_gzip(kind))
    message = _error_of(read_qrels, path)
    assert message.startswith(f"{path}:")
    line = message.removeprefix(f"{path}:").split(":", 1)[0]
    assert line.isdigit()
    assert "cannot read gzip data" in message


# ``ndcg.input``: the grammar every reader shares.

BOM = b"\xef\xbb\xbf"
BOM_QRELS = b"q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\n"
BOM_RUN = b"q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\n"


def _labels(qrels: dict) -> dict:
    return {q: {d: j.label for d, j in docs.items()} for q, docs in qrels.items()}


@pytest.mark.parametrize("pack", [bytes, gzip.compress], ids=["plain", "gzip"])
def test_a_byte_order_mark_is_not_part_of_the_first_query_id(tmp_path: Path, pack) -> None:
    (tmp_path / "qrels").write_bytes(pack(BOM + BOM_QRELS))
    (tmp_path / "run").write_bytes(pack(BOM + BOM_RUN))
    assert _labels(read_qrels(tmp_path / "qrels")) == {
        "q1": {"d1": Decimal(2), "d2": Decimal(0), "d3": Decimal(1)}
    }
    assert [p.docid for p in read_run(tmp_path / "run")["q1"]] == ["d1", "d2", "d3"]


@pytest.mark.parametrize("pack", [bytes, gzip.compress], ids=["plain", "gzip"])
@pytest.mark.parametrize("where", ["qrels", "run"])
def test_a_byte_order_mark_changes_no_score(tmp_path: Path, pack, where: str) -> None:
    """The issue's example: d1 (2), d2 (0), d3 (1) ranked in that order; by hand
    DCG = 2 + 1/log2(4) = 2.5 and IDCG = 2 + 1/log2(3). Both the fast engine and the plain
    reference, with the mark on either file, give the value of the files without it."""
    (tmp_path / "qrels").write_bytes(pack((BOM if where == "qrels" else b"") + BOM_QRELS))
    (tmp_path / "run").write_bytes(pack((BOM if where == "run" else b"") + BOM_RUN))
    (tmp_path / "qrels0").write_bytes(BOM_QRELS)
    (tmp_path / "run0").write_bytes(BOM_RUN)
    configs = [Config.default()]
    without = score_files_plain(configs, tmp_path / "qrels0", tmp_path / "run0")
    fast = score_files_fast(configs, tmp_path / "qrels", tmp_path / "run").results
    assert fast == without == score_files_plain(configs, tmp_path / "qrels", tmp_path / "run")
    # Each log2 and division in binary floating point is within an ulp: 16 ulp bound the sum.
    hand = 2.5 / (2 + 1 / math.log2(3))
    assert math.isclose(float(fast[0]["aggregate"]), hand, rel_tol=16 * 2.0**-52)


# Python's Decimal and float accept these; ndcg.input.number does not.
NOT_NUMBERS = ["1_0", "\u0662", "\uff12", "\U0001d7d0", "0x10", "1e", ".", "+-1", "Infinity"]


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_only_ascii_decimal_syntax_is_a_number(text: str) -> None:
    with pytest.raises(NdcgSpecError):
        parse_decimal(text)


@pytest.mark.parametrize("text", NOT_NUMBERS)
@pytest.mark.parametrize("field", ["label", "score"])
def test_a_label_or_score_outside_the_number_grammar_names_its_line(
    tmp_path: Path, text: str, field: str
) -> None:
    label, score = (text, "1") if field == "label" else ("1", text)
    qrels = write(tmp_path, "qrels", f"q1 0 a 1\nq1 0 b {label}\n")
    run = write(tmp_path, "run", f"q1 Q0 a 1 1 t\nq1 Q0 b 2 {score} t\n")
    with pytest.raises(InputError) as caught:
        score_files([Config.default()], qrels, run)
    assert str(caught.value).startswith(f"{qrels if field == 'label' else run}:2: {field} ")


@pytest.mark.parametrize(
    ("char", "code"),
    [
        ("\x00", "U+0000"),
        ("\x01", "U+0001"),
        ("\x1c", "U+001C"),
        ("\x7f", "U+007F"),
        ("\x85", "U+0085"),
    ],
)
def test_a_control_character_is_an_error_naming_its_line(
    tmp_path: Path, char: str, code: str
) -> None:
    qrels = write(tmp_path, "qrels", "q1 0 a 1\n")
    run = write(tmp_path, "run", f"q1 Q0 a 1 1 t\nq1 Q0 b{char}c 2 1 t\n")
    with pytest.raises(InputError) as caught:
        score_files([Config.default()], qrels, run)
    assert str(caught.value) == f"{run}:2: line holds the control character {code}"


def test_separators_are_ascii_white_space_only(tmp_path: Path) -> None:
    """Tab, vertical tab, form feed and CR separate fields (C's isspace, as trec_eval); a
    no-break or em space belongs to the document id."""
    run = read_run(write(tmp_path, "run", "q1\tQ0\x0ba\u00a0b\x0c1 1 t\r\nq1 Q0 a\u2003b 2 1 t\n"))
    assert [p.docid for p in run["q1"]] == ["a\u00a0b", "a\u2003b"]


DUPLICATE_JUDGMENTS = {
    "different labels": "q1 0 d1 2\nq1 0 d2 0\nq1 0 d1 0\n",
    "same label": "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 1\n",
}


@pytest.mark.parametrize("qrels", DUPLICATE_JUDGMENTS.values(), ids=DUPLICATE_JUDGMENTS.keys())
def test_a_document_judged_twice_is_the_same_error_on_every_path(
    tmp_path: Path, qrels: str
) -> None:
    """``ndcg.input.duplicate-judgment``: trec_eval 10.0 stops with 'duplicate docs' (status 4)
    whatever the labels; the plain reader, the fast engine, and the golden suite's inline
    rows all reject it, naming the second line and the first."""
    path = write(tmp_path, "qrels", qrels)
    run = write(tmp_path, "run", "q1 Q0 d1 1 1 t\n")
    expected = f"{path}:3: document 'd1' is judged twice for query 'q1' (first at {path}:1)"
    assert _error_of(read_qrels, path) == expected
    for score in (score_files, score_files_plain, score_files_fast):
        with pytest.raises(InputError) as caught:
            score([Config.default()], path, run)
        assert str(caught.value) == expected, score
    rows = [line.split()[::2] + line.split()[3:] for line in qrels.splitlines()]
    with pytest.raises(InputError, match=r"^qrels row 3: document 'd1' is judged twice"):
        inline_inputs([[q, d, label] for q, d, label in rows], [])


def test_document_ids_of_33_bytes_and_more(tmp_path: Path) -> None:
    """The issue's crash: a 33-byte id before a short one. By hand: d1 (2) at rank 1 alone,
    the 33-byte id (1) unretrieved: nDCG = 2 / (2 + 1/log2(3))."""
    long_id = "d" * 33
    qrels = write(tmp_path, "qrels", f"q1 0 {long_id} 1\nq1 0 d1 2\n")
    run = write(tmp_path, "run", "q1 Q0 d1 1 1 t\n")
    [fast] = score_files_fast([Config.default()], qrels, run).results
    assert [fast] == score_files_plain([Config.default()], qrels, run)
    hand = 2 / (2 + 1 / math.log2(3))
    assert math.isclose(float(fast["aggregate"]), hand, rel_tol=16 * 2.0**-52)


# Reading once: pipes, FIFOs, standard input. The run is far longer than a pipe's buffer, with
# the judged queries at its two ends: q1 relevant at rank 3 (DCG 1/log2(4) = 1/2) in the first
# lines, q2 relevant at rank 7 (1/log2(8) = 1/3) in the last; IDCG is 1, so the mean is 5/12.
SCRIPT = Path(sys.executable).parent / "ndcgspec"
LONG_QRELS = "q1 0 a 1\nq2 0 x 1\n"
LONG_RUN = (
    "q1 Q0 b 1 0.9 t\nq1 Q0 c 2 0.8 t\nq1 Q0 a 3 0.7 t\n"
    + "".join(f"filler{i} Q0 doc{i} 1 1 t\n" for i in range(20_000))
    + "".join(f"q2 Q0 u{i} {i} {10 - i} t\n" for i in range(1, 7))
    + "q2 Q0 x 7 1 t\n"
)
LONG_EXPECTED = (
    f"nDCG\tq1\t0.5{'0' * 39}\nnDCG\tq2\t0.3333333333333333333333333333333333333333\n"
    + ("nDCG\tall\t0.4166666666666666666666666666666666666667\n")
)


def _shell(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """`command` under bash in `folder`, with $NDCGSPEC the console script; a reader that
    waits for ever fails the test by its timeout."""
    if not SCRIPT.exists():
        pytest.skip(f"the ndcgspec console script is not installed next to {sys.executable}")
    return subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env={**os.environ, "NDCGSPEC": str(SCRIPT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


READ_ONCE = {
    "run on stdin as -": 'cat run | "$NDCGSPEC" score qrels - -q',
    "run on /dev/stdin": 'cat run | "$NDCGSPEC" score qrels /dev/stdin -q',
    "gzip run on stdin": 'gzip -c run | "$NDCGSPEC" score qrels - -q',
    "run by process substitution": '"$NDCGSPEC" score qrels <(cat run.gz | gzip -dc) -q',
    "qrels on stdin as -": '"$NDCGSPEC" score - run -q < qrels',
    "both through FIFOs": (
        'mkfifo qf rf; cat qrels > qf & cat run > rf & "$NDCGSPEC" score qf rf -q'
    ),
}


@pytest.mark.parametrize("command", READ_ONCE.values(), ids=READ_ONCE.keys())
def test_pipes_fifos_and_stdin_are_read_once_and_whole(tmp_path: Path, command: str) -> None:
    (tmp_path / "qrels").write_text(LONG_QRELS, encoding="utf-8")
    (tmp_path / "run").write_text(LONG_RUN, encoding="utf-8")
    (tmp_path / "run.gz").write_bytes(gzip.compress(LONG_RUN.encode()))
    done = _shell(command, tmp_path)
    # The 20,000 filler queries are read whole too: the note names the first five of them.
    note = (
        "ndcgspec: note: 20000 queries of the run not in the qrels ('filler0', 'filler1', "
        "'filler2', 'filler3', 'filler4', ...): no aggregate scores them "
        "(ndcg.definition.inputs)\n"
    )
    assert (done.returncode, done.stderr, done.stdout) == (0, note, LONG_EXPECTED)


def test_stdin_for_both_inputs_is_an_error(tmp_path: Path) -> None:
    done = _shell('"$NDCGSPEC" score - - < /dev/null', tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "ndcgspec: error: standard input ('-') can be only one of the qrels and the runs\n"
    )


def test_an_error_on_stdin_names_it_and_the_line(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text(LONG_QRELS, encoding="utf-8")
    done = _shell(
        'printf "q1 Q0 a 1 1 t\\nq1 Q0 b 2 1_0 t\\n" | "$NDCGSPEC" score qrels -', tmp_path
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "ndcgspec: error: <stdin>:2: score '1_0' is not a finite decimal number\n"
    )
