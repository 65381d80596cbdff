"""The ``trec_eval`` built-in adapter: the trec_eval 10.0 program built from the shared source,
fed TREC files, its printed table read back; and the build's own refusals. Expected values are
worked by hand from the nDCG formula; the program prints four decimals."""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import pytest

from ndcgspec.harness.adapters.base import AdapterError, CaseInput, Rejected, load_adapter
from ndcgspec.harness.adapters.peers.trec_eval import parse_output
from ndcgspec.harness.adapters.peers.trec_eval_build import trec_eval_program
from ndcgspec.harness.registry import BUILTIN_ADAPTERS
from ndcgspec.reference import Config
from ndcgspec.suite.folders import SHARED_ENV

HALF_PRINTED_DIGIT = 0.00005


@pytest.fixture(scope="module")
def adapter(trec_eval_tarball: Path):  # type: ignore[no-untyped-def]
    if shutil.which("make") is None or not any(map(shutil.which, ("cc", "gcc", "clang"))):
        pytest.skip("no C compiler or make on PATH: trec_eval cannot be built")
    return load_adapter(BUILTIN_ADAPTERS["trec_eval"])


def full(**choices: object) -> dict[str, object]:
    return Config.from_mapping(choices).to_mapping()


def test_the_program_says_it_is_trec_eval_10(adapter) -> None:  # type: ignore[no-untyped-def]
    assert adapter.version.startswith("10.")
    assert adapter.describe()["decimal_places"] == 4


def test_values_per_query_and_the_mean_over_queries_in_both(adapter) -> None:  # type: ignore[no-untyped-def]
    case = CaseInput(
        [("q1", "a", "2"), ("q1", "b", "0"), ("q1", "c", "1"), ("q2", "x", "1")],
        [("q1", "b", "3"), ("q1", "a", "2"), ("q1", "c", "1"), ("q2", "y", "1")],
    )
    values = adapter.compute(case, full(negative="unjudged", fractional="truncate"))
    # q1: DCG = 2/log2(3) + 1/log2(4), ideal 2 + 1/log2(3); q2 retrieves nothing relevant.
    q1 = (2 / math.log2(3) + 0.5) / (2 + 1 / math.log2(3))
    assert abs(values.per_query["q1"] - q1) <= HALF_PRINTED_DIGIT
    assert values.per_query["q2"] == 0.0
    assert abs(values.aggregate - q1 / 2) <= HALF_PRINTED_DIGIT


def test_scores_are_doubles_not_floats(adapter) -> None:  # type: ignore[no-untyped-def]
    # 1.0000000001 and 1.0 are one float32 but two doubles: as doubles, a (not relevant) ranks
    # first and the relevant b scores 1/log2(3); as floats they tie and docid-descending puts b
    # first (1.0, which is what pytrec_eval's trec_eval 9.0.8 computes).
    case = CaseInput(
        [("q1", "a", "0"), ("q1", "b", "1")], [("q1", "a", "1.0000000001"), ("q1", "b", "1.0")]
    )
    values = adapter.compute(case, full(negative="unjudged", fractional="truncate"))
    assert abs(values.per_query["q1"] - 1 / math.log2(3)) <= HALF_PRINTED_DIGIT


def test_a_query_named_all_is_a_query_not_the_summary(adapter) -> None:  # type: ignore[no-untyped-def]
    case = CaseInput([("all", "a", "1"), ("q1", "a", "1")], [("all", "b", "1"), ("q1", "a", "1")])
    values = adapter.compute(case, full(negative="unjudged", fractional="truncate"))
    assert values.per_query == {"all": 0.0, "q1": 1.0}
    assert values.aggregate == 0.5


def test_complete_mean_and_cutoff(adapter) -> None:  # type: ignore[no-untyped-def]
    case = CaseInput(
        [("q1", "a", "1"), ("q1", "b", "0"), ("q2", "c", "1")], [("q1", "b", "2"), ("q1", "a", "1")]
    )
    values = adapter.compute(case, full(negative="unjudged", fractional="truncate", cutoff=1))
    # Under -c, q2 (absent from the run) scores 0; q1 has nothing relevant at rank 1.
    assert values.per_query == {"q1": 0.0, "q2": 0.0}
    values = adapter.compute(case, full(negative="unjudged", fractional="truncate", cutoff=2))
    assert abs(values.aggregate - 1 / math.log2(3) / 2) <= HALF_PRINTED_DIGIT


def test_a_qrels_query_missing_from_the_run_stops_it_without_c(adapter) -> None:  # type: ignore[no-untyped-def]
    case = CaseInput([("q1", "a", "1"), ("q2", "c", "1")], [("q1", "a", "1")])
    config = full(negative="unjudged", fractional="truncate", aggregate="run")
    with pytest.raises(Rejected, match="exit 4: trec_eval: result qid 'q2' not found"):
        adapter.compute(case, config)


def test_an_id_with_white_space_cannot_be_written(adapter) -> None:  # type: ignore[no-untyped-def]
    case = CaseInput([("q1", "a b", "1")], [("q1", "a b", "1")])
    with pytest.raises(Rejected, match="cannot hold the id"):
        adapter.compute(case, full(negative="unjudged", fractional="truncate"))


def test_output_without_a_summary_is_not_a_result() -> None:
    with pytest.raises(Exception, match="no summary line"):
        parse_output("ndcg                  \tq1\t0.5000\n", "ndcg")
    assert parse_output("ndcg\tq1\t-nan\nndcg\tall\tnan\n", "ndcg").per_query == {"q1": None}


def test_without_the_tarball_or_a_built_program_it_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SHARED_ENV, str(tmp_path / "no-shared"))
    monkeypatch.setenv("NDCGSPEC_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(AdapterError) as raised:
        trec_eval_program()
    assert "trec_eval-src.tar.gz is absent" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_program_built_before_serves_without_the_tarball(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trec_eval_tarball: Path
) -> None:
    # The session's cache, where the program is built once for every test that runs it.
    built = trec_eval_program()
    assert built.is_file() and built.parent == Path(os.environ["NDCGSPEC_CACHE_DIR"], "trec_eval")
    monkeypatch.setenv(SHARED_ENV, str(tmp_path / "no-shared"))
    assert trec_eval_program() == built
