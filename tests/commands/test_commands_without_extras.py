"""The command line on a plain install: with every package that only an optional extra of
pyproject.toml brings made unimportable, in the command's process and in every process it
starts, each ``--help``, ``--version``, the bare command and a mistyped one work, and a command
that needs an extra fails with one line that names it and what it installs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from importlib import import_module
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest
from doc_commands import BLOCKER
from install_hints import EXTRAS, PROJECT, names_extras
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from ndcgspec.commands.subcommands import COMMANDS
from ndcgspec.harness.registry import PEER_ADAPTERS


def optional_distributions() -> set[str]:
    """Every distribution an extra names that the core dependencies do not, with those the
    extras of its own that an extra asks for bring (``pyspark[sql]`` brings pandas)."""
    core = {canonicalize_name(Requirement(r).name) for r in PROJECT["dependencies"]}
    found: set[str] = set()
    for line in (r for items in EXTRAS.values() for r in items):
        requirement = Requirement(line)
        if requirement.name == PROJECT["name"]:
            continue  # another extra, whose own requirements are listed
        found.add(canonicalize_name(requirement.name))
        for extra in requirement.extras:
            try:
                brought = requires(requirement.name) or []
            except PackageNotFoundError:
                brought = []  # not installed: nothing of it to hide
            found |= {
                canonicalize_name(r.name)
                for r in map(Requirement, brought)
                if r.marker is not None and r.marker.evaluate({"extra": extra})
            }
    return found - core


def blocked_modules() -> set[str]:
    """The top-level modules of the installed optional distributions."""
    optional = optional_distributions()
    return {
        module
        for module, distributions in packages_distributions().items()
        if {canonicalize_name(d) for d in distributions} <= optional
    }


@pytest.fixture(scope="module")
def plain_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a plain install: the blocker as ``sitecustomize``, run at the start of
    every Python process of the command (PYTHONPATH reaches the workers too)."""
    folder = tmp_path_factory.mktemp("plain")
    (folder / "sitecustomize.py").write_text(BLOCKER.format(blocked=sorted(blocked_modules())))
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


# Each command line through `main`, one after the other in one process: what one command
# imports is blocked in it whatever ran before, since nothing blocked is ever imported.
IN_ONE_PROCESS = """import contextlib, io, json, sys, traceback
from ndcgspec.commands.cli import main
done = []
for args in json.loads(sys.argv[1]):
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for _ in range(2))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as exit:
            status = exit.code or 0
        except BaseException:
            traceback.print_exc()
            status = 1
    done.append([status, *(s.flush() or s.buffer.getvalue().decode() for s in (out, err))])
print(json.dumps(done))
"""


def run_all(
    commands: Sequence[Sequence[str]], env: dict[str, str], cwd: Path
) -> list[subprocess.CompletedProcess[str]]:
    """Each ``ndcgspec`` command line, run in one process of the plain install."""
    shown = subprocess.run(
        [sys.executable, "-c", IN_ONE_PROCESS, json.dumps(commands)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )
    assert shown.returncode == 0, shown.stderr
    return [
        subprocess.CompletedProcess(args, status, out, err)
        for args, (status, out, err) in zip(commands, json.loads(shown.stdout), strict=True)
    ]


def test_the_blocker_hides_an_installed_optional_library(plain_env: dict[str, str]) -> None:
    # Without this the tests below could pass only because nothing was blocked.
    installed = blocked_modules() & {"markdown_it", "sklearn", "pyarrow", "pytest"}
    if not installed:
        pytest.skip("no optional library is installed, so there is nothing to hide")
    module = sorted(installed)[0]
    shown = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, env=plain_env
    )
    assert shown.returncode != 0
    assert f"No module named '{module}'" in shown.stderr


