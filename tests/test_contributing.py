"""CONTRIBUTING.md's recipes held true: each lists at most five hand-edited files, every file
it names exists (a ``<name>`` part stands for the new module's name), and no other module does
the work the recipe keeps in those files."""

from __future__ import annotations

import argparse
import ast
import re
from importlib import import_module
from pathlib import Path
from typing import get_args

import pytest
from test_architecture import REPO_ROOT, module_files

from ndcgspec.commands.cli import build_parser
from ndcgspec.inference import paired_tests
from ndcgspec.inference.paired_tests import PAIRED_TESTS

CONTRIBUTING = REPO_ROOT / "CONTRIBUTING.md"


def recipe_files(title: str) -> list[str]:
    """The paths of the bullet list of the section `title`: each bullet's first code span."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- `([^`]+)`", section, flags=re.MULTILINE)


@pytest.mark.parametrize(
    "recipe", ["A new statistical test", "A new choice on an axis", "A new peer adapter"]
)
def test_the_recipe_names_at_most_five_files_that_exist(recipe: str) -> None:
    files = recipe_files(recipe)
    assert 1 <= len(files) <= 5, files
    for name in files:
        if "<" in name:
            folder = REPO_ROOT / Path(name).parent
            assert folder.is_dir(), name
        else:
            assert (REPO_ROOT / name).is_file(), name


def _library_modules() -> dict[str, Path]:
    return {name: path for name, path in module_files().items() if ".inference." not in name}


def test_no_module_outside_inference_runs_or_reads_a_test_by_hand() -> None:
    # The tests' functions and outcome records, as the registry imports them: a command
    # that imported one would run or read that test beside the registry, not through it.
    # The draws every test of a comparison shares (DrawnSigns) are not a test's own.
    outcomes = {kind.__name__ for kind in get_args(paired_tests.Outcome)}
    tree = ast.parse(Path(paired_tests.__file__).read_text(encoding="utf-8"))
    private = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                found = getattr(import_module(node.module), alias.name)
                returned = getattr(found, "__annotations__", {}).get("return")
                if alias.name in outcomes or returned in outcomes:
                    private.add((node.module, alias.name))
    assert len(private) >= 2 * len(PAIRED_TESTS), private
    names = set(PAIRED_TESTS)
    for module, path in _library_modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found = {(node.module, a.name) for a in node.names} & private
                assert not found, f"{module} imports {found}: go through PAIRED_TESTS"
            # A comparison with a test's name is a dispatch by hand (`row["test"] == "t"`).
            if isinstance(node, ast.Compare):
                constants = [
                    c.value for c in (node.left, *node.comparators) if isinstance(c, ast.Constant)
                ]
                assert not names & set(constants), f"{module}:{node.lineno} names a test"


def test_the_score_flag_recipe_names_at_most_five_files_that_exist() -> None:
    files = recipe_files("A new command-line flag")
    assert 1 <= len(files) <= 5, files
    for name in files:
        assert (REPO_ROOT / name).is_file(), name


def test_every_flag_of_score_is_named_in_the_docs() -> None:
    # The recipe's fourth file: a flag no page names is one a user finds only by --help.
    docs = "\n".join(page.read_text(encoding="utf-8") for page in (REPO_ROOT / "docs").glob("*.md"))
    spelled = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", docs))
    subparsers = next(
        action
        for action in build_parser(["score"])._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    undocumented = [
        action.option_strings
        for action in subparsers.choices["score"]._actions
        if action.option_strings not in ([], ["-h", "--help"])
        and not set(action.option_strings) & spelled
    ]
    assert not undocumented, undocumented
