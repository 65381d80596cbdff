"""``score --ci``, judged@k and the provenance of every JSON result, against values worked by
hand and digests taken by the test itself."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
from pathlib import Path

import pytest

from ndcgspec.commands.cli import main

QRELS = "q1 0 x 1\nq1 0 y 1\nq2 0 x 1\n"
# q1: [x, n, y]; q2: [n, m]. judged@2: q1 1/2 (x), q2 0, mean 1/4; judged@3: q1 2/3 (x, y),
# q2 0 (two documents only: 0 of 3), mean 1/3.
RUN = "q1 Q0 x 1 3 r\nq1 Q0 n 2 2 r\nq1 Q0 y 3 1 r\nq2 Q0 n 1 2 r\nq2 Q0 m 2 1 r\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run.gz").write_bytes(gzip.compress(RUN.encode()))
    return str(tmp_path / "qrels"), str(tmp_path / "run.gz")


def scored(capsys, *args: str) -> str:
    status = main(["score", *args])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_judged_at_k_by_hand(capsys, files) -> None:
    out = scored(capsys, *files, "-m", "judged@2", "-m", "judged@3", "-q", "--digits", "4")
    assert out.splitlines() == [
        "judged@2\tq1\t0.5000",
        "judged@2\tq2\t0.0000",
        "judged@2\tall\t0.2500",
        "judged@3\tq1\t0.6667",
        "judged@3\tq2\t0.0000",
        "judged@3\tall\t0.3333",
    ]


def test_judged_beside_each_measure_with_a_cutoff(capsys, files) -> None:
    out = scored(capsys, *files, "-m", "nDCG@2", "--judged", "--digits", "2")
    assert out.splitlines()[-1] == "judged@2\tall\t0.25"


def test_provenance_of_the_decompressed_bytes(capsys, files) -> None:
    [line] = scored(capsys, *files, "-m", "nDCG@2", "--format", "json").splitlines()
    provenance = json.loads(line)["provenance"]
    run = provenance["inputs"]["run"]
    assert run["sha256"] == hashlib.sha256(RUN.encode()).hexdigest()
    assert run["lines"] == 5
    assert provenance["inputs"]["qrels"]["sha256"] == hashlib.sha256(QRELS.encode()).hexdigest()
    [config] = provenance["configurations"]
    assert (
        config["canonical"] == "nDCG@2" and config["fingerprint"] == json.loads(line)["fingerprint"]
    )


def test_standard_input_is_digested_too(capsys, files) -> None:
    # The qrels file on descriptor 0: score reads "-" from there (`trec_io.opened`).
    saved = os.dup(0)
    os.dup2(os.open(files[0], os.O_RDONLY), 0)
    try:
        [line] = scored(capsys, "-", files[1], "--format", "json").splitlines()
    finally:
        os.dup2(saved, 0)
        os.close(saved)
    qrels = json.loads(line)["provenance"]["inputs"]["qrels"]
    assert qrels["path"] == "<stdin>"
    assert qrels["sha256"] == hashlib.sha256(QRELS.encode()).hexdigest()


def test_ci_of_the_mean(capsys, files) -> None:
    # nDCG@3: q1 [x, n, y] = (1 + 1/2) / (1 + 1/log2 3), q2 0. Every resample of two values
    # has the mean of one of (q1, q1), (q1, q2), (q2, q2): the interval lies within [0, q1].
    [line] = scored(capsys, *files, "-m", "nDCG@3", "--format", "json", "--ci", "0.5").splitlines()
    result = json.loads(line)
    q1 = 1.5 / (1 + 1 / math.log2(3))
    ci = result["ci"]
    assert (ci["level"], ci["method"], ci["resamples"], ci["seed"]) == (
        "0.5",
        "percentile",
        2000,
        0,
    )
    slack = 1e-12
    assert 0 <= float(ci["low"]) <= q1 / 2 + slack
    assert q1 / 2 - slack <= float(ci["high"]) <= q1 + slack
    text = scored(capsys, *files, "-m", "nDCG@3", "--ci", "0.5", "--digits", "6").splitlines()
    assert [t.split("\t")[1] for t in text] == ["all", "ci_low", "ci_high"]
    assert float(text[1].split("\t")[2]) == pytest.approx(float(ci["low"]), abs=1e-6)


def test_explain_cite_names_the_inputs_of_a_result(capsys, files, tmp_path) -> None:
    result = tmp_path / "result.json"
    result.write_text(scored(capsys, *files, "-m", "nDCG@2", "--format", "json"))
    aggregate = json.loads(result.read_text())["aggregate"]
    paragraph = " ".join(scored_explain(capsys, "nDCG@2", "--cite", "--result", str(result)))
    assert f"The mean, {aggregate}, was computed by ndcgspec" in paragraph
    assert hashlib.sha256(RUN.encode()).hexdigest() in paragraph.replace("\n", "")
    assert main(["explain", "nDCG@3", "--cite", "--result", str(result)]) == 2
    assert "holds no result with provenance of fingerprint" in capsys.readouterr().err


def scored_explain(capsys, *args: str) -> list[str]:
    assert main(["explain", *args]) == 0
    return capsys.readouterr().out.split()


def test_ci_method_bca_is_scipys_bca_of_the_per_query_values(capsys, tmp_path) -> None:
    stats = pytest.importorskip("scipy.stats", reason="scipy (the 'oracles' extra) is absent")
    import numpy as np

    # Query q_r ranks its one relevant document x at rank r: nDCG 1/log2(r + 1).
    ranks = [1, 1, 2, 5, 9, 3, 1, 7]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q{i} 0 x 1\n" for i in range(len(ranks))), encoding="utf-8")
    lines = []
    for i, r in enumerate(ranks):
        docs = [f"n{j}" for j in range(1, r)] + ["x"]
        lines += [f"q{i} Q0 {d} {k} {20 - k} t\n" for k, d in enumerate(docs, 1)]
    run.write_text("".join(lines), encoding="utf-8")
    args = [str(qrels), str(run), "--format", "json", "--ci", "0.9", "--seed", "4"]
    [line] = scored(capsys, *args, "--ci-method", "bca").splitlines()
    ci = json.loads(line)["ci"]
    values = np.array([1 / math.log2(r + 1) for r in ranks])
    theirs = stats.bootstrap(
        (values,),
        np.mean,
        confidence_level=0.9,
        n_resamples=2000,
        method="BCa",
        rng=np.random.default_rng(4),
    ).confidence_interval
    assert ci["method"] == "bca"
    # scipy's ends carry float64 error in the values (1e-16) and in its probabilities
    # (1e-15 times 1999 places between order statistics): far below 1e-9.
    assert float(ci["low"]) == pytest.approx(theirs.low, rel=1e-9)
    assert float(ci["high"]) == pytest.approx(theirs.high, rel=1e-9)


def test_ci_of_one_query_says_why_there_is_none(capsys, tmp_path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 x 1\n", encoding="utf-8")
    run.write_text("q1 Q0 x 1 1 t\n", encoding="utf-8")
    assert main(["score", str(qrels), str(run), "--ci", "0.9"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["nDCG\tci_low\tundefined", "nDCG\tci_high\tundefined"]
    assert err == (
        "ndcgspec: note: no bootstrap interval of nDCG: a bootstrap interval needs two or more "
        "queries with a value, not 1\n"
    )
