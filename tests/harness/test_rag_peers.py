"""The built-in adapters of the evaluation tools of retrieval-augmented generation and CI
checks (rank-validation, rankkit, evret, szl-retrieval-bench, rankerEval, toolkit-rag-quality,
rag-eval-lite): each computes what its source says, on inputs small enough to derive by hand.
Every expected value is hand arithmetic on the library's formula, never the library's output.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from install_hints import needing

from ndcgspec.harness.adapters.base import CaseInput, Rejected, Values
from ndcgspec.reference import Config

L2 = math.log2(3)
"""The discount of rank 2 is 1 / log2(3)."""
CLOSE = 1e-12


def _run(name: str, qrels: str, run: str, **config: Any) -> Any:
    """The adapter's answer on "q d label; ..." qrels and "q d score; ..." run rows."""
    module = __import__(f"ndcgspec.harness.adapters.peers.{name}", fromlist=["adapter"])
    rows = [tuple(r.split()) for r in qrels.split(";")], [tuple(r.split()) for r in run.split(";")]
    mapping = Config.from_mapping(config).to_mapping()
    return module.adapter().compute(CaseInput(*rows), mapping)


def _per_query(answer: Any) -> Any:
    return answer.per_query if isinstance(answer, Values) else answer


@needing("rank_validation", "rank-validation")
def test_rank_validation_cuts_the_truth_before_sorting_it() -> None:
    # ndcg([1, 3], [3, 1], 1): the ideal of the first grade only, 2^1 - 1 = 1; the ranking's
    # first document has grade 3, 2^3 - 1 = 7: the value is 7.
    answer = _run("rank_validation", "q1 a 1; q1 b 3", "q1 b 2; q1 a 1", cutoff=1)
    assert answer == {"q1": pytest.approx(7.0, rel=CLOSE)}
    # The whole ranking: the truth is not cut, the ideal is (7, 1), the ranking is ideal.
    whole = _run("rank_validation", "q1 a 1; q1 b 3", "q1 b 2; q1 a 1")
    assert whole == {"q1": pytest.approx(1.0, rel=CLOSE)}


@needing("rank_validation", "rank-validation")
def test_rank_validation_keeps_negative_grades_in_the_ideal() -> None:
    # Exponential gain of -1 is -1/2: the ideal (1, -1/2) is 1 - 0.5 / log2(3); the ranking
    # retrieves a alone, DCG 1.
    answer = _run("rank_validation", "q1 a 1; q1 b -1", "q1 a 1")
    assert answer == {"q1": pytest.approx(1 / (1 - 0.5 / L2), rel=CLOSE)}
    assert answer["q1"] > 1


@needing("rankkit", "rankkit")
def test_rankkit_exponential_gain_over_every_grade() -> None:
    # Ranking a (grade 1), b (grade 2): DCG 1 + 3 / log2(3), ideal 3 + 1 / log2(3).
    answer = _run("rankkit", "q1 a 1; q1 b 2", "q1 a 2; q1 b 1", gain="exponential")
    assert answer == {"q1": pytest.approx((1 + 3 / L2) / (3 + 1 / L2), rel=CLOSE)}
    linear = _run("rankkit", "q1 a 1; q1 b 2", "q1 a 2; q1 b 1", gain="linear")
    assert linear == {"q1": pytest.approx((1 + 2 / L2) / (2 + 1 / L2), rel=CLOSE)}


@needing("rankkit", "rankkit")
def test_rankkit_skips_a_query_with_nothing_relevant_and_refuses_negative_grades() -> None:
    answer = _run("rankkit", "q1 a 0; q2 b 1", "q1 a 1; q2 b 1", gain="exponential")
    assert answer == {"q1": None, "q2": pytest.approx(1.0, rel=CLOSE)}
    with pytest.raises(Rejected, match="must not be negative"):
        _run("rankkit", "q1 a 1; q1 b -1", "q1 a 1", gain="exponential")


@needing("rankkit", "rankkit")
def test_rankkit_built_by_hand_sorts_negative_grades_into_the_ideal() -> None:
    # The 2.71: a Run built directly (not by extract_runs) keeps the grade -1; linear
    # ideal 1 - 1 / log2(3), DCG 1.
    import rankkit

    run = rankkit.Run("q1", ("a",), {"a": 1.0, "b": -1.0})
    assert rankkit.ndcg(run, 10, "linear") == pytest.approx(1 / (1 - 1 / L2), rel=CLOSE)


@needing("evret", "evret")
def test_evret_gains_a_repeated_document_twice_then_clamps_to_one() -> None:
    once = _run("evret", "q1 a 1; q1 x 0", "q1 x 2; q1 a 1", gain="binary", ties="input")
    assert once == {"q1": pytest.approx(1 / L2, rel=CLOSE)}
    # x, a, a: 1/log2(3) + 1/log2(4) = 1.13, clamped to 1.
    twice = _run("evret", "q1 a 1; q1 x 0", "q1 x 3; q1 a 2; q1 a 1", gain="binary", ties="input")
    assert twice == {"q1": 1.0}


