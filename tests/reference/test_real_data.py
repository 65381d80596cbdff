"""The reference reproduces published trec_eval outputs (spec anchors ``ndcg.gain``,
``ndcg.ties.docid-desc``, ``ndcg.negative.unjudged``, ``ndcg.aggregate``).

trec_eval prints 4 decimals of a double, so a value reproduces when
|reference − published| ≤ 0.5·10^-4 plus a margin of 10^-12 for the double's own error.

trec_eval's conventions, as configuration overrides of the spec's defaults: linear gain,
1/log2(rank + 1), ideal from every judged document (the defaults); labels read with atol
(fractional=truncate); a negative label is a pool document left unjudged (negative=unjudged,
gain 0 at its rank); ties by docno descending (the default); the mean over queries in both the
qrels and the run, or over every qrels query with -c; a query without relevant documents keeps
its initial score 0 and is counted (empty=zero, the default).
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import mpmath
import pytest

from ndcgspec.reference import Config, Evaluation
from ndcgspec.reference.config import preset
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.spec import spec_file

TREC_EVAL = {"negative": "unjudged", "fractional": "truncate", "aggregate": "run"}
TREC_EVAL_COMPLETE = {**TREC_EVAL, "aggregate": "qrels"}
PRINTED_HALF_UNIT = Decimal("0.00005")
DOUBLE_MARGIN = Decimal("1e-12")
DEFAULT_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]

Published = dict[tuple[str, str], Decimal]


def published(path: Path) -> Published:
    """(measure, query id or "all") → value, for the ndcg lines of a trec_eval output."""
    values: Published = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        measure, qid, value = line.split()
        if measure.startswith("ndcg") and not measure.startswith("ndcg_rel"):
            values[measure, qid] = Decimal(value)
    return values


def first_ranks(run: Mapping[str, list[Any]], depth: int) -> dict[str, list[Any]]:
    """trec_eval -M: each query's ranking cut to its first `depth` documents in trec_eval's
    order (score descending, then docno descending by bytes)."""
    return {
        qid: sorted(postings, key=lambda p: (p.score, p.docid.encode("utf-8")), reverse=True)[
            :depth
        ]
        for qid, postings in run.items()
    }


def reproduced(value: mpmath.mpf | None, printed: Decimal) -> bool:
    assert value is not None
    exact = Decimal(mpmath.nstr(value, 30, strip_zeros=False))
    return abs(exact - printed) <= PRINTED_HALF_UNIT + DOUBLE_MARGIN


def mismatches(
    expected: Published, overrides: Mapping[str, Any], qrels: Any, run: Any
) -> list[str]:
    """Every published ndcg value the reference misses, as 'measure qid: ours vs theirs'."""
    by_measure: dict[str, Evaluation] = {}
    wrong = []
    for (measure, qid), printed in sorted(expected.items()):
        if measure not in by_measure:
            config = Config.from_mapping({**overrides, "cutoff": cutoff_of(measure)})
            by_measure[measure] = evaluate(config, qrels, run)
        evaluation = by_measure[measure]
        value = evaluation.aggregate if qid == "all" else evaluation.per_query[qid].ndcg
        if not reproduced(value, printed):
            wrong.append(f"{measure} {qid}: {mpmath.nstr(value, 8)} vs {printed}")
    return wrong


def cutoff_of(measure: str) -> int | None:
    """ndcg → None; ndcg_cut_k → k; ndcg with gain parameters → None."""
    return int(measure.rsplit("_", 1)[1]) if measure.startswith("ndcg_cut_") else None


@pytest.fixture(scope="module")
def suite(shared_data: Path) -> Path:
    return shared_data / "trec_eval-test"


def test_trec_eval_overrides_match_the_presets() -> None:
    if not spec_file("presets.yaml").is_file():
        pytest.skip("spec/presets.yaml is absent")
    assert Config.from_mapping(TREC_EVAL) == Config.from_mapping(preset("trec_eval").config)
    complete = preset("trec_eval_complete").config
    assert Config.from_mapping(TREC_EVAL_COMPLETE) == Config.from_mapping(complete)


def test_graded_qrels_with_negative_levels(suite: Path) -> None:
    """out.test.aql: trec_eval -m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test
    (grades −1..4; -l2 changes no nDCG)."""
    expected = published(suite / "out.test.aql")
    assert {m for m, _ in expected} == {"ndcg", *(f"ndcg_cut_{k}" for k in DEFAULT_CUTOFFS)}
    qrels, run = read_qrels(suite / "qrels.rel_level"), read_run(suite / "results.test")
    assert mismatches(expected, TREC_EVAL, qrels, run) == []


def test_binary_qrels(suite: Path) -> None:
    """out.test.aq: trec_eval -m all_trec -q qrels.test results.test."""
    expected = published(suite / "out.test.aq")
    qrels, run = read_qrels(suite / "qrels.test"), read_run(suite / "results.test")
    assert mismatches(expected, TREC_EVAL, qrels, run) == []


def test_custom_gains_and_a_fractional_cutoff(suite: Path) -> None:
    """out.test.meas_params: -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 on qrels.test.

    trec_eval parses ndcg_cut parameters as longs, so 23.4 is the cutoff 23: the output names
    the measure ndcg_cut_23 (the name is built with "%s_%ld" from the parsed cutoff). ndcg_cut
    ignores gain parameters; ndcg applies them as gain=map (levels not listed keep gain = level).
    """
    expected = published(suite / "out.test.meas_params")
    assert {m for m, _ in expected} == {
        "ndcg_1=3,2=9,4=4.5",
        "ndcg_cut_10",
        "ndcg_cut_20",
        "ndcg_cut_23",
    }
    qrels, run = read_qrels(suite / "qrels.test"), read_run(suite / "results.test")
    gains = {**TREC_EVAL, "gain": "map", "gain_map": {"1": "3", "2": "9", "4": "4.5"}}
    mapped = {k: v for k, v in expected.items() if k[0].startswith("ndcg_1=")}
    cut = {k: v for k, v in expected.items() if k[0].startswith("ndcg_cut_")}
    assert mismatches(mapped, gains, qrels, run) == []
    assert mismatches(cut, TREC_EVAL, qrels, run) == []


def test_complete_averaging_over_a_truncated_run(suite: Path) -> None:
    """out.test.aqc: trec_eval -m all_trec -q -c qrels.test results.trunc (query 302 absent
    from the run: it scores 0 and the mean divides by the 3 qrels queries)."""
    expected = published(suite / "out.test.aqc")
    run = read_run(suite / "results.trunc", extra_fields=True)
    assert "302" not in run and ("ndcg", "302") in expected
    qrels = read_qrels(suite / "qrels.test")
    assert mismatches(expected, TREC_EVAL_COMPLETE, qrels, run) == []


def test_complete_averaging_with_a_depth_limit(suite: Path) -> None:
    """out.test.aqcM: as out.test.aqc with -M100, which keeps each query's first 100 ranks;
    the spec has no depth axis, so the run is cut here before scoring."""
    expected = published(suite / "out.test.aqcM")
    run = read_run(suite / "results.trunc", extra_fields=True)
    qrels = read_qrels(suite / "qrels.test")
    assert mismatches(expected, TREC_EVAL_COMPLETE, qrels, first_ranks(run, 100)) == []


def test_without_complete_averaging_the_missing_query_is_left_out(suite: Path) -> None:
    """Without -c, trec_eval's help says the mean runs over the queries in both the qrels and
    the run (aggregate=run): 301 and 303 here. No output of trec_eval is published for this
    combination, so the expected mean is derived from the published per-query values."""
    run = read_run(suite / "results.trunc", extra_fields=True)
    qrels = read_qrels(suite / "qrels.test")
    per_query = published(suite / "out.test.aqc")
    evaluation = evaluate(Config.from_mapping(TREC_EVAL), qrels, run)
    assert list(evaluation.per_query) == ["301", "303"]
    mean_of_two = (per_query["ndcg", "301"] + per_query["ndcg", "303"]) / 2
    # Each printed value is within half a unit of the 4th decimal, and so is their mean.
    assert reproduced(evaluation.aggregate, mean_of_two)


def test_bm25_on_dl19_passage_ndcg_at_10(shared_data: Path) -> None:
    """The published BM25 (default) nDCG@10 on TREC DL 2019 passage, 0.5058, computed with
    trec_eval -m ndcg_cut.10 -c (published/dl19-passage.yaml)."""
    folder = shared_data / "dl19-passage"
    qrels = read_qrels(folder / "qrels.dl19-passage.txt")
    run = read_run(folder / "run.msmarco-v1-passage.bm25-default.dl19.txt.gz")
    with gzip.open(folder / "run.msmarco-v1-passage.bm25-default.dl19.txt.gz", "rt") as stream:
        assert sum(1 for _ in stream) == 43 * 1000
    evaluation = evaluate(Config.from_mapping({**TREC_EVAL_COMPLETE, "cutoff": 10}), qrels, run)
    assert len(evaluation.per_query) == 43
    assert reproduced(evaluation.aggregate, Decimal("0.5058"))
