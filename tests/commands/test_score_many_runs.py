"""Many runs in one call: ``ndcgspec score QRELS RUN...`` and ``ndcgspec.score_runs``.

Each run prints what its own call prints, in the order given, and the Python call gives what
``ndcgspec.score`` gives run by run. The values are derived by hand: with one relevant
document (label 1) at rank r and the default log2 discount, DCG = 1/log2(r + 1) and IDCG = 1,
so ranks 1, 3 and 7 give exactly 1, 1/2 and 1/3; a qrels query missing from the run scores 0
in the default mean over the qrels queries (``ndcg.aggregate.qrels``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest

import ndcgspec
from ndcgspec.commands.cli import main

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 x 1\n"
RUNS = {
    # q1: a at rank 1 (1); q2: x at rank 3 (1/2).
    "first": "q1 Q0 a 1 3 bm25\nq2 Q0 u 1 3 bm25\nq2 Q0 v 2 2 bm25\nq2 Q0 x 3 1 bm25\n",
    # q1: a at rank 3 (1/2); q2: x at rank 7, below six unjudged documents (1/3).
    "second": "q1 Q0 b 1 3 dense\nq1 Q0 c 2 2 dense\nq1 Q0 a 3 1 dense\n"
    + "".join(f"q2 Q0 u{i} {i} {10 - i} dense\n" for i in range(1, 7))
    + "q2 Q0 x 7 1 dense\n",
    # q1 alone, a at rank 1 (1); q2 missing (0).
    "third": "q1 Q0 a 1 1 rerank\n",
}
TAGS = {"first": "bm25", "second": "dense", "third": "rerank"}
CLI = "import sys; from ndcgspec.commands.cli import main; sys.exit(main(sys.argv[1:]))"
MEANS = {
    "first": Fraction(3, 4),
    "second": Fraction(5, 12),
    "third": Fraction(1, 2),
}


def rounded(value: Fraction) -> Decimal:
    """`value` to the spec's 40 significant digits."""
    with localcontext(prec=40):
        return Decimal(value.numerator) / Decimal(value.denominator)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, list[str]]:
    (tmp_path / "qrels").write_text(QRELS, encoding="utf-8")
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return str(tmp_path / "qrels"), [str(tmp_path / name) for name in RUNS]


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["score", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_each_run_prints_its_own_values_in_order(capsys, files) -> None:
    qrels, runs = files
    status, out, _ = score(capsys, qrels, *runs)
    assert status == 0
    lines = [line.split("\t") for line in out.splitlines()]
    # Each line names its run by the run's tag, as trec_eval names a run (its runid).
    assert [(t, m, q) for t, m, q, _ in lines] == [(TAGS[n], "nDCG", "all") for n in RUNS]
    assert [Decimal(v) for *_, v in lines] == [rounded(MEANS[name]) for name in RUNS]


@pytest.mark.parametrize(
    "flags",
    [
        ["-m", "nDCG", "-m", "nDCG@2", "-q"],
        ["--judged", "-m", "nDCG@2", "--digits", "4"],
        ["--ci", "0.9", "--seed", "7", "-m", "nDCG@10"],
    ],
    ids=["text", "judged", "ci"],
)
def test_the_batch_prints_what_one_call_per_run_prints_each_line_named(
    capsys, files, flags
) -> None:
    qrels, runs = files
    batch = score(capsys, *flags, qrels, *runs)
    calls = [score(capsys, *flags, qrels, run) for run in runs]
    assert batch[0] == 0 and all(status == 0 for status, _, _ in calls)
    named = [
        f"{TAGS[n]}\t{line}"
        for n, (_, out, _) in zip(RUNS, calls, strict=True)
        for line in out.splitlines()
    ]
    assert batch[1].splitlines() == named


def test_json_lines_of_a_batch_name_each_run(capsys, files) -> None:
    qrels, runs = files
    flags = ["--format", "json", "-m", "nDCG@10", "-m", "judged@10"]
    batch = score(capsys, *flags, qrels, *runs)
    calls = [score(capsys, *flags, qrels, run) for run in runs]
    assert batch[0] == 0 and all(status == 0 for status, _, _ in calls)
    objects = [json.loads(line) for line in batch[1].splitlines()]
    alone = [json.loads(line) for _, out, _ in calls for line in out.splitlines()]
    assert [o.pop("run") for o in objects] == [TAGS[n] for n in RUNS for _ in range(2)]
    assert objects == alone


def test_runs_of_one_tag_are_named_by_their_files_after_the_first(capsys, files, tmp_path) -> None:
    qrels, runs = files
    again = tmp_path / "again"
    again.write_text(RUNS["first"], encoding="utf-8")
    status, out, _ = score(capsys, qrels, runs[0], str(again))
    assert status == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == ["bm25", str(again)]


def test_json_provenance_names_each_run(capsys, files) -> None:
    qrels, runs = files
    status, out, _ = score(capsys, "--format", "json", qrels, *runs)
    assert status == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert [o["provenance"]["inputs"]["run"]["path"] for o in objects] == runs
    assert [Decimal(o["aggregate"]) for o in objects] == [rounded(m) for m in MEANS.values()]


def test_the_note_on_missing_queries_names_the_run(capsys, files) -> None:
    qrels, runs = files
    status, _, err = score(capsys, qrels, *runs)
    assert status == 0
    assert err.startswith(f"ndcgspec: note: 1 of 2 qrels queries are not in the run {runs[2]} ")
    assert err.count("\n") == 1


def test_an_error_in_a_later_run_stops_after_the_runs_before_it(capsys, files, tmp_path) -> None:
    qrels, runs = files
    broken = tmp_path / "broken"
    broken.write_text("q1 Q0 a 1 1 t\nq1 Q0 b 2 x t\n", encoding="utf-8")
    status, out, err = score(capsys, qrels, runs[0], str(broken), runs[1])
    assert status == 2
    named = [(line.split("\t")[0], Decimal(line.split("\t")[3])) for line in out.splitlines()]
    assert named == [("bm25", rounded(MEANS["first"]))]
    assert err.startswith(f"ndcgspec: error: {broken}:2: ") and err.count("\n") == 1


def test_one_run_from_standard_input(files) -> None:
    qrels, runs = files
    done = subprocess.run(
        [sys.executable, "-c", CLI, "score", qrels, runs[0], "-", runs[1]],
        input=RUNS["third"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    values = [(ln.split("\t")[0], Decimal(ln.split("\t")[3])) for ln in done.stdout.splitlines()]
    order = ("first", "third", "second")
    assert values == [(TAGS[name], rounded(MEANS[name])) for name in order]
    assert "not in the run <stdin>" in done.stderr


def test_standard_input_as_qrels_and_a_run_is_one_line(capsys, files) -> None:
    _, runs = files
    status, out, err = score(capsys, "-", runs[0], "-")
    assert (status, out) == (2, "")
    assert (
        err == "ndcgspec: error: standard input ('-') can be only one of the qrels and the runs\n"
    )


def test_score_runs_gives_score_of_each_run(files) -> None:
    qrels, runs = files
    measures = ["nDCG", "ndcg_cut.2"]
    together = ndcgspec.score_runs(qrels, runs, measures)
    assert together == [ndcgspec.score(qrels, run, measures) for run in runs]
    assert [r["nDCG"].aggregate for r in together] == [rounded(m) for m in MEANS.values()]


def test_score_runs_of_dicts_beside_a_file(files) -> None:
    qrels, runs = files
    as_dict = {"q1": {"a": 1.0}}
    together = ndcgspec.score_runs(qrels, [runs[0], as_dict], "nDCG")
    assert [r["nDCG"].aggregate for r in together] == [
        rounded(MEANS["first"]),
        rounded(MEANS["third"]),
    ]


def test_score_runs_raises_the_first_bad_runs_error(files, tmp_path) -> None:
    qrels, runs = files
    broken = tmp_path / "broken"
    broken.write_text("q1 Q0 a 1 1\n", encoding="utf-8")
    with pytest.raises(ndcgspec.ScoreError) as raised:
        ndcgspec.score_runs(qrels, [runs[0], broken], "nDCG")
    assert (raised.value.file, raised.value.line) == (str(broken), 1)


@pytest.mark.parametrize("runs", ["run.txt", {"q1": {"a": 1.0}}])
def test_score_runs_wants_a_list_of_runs(runs) -> None:
    with pytest.raises(TypeError, match="runs must be a list of runs"):
        ndcgspec.score_runs({"q1": {"a": 1}}, runs)


def test_a_run_is_named_by_the_tag_of_its_last_line_as_trec_eval_names_it(
    capsys, files, tmp_path
) -> None:
    # trec_eval 10.0 keeps the tag of the last line it reads (get_trec_results.c); a blank
    # line after it holds no tag.
    mixed = tmp_path / "mixed"
    mixed.write_text("q1 Q0 a 1 3 early\nq2 Q0 x 1 2 late\n\n", encoding="utf-8")
    qrels, runs = files
    status, out, _ = score(capsys, qrels, runs[0], str(mixed))
    assert status == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == ["bm25", "late"]
