"""The sweep (`ndcgspec.engine.sweep`): the cutoffs it declares, and the fence it sits behind
(`engine.support`, `engine.route`). Its agreement with the plain reference on random inputs
is tested in `test_equals_reference`."""

from __future__ import annotations

import copy
from decimal import Decimal
from fractions import Fraction

import pytest
from test_equals_reference import assert_sweep_agrees

from ndcgspec.engine.irrational_gain import IrrationalGain, Unordered
from ndcgspec.engine.sweep import Sweep
from ndcgspec.reference import Config, InputError, ideal, qrels_from_labels, run_from_scores
from ndcgspec.reference import config as config_module
from ndcgspec.spec import load_spec


def test_a_cutoff_not_declared_is_refused() -> None:
    qrels = qrels_from_labels({"q": {"a": "1"}})
    sweep = Sweep(qrels, run_from_scores({"q": {"a": "1"}}), [5])
    try:
        sweep.evaluate(Config.from_mapping({"cutoff": 3}))
    except ValueError as error:
        assert "cutoff 3" in str(error)
    else:
        raise AssertionError("an undeclared cutoff was evaluated")


def test_an_ideal_choice_the_engine_does_not_declare_goes_to_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An ideal choice added to the spec (and to the reference) but not to the engine: the
    ideal list of the retrieved documents, under another name. a (1) is retrieved alone, b
    (1) is not: nDCG = 1 / 1 = 1 by hand, where the sweep that scored every ideal choice but
    ``retrieved`` as ``judged`` gave 1 / (1 + 1/log2(3))."""
    spec = copy.deepcopy(load_spec())
    ideal_axis = next(a for a in spec["axes"] if a["id"] == "ideal")
    ideal_axis["choices"].append(
        {"id": "ranked", "anchor": "ndcg.ideal.ranked", "definition": "the ranked documents"}
    )
    monkeypatch.setattr(config_module, "load_spec", lambda: spec)
    monkeypatch.setitem(ideal.CHOICES, "ranked", ideal.retrieved)
    config = Config.from_mapping({"ideal": "ranked"})
    qrels = qrels_from_labels({"q": {"a": "1", "b": "1"}})
    sweep = Sweep(qrels, run_from_scores({"q": {"a": "1"}}), [5])
    for cutoff in (None, 5):
        result = sweep.scores(config, cutoff)
        assert not isinstance(result, InputError)
        assert result.mean is not None and Decimal(result.mean) == 1


def test_irrational_gains_are_ranked_and_summed_by_the_sweep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Labels 1.5, 2.5 and 0.5 gain 2^l − 1, irrational (``ndcg.gain.exponential``). The
    sweep ranks and sums them itself under every ties choice but the mean of a tie group
    holding one (``ndcg.ties.average``: a and b tie at score 2), which it leaves to the engine
    whole; every outcome has the reference's digits (`test_equals_reference`)."""
    labels = {"q1": {"a": "1.5", "b": "2.5", "c": "0.5", "d": "2"}, "q2": {"e": "0.5", "f": "3"}}
    scores = {
        "q1": [("a", "2"), ("b", "2"), ("c", "1"), ("d", "1"), ("u", "3")],
        "q2": [("e", "1")],
    }
    whole: list[Config] = []
    by_engine = Sweep._by_engine

    def counted(self: Sweep, measure: Config) -> object:
        whole.append(measure)
        return by_engine(self, measure)

    monkeypatch.setattr(Sweep, "_by_engine", counted)
    ties_choices = [c["id"] for a in load_spec()["axes"] if a["id"] == "ties" for c in a["choices"]]
    mappings = [
        {"gain": "exponential", "ties": ties, "ideal": ideal_choice, "cutoff": cutoff}
        for ties in ties_choices
        for ideal_choice in ["judged", "retrieved", "assumed-k", "top-k"]
        for cutoff in [None, 2]
    ]
    assert_sweep_agrees(labels, scores, mappings)
    assert whole and {c.choice("ties") for c in whole} == {"average"}


def test_an_irrational_gain_is_ordered_by_its_enclosure_where_it_is_apart() -> None:
    low = IrrationalGain("low", (Fraction(1), Fraction(2)))
    high = IrrationalGain("high", (Fraction(3), Fraction(4)))
    near = IrrationalGain("near", (Fraction(3, 2), Fraction(5)))
    assert low < high and high > low and low < 3 and low > 0 and low != 1
    assert sorted([high, 5, low, Fraction(5, 2)]) == [low, Fraction(5, 2), high, 5]
    assert IrrationalGain("low", (Fraction(0), Fraction(9))) == low
    with pytest.raises(Unordered):
        assert low < near
    with pytest.raises(Unordered):
        assert high > Fraction(7, 2)
