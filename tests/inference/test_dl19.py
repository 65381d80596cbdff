"""Acceptance on the seven official DL19 passage runs (43 queries) of the shared data, at
``trec_eval@10``, ``nDCG(gain=exponential)@10`` and ``nDCG(ideal=retrieved)@10``: every pair's
sign-flip p-value (Monte Carlo, seed 0) and t-test p-value equal scipy's on the float views,
Holm's adjustment recomputed here, the verdicts that change printed, ``diff`` failing a
candidate made worse and passing a copy, and the LaTeX table compiling."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

from ndcgspec.commands.cli import main
from ndcgspec.commands.compare import compare, conventions_of
from ndcgspec.commands.significance import query_values

pytestmark = pytest.mark.slow
MEASURES = ["trec_eval@10", "nDCG(gain=exponential)@10", "nDCG(ideal=retrieved)@10"]
DL19 = Path("dl19-passage")


@pytest.fixture(scope="module")
def dl19(shared_data: Path) -> tuple[str, list[str]]:
    folder = shared_data / DL19
    runs = sorted(str(p) for p in (folder / "official-runs").glob("input.*.gz"))
    if len(runs) != 7:
        pytest.skip(f"the seven DL19 runs are not all in {folder / 'official-runs'}")
    return str(folder / "qrels.dl19-passage.txt"), runs


def compared_json(capsys, dl19, *extra: str) -> dict:
    qrels, runs = dl19
    args = ["compare", "--qrels", qrels, *runs, *(p for m in MEASURES for p in ("-m", m))]
    assert main([*args, "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.skipif(find_spec("scipy") is None, reason="scipy (the oracle) is not installed")
def test_every_pair_agrees_with_scipy_and_holm_is_right(capsys, dl19) -> None:
    from scipy import stats

    data = compared_json(capsys, dl19)
    qrels, runs = dl19
    comparison = compare(qrels, runs, conventions_of(MEASURES, None))
    values = {
        (m, r): query_values(comparison.results[m][r]) for m in MEASURES for r in comparison.runs
    }
    tests = data["tests"]
    assert len(tests) == 2 * 21 * 3
    for row in tests:
        a, b = values[row["measure"], row["a"]], values[row["measure"], row["b"]]
        assert row["n"] == len(a) == 43
        fa = np.array([float(a[q]) for q in a])
        fb = np.array([float(b[q]) for q in a])
        if row["test"] == "t":
            expected = stats.ttest_rel(fa, fb).pvalue
        else:
            expected = stats.permutation_test(
                (fa - fb,),
                lambda x, axis: np.abs(np.mean(x, axis=axis)),
                permutation_type="samples",
                n_resamples=10_000,
                alternative="greater",
                rng=np.random.default_rng(0),
            ).pvalue
        assert row["p"] == pytest.approx(expected, rel=1e-12), row
    for test in ("randomization", "t"):
        family = [row for row in tests if row["test"] == test]
        ordered = sorted(family, key=lambda row: row["p"])
        running = 0.0
        for rank, row in enumerate(ordered):
            running = max(running, min(1.0, (len(family) - rank) * row["p"]))
            assert row["p_adjusted"] == pytest.approx(running, rel=1e-12)


def test_the_verdicts_that_change_are_printed(capsys, dl19) -> None:
    qrels, runs = dl19
    args = ["compare", "--qrels", qrels, *runs, *(p for m in MEASURES for p in ("-m", m))]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Pairs whose verdict changes with the convention (randomization test" in out
    data = compared_json(capsys, dl19)
    assert data["verdict_changes"]
    for change in data["verdict_changes"]:
        assert f"  {change['a']} vs {change['b']}" in out


def worse_run(qrels_path: str, run_path: str, out: Path) -> tuple[Path, int]:
    """The run with, in half of its queries, two relevant documents of different grades in
    its top 10 swapped (the better one moved down); how many queries changed."""
    grades: dict[str, dict[str, int]] = {}
    for line in Path(qrels_path).read_text(encoding="utf-8").splitlines():
        q, _, d, g = line.split()
        grades.setdefault(q, {})[d] = int(g)
    rows = [
        line.split() for line in gzip.decompress(Path(run_path).read_bytes()).decode().splitlines()
    ]
    by_query: dict[str, list[list[str]]] = {}
    for row in rows:
        by_query.setdefault(row[0], []).append(row)
    changed, wanted = 0, len(by_query) // 2
    for q, postings in by_query.items():
        top = sorted(postings, key=lambda r: (-float(r[4]), r[2]))[:10]
        judged = [r for r in top if grades.get(q, {}).get(r[2], 0) > 0]
        pair = next(
            (
                (x, y)
                for i, x in enumerate(judged)
                for y in judged[i + 1 :]
                if grades[q][x[2]] > grades[q][y[2]]
            ),
            None,
        )
        if pair and changed < wanted:
            x, y = pair
            x[4], y[4] = y[4], x[4]
            changed += 1
    out.write_text("".join(" ".join(r) + "\n" for r in rows), encoding="utf-8")
    return out, changed


def test_diff_fails_a_worse_candidate_passes_a_copy_and_refuses_mismatches(
    capsys, dl19, tmp_path
) -> None:
    qrels, runs = dl19
    baseline = next(r for r in runs if "bm25base_p" in r)
    worse, changed = worse_run(qrels, baseline, tmp_path / "worse")
    assert changed >= 15
    copy = tmp_path / "copy"
    copy.write_bytes(gzip.decompress(Path(baseline).read_bytes()))
    assert main(["diff", "--qrels", qrels, baseline, str(worse), "-m", "trec_eval@10"]) == 1
    assert main(["diff", "--qrels", qrels, baseline, str(copy), "-m", "trec_eval@10"]) == 0
    capsys.readouterr()
    files = []
    for measure in ("trec_eval@10", "nDCG(gain=exponential)@10"):
        assert main(["score", qrels, baseline, "-m", measure, "--format", "json"]) == 0
        files.append(tmp_path / f"{len(files)}.json")
        files[-1].write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["diff", str(files[0]), str(files[1])]) == 2
    assert "different configurations" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_latex_table_compiles_with_the_canonical_strings(capsys, dl19, tmp_path) -> None:
    qrels, runs = dl19
    args = ["compare", "--qrels", qrels, *runs, *(p for m in MEASURES for p in ("-m", m))]
    assert main([*args, "--format", "latex"]) == 0
    table = capsys.readouterr().out
    assert r"\texttt{nDCG(negative=unjudged,fractional=truncate,aggregate=run)@10}" in table
    (tmp_path / "t.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        f"{table}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
