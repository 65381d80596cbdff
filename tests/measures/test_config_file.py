"""Configuration files: YAML and JSON, exact decimals, and one-line errors naming the file."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from ndcgspec.measures.config_file import load_config_file
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import ConfigError

# Twenty-three significant digits: more than a binary double keeps (about 17).
LONG = "0.12345678901234567890123"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("c.yaml", "gain: exponential\ndiscount: geometric\npersistence: 0.7\ncutoff: 10\n"),
        ("c.yml", "{gain: exponential, discount: geometric, persistence: 0.7, cutoff: 10}\n"),
        (
            "c.json",
            '{"gain": "exponential", "discount": "geometric", "persistence": 0.7, "cutoff": 10}',
        ),
        (
            "C.JSON",
            '{"cutoff": 10, "persistence": "0.70", "discount": "geometric", "gain": "exponential"}',
        ),
    ],
)
def test_file_equals_the_measure_string(tmp_path: Path, name: str, text: str) -> None:
    config = load_config_file(write(tmp_path, name, text))
    assert config == parse_measure("nDCG(gain=exponential,discount=geometric,persistence=0.7)@10")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("exact.yaml", f"discount: geometric\npersistence: {LONG}\n"),
        ("exact.json", f'{{"discount": "geometric", "persistence": {LONG}}}'),
    ],
)
def test_numbers_stay_the_decimals_written(tmp_path: Path, name: str, text: str) -> None:
    config = load_config_file(write(tmp_path, name, text))
    assert config.param("persistence") == Decimal(LONG)
    assert f"persistence={LONG}" in config.full()


def test_yaml_gain_map_with_integer_and_decimal_labels(tmp_path: Path) -> None:
    path = write(tmp_path, "map.yaml", "gain: map\ngain_map: {1: 3, 2.0: 9.5, 3: 1000.25}\n")
    assert load_config_file(path).param("gain_map") == (
        (Decimal(1), Decimal(3)),
        (Decimal(2), Decimal("9.5")),
        (Decimal(3), Decimal("1000.25")),
    )


def test_yaml_decimal_with_a_digit_separator_is_not_a_number(tmp_path: Path) -> None:
    # YAML reads 1_000.25 as 1000.25; the number grammar of ndcg.input.number has no "_".
    path = write(tmp_path, "map.yaml", "gain: map\ngain_map:\n  3: 1_000.25\n")
    with pytest.raises(ConfigError, match=r"map\.yaml:3: .*'1_000\.25' is not a finite decimal"):
        load_config_file(path)


def test_empty_object_is_the_default_configuration(tmp_path: Path) -> None:
    assert load_config_file(write(tmp_path, "d.json", "{}")) == parse_measure("nDCG")


BAD_FILES = {
    "invalid yaml": ("c.yaml", "gain: linear\n  ties: [docid-desc\n", 2, "invalid YAML"),
    "invalid json": ("c.json", '{"gain": "linear",\n\n "ties": }\n', 3, "invalid JSON"),
    "yaml key twice": ("c.yaml", "gain: linear\nties: input\ngain: map\n", 3, "'gain' is given"),
    "infinite yaml number": ("c.yaml", "discount: geometric\npersistence: .inf\n", 2, "finite"),
    "nan yaml number": ("c.yaml", "discount: geometric\npersistence: .NaN\n", 2, "finite"),
    "json key twice": ("c.json", '{"gain": "linear", "gain": "map"}', 1, "'gain' is given"),
    "a list": ("c.yaml", "- gain\n- linear\n", 1, "one configuration object"),
    "a scalar": ("c.json", '"nDCG@10"', 1, "one configuration object"),
    "nothing": ("c.yaml", "# only a comment\n", 1, "one configuration object"),
    "unknown key": ("c.yaml", "gian: linear\n", 1, "unknown configuration key 'gian'"),
    "bad choice": ("c.json", '{"ties": "random"}', 1, "unknown choice 'random'"),
    "choice not a string": ("c.yaml", "empty: 0\n", 1, "axis 'empty' takes a choice id"),
    "parameter out of range": ("c.yaml", "discount: geometric\npersistence: 1.5\n", 2, "< 1"),
    "parameter of another choice": ("c.yaml", "persistence: 0.5\n", 1, "applies only to"),
    "cutoff not an integer": ("c.yaml", "cutoff: 2.5\n", 1, "cutoff must be an integer"),
}


@pytest.mark.parametrize(("name", "text", "line", "fragment"), BAD_FILES.values(), ids=BAD_FILES)
def test_bad_file_is_one_line_naming_file_and_line(
    tmp_path: Path, name: str, text: str, line: int | None, fragment: str
) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}: " if line else f"{path}: ")
    assert fragment in message


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(ConfigError, match="cannot read") as caught:
        load_config_file(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_file_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("gain: lin\xe9ar\n".encode("latin-1"))
    with pytest.raises(ConfigError, match="not valid UTF-8"):
        load_config_file(path)
