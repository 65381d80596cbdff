"""The spec files check themselves: schemas validate, anchors are unique, ids resolve, the
reference implements exactly the spec's choices, and the generated schema is up to date."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from ndcgspec.measures.config_schema import config_schema_text
from ndcgspec.reference import Config
from ndcgspec.spec import load_schema, load_spec, load_yaml, spec_file

AXIS_MODULES = [
    "gain",
    "discount",
    "ideal",
    "unjudged",
    "negative",
    "fractional",
    "ties",
    "duplicates",
    "empty",
    "aggregate",
]
REGENERATE = "python -m ndcgspec.measures.config_schema > spec/schema/config.schema.json"


def validator(name: str) -> Draft202012Validator:
    """A validator for schema `name` that resolves references between the spec's schemas."""
    registry: Registry = Registry().with_resources(
        (f"{other}.schema.json", Resource.from_contents(load_schema(other)))
        for other in ("spec", "config", "presets")
    )
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=registry)


def choice_axes() -> list[dict[str, Any]]:
    return [axis for axis in load_spec()["axes"] if "choices" in axis]


def anchors(node: Any) -> Iterator[str]:
    """Every ``anchor`` value anywhere in a parsed spec document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "anchor":
                yield value
            else:
                yield from anchors(value)
    elif isinstance(node, list):
        for item in node:
            yield from anchors(item)


def presets_or_skip() -> dict[str, Any]:
    if not spec_file("presets.yaml").is_file():
        pytest.skip("spec/presets.yaml is absent")
    return load_yaml("presets.yaml")


def test_spec_validates_against_its_schema() -> None:
    errors = [e.message for e in validator("spec").iter_errors(load_spec())]
    assert errors == []


def test_spec_schema_rejects_an_unknown_key() -> None:
    broken = dict(load_spec(), surprise=1)
    assert not validator("spec").is_valid(broken)


def test_anchors_are_unique() -> None:
    found = list(anchors(load_spec()))
    assert len(found) > 30
    assert sorted(a for a in set(found) if found.count(a) > 1) == []


def test_choice_and_axis_anchors_follow_their_ids() -> None:
    for axis in choice_axes():
        assert axis["anchor"] == f"ndcg.{axis['id']}"
        for choice in axis["choices"]:
            assert choice["anchor"] == f"ndcg.{axis['id']}.{choice['id']}"


def test_every_choice_param_is_declared_by_its_axis() -> None:
    for axis in choice_axes():
        declared = {p["id"] for p in axis.get("params", [])}
        for choice in axis["choices"]:
            assert set(choice.get("params", [])) <= declared, (axis["id"], choice["id"])
        used = {name for c in axis["choices"] for name in c.get("params", [])}
        assert used == declared, f"axis {axis['id']} declares a parameter no choice takes"


def test_choice_ids_are_unique_per_axis_and_axis_ids_unique() -> None:
    axis_ids = [a["id"] for a in load_spec()["axes"]]
    assert len(axis_ids) == len(set(axis_ids))
    for axis in choice_axes():
        ids = [c["id"] for c in axis["choices"]]
        assert len(ids) == len(set(ids)), axis["id"]


def test_each_axis_default_is_one_of_its_choices() -> None:
    for axis in choice_axes():
        assert axis["default"] in [c["id"] for c in axis["choices"]], axis["id"]
    cutoff = next(a for a in load_spec()["axes"] if a["id"] == "cutoff")
    assert cutoff["default"] is None and cutoff["value"]["nullable"]


@pytest.mark.parametrize("module_name", AXIS_MODULES)
def test_reference_module_implements_exactly_the_spec_choices(module_name: str) -> None:
    module = importlib.import_module(f"ndcgspec.reference.{module_name}")
    axis = next(a for a in load_spec()["axes"] if a["id"] == module_name)
    assert list(module.CHOICES) == [c["id"] for c in axis["choices"]]


def test_every_choice_axis_has_a_reference_module() -> None:
    assert sorted(a["id"] for a in choice_axes()) == sorted(AXIS_MODULES)


def test_committed_config_schema_is_the_generated_one() -> None:
    committed = spec_file("schema/config.schema.json").read_text(encoding="utf-8")
    assert committed == config_schema_text(), (
        f"spec/schema/config.schema.json is stale; regenerate it with: {REGENERATE}"
    )


def test_config_schema_accepts_the_full_mapping_of_every_choice() -> None:
    check = validator("config")
    for axis in choice_axes():
        for choice in axis["choices"]:
            values: dict[str, Any] = {axis["id"]: choice["id"]}
            if "gain_map" in choice.get("params", []):
                values["gain_map"] = {"1": "3", "2": "9"}
            mapping = Config.from_mapping(values).to_mapping()
            assert list(check.iter_errors(mapping)) == [], mapping


@pytest.mark.parametrize(
    "mapping",
    [
        {"gain": "cubic"},
        {"colour": "red"},
        {"discount": "log", "persistence": "0.5"},
        {"persistence": 0.5},
        {"gain": "map"},
        {"discount": "geometric", "persistence": 1},
        {"discount": "log", "log_base": 1},
        {"cutoff": 0},
        {"log_base": "two"},
    ],
)
def test_config_schema_rejects_what_config_rejects(mapping: dict[str, Any]) -> None:
    assert not validator("config").is_valid(mapping)
    with pytest.raises(ValueError):
        Config.from_mapping(mapping)


# Number strings and whether the whole text matches ndcg.input.number's pattern, read by hand:
# an optional sign, digits with at most one point (or a point and digits), an optional
# exponent, and nothing else, not even white space.
NUMBER_STRINGS = [
    ("0.5", True),
    ("1e3", True),
    ("+1", True),
    (".5", True),
    ("5.", True),
    ("-.5E-3", True),
    (" 0.5 ", False),
    ("0.5\n", False),
    ("\t1", False),
    ("1_0", False),
    ("\u0662", False),
    ("\uff11", False),
    ("nan", False),
    ("inf", False),
    ("", False),
    (".", False),
    ("1e", False),
    ("e", False),
    ("0x1", False),
    ("1.2.3", False),
]


def accepted_by_config(mapping: dict[str, Any]) -> bool:
    try:
        Config.from_mapping(mapping)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(("text", "is_number"), NUMBER_STRINGS, ids=repr)
def test_config_schema_and_config_agree_on_number_strings(text: str, is_number: bool) -> None:
    check = validator("config")
    # A gain map's labels and gains have no bounds: only the number grammar decides.
    for mapping in (
        {"gain": "map", "gain_map": {"1": text}},
        {"gain": "map", "gain_map": {text: "1"}},
    ):
        assert (check.is_valid(mapping), accepted_by_config(mapping)) == (is_number, is_number)


@pytest.mark.parametrize(
    ("text", "is_base"), [("e", True), ("2", True), (" e ", False), ("E", False)]
)
def test_config_schema_and_config_agree_on_the_log_base(text: str, is_base: bool) -> None:
    mapping = {"log_base": text}
    assert (validator("config").is_valid(mapping), accepted_by_config(mapping)) == (
        is_base,
        is_base,
    )


def test_presets_file_validates_against_its_schema() -> None:
    presets = presets_or_skip()
    errors = [f"{list(e.path)}: {e.message}" for e in validator("presets").iter_errors(presets)]
    assert errors == []


def test_preset_ids_and_aliases_are_unique_ignoring_case() -> None:
    names = [
        name.lower()
        for preset in presets_or_skip()["presets"]
        for name in [preset["id"], *preset.get("aliases", [])]
    ]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
    assert "ndcg" not in names


def test_every_preset_builds_a_valid_config() -> None:
    for preset in presets_or_skip()["presets"]:
        config = Config.from_mapping(preset["config"])
        assert Config.from_mapping(config.to_mapping()) == config
