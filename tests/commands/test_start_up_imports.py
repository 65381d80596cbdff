"""Commands that do not score import only what they use (issue 41): the help of ndcgspec and
of its subcommands imports none of numpy, mpmath (whose import loads its interval arithmetic)
or the fast engine, and explaining a measure imports no numpy. Checked on the modules a fresh
interpreter holds after the command, not by timing it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib import import_module

import pytest

from ndcgspec.commands.subcommands import COMMANDS

HEAVY = ("numpy", "mpmath", "mpmath.ctx_iv", "ndcgspec.engine", "ndcgspec.reference.evaluate")

# Runs `main` with the words of argv[1:] and prints, as JSON, which of HEAVY it imported.
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


@pytest.mark.parametrize(
    "words",
    [
        ["--help"],
        ["explain", "--help"],
        ["which", "--help"],
        ["cases", "--help"],
        ["cases", "show", "--help"],
        ["not-a-command"],
    ],
    ids=" ".join,
)
def test_a_command_that_does_not_score_imports_neither_numpy_nor_mpmath(words: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), *words],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == [], done.stderr


def test_explaining_a_measure_imports_neither_numpy_nor_the_engine() -> None:
    # The explanation is the reference's (its configuration parses with mpmath), not the
    # fast engine's.
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), "explain", "nDCG@10"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    imported = json.loads(done.stdout)
    assert "numpy" not in imported and "ndcgspec.engine" not in imported, imported


def test_the_probe_sees_what_a_scoring_command_imports() -> None:
    # The same probe on `score --help`, whose module imports the engine: were the probe blind
    # (a wrong module name, output lost), the test above would pass for nothing.
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), "score", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "numpy" in json.loads(done.stdout) and "ndcgspec.engine" in json.loads(done.stdout)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_summary_listed_without_the_module_is_the_one_it_registers(name: str) -> None:
    # `ndcgspec --help` prints COMMANDS' summaries; `ndcgspec NAME --help` the module's own.
    subparsers = argparse.ArgumentParser().add_subparsers()
    import_module(COMMANDS[name].module).register(subparsers)
    (choice,) = subparsers._choices_actions
    assert (choice.dest, choice.help) == (name, COMMANDS[name].summary)
