"""``ndcgspec diff`` on six queries worked by hand.

Each query judges x (grade 1). The baseline ranks x first on every query (nDCG 1). The worse
candidate ranks it second everywhere (nDCG 1/log2 3): six differences −c, c = 1 − 1/log2 3, so
the one-sided sign-flip test (less) has T ≤ −6c only for +…+: p = 1/64 ≤ 0.05, a fail. The
candidate that is worse on q1 only has differences (−c, 0, …, 0): T ≤ −c for the 32 vectors
keeping s1 = +, p = 1/2, not significant; its mean drops by c/6 ≈ 0.0615, so it fails a budget
of 0.05 and passes one of 0.1.
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ndcgspec.commands.cli import main

QUERIES = [f"q{i}" for i in range(1, 7)]
CLI = "import sys; from ndcgspec.commands.cli import main; sys.exit(main(sys.argv[1:]))"
C = 1 - 1 / math.log2(3)


def write_run(path: Path, second_on: set[str]) -> str:
    lines = []
    for q in QUERIES:
        docs = ["n", "x"] if q in second_on else ["x", "n"]
        lines += [f"{q} Q0 {d} {r} {9 - r} run\n" for r, d in enumerate(docs)]
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, str]:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 x 1\n" for q in QUERIES), encoding="utf-8")
    return {
        "qrels": str(qrels),
        "baseline": write_run(tmp_path / "baseline", set()),
        "copy": write_run(tmp_path / "copy", set()),
        "worse": write_run(tmp_path / "worse", set(QUERIES)),
        "one": write_run(tmp_path / "one", {"q1"}),
    }


def diffed(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["diff", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_worse_candidate_fails_and_a_copy_passes(capsys, runs) -> None:
    status, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["worse"], "--format", "json"
    )
    report = json.loads(out)
    assert (status, report["verdict"]) == (1, "fail")
    assert report["test"]["p"] == 1 / 64
    assert float(report["mean_difference"]) == pytest.approx(-C, rel=1e-14)
    assert [r["query"] for r in report["regressed"]] == QUERIES
    status, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["copy"], "--format", "json"
    )
    assert (status, json.loads(out)["verdict"]) == (0, "pass")


def test_the_drop_budget(capsys, runs) -> None:
    base = ["--qrels", runs["qrels"], runs["baseline"], runs["one"], "--format", "json"]
    status, out, _ = diffed(capsys, *base, "--max-drop", "0.05")
    report = json.loads(out)
    assert report["test"]["p"] == 1 / 2
    assert (status, report["verdict"]) == (1, "fail")
    assert report["reasons"] == [f"the mean drops by {C / 6:.4f}, more than 0.05"]
    assert diffed(capsys, *base, "--max-drop", "0.1")[0] == 0


def score_file(capsys, runs, run: str, measure: str, path: Path) -> str:
    assert main(["score", runs["qrels"], runs[run], "-m", measure, "--format", "json"]) == 0
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return str(path)


def test_score_files_are_compared_and_mismatches_refused(capsys, runs, tmp_path) -> None:
    base = score_file(capsys, runs, "baseline", "nDCG@10", tmp_path / "base.json")
    worse = score_file(capsys, runs, "worse", "nDCG@10", tmp_path / "worse.json")
    other = score_file(capsys, runs, "worse", "nDCG(gain=exponential)@5", tmp_path / "o.json")
    assert diffed(capsys, base, worse)[0] == 1
    assert diffed(capsys, base, base)[0] == 0
    status, out, err = diffed(capsys, base, other)
    assert (status, out) == (2, "")
    assert "refused" in err and "different configurations" in err
    # A copy of the baseline's file with one query less: the same mean over the queries left,
    # so only the lost query fails it, named; --allow-missing lets it pass, still named.
    line = json.loads(Path(base).read_text(encoding="utf-8"))
    del line["per_query"]["q6"]
    fewer = tmp_path / "fewer.json"
    fewer.write_text(json.dumps(line) + "\n", encoding="utf-8")
    status, out, _ = diffed(capsys, base, str(fewer))
    assert status == 1
    assert "  fails: the candidate lacks 1 query of the others ('q6')" in out.splitlines()
    status, out, _ = diffed(capsys, base, str(fewer), "--allow-missing")
    assert status == 0
    assert "  allowed: the candidate lacks 1 query of the others ('q6')" in out.splitlines()


def test_a_broken_score_file_is_one_line_naming_file_and_line(capsys, runs, tmp_path) -> None:
    base = score_file(capsys, runs, "baseline", "nDCG@10", tmp_path / "base.json")
    broken = tmp_path / "broken.json"
    broken.write_text("\n{not json\n", encoding="utf-8")
    status, _, err = diffed(capsys, base, str(broken))
    assert status == 2
    assert err.startswith(f"ndcgspec: error: {broken}:2: not a result")
    assert len(err.splitlines()) == 1


def test_markdown_and_junit(capsys, runs) -> None:
    args = ["--qrels", runs["qrels"], runs["baseline"], runs["worse"]]
    status, out, _ = diffed(capsys, *args, "--format", "markdown")
    assert status == 1 and out.startswith("### ndcgspec diff: ❌ fail")
    assert "| q1 | 1.0000 |" in out
    status, out, _ = diffed(capsys, *args, "--format", "junit")
    suite = ET.fromstring(out)
    assert (suite.tag, suite.get("failures"), suite.get("tests")) == ("testsuite", "1", "1")
    assert suite.find("testcase/failure") is not None
    _, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["copy"], "--format", "junit"
    )
    assert ET.fromstring(out).get("failures") == "0"


def test_text_lists_the_most_regressed_queries(capsys, runs) -> None:
    status, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["one"], "--top", "3"
    )
    assert status == 0
    assert out.startswith("PASS: ")
    assert f"    q1: 1.0000 -> {1 / math.log2(3):.4f} ({-C:+.4f})" in out


def without(path: str, query: str, to: Path) -> str:
    """The run at `path` without the lines of `query`."""
    lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    to.write_text("".join(line for line in lines if not line.startswith(f"{query} ")))
    return str(to)


@pytest.mark.parametrize("aggregate", ["run", "qrels"])
def test_a_candidate_that_lost_a_query_fails_under_every_aggregate(
    capsys, runs, tmp_path, aggregate
) -> None:
    # The candidate worse on q1 loses q1. Under aggregate=run its five queries all score 1,
    # as the baseline's do: the same mean, no difference to test. Under aggregate=qrels q1
    # scores 0: one difference -1 among six, p = 1/2 (the 32 vectors keeping its sign), and no
    # budget. Neither is significantly worse; only the lost query fails it.
    lost = without(runs["one"], "q1", tmp_path / "lost")
    measure = f"nDCG(aggregate={aggregate})@10"
    args = ["--qrels", runs["qrels"], runs["baseline"], lost, "-m", measure, "--format", "json"]
    status, out, _ = diffed(capsys, *args)
    report = json.loads(out)
    assert (status, report["verdict"]) == (1, "fail")
    assert report["reasons"] == ["the candidate lacks 1 query of the others ('q1')"]
    assert report["missing"] == {"qrels": [], "baseline": [], "candidate": ["q1"]}
    assert report["n"] == (5 if aggregate == "run" else 6)
    status, out, _ = diffed(capsys, *args, "--allow-missing")
    report = json.loads(out)
    assert (status, report["verdict"], report["reasons"]) == (0, "pass", [])
    assert report["missing"]["candidate"] == ["q1"]


def test_a_baseline_or_qrels_lacking_a_query_fails_naming_it(capsys, runs, tmp_path) -> None:
    lost = without(runs["baseline"], "q2", tmp_path / "lost")
    status, out, _ = diffed(capsys, "--qrels", runs["qrels"], lost, runs["copy"])
    assert status == 1
    assert "  fails: the baseline lacks 1 query of the others ('q2')" in out.splitlines()
    # Both runs retrieve for q9, which the qrels do not judge.
    extra = "q9 Q0 x 1 9 run\n"
    base, copy = (tmp_path / "base9", tmp_path / "copy9")
    for made, source in ((base, runs["baseline"]), (copy, runs["copy"])):
        made.write_text(Path(source).read_text(encoding="utf-8") + extra, encoding="utf-8")
    status, out, _ = diffed(capsys, "--qrels", runs["qrels"], str(base), str(copy))
    assert status == 1
    assert "  fails: the qrels lacks 1 query of the others ('q9')" in out.splitlines()


@pytest.mark.parametrize("piped", ["qrels", "baseline", "candidate"])
def test_an_input_on_standard_input_is_read_once(runs, piped) -> None:
    # The digest of provenance is that of the bytes piped, computed here with hashlib.
    paths = {"qrels": runs["qrels"], "baseline": runs["baseline"], "candidate": runs["worse"]}
    data = Path(paths[piped]).read_bytes()
    paths[piped] = "-"
    argv = ["diff", "--qrels", paths["qrels"], paths["baseline"], paths["candidate"]]
    done = subprocess.run(
        [sys.executable, "-c", CLI, *argv, "--format", "json"],
        input=data,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["test"]["p"] == 1 / 64
    digest = report["provenance"]["inputs"][piped]
    assert digest["sha256"] == hashlib.sha256(data).hexdigest()
    assert digest["lines"] == data.count(b"\n")


def test_standard_input_twice_is_one_line(capsys, runs) -> None:
    status, out, err = diffed(capsys, "--qrels", "-", "-", runs["worse"])
    assert (status, out) == (2, "")
    assert err == (
        "ndcgspec: error: standard input ('-') can be only one input, not the qrels and "
        "the baseline\n"
    )


def test_top_refuses_a_negative_count(capsys, runs) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["diff", "--qrels", runs["qrels"], runs["baseline"], runs["one"], "--top", "-1"])
    assert stopped.value.code == 2
    assert "'-1': a whole number, 0 or more" in capsys.readouterr().err


def test_the_help_speaks_of_the_baseline_and_the_candidate(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["diff", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "less: the candidate worse than the baseline" in text
    assert "greater: the candidate better than the baseline" in text
    assert "candidate - baseline" in text and "paired sign-flip test" in text
    assert "adjusted" not in text and "first run of a pair" not in text


def test_a_p_value_near_alpha_is_drawn_on_until_decided(capsys, tmp_path) -> None:
    # 25 queries, the candidate worse on each by the same c: of the 2^25 sign vectors only
    # the identity gives T <= the observed sum, so the exact p is 2^-25, far below alpha =
    # 1e-4. Drawn, no vector is that extreme (2^-25 per draw), and the p-value's 0.99 Wilson
    # interval from 0 of N draws reaches z^2 / (N + z^2), z = 2.5758, z^2 = 6.6349: above 1e-4
    # at 10000, 20000 and 40000 draws (1.66e-4 at 40000), below at 80000 (8.29e-5). So the
    # gate draws on, doubling, to 80000 and fails the candidate; at 10000 draws alone the
    # p-value 1/10001 would exceed alpha and pass it.
    queries = [f"q{i}" for i in range(25)]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 x 1\n" for q in queries), encoding="utf-8")
    runs = {}
    for name, order in (("baseline", ["x", "n"]), ("candidate", ["n", "x"])):
        lines = [f"{q} Q0 {d} {r} {9 - r} t\n" for q in queries for r, d in enumerate(order)]
        (tmp_path / name).write_text("".join(lines), encoding="utf-8")
        runs[name] = str(tmp_path / name)
    args = ["--qrels", str(qrels), runs["baseline"], runs["candidate"], "--alpha", "0.0001"]
    status, out, _ = diffed(capsys, *args, "--format", "json")
    report = json.loads(out)
    assert (status, report["verdict"]) == (1, "fail")
    assert report["test"]["draws"] == 80000
    assert report["test"]["p"] == 1 / 80001
    assert report["test"]["decided"] and report["test"]["p_interval"][1] < 1e-4


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda o: o["per_query"]["q1"].update(ndcg="NaN"), "query 'q1' 'ndcg': not a decimal"),
        (lambda o: o.update(aggregate="Infinity"), "'aggregate': not a decimal number"),
        # Read as a decimal, 10^999999 would cost the exact mean a million-digit integer.
        (lambda o: o["per_query"]["q2"].update(dcg="1e999999"), "query 'q2' 'dcg': lies outside"),
        (
            lambda o: o["per_query"]["q3"].update(ndcg=True),
            "a decimal string or null wanted, not tr",
        ),
        (
            lambda o: o["per_query"]["q3"].update(ndcg=0.5),
            "a decimal string or null wanted, not a n",
        ),
        (lambda o: o["per_query"]["q4"].pop("idcg"), "query 'q4' 'idcg': a decimal string or null"),
        (lambda o: o.update(per_query=[1]), "'per_query': an object wanted, not a list"),
        (lambda o: o.update(fingerprint=7), "'fingerprint': a string wanted, not a number"),
    ],
)
def test_a_score_file_value_is_checked_before_any_arithmetic(
    capsys, runs, tmp_path, edit, said
) -> None:
    base = score_file(capsys, runs, "baseline", "nDCG@10", tmp_path / "base.json")
    found = json.loads(Path(base).read_text(encoding="utf-8"))
    edit(found)
    bad = tmp_path / "bad.json"
    bad.write_text("\n" + json.dumps(found) + "\n", encoding="utf-8")
    status, out, err = diffed(capsys, base, str(bad))
    # Status 2 (an error), never 1: a CI gate must not read a broken file as a regression.
    assert (status, out) == (2, "")
    assert err.startswith(f"ndcgspec: error: {bad}:2: not a result of 'score --format json' (")
    assert said in err and err.count("\n") == 1


@pytest.mark.parametrize("line", ["[1, 2]", "3", '"x"', "null"])
def test_a_score_file_line_that_is_no_object_is_one_line(capsys, runs, tmp_path, line) -> None:
    base = score_file(capsys, runs, "baseline", "nDCG@10", tmp_path / "base.json")
    bad = tmp_path / "bad.json"
    bad.write_text(line + "\n", encoding="utf-8")
    status, _, err = diffed(capsys, base, str(bad))
    assert status == 2
    assert err.startswith(f"ndcgspec: error: {bad}:1: not a result") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--seed", "-1", "a seed is a whole number, 0 or more"),
        ("--draws", "1000000000", "a whole number from 1 to 100000000"),
        ("--bootstrap", "1000000000", "a whole number from 1 to 100000000"),
    ],
)
def test_statistics_flags_out_of_range_are_refused(capsys, runs, flag, value, said) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["diff", "--qrels", runs["qrels"], runs["baseline"], runs["one"], flag, value])
    assert stopped.value.code == 2
    assert f"argument {flag}: '{value}': {said}" in capsys.readouterr().err


def test_one_shared_query_is_one_line_saying_why(capsys, runs, tmp_path) -> None:
    # The qrels judge q1 alone: one difference, which no sign-flip test can take.
    qrels = tmp_path / "one-query"
    qrels.write_text("q1 0 x 1\n", encoding="utf-8")
    status, out, err = diffed(capsys, "--qrels", str(qrels), runs["baseline"], runs["worse"])
    assert (status, out) == (2, "")
    assert err.endswith(
        "ndcgspec: error: the runs share 1 scored queries; the test needs two or more\n"
    )
