"""Configurations under hostile input: limits checked before any arithmetic, one line naming
file and line, and names that describe exactly the decimals computed (``ndcg.limits``)."""

from __future__ import annotations

import os
import subprocess
from decimal import Decimal
from pathlib import Path

import mpmath
import pytest
from hostile.configs import CONFIG_FILES, MEASURES
from hostile.timing import deadline

from ndcgspec.measures.config_file import load_config_file
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import ConfigError
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import Judgment, Posting
from ndcgspec.reference.location import Location


@pytest.mark.parametrize("name", sorted(CONFIG_FILES))
def test_hostile_file_is_one_line_naming_file_and_line(tmp_path: Path, name: str) -> None:
    text, line, problem = CONFIG_FILES[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with deadline(10), pytest.raises(ConfigError) as caught:
        load_config_file(path)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400
    assert message.startswith(f"{path}:{line}: ")
    assert problem in message


@pytest.mark.parametrize("measure", sorted(MEASURES), ids=lambda m: m[:40])
def test_hostile_measure_is_one_short_line(measure: str) -> None:
    with deadline(10), pytest.raises(ConfigError) as caught:
        parse_measure(measure)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400
    assert MEASURES[measure] in message


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        # 1e-45 in plain notation: "0." then 44 zeros then "1" (counted by hand).
        ("1e-45", "0." + "0" * 44 + "1"),
        (
            "0.99999999999999999999999999999999999999999",
            "0.99999999999999999999999999999999999999999",
        ),
    ],
)
def test_persistence_is_named_with_every_digit(written: str, plain: str) -> None:
    config = parse_measure(f"nDCG(discount=geometric,persistence={written})")
    assert config.canonical() == f"nDCG(discount=geometric,persistence={plain})"
    assert parse_measure(config.canonical()) == config


def test_offset_beyond_28_digits_is_not_the_default() -> None:
    written = "1.00000000000000000000000000001"
    config = parse_measure(f"nDCG(log_offset={written})")
    assert config.canonical() == f"nDCG(log_offset={written})"
    assert config.fingerprint() != parse_measure("nDCG").fingerprint()


def test_octal_looking_cutoff_is_refused_not_read_as_eight(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("cutoff: 010\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a decimal integer"):
        load_config_file(path)
    path.write_text("cutoff: 10\n", encoding="utf-8")
    assert load_config_file(path).canonical() == "nDCG@10"


def _score(measure: str, label: str) -> mpmath.mpf:
    qrels = {"q1": {"d1": Judgment(Decimal(label), Location("qrels", 1))}}
    run = {"q1": (Posting("d1", Decimal(1), Location("run", 1)),)}
    return evaluate(parse_measure(measure), qrels, run).per_query["q1"].dcg


@pytest.mark.parametrize("label", ["1e20", "1e99999", "-1e20"])
def test_exponential_gain_refuses_labels_beyond_the_limit(label: str) -> None:
    with deadline(10), pytest.raises(InputError, match=r"^qrels:1: label .* beyond ±1000"):
        _score("nDCG(gain=exponential)", label)


def test_exponential_gain_at_the_limit_is_computed() -> None:
    # DCG of one document at rank 1 under 1/log2(2) = 1: 2^1000 - 1, an exact integer.
    dcg = _score("nDCG(gain=exponential)", "1000")
    with mpmath.workdps(400):
        assert mpmath.nstr(dcg, 40) == mpmath.nstr(mpmath.mpf(2**1000 - 1), 40)


@pytest.mark.parametrize("exponent", [30, 45])
def test_log_base_near_one_keeps_every_output_digit(exponent: int) -> None:
    # b = 1 + 10^-k: DCG of gain 1 at rank 1 is 1/log_b(2) = ln(1 + 10^-k) / ln 2, here from
    # the series x - x^2/2 + x^3/3 at 120 digits, independent of mpmath's log.
    with mpmath.workdps(120):
        x = mpmath.mpf(10) ** -exponent
        expected = (x - x**2 / 2 + x**3 / 3) / mpmath.log(2)
    base = "1." + "0" * (exponent - 1) + "1"
    dcg = _score(f"nDCG(log_base={base})", "1")
    assert mpmath.nstr(dcg, 40) == mpmath.nstr(expected, 40)


def test_a_file_beyond_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    with path.open("wb") as handle:
        handle.truncate(2**31)  # a sparse 2 GiB file: reading it whole would be the failure
    with deadline(10), pytest.raises(ConfigError, match=r"larger than 1048576 bytes"):
        load_config_file(path)


def test_a_configuration_read_from_a_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"printf 'cutoff: 3\\n' > '{fifo}'"])
    try:
        with deadline(10):
            assert load_config_file(fifo).canonical() == "nDCG@3"
    finally:
        writer.wait(timeout=10)
