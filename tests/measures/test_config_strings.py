"""Measure strings: canonical and full forms round-trip, equality is equality of the canonical
form, white space is tolerated, fingerprints are stable, and bad input is one ConfigError line
that names the valid ids (spec anchor ``ndcg``).

Configurations are drawn from the spec itself: its axes, choice ids and parameter bounds.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import choice_axes, config_mappings, examples, spec_param
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config, ConfigError
from ndcgspec.spec import load_presets, load_spec, spec_file

TOKEN = re.compile(r"[A-Za-z0-9_.+\-]+|[(),=@{}:]")
FINGERPRINT = re.compile(r"[0-9a-f]{16}")
MEASURE_EXAMPLES = settings(max_examples=examples(150), deadline=None)


def spec_axes() -> list[dict[str, Any]]:
    return load_spec()["axes"]


configs = config_mappings().map(Config.from_mapping)


@MEASURE_EXAMPLES
@given(configs)
def test_canonical_and_full_forms_round_trip(config: Config) -> None:
    for text in (config.canonical(), config.full()):
        parsed = parse_measure(text)
        assert parsed == config
        assert parsed.canonical() == config.canonical()
        assert parsed.full() == config.full()


@MEASURE_EXAMPLES
@given(configs)
def test_mapping_round_trips(config: Config) -> None:
    assert Config.from_mapping(config.to_mapping()) == config


@MEASURE_EXAMPLES
@given(configs)
def test_full_form_names_every_axis_and_canonical_only_differences(config: Config) -> None:
    full = config.full()
    for axis in choice_axes():
        assert f"{axis['id']}={config.choice(axis['id'])}" in full
        differs = config.choice(axis["id"]) != axis["default"]
        assert (f"{axis['id']}=" in config.canonical()) == differs


@MEASURE_EXAMPLES
@given(configs, configs)
def test_equality_is_equality_of_the_canonical_form(a: Config, b: Config) -> None:
    assert (a == b) == (a.canonical() == b.canonical())
    assert (a == b) == (a.fingerprint() == b.fingerprint())


def test_writing_the_defaults_out_changes_nothing() -> None:
    explicit = {a["id"]: a["default"] for a in spec_axes()}
    explicit.update({"log_base": "2.000", "log_offset": 1})
    config = Config.from_mapping(explicit)
    assert config == Config.default()
    assert config.canonical() == "nDCG"
    assert parse_measure("nDCG(log_base=2.0)@10") == parse_measure("nDCG@10")


def test_equal_decimals_written_differently_are_equal() -> None:
    a = parse_measure("nDCG(discount=geometric,persistence=0.50)")
    b = parse_measure("nDCG(discount=geometric,persistence=.5)")
    assert a == b
    assert a.canonical() == "nDCG(discount=geometric,persistence=0.5)"


@MEASURE_EXAMPLES
@given(configs, st.data())
def test_white_space_between_tokens_is_ignored(config: Config, data: st.DataObject) -> None:
    tokens = TOKEN.findall(config.full())
    gaps = data.draw(
        st.lists(st.text(alphabet=" \t\n", max_size=3), min_size=len(tokens), max_size=len(tokens))
    )
    spaced = "".join(gap + token for gap, token in zip(gaps, tokens, strict=True)) + " "
    assert parse_measure(spaced) == config


@MEASURE_EXAMPLES
@given(configs)
def test_fingerprint_is_sixteen_hex_digits_and_stable(config: Config) -> None:
    fingerprint = config.fingerprint()
    assert FINGERPRINT.fullmatch(fingerprint)
    assert parse_measure(config.canonical()).fingerprint() == fingerprint
    assert Config.from_mapping(config.to_mapping()).fingerprint() == fingerprint


def test_fingerprints_differ_across_every_single_choice() -> None:
    example = {"label_map": {"1": "3"}}
    configs_by_choice = [
        Config.from_mapping(
            {
                axis["id"]: c["id"],
                **{
                    name: example[spec_param(name)["type"]]
                    for name in c.get("params", [])
                    if spec_param(name).get("required")
                },
            }
        )
        for axis in choice_axes()
        for c in axis["choices"]
    ]
    configs_by_choice += [Config.default().replace(cutoff=k) for k in (1, 10)]
    prints = [c.fingerprint() for c in configs_by_choice]
    distinct = {c.full() for c in configs_by_choice}
    assert len(set(prints)) == len(distinct)


def one_line_error(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_measure(text)
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message, message
    return message


def test_unknown_axis_lists_every_axis_and_parameter_id() -> None:
    message = one_line_error("nDCG(colour=red)")
    assert "colour" in message
    for axis in spec_axes():
        assert axis["id"] in message
        for param in axis.get("params", []):
            assert param["id"] in message


@pytest.mark.parametrize("axis", [a["id"] for a in load_spec()["axes"] if "choices" in a])
def test_unknown_choice_lists_the_axis_choices(axis: str) -> None:
    message = one_line_error(f"nDCG({axis}=bogus)")
    choices = next(a for a in choice_axes() if a["id"] == axis)["choices"]
    assert "bogus" in message
    for choice in choices:
        assert choice["id"] in message


def test_unknown_preset_lists_the_preset_ids() -> None:
    if not spec_file("presets.yaml").is_file():
        pytest.skip("spec/presets.yaml is absent")
    message = one_line_error("nosuchtool@10")
    assert "nosuchtool" in message
    for preset in load_presets().presets:
        assert preset.id in message


@pytest.mark.parametrize(
    ("text", "name", "bound"),
    [
        ("nDCG(discount=geometric,persistence=1)", "persistence", "exclusive_maximum"),
        ("nDCG(discount=geometric,persistence=1.5)", "persistence", "exclusive_maximum"),
        ("nDCG(discount=geometric,persistence=0)", "persistence", "exclusive_minimum"),
        ("nDCG(log_base=1)", "log_base", "exclusive_minimum"),
        ("nDCG(discount=jarvelin2002,log_base=0.5)", "log_base", "exclusive_minimum"),
        ("nDCG(log_offset=0)", "log_offset", "exclusive_minimum"),
        ("nDCG(log_offset=-1)", "log_offset", "exclusive_minimum"),
    ],
)
def test_parameter_out_of_range_names_the_bound(text: str, name: str, bound: str) -> None:
    message = one_line_error(text)
    assert name in message
    assert spec_param(name)[bound] in message


@pytest.mark.parametrize(
    ("text", "owner"),
    [
        ("nDCG(persistence=0.5)", "discount=geometric"),
        ("nDCG(discount=reciprocal,log_base=2)", "discount=log or jarvelin2002"),
        ("nDCG(discount=jarvelin2002,log_offset=2)", "discount=log"),
        ("nDCG(gain_map={1:3})", "gain=map"),
    ],
)
def test_parameter_of_an_inactive_choice_names_its_choices(text: str, owner: str) -> None:
    assert owner in one_line_error(text)


def test_required_parameter_missing_is_named() -> None:
    assert "gain_map" in one_line_error("nDCG(gain=map)")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "nDCG(",
        "nDCG(gain)",
        "nDCG(gain=)",
        "nDCG(gain=linear",
        "nDCG(gain=linear,,ties=input)",
        "nDCG(gain=linear)(ties=input)",
        "nDCG)",
        "nDCG@",
        "nDCG@0",
        "nDCG@-3",
        "nDCG@1.5",
        "nDCG@ten",
        "nDCG@10@20",
        "nDCG#",
        "nDCG(gain=map,gain_map={1:3)",
        "nDCG(gain=map,gain_map={1})",
        "nDCG(gain=map,gain_map={1:3,1:4})",
        "nDCG(gain=map,gain_map={})",
        "nDCG(gain=linear,gain=exponential)",
        "nDCG(\ngain=cubic)",
        "nDCG(ties=input)\n@\n0",
        "nDCG(gain=liné)",
    ],
)
def test_malformed_string_is_one_config_error_line(text: str) -> None:
    one_line_error(text)


@pytest.mark.parametrize("invalid", [10.0, True])
def test_replace_checks_a_value_equal_to_one_it_accepted_before(invalid: Any) -> None:
    # `replace` keeps each copy it builds; 10.0 and True must not be taken for 10.
    assert Config.default().replace(cutoff=10).cutoff == 10
    with pytest.raises(ConfigError, match="cutoff must be an integer"):
        Config.default().replace(cutoff=invalid)


def test_replace_with_a_gain_map_as_a_dict_builds_the_configuration() -> None:
    # A dict cannot be a key of the kept copies; it is checked and built every time.
    mapped = Config.default().replace(gain="map", gain_map={"1": "3"})
    assert mapped.canonical() == "nDCG(gain=map,gain_map={1:3})"
    with pytest.raises(ConfigError):
        Config.default().replace(gain="map", gain_map={"x": "3"})