def test_every_help_and_version_works_with_the_core_dependencies_alone(
    plain_env: dict[str, str], tmp_path: Path
) -> None:
    commands = [["--help"], ["--version"], *([c, "--help"] for c in COMMANDS)]
    failed = [
        f"ndcgspec {' '.join(p.args)}: exit {p.returncode}: {p.stderr.strip()[-300:]}"
        for p in run_all(commands, plain_env, tmp_path)
        if p.returncode != 0 or p.stderr or not p.stdout
    ]
    assert failed == []


@pytest.mark.parametrize("args", [[], ["scor"]], ids=["bare", "mistyped"])
def test_a_missing_or_mistyped_command_is_a_usage_error(
    args: list[str], plain_env: dict[str, str], tmp_path: Path
) -> None:
    [shown] = run_all([args], plain_env, tmp_path)
    assert shown.returncode == 2
    assert shown.stderr.startswith("usage: ndcgspec")
    assert "Traceback" not in shown.stderr
    assert shown.stderr.strip().splitlines()[-1].startswith("ndcgspec: error: ")


def peer_extras() -> dict[str, str]:
    """Each built-in peer adapter whose library comes from an extra, and that extra."""
    found = {}
    for name, target in PEER_ADAPTERS.items():
        extra = getattr(import_module(target.partition(":")[0]), "EXTRA", None)
        if extra is not None:
            found[name] = extra
    return found


def test_every_peer_names_an_extra_of_pyproject() -> None:
    assert set(peer_extras().values()) <= set(EXTRAS)
    assert "sklearn" in peer_extras()


def test_a_command_that_needs_an_extra_says_which_in_one_line(
    plain_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 2 x\nq1 Q0 b 2 1 x\n")
    (tmp_path / "other.txt").write_text("q1 Q0 b 1 2 y\nq1 Q0 a 2 1 y\n")
    # Parquet's magic bytes: the file is taken for a table before pyarrow is asked to read it.
    (tmp_path / "run.parquet").write_bytes(b"PAR1" + bytes(8))
    qrels, run, other = (str(tmp_path / n) for n in ("qrels.txt", "run.txt", "other.txt"))
    cases = [
        (["score", qrels, str(tmp_path / "run.parquet")], ("tables",)),
        (["score", "--engine", "spark", qrels, run], ("spark",)),
        (["matrix", "--out", "page"], ("page", "figures")),
        (["compare", "--qrels", qrels, run, other, "--out", "figures"], ("figures",)),
        # Said before anything is computed: the absent qrels are never read.
        (["compare", "--qrels", "absent.txt", run, other, "--out", "figures"], ("figures",)),
        # A peer's error crosses the worker process and the runner to reach the command line.
        (["smoke", "sklearn"], ("sklearn",)),
    ]
    results = run_all([args for args, _ in cases], plain_env, tmp_path)
    wrong = [
        f"ndcgspec {' '.join(args)}: exit {shown.returncode}: {shown.stderr}"
        for (args, extras), shown in zip(cases, results, strict=True)
        if shown.returncode != 2
        or len(lines := shown.stderr.strip().splitlines()) != 1
        or not lines[0].startswith("ndcgspec: error: ")
        or not names_extras(lines[0], extras)
    ]
    assert wrong == []


PEER_ERRORS = """import sys
from importlib import import_module
from ndcgspec.harness.adapters.base import AdapterError
for name, target in {targets!r}.items():
    module, _, factory = target.partition(":")
    try:
        getattr(import_module(module), factory)()
    except AdapterError as error:
        print(name, error, sep="\t")
    else:
        print(name, "started", sep="\t")
"""


def test_each_peer_without_its_library_names_its_own_extra(plain_env: dict[str, str]) -> None:
    extras = peer_extras()
    targets = {name: PEER_ADAPTERS[name] for name in extras}
    shown = subprocess.run(
        [sys.executable, "-c", PEER_ERRORS.format(targets=targets)],
        capture_output=True,
        text=True,
        env=plain_env,
        check=True,
    )
    said = dict(line.split("\t", 1) for line in shown.stdout.splitlines())
    wrong = {n: said.get(n) for n, extra in extras.items() if not names_extras(said[n], [extra])}
    assert wrong == {}
