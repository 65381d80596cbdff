"""The measure grammar of ``spec/grammar.yaml``: every example parses to the configuration the
file states (written by hand from the spec and the presets), every refused string is refused,
and each ir_measures example scores what ir_measures itself returns on trec_eval's test run."""

from __future__ import annotations

import re
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from install_hints import needing

from ndcgspec.measures.dialects import DIALECTS
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config, ConfigError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.spec import spec_file
from ndcgspec.suite.tolerance import float_tolerance

# Read apart from `load_grammar`, as the file a reader sees.
GRAMMAR = yaml.safe_load(spec_file("grammar.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", GRAMMAR["examples"], ids=lambda e: e["text"])
def test_every_example_parses_to_its_stated_configuration(example: dict[str, Any]) -> None:
    assert parse_measure(example["text"]) == Config.from_mapping(example["config"])


@pytest.mark.parametrize("refused", GRAMMAR["refused"], ids=lambda e: e["text"])
def test_refused_strings_say_why(refused: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match=refused["reason"]):
        parse_measure(refused["text"])


def test_the_grammar_is_stated_as_ebnf_with_each_dialect() -> None:
    for rule in ("canonical", "trec_eval_name", "ir_measures_expr"):
        assert f"\n  {rule}" in "\n  " + GRAMMAR["ebnf"].replace("\n", "\n  ")


def rule_strings(rule: str) -> list[str]:
    """The quoted terminals of one EBNF rule, in order, comments left out."""
    body = re.search(rf"^\s*{rule}\s*=(.*?);", GRAMMAR["ebnf"], re.MULTILINE | re.DOTALL)
    assert body is not None, rule
    return re.findall(r'"([^"]*)"', re.sub(r"\(\*.*?\*\)", "", body.group(1), flags=re.DOTALL))


def rule_names(rule: str) -> list[str]:
    """The quoted names of one EBNF rule, in order: its terminals but punctuation."""
    return [s for s in rule_strings(rule) if re.fullmatch(r"[A-Za-z_]\w*", s)]


def test_the_ebnf_names_the_dialects_the_parsers_read() -> None:
    dialects = GRAMMAR["dialects"]
    assert rule_names("dialect") == list(dialects) == list(DIALECTS)
    trec_eval = dialects["trec_eval"]
    assert rule_names("trec_eval_name") == trec_eval["measures"]
    assert rule_names("trec_eval_name")[:3] == trec_eval["gain_measures"]
    ir_measures = dialects["ir_measures"]
    assert rule_names("ir_measures_expr")[:2] == ir_measures["names"]
    assert rule_names("kwarg") == ir_measures["parameters"]


def test_the_atom_token_is_the_ebnf_atom() -> None:
    extra = set(rule_strings("atom"))
    atom = re.compile(GRAMMAR["tokens"]["atom"])
    for code in range(0x250):
        char = chr(code)
        in_ebnf = char in extra or (char.isascii() and char.isalnum())
        assert (atom.fullmatch(char) is not None) == in_ebnf, repr(char)


IR_MEASURES_EXAMPLES = [e for e in GRAMMAR["examples"] if e.get("ir_measures")]


@needing("ir_measures", "ir-measures")
@pytest.mark.parametrize("example", IR_MEASURES_EXAMPLES, ids=lambda e: e["text"])
def test_ir_measures_examples_agree_with_ir_measures(
    example: dict[str, Any], shared_data: Path
) -> None:
    import ir_measures

    folder = shared_data / "trec_eval-test"
    if not folder.is_dir():
        pytest.skip(f"trec_eval's test files {folder} are absent")
    text = example["text"].removeprefix("ir_measures:")
    if "exp-log2" in text and shutil.which("perl") is None:
        pytest.skip("ir_measures serves dcg='exp-log2' with gdeval.pl, which needs perl")
    qrels_path, run_path = folder / "qrels.test", folder / "results.test"
    measure = ir_measures.parse_measure(text)
    theirs = ir_measures.calc_aggregate(
        [measure],
        ir_measures.read_trec_qrels(str(qrels_path)),
        ir_measures.read_trec_run(str(run_path)),
    )[measure]
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    expected = Fraction(evaluate(parse_measure(example["text"]), qrels, run).to_json()["aggregate"])
    terms = max(len(d) for d in run.values()) + max(len(j) for j in qrels.values()) + len(qrels)
    if "exp-log2" in text:
        # gdeval.pl prints 5 decimals, which ir_measures reads back.
        assert abs(Fraction(theirs) - expected) <= Fraction(1, 200000)
    else:
        assert abs(Fraction(theirs) - expected) <= float_tolerance(expected, terms, 64)
