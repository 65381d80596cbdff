"""Commands that do not score import only what they use (issue 41): the help of ndcgspec and
of its subcommands, and explaining a measure, import none of numpy, mpmath (whose import loads
its interval arithmetic), the fast engine, the reference's evaluation, jsonschema, PyYAML and
importlib.metadata. Checked on the modules a fresh interpreter holds after the command, not by
timing it (benchmarks/startup.py times it)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

from ndcgspec.commands.subcommands import COMMANDS

HEAVY = (
    "numpy",
    "mpmath",
    "mpmath.ctx_iv",
    "ndcgspec.engine",
    "ndcgspec.reference.evaluate",
    "jsonschema",
    "yaml",
    "importlib.metadata",
)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Runs `main` with the words of argv[2:] and prints, as JSON, which of the modules named in
# argv[1] it imported.
PROBE = """
import contextlib, io, json, sys
from ndcgspec.commands.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[2:])
    except SystemExit:
        pass
print(json.dumps([name for name in json.loads(sys.argv[1]) if name in sys.modules]))
"""


def imported(words: list[str], cache: Path) -> list[str]:
    """Which of HEAVY a fresh interpreter holds after ``ndcgspec WORDS``, run twice with the
    cache folder `cache`: the second run reads the parses the first kept (the spec's YAML and
    CITATION.cff are parsed, with PyYAML, once per machine)."""
    command = [sys.executable, "-c", PROBE, json.dumps(HEAVY), *words]
    env = {**os.environ, "NDCGSPEC_CACHE_DIR": str(cache)}
    for _ in range(2):
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=120, check=True, env=env
        )
    found: list[str] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize(
    "words",
    [
        ["--help"],
        ["explain", "--help"],
        ["which", "--help"],
        ["cases", "--help"],
        ["cases", "show", "--help"],
        ["not-a-command"],
        ["explain", "ndcg_cut.10"],
        ["explain", "nDCG(gain=exponential,ties=average)@10", "--cite", "--long"],
        ["explain", "--choices"],
    ],
    ids=" ".join,
)
def test_a_command_that_does_not_score_imports_none_of_the_heavy_modules(
    words: list[str], tmp_path: Path
) -> None:
    assert imported(words, tmp_path) == []


def test_the_probe_sees_what_a_trace_imports(tmp_path: Path) -> None:
    # A trace evaluates the query, with mpmath: the probe sees modules imported inside the
    # command's functions, so the test above would fail were explain's trace imported with it.
    trace = ["--query", "q1", "--qrels", str(EXAMPLES / "qrels.txt")]
    trace += ["--run", str(EXAMPLES / "run.txt")]
    found = imported(["explain", "nDCG@10", *trace], tmp_path)
    assert {"mpmath", "ndcgspec.reference.evaluate"} <= set(found)
    assert "numpy" not in found and "ndcgspec.engine" not in found


def test_the_probe_sees_what_a_scoring_command_imports(tmp_path: Path) -> None:
    # The same probe on `score --help`, whose module imports the engine: were the probe blind
    # (a wrong module name, output lost), the tests above would pass for nothing.
    found = imported(["score", "--help"], tmp_path)
    assert "numpy" in found and "ndcgspec.engine" in found


@pytest.mark.parametrize(
    "module",
    [
        "ndcgspec.reference",
        "ndcgspec.reference.errors",
        "ndcgspec.reference.decimals",
        "ndcgspec.reference.config",
        "ndcgspec.measures.grammar",
    ],
)
def test_reading_configurations_and_decimals_loads_no_mpmath(module: str) -> None:
    # What parses a measure and its exact decimals is the standard library's: mpmath comes with
    # the arithmetic (`reference.precision`, `reference.arithmetic`).
    code = f"import sys, {module}; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_summary_listed_without_the_module_is_the_one_it_registers(name: str) -> None:
    # `ndcgspec --help` prints COMMANDS' summaries; `ndcgspec NAME --help` the module's own.
    subparsers = argparse.ArgumentParser().add_subparsers()
    import_module(COMMANDS[name].module).register(subparsers)
    (choice,) = subparsers._choices_actions
    assert (choice.dest, choice.help) == (name, COMMANDS[name].summary)