@needing("szl_retrieval_bench", "szl-retrieval-bench")
def test_szl_rounds_to_four_decimals_and_keeps_negatives_in_the_ideal() -> None:
    config = {"gain": "exponential", "negative": "keep-in-ideal", "ties": "input"}
    second = _run("szl_retrieval_bench", "q1 a 1; q1 x 0", "q1 x 2; q1 a 1", **config)
    assert second == {"q1": round(1 / L2, 4)} == {"q1": 0.6309}
    # The ideal (1, -1/2) is 1 - 0.5 / log2(3) = 0.6845; the ranking gains 1: 1.4608.
    negative = _run("szl_retrieval_bench", "q1 a 1; q1 b -1", "q1 a 1", **config)
    assert negative == {"q1": round(1 / (1 - 0.5 / L2), 4)} == {"q1": 1.4608}
    # a twice: 1 + 1 / log2(3) over an ideal of 1.
    repeated = _run("szl_retrieval_bench", "q1 a 1", "q1 a 2; q1 a 1", **config)
    assert repeated == {"q1": 1.6309}


@needing("szl_retrieval_bench", "szl-retrieval-bench")
def test_szl_fails_closed_on_a_query_with_nothing_relevant() -> None:
    config = {"gain": "exponential", "negative": "keep-in-ideal", "ties": "input"}
    with pytest.raises(Rejected, match="R-precision undefined"):
        _run("szl_retrieval_bench", "q1 a 0", "q1 a 1", **config)


@pytest.fixture
def rankereval_interpreted(monkeypatch: pytest.MonkeyPatch) -> None:
    """rankerEval imported with numba's compiler off (NUMBA_DISABLE_JIT, read when a function
    is decorated): its functions are its Python source run as written, not some 20 s of CPU
    compiling them. The compiled library meets every probe on CI's conformance page
    (docs/presets.json, tests/survey/test_presets_verified.py)."""
    from numba.core import config as numba_config

    with monkeypatch.context() as during_import:
        during_import.setenv("NUMBA_DISABLE_JIT", "1")
        numba_config.reload_config()
        __import__("rankereval")
    numba_config.reload_config()


@needing("rankereval", "rankereval")
@pytest.mark.usefixtures("rankereval_interpreted")
def test_rankereval_power_scaling_is_the_square_minus_one() -> None:
    # b (grade 1) then a (grade 3): rel^2 - 1 gives 0 and 8, the ideal (8, 0); the log base
    # cancels: (8 / ln 3) / (8 / ln 2) = ln 2 / ln 3. 2^rel - 1 would give 7 and 1.
    config = {"gain": "exponential", "negative": "keep-in-ideal", "ties": "input"}
    answer = _run("rankereval", "q1 a 3; q1 b 1", "q1 b 2; q1 a 1", empty="nan", **config)
    assert _per_query(answer) == {"q1": pytest.approx(math.log(2) / math.log(3), rel=1e-6)}
    assert answer.aggregate == pytest.approx(math.log(2) / math.log(3), rel=1e-6)


@needing("rankereval", "rankereval")
@pytest.mark.usefixtures("rankereval_interpreted")
def test_rankereval_identity_is_linear_and_nothing_relevant_is_nan() -> None:
    config = {"negative": "keep-in-ideal", "ties": "input", "empty": "nan"}
    answer = _run("rankereval", "q1 a 1; q1 b 2; q2 c 0", "q1 a 2; q1 b 1; q2 c 1", **config)
    assert _per_query(answer) == {
        "q1": pytest.approx((1 + 2 / L2) / (2 + 1 / L2), rel=1e-6),
        "q2": None,
    }
    assert answer.aggregate is None


@needing("toolkit_rag_quality", "toolkit-rag-quality")
def test_toolkit_rag_quality_scores_a_missing_judged_query_zero() -> None:
    answer = _run("toolkit_rag_quality", "q1 a 1; q2 b 1", "q1 a 1", fractional="error")
    assert answer.per_query == {"q1": 1.0, "q2": 0.0}
    assert answer.aggregate == 0.5


@needing("toolkit_rag_quality", "toolkit-rag-quality")
def test_toolkit_rag_quality_breaks_ties_by_docid_descending_and_refuses_fractions() -> None:
    # a and b tied: b first, so the relevant a is second.
    answer = _run("toolkit_rag_quality", "q1 a 1", "q1 a 1; q1 b 1", fractional="error")
    assert answer.per_query == {"q1": pytest.approx(1 / L2, rel=CLOSE)}
    with pytest.raises(Rejected, match="must be an integer"):
        _run("toolkit_rag_quality", "q1 a 1.5", "q1 a 1", fractional="error")
    with pytest.raises(Rejected, match="listed twice"):
        _run("toolkit_rag_quality", "q1 a 1", "q1 a 2; q1 a 1", fractional="error")


@needing("rag_eval", "rag-eval-lite")
def test_rag_eval_lite_gains_a_repeated_document_twice() -> None:
    config = {"gain": "binary", "ties": "input"}
    answer = _run("rag_eval_lite", "q1 a 1; q1 x 0", "q1 x 3; q1 a 2; q1 a 1", **config)
    # 1/log2(3) + 1/log2(4), over an ideal of 1.
    assert answer.per_query == {"q1": pytest.approx(1 / L2 + 0.5, rel=CLOSE)}
    assert answer.aggregate == pytest.approx(1 / L2 + 0.5, rel=CLOSE)
