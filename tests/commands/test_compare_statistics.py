"""The paired tests of ``compare`` on seven queries worked by hand.

Each query q1..q7 judges one document x (grade 1). Run A ranks [n, x], run B [m, o, x] (n, m, o
unjudged). Under nDCG@3, A scores 1/log2(3) and B 1/log2(4) = 1/2 on every query, so the seven
differences are all d = 1/log2(3) − 1/2 > 0: of the 2^7 sign vectors only +…+ and −…− reach
|T| = 7d, and p = 2/128 = 1/64. Under nDCG@1 both score 0 and p = 1. By default each convention
is its own family, of one pair here, so Holm leaves 1/64 and 1; with --family all, Holm over the
two tests gives 1/64·2 = 1/32, then max(1/32, 1·1) = 1. Either way, at α = 0.05 the pair is
significant under nDCG@3 only, so its verdict changes with the convention. The t-test sees
seven equal differences (s² = 0): p = 0 under nDCG@3, and 1 under nDCG@1 where they are all 0.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from install_hints import needing

from ndcgspec.commands.cli import main

QUERIES = [f"q{i}" for i in range(1, 8)]
AT1, AT3 = "nDCG@1", "nDCG@3"


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "qrels").write_text("".join(f"{q} 0 x 1\n" for q in QUERIES), encoding="utf-8")
    runs = {"A": ["n", "x"], "B": ["m", "o", "x"]}
    paths = []
    for name, docs in runs.items():
        lines = [f"{q} Q0 {d} {r} {10 - r} {name}\n" for q in QUERIES for r, d in enumerate(docs)]
        (tmp_path / name).write_text("".join(lines), encoding="utf-8")
        paths.append(str(tmp_path / name))
    return ["--qrels", str(tmp_path / "qrels"), *paths, "-m", AT1, "-m", AT3]


def compared(capsys, files: list[str], *extra: str) -> tuple[int, str]:
    status = main(["compare", *files, *extra])
    out, err = capsys.readouterr()
    assert status == 0, err
    return status, out


def test_the_tests_of_the_data_contract_by_hand(capsys, files) -> None:
    data = json.loads(compared(capsys, files, "--format", "json")[1])
    rows = {(r["measure"], r["test"]): r for r in data["tests"]}
    assert len(data["tests"]) == 4
    for row in data["tests"]:
        assert {"a", "b", "measure", "test", "p", "p_adjusted", "correction", "n"} <= set(row)
        assert (row["a"], row["b"], row["n"], row["correction"]) == ("A", "B", 7, "holm")
        assert isinstance(row["mean_difference"], str)
    d = 1 / math.log2(3) - 0.5
    assert float(rows[AT3, "randomization"]["mean_difference"]) == pytest.approx(d, rel=1e-14)
    assert rows[AT1, "randomization"]["mean_difference"] == "0"
    assert rows[AT3, "randomization"]["p"] == 1 / 64
    assert rows[AT3, "randomization"]["exact"] is True
    assert rows[AT1, "randomization"]["p"] == 1
    assert rows[AT3, "randomization"]["p_adjusted"] == 1 / 64
    assert rows[AT1, "randomization"]["p_adjusted"] == 1
    assert (rows[AT3, "t"]["p"], rows[AT1, "t"]["p"]) == (0, 1)
    for row in data["tests"]:
        assert (row["family"], row["family_size"]) == (row["measure"], 1)
        # Enumerated and t-test p-values are exact: their intervals are points, decided.
        assert row["p_interval"] == [row["p"], row["p"]] and row["decided"] is True


def test_one_family_over_every_convention(capsys, files) -> None:
    data = json.loads(compared(capsys, files, "--format", "json", "--family", "all")[1])
    rows = {(r["measure"], r["test"]): r for r in data["tests"]}
    assert rows[AT3, "randomization"]["p_adjusted"] == 1 / 32
    assert rows[AT1, "randomization"]["p_adjusted"] == 1
    assert {(r["family"], r["family_size"]) for r in data["tests"]} == {("all", 2)}
    assert data["test_settings"]["family"] == "all"
    text = compared(capsys, files, "--family", "all", "--full")[1]
    assert "holm over all 2 pairs and conventions, per test" in text
    assert f"{AT3}: A better (p 0.01562, adjusted 0.03125)" in text


def test_the_verdict_that_changes_with_the_convention(capsys, files) -> None:
    data = json.loads(compared(capsys, files, "--format", "json")[1])
    [change] = data["verdict_changes"]
    assert (change["a"], change["b"], change["test"]) == ("A", "B", "randomization")
    assert change["verdicts"][AT3]["verdict"] == "a"
    assert change["verdicts"][AT1]["verdict"] == "none"
    summary = compared(capsys, files)[1]
    assert "holm over the 1 pairs of each convention, per test" in summary
    rows = [line.split() for line in summary.splitlines()]
    # The summary's table of the changes: not significant under nDCG@1, A better under nDCG@3.
    at = rows.index(["pair", AT1, AT3])
    assert rows[at + 1] == ["A", "vs", "B", "-", "A"]
    # Each convention against nDCG@1: tau-b is undefined (nDCG@1 ties A and B), no pair is
    # reversed; of the one pair, none is significant under nDCG@1 and one under nDCG@3, whose
    # verdict so differs from nDCG@1's.
    at = rows.index(["convention", "tau-b", "reversed", "significant", "changed"])
    assert rows[at + 1 : at + 3] == [
        [AT1, "n/a", "0", "of", "1", "0", "of", "1", "0"],
        [AT3, "n/a", "0", "of", "1", "1", "of", "1", "1"],
    ]
    full = compared(capsys, files, "--full")[1]
    assert "Pairs whose verdict changes with the convention" in full
    assert f"{AT3}: A better (p 0.01562, adjusted 0.01562)" in full
    assert "holm over the 1 pairs of each convention, per test" in full


def test_bonferroni_none_and_a_smaller_alpha_change_the_verdicts(capsys, files) -> None:
    data = json.loads(compared(capsys, files, "--format", "json", "--correction", "none")[1])
    rows = {(r["measure"], r["test"]): r for r in data["tests"]}
    assert rows[AT3, "randomization"]["p_adjusted"] == 1 / 64
    strict = json.loads(compared(capsys, files, "--format", "json", "--alpha", "0.01")[1])
    assert strict["verdict_changes"] == []


def test_one_sided_alternative(capsys, files) -> None:
    data = json.loads(compared(capsys, files, "--format", "json", "--alternative", "less")[1])
    rows = {(r["measure"], r["test"]): r for r in data["tests"]}
    # T ≤ 7d holds for every vector: p = 1.
    assert rows[AT3, "randomization"]["p"] == 1


def test_intervals_of_the_mean_difference(capsys, files) -> None:
    data = json.loads(compared(capsys, files, "--format", "json", "--ci", "0.9")[1])
    by_measure = {i["measure"]: i for i in data["intervals"]}
    # Every resample of seven equal differences has their mean.
    ci = by_measure[AT3]["ci"]
    assert ci["low"] == ci["high"] == by_measure[AT3]["mean_difference"]
    assert (ci["level"], ci["resamples"], ci["seed"]) == ("0.9", 2000, 0)


def test_provenance_names_every_input_and_convention(capsys, files) -> None:
    import hashlib

    data = json.loads(compared(capsys, files, "--format", "json")[1])
    provenance = data["provenance"]
    qrels = Path(files[1])
    assert provenance["inputs"]["qrels"]["sha256"] == hashlib.sha256(qrels.read_bytes()).hexdigest()
    assert provenance["inputs"]["qrels"]["lines"] == 7
    assert [r["lines"] for r in provenance["inputs"]["runs"]] == [14, 21]
    assert [c["canonical"] for c in provenance["configurations"]] == [AT1, AT3]
    assert set(provenance["versions"]) == {"ndcgspec", "spec"}


def test_judged_at_each_cutoff(capsys, files) -> None:
    # A's top 1 is n (unjudged) and its top 3 [n, x]: 0 and 1/3; B's [m] and [m, o, x].
    data = json.loads(compared(capsys, files, "--format", "json", "--judged")[1])
    assert float(data["judged"]["A"]["judged@1"]) == 0
    assert float(data["judged"]["A"]["judged@3"]) == pytest.approx(1 / 3, rel=1e-15)
    assert float(data["judged"]["B"]["judged@3"]) == pytest.approx(1 / 3, rel=1e-15)


def test_markdown_table_bold_best_and_marks(capsys, files) -> None:
    table = compared(capsys, files, "--format", "markdown")[1]
    # Under nDCG@3 A (the baseline) is best and B significantly worse (‡); under nDCG@1
    # both score 0, so both are bold.
    assert f"| A | **0.0000** | **{1 / math.log2(3):.4f}** |" in table
    assert "| B | **0.0000** | 0.5000‡ |" in table
    assert "Holm correction over the pairs of runs under each convention" in table
    assert "alpha = 0.05" in table


def test_latex_table_carries_the_canonical_strings(capsys, files) -> None:
    table = compared(capsys, files, "--format", "latex")[1]
    assert r"\toprule" in table and r"\bottomrule" in table
    assert r"\texttt{nDCG@3}" in table and "fingerprint" in table
    assert r"0.5000$^{\ddagger}$" in table


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_latex_table_compiles(capsys, files, tmp_path: Path) -> None:
    table = compared(capsys, files, "--format", "latex")[1]
    document = tmp_path / "table.tex"
    document.write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        f"{table}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", document.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "table.pdf").is_file()


@needing("matplotlib", "figures")
def test_out_writes_the_verdict_matrix_and_section(capsys, files, tmp_path: Path) -> None:
    out = tmp_path / "out"
    compared(capsys, files, "--out", str(out))
    assert (out / "compare-verdicts.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / "compare.html").read_text(encoding="utf-8")
    assert "Does significance survive the convention?" in page
    assert "Pairs whose verdict changes with the convention: 1" in page


def test_too_few_draws_are_refused(capsys, files) -> None:
    assert main(["compare", *files, "--draws", "100"]) == 2
    assert "at least 10000" in capsys.readouterr().err


def test_a_family_gets_the_draws_that_let_it_reach_alpha(capsys, tmp_path: Path) -> None:
    # 25 queries (above the enumeration's 20), each judging x alone: A ranks [n, x], B
    # [m, o, x], C [x]. Under nDCG@3 A, B and C score 1/log2(3), 1/2 and 1 on every query, under
    # nDCG@1 0, 0 and 1: five pairs whose 25 differences are all equal and non-zero (the exact
    # p-value is 2/2^25), and A − B under nDCG@1, all zero (p = 1). With --family all and
    # α = 1/10000, six tests: (N + 1) ≥ 6 / α gives 59999 draws (not the 10000 asked). No drawn
    # vector of seed 0 is all + or all −, so each of the five p-values is 1/(N + 1) and Holm
    # makes them 6/(N + 1) ≤ α; but the high end of their 0.99 Wilson interval,
    # 6·z²/(N + z²) with z² = 6.634896601021214, exceeds α until N = 479992 (59999 doubled
    # three times: 8.29e-5; at 239996, 1.66e-4), so they are drawn on to 479992.
    queries = [f"q{i}" for i in range(25)]
    (tmp_path / "qrels").write_text("".join(f"{q} 0 x 1\n" for q in queries), encoding="utf-8")
    paths = []
    for name, docs in {"A": ["n", "x"], "B": ["m", "o", "x"], "C": ["x"]}.items():
        lines = [f"{q} Q0 {d} {r} {10 - r} {name}\n" for q in queries for r, d in enumerate(docs)]
        (tmp_path / name).write_text("".join(lines), encoding="utf-8")
        paths.append(str(tmp_path / name))
    args = ["--qrels", str(tmp_path / "qrels"), *paths, "-m", AT1, "-m", AT3]
    flags = ["--family", "all", "--alpha", "0.0001", "--format", "json"]
    data = json.loads(compared(capsys, args, *flags)[1])
    drawn = {
        (r["a"], r["b"], r["measure"]): r for r in data["tests"] if r["test"] == "randomization"
    }
    assert drawn["A", "B", AT1]["p"] == 1 and drawn["A", "B", AT1]["verdict"] == "none"
    assert drawn["A", "B", AT1]["total"] == 60_000
    del drawn["A", "B", AT1]
    for row in drawn.values():
        assert (row["total"], row["count"], row["decided"]) == (479_993, 1, True)
        assert row["p_adjusted"] == pytest.approx(6 / 479_993, rel=1e-15)
    assert drawn["A", "B", AT3]["verdict"] == "a"
    assert {r["verdict"] for k, r in drawn.items() if k[:2] != ("A", "B")} == {"b"}


@pytest.mark.parametrize(
    ("words", "flag", "value", "said"),
    [
        (["compare", "--qrels", "q", "a", "b"], "--seed", "-1", "a seed is a whole number, 0 or"),
        (["compare", "--qrels", "q", "a", "b"], "--draws", "10" * 5, "a whole number from 1 to"),
        (["compare", "--qrels", "q", "a", "b"], "--max-draws", "10" * 6, "a whole number from"),
        (["compare", "--qrels", "q", "a", "b"], "--bootstrap", "10" * 5, "a whole number from"),
        (["score", "q", "r", "--ci", "0.9"], "--seed", "-1", "a seed is a whole number, 0 or"),
        (["score", "q", "r", "--ci", "0.9"], "--bootstrap", "10" * 5, "a whole number from 1"),
        (["diff", "--qrels", "q", "a", "b"], "--max-draws", "10" * 6, "a whole number from"),
    ],
)
def test_seeds_and_counts_out_of_range_are_refused_before_anything_runs(
    capsys, words: list[str], flag: str, value: str, said: str
) -> None:
    # A negative seed was numpy's traceback; a billion draws or resamples asked numpy for
    # 7-37 GiB. The files named do not exist: the refusal comes first.
    with pytest.raises(SystemExit) as stopped:
        main([*words, flag, value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: '{value}': {said}" in err and "Traceback" not in err
