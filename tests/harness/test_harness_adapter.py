"""Wrapping plain functions as adapters, and finding adapters by name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ndcgspec.harness.adapters.base import (
    AdapterError,
    CaseInput,
    Rejected,
    arrays_adapter,
    load_adapter,
    trec_adapter,
)
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.reference import Config

INPUT = CaseInput(
    qrels=[("q1", "a", "2"), ("q1", "b", "0.5"), ("q2", "a", "1")],
    run=[("q1", "b", "0.9"), ("q1", "c", "0.8"), ("q1", "a", "0.7")],
)
# Adapters receive the full configuration object, as the protocol carries it.
CONFIG = Config.from_mapping({"aggregate": "qrels", "cutoff": 2}).to_mapping()


def test_arrays_adapter_passes_run_order_labels_and_scores() -> None:
    seen = []

    def my_ndcg(y_true: np.ndarray, y_score: np.ndarray, k: int | None) -> float:
        seen.append((y_true.tolist(), y_score.tolist(), k))
        return 0.5

    adapter = arrays_adapter(my_ndcg, name="mine", version="1")
    assert adapter.compute(INPUT, CONFIG) == {"q1": 0.5, "q2": 0.5}
    # q1 in run order (c is unjudged: 0); q2 has no run rows: empty arrays.
    assert seen == [([0.5, 0.0, 2.0], [0.9, 0.8, 0.7], 2), ([], [], 2)]
    adapter.compute(INPUT, {**CONFIG, "aggregate": "run"})
    assert len(seen) == 3


def test_trec_adapter_passes_dicts_with_integral_labels_as_int() -> None:
    seen = []

    def my_ndcg(qrels: dict, run: dict, k: int | None) -> dict:
        seen.append((qrels, run, k))
        return {"q1": 1.0}

    adapter = trec_adapter(my_ndcg, name="mine", version="1", capabilities={"gain": ["linear"]})
    assert adapter.compute(INPUT, CONFIG) == {"q1": 1.0}
    qrels, run, k = seen[0]
    assert qrels == {"q1": {"a": 2, "b": 0.5}, "q2": {"a": 1}}
    assert isinstance(qrels["q1"]["a"], int)
    assert run == {"q1": {"b": 0.9, "c": 0.8, "a": 0.7}} and k == 2
    assert adapter.describe()["capabilities"] == {"gain": ["linear"]}


REPEATED = CaseInput(
    qrels=[("q1", "a", "1")],
    run=[("q1", "a", "0.2"), ("q1", "b", "0.5"), ("q1", "a", "0.9")],
)


def test_trec_adapter_applies_the_duplicates_choice_a_dict_cannot_carry() -> None:
    seen = []

    def my_ndcg(qrels: dict, run: dict, k: int | None) -> dict:
        seen.append(run)
        return {"q1": 1.0}

    adapter = trec_adapter(
        my_ndcg, name="m", version="1", capabilities={"duplicates": ["error", "first"]}
    )
    with pytest.raises(Rejected, match="duplicate document 'a'"):
        adapter.compute(REPEATED, CONFIG)
    assert seen == []
    adapter.compute(REPEATED, {**CONFIG, "duplicates": "first"})
    # ndcg.duplicates.first keeps a's higher score, 0.9, at the place of the row that holds it:
    # after b, where a dict built from every row would put a first.
    assert seen == [{"q1": {"b": 0.5, "a": 0.9}}]
    assert list(seen[0]["q1"]) == ["b", "a"]


def test_an_undeclared_parameter_supports_only_its_spec_default() -> None:
    declared = {"float_width": 64, "capabilities": {"discount": ["log"]}}
    full = Config.from_mapping({"discount": "log"}).to_mapping()
    assert Declaration.from_json(declared).unsupported_reason(Config.from_mapping(full)) is None
    assert "log_offset=2" in Declaration.from_json(declared).unsupported_reason(
        Config.from_mapping({**full, "log_offset": "2"})
    )
    assert "log_base=e" in Declaration.from_json(declared).unsupported_reason(
        Config.from_mapping({**full, "log_base": "e"})
    )
    anything = {**declared, "params": {"log_offset": "any"}}
    assert (
        Declaration.from_json(anything).unsupported_reason(
            Config.from_mapping({**full, "log_offset": "2"})
        )
        is None
    )


def test_an_exception_is_a_rejection_only_where_the_adapter_names_it() -> None:
    def strict(y_true: np.ndarray, y_score: np.ndarray, k: int | None) -> float:
        raise ValueError("negative labels")

    # Unnamed, a ValueError is the library's failure (an error of the case), never a refusal.
    with pytest.raises(ValueError, match="negative labels"):
        arrays_adapter(strict, name="s", version="1").compute(INPUT, CONFIG)
    named = arrays_adapter(strict, name="s", version="1", rejects=[ValueError])
    with pytest.raises(Rejected, match="negative labels"):
        named.compute(INPUT, CONFIG)


def test_reference_adapter_rounds_exact_values_once() -> None:
    values = ReferenceAdapter().compute(INPUT, Config.default().to_mapping())
    # q1: b (0.5) at rank 1, c (unjudged) at 2, a (2) at 3; ideal 2, 0.5.
    dcg = 0.5 + 2 / math.log2(4)
    idcg = 2 + 0.5 / math.log2(3)
    assert values.per_query["q1"] == pytest.approx(dcg / idcg, rel=1e-15)
    assert values.per_query["q2"] == 0.0
    assert values.aggregate == pytest.approx(dcg / idcg / 2, rel=1e-15)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nothing", "expected module:object"),
        ("no_such_module_xyz:adapter", "cannot import"),
        ("fakes:nothing", "has no 'nothing'"),
        ("math:pi", "not an Adapter"),
        ("math:sqrt", "not an Adapter"),
    ],
)
def test_load_adapter_errors_say_what_is_wrong(target: str, message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        load_adapter(target)


def test_load_adapter_accepts_names_instances_and_classes() -> None:
    assert load_adapter("ndcgspec.harness.adapters.reference:adapter").name == (
        "ndcgspec-reference"
    )
    assert load_adapter("ndcgspec.harness.adapters.reference:ReferenceAdapter").name
    assert load_adapter("fakes:always_zero").name == "fake-always-zero"
