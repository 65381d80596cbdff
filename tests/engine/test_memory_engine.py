"""The engine on in-memory inputs (`ndcgspec.engine.memory`) computes what it declares itself:
the engine path is taken, without the reference, on inputs it declares, irrational gains
included (hand arithmetic). That its results are the plain reference's, digit for digit, is
tested in `test_equals_reference`, which counts the reference's calls with
`counted_reference_calls`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import mpmath
import pytest

from ndcgspec.engine import evaluate as engine_evaluate
from ndcgspec.engine import fallback, memory
from ndcgspec.engine.memory import Inputs
from ndcgspec.engine.support import not_computed
from ndcgspec.reference import Config
from ndcgspec.reference.inputs import Judgment, Posting


def test_the_engine_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the reference out of reach, the engine still answers a configuration it
    declares: rel 0 then 1 under the reciprocal discount, DCG 1/2 and IDCG 1 (hand
    arithmetic); a document id holding NUL is left to the reference."""
    qrels = {"q": {"a": Judgment(Decimal(0)), "b": Judgment(Decimal(1))}}
    run = {"q": [Posting("a", Decimal(2)), Posting("b", Decimal(1))]}
    config = Config.from_mapping({"discount": "reciprocal"})
    assert not not_computed(config)

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the reference was asked")

    monkeypatch.setattr(memory, "evaluate", unreachable)
    result = Inputs(qrels, run).result(config)
    assert result.aggregate is not None
    assert Decimal(result.aggregate) == Decimal("0.5")
    assert [Decimal(v) for v in result.per_query["q"].values() if v is not None] == [
        Decimal("0.5"),
        Decimal("0.5"),
        Decimal(1),
    ]
    with pytest.raises(AssertionError, match="reference was asked"):
        Inputs({"q": {"a\0": Judgment(Decimal(1))}}, run).result(config)


def counted_reference_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queries the engine hands to the reference (`fallback.reference_results`) from now
    on; a single query's fallback (`fallback.evaluate_query`) and the whole reference
    (`memory.evaluate`) are out of reach."""
    calls: list[str] = []
    by_reference, evaluate_query = fallback.reference_results, fallback.evaluate_query

    def counting(prep: Any, config: Config, queries: list[int]) -> Any:
        calls.extend(prep.qrels.qids[q] for q in queries)
        with monkeypatch.context() as inside:
            inside.setattr(fallback, "evaluate_query", evaluate_query)
            return by_reference(prep, config, queries)

    def unreachable(*args: Any) -> Any:
        raise AssertionError("the reference was asked")

    monkeypatch.setattr(engine_evaluate, "reference_results", counting)
    monkeypatch.setattr(fallback, "evaluate_query", unreachable)
    monkeypatch.setattr(memory, "evaluate", unreachable)
    return calls


def test_irrational_gains_are_scored_by_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels 0.5 and 1.5 under gain=exponential and the reciprocal discount, the run
    ranking 0.5 first: with g(0.5) = √2 − 1 and g(1.5) = 2√2 − 1, DCG = g(0.5) + g(1.5)/2
    = 2√2 − 3/2 and IDCG = g(1.5) + g(0.5)/2 = (5√2 − 3)/2 (hand arithmetic, evaluated
    below by mpmath at 60 digits). No query goes to the reference."""
    qrels = {"q": {"a": Judgment(Decimal("1.5")), "b": Judgment(Decimal("0.5"))}}
    run = {"q": [Posting("b", Decimal(2)), Posting("a", Decimal(1))]}
    config = Config.from_mapping({"gain": "exponential", "discount": "reciprocal"})
    calls = counted_reference_calls(monkeypatch)
    result = Inputs(qrels, run).result(config)
    assert calls == []
    with mpmath.workdps(60):
        root = mpmath.sqrt(2)
        dcg, idcg = 2 * root - mpmath.mpf(3) / 2, (5 * root - 3) / 2
        expected = {
            name: mpmath.nstr(value, 40, min_fixed=-5, max_fixed=5)
            for name, value in (("ndcg", dcg / idcg), ("dcg", dcg), ("idcg", idcg))
        }
    assert {n: Decimal(v) for n, v in result.per_query["q"].items() if v is not None} == {
        n: Decimal(v) for n, v in expected.items()
    }
    assert result.aggregate is not None
    assert Decimal(result.aggregate) == Decimal(expected["ndcg"])
