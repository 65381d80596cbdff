"""``ndcgspec compare`` against values derived by hand on a tiny example.

One query; grades x = 2, y = 1, z = 1; n is not judged. Three runs:
    A = [n, x]   DCG linear 2/log2(3) = 1.2619,  exponential 3/log2(3) = 1.8928
    B = [y, z]   DCG linear 1 + 1/log2(3) = 1.6309, exponential the same (2^1 − 1 = 1)
    C = [x]      DCG linear 2,                   exponential 3
Within a convention every run shares the IDCG of the query, so the order is the DCG order:
linear C > B > A, exponential C > A > B. Pairs (C, A) and (C, B) agree, (A, B) is reversed,
so Kendall's tau = (2 − 1) / 3 = 1/3, and the one flip is A/B with query q moving all of it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from install_hints import needing

from ndcgspec.commands.cli import main

LINEAR, EXPONENTIAL = "nDCG", "nDCG(gain=exponential)"
CLI = "import sys; from ndcgspec.commands.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "qrels").write_text("q 0 x 2\nq 0 y 1\nq 0 z 1\n", encoding="utf-8")
    runs = {"A": [("n", 2), ("x", 1)], "B": [("y", 2), ("z", 1)], "C": [("x", 1)]}
    paths = []
    for name, postings in runs.items():
        path = tmp_path / name
        path.write_text(
            "".join(f"q Q0 {d} {i} {s} {name}\n" for i, (d, s) in enumerate(postings, 1)),
            encoding="utf-8",
        )
        paths.append(str(path))
    return ["--qrels", str(tmp_path / "qrels"), *paths]


def compared(capsys, files: list[str], *extra: str) -> dict:
    status = main(["compare", *files, "-m", LINEAR, "-m", EXPONENTIAL, "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def test_scores_ranks_tau_and_flip_by_hand(capsys, files) -> None:
    data = compared(capsys, files)
    log2_3 = math.log2(3)
    idcg_linear = 2 + 1 / log2_3 + 1 / 2
    idcg_exp = 3 + 1 / log2_3 + 1 / 2
    expected = {
        "A": {LINEAR: 2 / log2_3 / idcg_linear, EXPONENTIAL: 3 / log2_3 / idcg_exp},
        "B": {LINEAR: (1 + 1 / log2_3) / idcg_linear, EXPONENTIAL: (1 + 1 / log2_3) / idcg_exp},
        "C": {LINEAR: 2 / idcg_linear, EXPONENTIAL: 3 / idcg_exp},
    }
    for run, by_convention in expected.items():
        for convention, value in by_convention.items():
            assert float(data["scores"][run][convention]) == pytest.approx(value, rel=1e-12)
    assert data["ranks"][LINEAR] == {"C": 1, "B": 2, "A": 3}
    assert data["ranks"][EXPONENTIAL] == {"C": 1, "A": 2, "B": 3}
    assert data["kendall_tau"][LINEAR][EXPONENTIAL] == pytest.approx(1 / 3)
    assert data["kendall_tau"][LINEAR][LINEAR] == 1
    assert data["reversed_pairs"][LINEAR][EXPONENTIAL] == 1
    [flip] = data["flips"]
    # B is above A under the first convention (linear), below it under exponential.
    assert (flip["a"], flip["b"]) == ("B", "A")
    assert (flip["a_above_b_under"], flip["a_below_b_under"]) == (LINEAR, EXPONENTIAL)
    [moved] = flip["contributions"]
    b_minus_a_linear = (1 + 1 / log2_3 - 2 / log2_3) / idcg_linear
    b_minus_a_exp = (1 + 1 / log2_3 - 3 / log2_3) / idcg_exp
    assert moved["query"] == "q"
    assert float(moved["moves"]) == pytest.approx(b_minus_a_exp - b_minus_a_linear, rel=1e-12)
    # Per query, the spread over the conventions, largest first: C moves 2/IDCG_lin to
    # 3/IDCG_exp, A 1.2619/IDCG_lin to 1.8928/IDCG_exp, B (the same DCG) only by the IDCG.
    spreads = {row["run"]: float(row["spread"]) for row in data["queries"]}
    assert spreads == pytest.approx(
        {run: abs(v[EXPONENTIAL] - v[LINEAR]) for run, v in expected.items()}, rel=1e-12
    )
    assert [row["run"] for row in data["queries"]] == sorted(
        expected, key=lambda run: -abs(expected[run][EXPONENTIAL] - expected[run][LINEAR])
    )


@needing("matplotlib", "figures")
def test_figures_and_page(capsys, files, tmp_path) -> None:
    out = tmp_path / "page"
    compared(capsys, files, "--out", str(out))
    for name in ("compare-ranks.png", "compare-tau.png", "compare-verdicts.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / "compare.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 3
    assert 'src="http' not in page and "<script" not in page
    assert json.loads((out / "compare.json").read_text())["runs"] == ["A", "B", "C"]


def test_text_report_names_the_flip(capsys, files) -> None:
    assert main(["compare", *files, "-m", LINEAR, "-m", EXPONENTIAL]) == 0
    out = capsys.readouterr().out
    assert f"B above A under {LINEAR}, below it under {EXPONENTIAL}" in out


def test_one_run_is_an_error(capsys, files) -> None:
    assert main(["compare", *files[:3]]) == 2
    assert capsys.readouterr().err.strip() == "ndcgspec: error: compare needs at least two runs"


def test_notes_name_each_run_lacking_queries_and_a_run_sharing_none_is_an_error(
    capsys, files, tmp_path
) -> None:
    # D lists q (shared) and r (not in the qrels); E lists only r.
    d, e = tmp_path / "D", tmp_path / "E"
    d.write_text("q Q0 x 1 2 D\nr Q0 x 1 2 D\n", encoding="utf-8")
    e.write_text("r Q0 x 1 2 E\n", encoding="utf-8")
    qrels = files[1]
    both = ["-m", LINEAR, "-m", EXPONENTIAL]
    assert main(["compare", "--qrels", qrels, files[2], str(d), *both]) == 0
    err = capsys.readouterr().err
    assert err == (
        "ndcgspec: note: 1 query of the run D not in the qrels ('r'): no aggregate scores "
        "them (ndcg.definition.inputs)\n"
    )
    assert main(["compare", "--qrels", qrels, files[2], str(e), *both]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"ndcgspec: error: the run E and the qrels {qrels} share no query (the run's: 'r'; "
        "the qrels': 'q'): nothing to score\n"
    )


def test_a_run_on_standard_input_is_read_once(files) -> None:
    # The digest of provenance is that of the bytes piped, computed here with hashlib, and
    # judged@k reads the same bytes: A = [n, x], judged@2 = 1/2 (n is not judged).
    data = Path(files[2]).read_bytes()
    argv = ["compare", "--qrels", files[1], "-", *files[3:], "--name", "A", "--name", "B"]
    argv += ["--name", "C", "-m", LINEAR, "-m", EXPONENTIAL, "--cutoff", "2", "--judged"]
    done = subprocess.run(
        [sys.executable, "-c", CLI, *argv, "--format", "json"],
        input=data,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    piped = report["provenance"]["inputs"]["runs"][0]
    assert (piped["path"], piped["sha256"]) == ("<stdin>", hashlib.sha256(data).hexdigest())
    assert Decimal(report["judged"]["A"]["judged@2"]) == Decimal(1) / 2


def test_qrels_on_standard_input_are_read_once(files) -> None:
    # The qrels piped: their digest is that of the bytes, and judged@k reads the same bytes
    # (A = [n, x]: judged@2 = 1/2, n not judged), where a second reading found them empty.
    data = Path(files[1]).read_bytes()
    argv = ["compare", "--qrels", "-", *files[2:], "--name", "A", "--name", "B", "--name", "C"]
    argv += ["-m", LINEAR, "-m", EXPONENTIAL, "--cutoff", "2", "--judged", "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-c", CLI, *argv], input=data, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    piped = report["provenance"]["inputs"]["qrels"]
    assert (piped["path"], piped["sha256"]) == ("<stdin>", hashlib.sha256(data).hexdigest())
    assert Decimal(report["judged"]["A"]["judged@2"]) == Decimal(1) / 2


def test_pairs_no_test_can_take_are_said_to_be_untested(capsys, files) -> None:
    # The one query q is all the runs share: a paired test needs two.
    data = compared(capsys, files)
    assert data["tests"] == []
    assert {(u["a"], u["b"], u["shared"]) for u in data["untested"]} == {
        ("A", "B", 1),
        ("A", "C", 1),
        ("B", "C", 1),
    }
    assert main(["compare", *files, "-m", LINEAR, "-m", EXPONENTIAL]) == 0
    out = capsys.readouterr().out
    assert (
        f"  not tested: A vs B under {LINEAR}: 1 shared queries with a value, a paired test "
        "needs two or more" in out.splitlines()
    )


def test_runs_go_by_their_tag_and_by_file_where_a_tag_repeats(capsys, tmp_path: Path) -> None:
    # trec_eval names a run by the tag of its last line (runid): "bm25" for the first file
    # whatever its file is called; the second repeats it, so it goes by its file name, less
    # the TREC "input." prefix and ".gz".
    (tmp_path / "qrels").write_text("q 0 x 1\nq 0 y 1\n", encoding="utf-8")
    first = tmp_path / "input.first.judged-only"
    first.write_text("q Q0 x 1 2 bm25\nq Q0 y 2 1 bm25\n", encoding="utf-8")
    second = tmp_path / "input.second.gz"
    second.write_bytes(gzip.compress(b"q Q0 y 1 2 bm25\nq Q0 n 2 1 bm25\n"))
    data = compared(capsys, ["--qrels", str(tmp_path / "qrels"), str(first), str(second)])
    assert data["runs"] == ["bm25", "second"]


def test_names_go_comma_separated_or_repeated(capsys, files) -> None:
    assert compared(capsys, files, "--name", "a,b", "--name", "c")["runs"] == ["a", "b", "c"]
    assert main(["compare", *files, "--name", "a,b"]) == 2
    assert "2 names for 3 runs: give one per run, in order" in capsys.readouterr().err


# Seven cutoffs at or beyond the three judged documents rank as linear nDCG does (the same
# DCG and IDCG): 9 conventions, 36 pairs, of which the 8 with exponential gain have tau 1/3.
NINE = [LINEAR, EXPONENTIAL, *(f"nDCG@{k}" for k in (5, 10, 20, 30, 50, 100, 1000))]


def test_many_conventions_in_full_print_the_pairs_that_agree_least_not_the_whole_tau_table(
    capsys, files
) -> None:
    measures = [word for m in NINE for word in ("-m", m)]
    assert main(["compare", *files, *measures, "--full"]) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("Kendall's tau-b between conventions (reversed pairs of runs)")
    assert out[at + 1] == (
        "  8 of 36 pairs of the 9 conventions below 1; the lowest 8 (--tau-table prints the "
        "whole table):"
    )
    assert all(
        line.startswith("  0.33 (1)  ") and EXPONENTIAL in line for line in out[at + 2 : at + 10]
    )
    assert out[at + 10] == ""
    assert main(["compare", *files, *measures, "--tau-table"]) == 0
    table = capsys.readouterr().out.splitlines()
    at = table.index("Kendall's tau-b between conventions (reversed pairs of runs)")
    section = table[at + 1 : table.index("Pairs of runs whose order flips: 1")]
    # The 9 columns are cut into blocks of at most 100 characters, each repeating the names of
    # the rows: a header line (its first cell blank) and the 9 rows in each block.
    assert max(map(len, section)) <= 100
    headers = [line.split() for line in section if line.startswith("   ")]
    assert len(headers) > 1 and [name for header in headers for name in header] == NINE
    rows = [line.split() for line in section if line.startswith("  ") and line[2] != " "]
    assert len(rows) == 9 * len(headers)
    cells = {name: [cell for row in rows if row[0] == name for cell in row[1:]] for name in NINE}
    # tau-b 1/3 between exponential gain and every other convention (1 pair reversed), 1 else.
    for a in NINE:
        expected = ["1.00 (0)" if a == b or EXPONENTIAL not in (a, b) else "0.33 (1)" for b in NINE]
        assert " ".join(cells[a]) == " ".join(expected)
