"""The configuration loader and the measure parser under any input: a configuration equal to
the one the plain reference builds from the same values, or one line naming the file and the
line (``ndcg.limits``) — never a traceback, never a hang."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from conftest import config_mappings, examples
from hostile.configs import ALIAS_BOMB
from hostile.timing import deadline
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ndcgspec.measures.config_file import load_config_file
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config, ConfigError

SECONDS = 10
EXAMPLES = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _yaml_scalar(value: Any, bare: bool) -> str:
    if value is None:
        return "null"
    text = str(value)
    # Bare only where YAML reads the text back as the same decimal: digits with a point.
    if bare and re.fullmatch(r"-?[0-9]+\.[0-9]+", text):
        return text
    return json.dumps(text) if not isinstance(value, int) else text


def yaml_text(values: dict[str, Any], bare: bool) -> str:
    lines = []
    for key, value in values.items():
        if isinstance(value, dict):
            pairs = ", ".join(f"{json.dumps(k)}: {_yaml_scalar(v, bare)}" for k, v in value.items())
            lines.append(f"{key}: {{{pairs}}}")
        else:
            lines.append(f"{key}: {_yaml_scalar(value, bare)}")
    return "\n".join(lines) + "\n"


def json_text(values: dict[str, Any], bare: bool) -> str:
    def scalar(value: Any) -> str:
        text = json.dumps(value)
        if bare and isinstance(value, str) and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value):
            return value
        return text

    def render(value: Any) -> str:
        if isinstance(value, dict):
            return "{" + ", ".join(f"{json.dumps(k)}: {render(v)}" for k, v in value.items()) + "}"
        return scalar(value)

    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {render(v)}" for k, v in values.items()) + "\n}"


def load(text: str, suffix: str) -> Config | str:
    """The configuration the file holds, or the one-line error it gets."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"c{suffix}"
        path.write_text(text, encoding="utf-8")
        try:
            with deadline(SECONDS):
                return load_config_file(path)
        except ConfigError as error:
            message = str(error)
            assert "\n" not in message and len(message) < 1000, message
            assert re.match(rf"{re.escape(str(path))}:[0-9]+: \S", message), message
            return message


@EXAMPLES
@given(config_mappings(), st.sampled_from([".yaml", ".json"]), st.booleans())
def test_a_written_configuration_loads_as_the_reference_builds_it(
    values: dict[str, Any], suffix: str, bare: bool
) -> None:
    text = yaml_text(values, bare) if suffix == ".yaml" else json_text(values, bare)
    assert load(text, suffix) == Config.from_mapping(values)


# Fragments that have broken loaders: nesting, aliases, tags, non-decimal numbers, long and
# huge numbers, controls, a byte-order mark, complex keys, duplicate keys.
FRAGMENTS = [
    "[" * 50,
    "{" * 50,
    "]",
    "}",
    ALIAS_BOMB,
    "&a x",
    "*a",
    "? [a, b]\n: 1\n",
    "!!python/object:os.system",
    "!!binary aGk=",
    "010",
    "0x1F",
    "0o17",
    "1:30",
    "1_000",
    ".inf",
    "-.nan",
    "1e99999999",
    "1e-99999999",
    "9" * 5000,
    "0." + "0" * 300 + "1",
    "\x00",
    "\x1b",
    "\ufeff",
    "\t",
    "\r\n",
    "~",
    "null",
    "true",
    '"',
    "'",
    ":",
    ",",
    "\n  - ",
    "cutoff: 1\ncutoff: 2\n",
    '"gain": "linear", "gain": "map"',
    "gain_map: [[1]]",
    "persistence: [1, 2]",
    "nDCG@10",
]


@st.composite
def hostile_texts(draw: st.DrawFn) -> tuple[str, str]:
    suffix = draw(st.sampled_from([".yaml", ".json"]))
    values = draw(config_mappings())
    text = yaml_text(values, True) if suffix == ".yaml" else json_text(values, True)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            piece = draw(st.sampled_from(FRAGMENTS))
        else:
            piece = draw(st.text(max_size=8))
        cut = draw(st.integers(0, 3))
        text = text[:at] + piece + text[at + cut :]
    return text, suffix


@EXAMPLES
@given(hostile_texts())
def test_a_hostile_file_loads_or_gets_one_line(case: tuple[str, str]) -> None:
    text, suffix = case
    loaded = load(text, suffix)
    if isinstance(loaded, Config):
        # What loads is a configuration its own name describes exactly.
        assert parse_measure(loaded.full()) == loaded


@EXAMPLES
@given(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda head, piece, tail: head + piece + tail,
            st.sampled_from(
                ["nDCG", "nDCG(", "nDCG@", "trec_eval@", "nDCG(log_base=", "nDCG(gain_map={"]
            ),
            st.sampled_from(FRAGMENTS),
            st.sampled_from(["", ")", "}", "@10", ")@0010"]),
        ),
    )
)
def test_a_hostile_measure_parses_or_gets_one_line(text: str) -> None:
    try:
        with deadline(SECONDS):
            config = parse_measure(text)
    except ConfigError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 1000, message
        # A trec_eval or ir_measures name is refused in its own dialect's words.
        assert re.match(r"((trec_eval|ir_measures) )?measure ", message), message
        return
    assert parse_measure(config.canonical()) == config
