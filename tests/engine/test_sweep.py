"""The sweep (`ndcgspec.engine.sweep`): the cutoffs it declares, and the fence it sits behind
(`engine.support`, `engine.route`). Its agreement with the plain reference on random inputs
is tested in `test_equals_reference`."""

from __future__ import annotations

import copy
from decimal import Decimal

import pytest

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
