"""Which cases an adapter is judged on (``harness/plan.py``): every bundled input under
the adapter's native configuration, a preset or a measure, with the cutoff rule stated there."""

from __future__ import annotations

from collections import Counter

import pytest

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.harness.plan import COMPUTED, Selection
from ndcgspec.harness.runner import load_cases
from ndcgspec.reference import Config
from ndcgspec.reference.config import preset, presets
from ndcgspec.suite.loaded import LoadedCase

MINIMUM_PER_PRESET = 1000


@pytest.fixture(scope="module")
def suite() -> list[LoadedCase]:
    return load_cases()


def declaration(**capabilities: list[str]) -> Declaration:
    return Declaration.from_json(described(**capabilities))


def reference() -> Declaration:
    return Declaration.from_json(ReferenceAdapter().describe())


def described(**capabilities: list[str]) -> dict:
    return {"name": "a", "version": "1", "float_width": 64, "capabilities": capabilities}


def test_the_native_configuration_is_the_first_declared_choice() -> None:
    adapter = declaration(ties=["average", "docid-desc"], gain=["exponential", "linear"])
    assert adapter.native_config() == Config.from_mapping(
        {"ties": "average", "gain": "exponential"}
    )
    assert declaration().native_config() == Config.default()


def test_the_native_configuration_takes_the_first_declared_parameter_value() -> None:
    adapter = Declaration.from_json(
        {**described(discount=["log"]), "params": {"log_base": ["10", "2"]}}
    )
    assert adapter.native_config().param("log_base") == 10
    anything = Declaration.from_json({**described(discount=["log"]), "params": {"log_base": "any"}})
    assert anything.native_config() == Config.default()


def test_the_reference_adapter_is_native_to_the_spec_defaults() -> None:
    assert reference().native_config() == Config.default()


@pytest.fixture(scope="module")
def distinct_inputs(suite: list[LoadedCase]) -> object:
    """The suite's distinct inputs with their digests, which no preset changes: digested once
    for every preset's selection below rather than once each."""
    return Selection(suite)._inputs


@pytest.mark.parametrize("preset_id", [p.id for p in presets()])
def test_every_preset_judges_at_least_a_thousand_cases(
    suite: list[LoadedCase], distinct_inputs: object, preset_id: str
) -> None:
    selection = Selection(suite, [preset_id])
    selection.__dict__["_inputs"] = distinct_inputs
    cases = selection.cases_for(reference())
    assert len(cases) >= MINIMUM_PER_PRESET
    wanted = Config.from_mapping(preset(preset_id).config).replace(cutoff=None)
    # Each configuration written once, though thousands of cases carry it.
    configs = {c.case.config for c in cases}
    fingerprints = {c.replace(cutoff=None).fingerprint() for c in configs}
    assert fingerprints == {wanted.fingerprint()}
    stored = [c for c in cases if c.expected_source != COMPUTED]
    assert len([c for c in stored if c.path.parent.name == "presets"]) >= 500


def by_input(cases: list[LoadedCase], input_of: str) -> LoadedCase:
    return next(c for c in cases if (c.case.input_of or c.case.id) == input_of)


def test_a_preset_cutoff_applies_only_to_inputs_without_one(suite: list[LoadedCase]) -> None:
    cases = Selection(suite, ["xgboost"]).cases_for(reference())
    # cutoff.k/k-1 is written for a cutoff of 1; cutoff.none/one-document for none.
    assert by_input(cases, "cutoff.k/k-1").case.config.cutoff == 1
    assert by_input(cases, "cutoff.none/one-document").case.config.cutoff == 32


def test_a_measure_cutoff_applies_to_every_input(suite: list[LoadedCase]) -> None:
    cases = Selection(suite, measures=["nDCG@3"]).cases_for(reference())
    assert {c.case.config.cutoff for c in cases} == {3}


def test_results_keep_the_group_the_input_was_written_for(suite: list[LoadedCase]) -> None:
    groups = {c.case.id: c.group for c in suite}
    cases = Selection(suite, ["sklearn"]).cases_for(reference())
    judged_elsewhere = [c for c in cases if c.case.input_of is not None]
    assert "presets" in {c.path.parent.name for c in judged_elsewhere}
    assert any(c.expected_source == COMPUTED for c in judged_elsewhere)
    for loaded in judged_elsewhere:
        assert loaded.group == groups[loaded.case.input_of or ""], loaded.case.id
    assert by_input(cases, "ties.average/group-at-top").group == "ties/average"


def test_a_stored_case_is_judged_as_stored_not_again_as_computed(
    suite: list[LoadedCase],
) -> None:
    cases = Selection(suite).cases_for(reference())
    keys = Counter(
        (c.case.input_of or c.case.id.split("@")[0], c.case.config.canonical())
        for c in cases
        if c.expected_source == COMPUTED
    )
    assert max(keys.values()) == 1
    stored_ids = {c.case.id for c in suite}
    assert {c.case.id for c in cases if c.expected_source != COMPUTED} == stored_ids


def test_computed_expectations_are_cached_between_runs(
    suite: list[LoadedCase], tmp_path, monkeypatch
) -> None:
    from ndcgspec.harness import plan
    from ndcgspec.suite.expected_cache import ExpectedCache, definition_digest
    from ndcgspec.suite.folders import data_root
    from ndcgspec.suite.json_lines import settle

    computed = [
        c
        for c in Selection(suite).cases_for(declaration(gain=["exponential"]))
        if c.expected_source == COMPUTED and c.case.input is not None
    ][:3]
    first = ExpectedCache(tmp_path)
    values = [plan.fill_expected(first, loaded, data_root()).case.expected for loaded in computed]
    assert None not in values
    # A later run reads them back without computing anything, a line cut short by a killed
    # run notwithstanding. They are written by the time this run ends.
    settle()
    cached = sorted((tmp_path / "expected" / definition_digest()).glob("*.jsonl"))
    assert cached
    with cached[0].open("a") as file:
        file.write('{"input": "cut sh')

    def computing(*args: object) -> None:
        raise AssertionError("computed again")

    monkeypatch.setattr(plan, "_reference_outcome", computing)
    later = ExpectedCache(tmp_path)
    again = [plan.fill_expected(later, loaded, data_root()).case.expected for loaded in computed]
    assert again == values
