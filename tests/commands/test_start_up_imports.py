"""Commands that do not score import only what they use (issue 41): the help of ndcgspec and
of its subcommands, and explaining a measure, import none of numpy, mpmath (whose import loads
its interval arithmetic), the fast engine, the reference's evaluation, jsonschema, PyYAML and
importlib.metadata. The help of ndcgspec, of ``explain`` and of ``which``, and explaining a
measure, start within 3 × ``python -c pass`` where a wheel is installed (issue 41): they import
none of the standard library's modules that cost milliseconds of a start without doing its
work either (`START_UP`). Checked on the modules a fresh interpreter imports for the command,
not by timing it (benchmarks/startup.py times it)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from importlib import import_module
from importlib.util import find_spec
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
# What a start pays for and the help and explaining a measure need none of: typing and the
# records of dataclasses (with inspect), pathlib, shutil (argparse's width of the terminal),
# threading, contextlib, fractions, OpenSSL (hashlib, where the interpreter has its own
# SHA-256), ast (an ir_measures string's parse), shlex and the records of every preset.
OWN_SHA256 = find_spec("_sha2" if sys.version_info >= (3, 12) else "_sha256") is not None
START_UP = (
    "typing",
    "dataclasses",
    "inspect",
    "pathlib",
    "shutil",
    "threading",
    "contextlib",
    "fractions",
    *(("hashlib", "_hashlib") if OWN_SHA256 else ()),
    "ast",
    "shlex",
    "math",
    "ndcgspec.spec.presets",
)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Runs `main` with the words of argv[2:] and prints, as JSON, which of the modules named in
# argv[1] it imported: those held after it and not before (an editable install's path finder
# imports pathlib and contextlib as the interpreter starts). Nothing is imported before `main`
# but what it imports itself.
PROBE = """
import sys
before = set(sys.modules)
import os
from ndcgspec.commands.cli import main
sys.stdout = open(os.devnull, "w")
try:
    main(sys.argv[2:])
except SystemExit:
    pass
found = [n for n in sys.argv[1].split(",") if n in sys.modules and n not in before]
sys.stdout = sys.__stdout__
print(",".join(found))
"""


def imported(words: list[str], cache: Path, modules: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of `modules` a fresh interpreter imports for ``ndcgspec WORDS``, run twice with
    the cache folder `cache`: the second run reads the parses the first kept (the spec's YAML
    and CITATION.cff are parsed, with PyYAML, once per machine)."""
    command = [sys.executable, "-c", PROBE, ",".join(modules), *words]
    env = {**os.environ, "NDCGSPEC_CACHE_DIR": str(cache)}
    for _ in range(2):
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=120, check=True, env=env
        )
    return [name for name in done.stdout.strip().split(",") if name]


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


@pytest.mark.parametrize(
    "words",
    [
        ["--help"],
        ["explain", "--help"],
        ["which", "--help"],
        ["not-a-command"],
        ["explain", "ndcg_cut.10"],
        ["explain", "nDCG@10"],
        ["explain", "trec_eval@10"],
        ["explain", "nDCG(gain=exponential,ties=average)@10", "--cite", "--long"],
        ["explain", "--choices"],
    ],
    ids=" ".join,
)
def test_the_help_and_explain_import_nothing_a_start_need_not_pay_for(
    words: list[str], tmp_path: Path
) -> None:
    assert imported(words, tmp_path, START_UP) == []


def test_the_probe_sees_what_a_start_pays_for(tmp_path: Path) -> None:
    # An ir_measures string is parsed as Python, with ast: were the probe blind to START_UP,
    # the test above would pass for nothing.
    assert imported(["explain", "nDCG(dcg='exp-log2')@10"], tmp_path, START_UP) == ["ast"]


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
def test_reading_configurations_and_decimals_loads_no_mpmath(module: str, tmp_path: Path) -> None:
    # What parses a measure and its exact decimals is the standard library's: mpmath comes with
    # the arithmetic (`reference.precision`, `reference.arithmetic`). Run twice with a cache
    # folder of its own: the first run parses the spec's YAML, with PyYAML, and keeps it.
    code = f"import sys, {module}; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    env = {**os.environ, "NDCGSPEC_CACHE_DIR": str(tmp_path)}
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            env=env,
        )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_summary_listed_without_the_module_is_the_one_it_registers(name: str) -> None:
    # `ndcgspec --help` prints COMMANDS' summaries; `ndcgspec NAME --help` the module's own.
    subparsers = argparse.ArgumentParser().add_subparsers()
    import_module(COMMANDS[name].module).register(subparsers)
    (choice,) = subparsers._choices_actions
    assert (choice.dest, choice.help) == (name, COMMANDS[name].summary)
