"""The built wheel ships the spec and the cases as package data, so an installed ndcgspec
finds ``ndcg.yaml`` and the JSON Schemas without a checkout (spec anchor ``ndcg``); installed,
it finds the shared data through ``NDCGSPEC_SHARED`` alone, never inside site-packages
(``suite/folders.py``)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib.metadata import version
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import REPO_ROOT

from ndcgspec.suite.folders import SHARED_ENV, shared_root

BUILD_WHEEL = (
    "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
)
PACKAGE_DIRS: dict[str, str] = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"][
    "setuptools"
]["package-dir"]
"""Each package of the wheel and the folder of the checkout that holds it."""
SOURCE_ITEMS = ["pyproject.toml", "README.md", *sorted(set(PACKAGE_DIRS.values()))]


def can_build_wheels(setuptools_version: str) -> bool:
    """Setuptools builds wheels by itself from 70.1 on; older releases need 'wheel'."""
    major, minor = (int(part) for part in setuptools_version.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built, without network access, from a copy of the tree (a copy, so that the
    build leaves no artefacts in the checkout)."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed, so the wheel cannot be built offline")
    if not can_build_wheels(version("setuptools")):
        pytest.skip(
            f"setuptools {version('setuptools')} builds wheels only with the 'wheel' package, "
            "which is not installed, so the wheel cannot be built offline"
        )
    source = tmp_path_factory.mktemp("source")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    for item in SOURCE_ITEMS:
        path = REPO_ROOT / item
        if path.is_dir():
            shutil.copytree(path, source / item, ignore=ignore)
        else:
            shutil.copy2(path, source / item)
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-c", BUILD_WHEEL, str(out)],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    return out / built.stdout.split()[-1]


@pytest.fixture(scope="module")
def wheel_names(wheel: Path) -> set[str]:
    """The file names inside the wheel."""
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_ships_the_spec_and_its_schemas(wheel_names: set[str]) -> None:
    assert "ndcgspec/spec/ndcg.yaml" in wheel_names
    assert "ndcgspec/spec/__init__.py" in wheel_names
    committed = sorted(p.name for p in (REPO_ROOT / "spec" / "schema").glob("*.json"))
    assert committed, "spec/schema holds no JSON Schema"
    for name in committed:
        assert f"ndcgspec/spec/schema/{name}" in wheel_names


def test_wheel_ships_the_presets_when_they_exist(wheel_names: set[str]) -> None:
    if not (REPO_ROOT / "spec" / "presets.yaml").is_file():
        pytest.skip("spec/presets.yaml is absent")
    assert "ndcgspec/spec/presets.yaml" in wheel_names


def test_wheel_ships_the_cases_package_and_every_case_file(wheel_names: set[str]) -> None:
    assert "ndcgspec/cases/__init__.py" in wheel_names
    cases = REPO_ROOT / "cases"
    for path in cases.rglob("*.json"):
        assert f"ndcgspec/cases/{path.relative_to(cases).as_posix()}" in wheel_names


def test_wheel_ships_every_package_of_the_map(wheel_names: set[str]) -> None:
    packages = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]
    for package in packages:
        assert f"{package.replace('.', '/')}/__init__.py" in wheel_names
    for package, folder in PACKAGE_DIRS.items():
        for path in (REPO_ROOT / folder).glob("*.py"):
            assert f"{package.replace('.', '/')}/{path.name}" in wheel_names
    assert "ndcgspec/harness/adapters/ndcg_adapter.mjs" in wheel_names


def test_wheel_ships_the_python_api_as_the_ndcgspec_package(wheel_names: set[str]) -> None:
    assert "ndcgspec/__init__.py" in wheel_names
    assert "ndcgspec/evaluation.py" in wheel_names


def test_wheel_ships_the_citation_file(wheel_names: set[str]) -> None:
    # `explain --cite` reads the release year from it in an installed package.
    assert "ndcgspec/commands/CITATION.cff" in wheel_names


PUBLISHED = "published/trec_eval-test-meas_params.json"
"""Published cases on small files (trec_eval's own test files): judged in seconds."""


class Installed(NamedTuple):
    """A virtual environment with the wheel installed: its scripts and its site-packages."""

    scripts: Path
    site: Path


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A fresh virtual environment, far from any checkout, with the wheel installed by pip and
    its dependencies read from this environment's site-packages through a path file."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The path file is written after the install: pip, seeing this environment's editable
    # ndcgspec in the new one, would otherwise refuse the wheel or replace the editable.
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps"]
    done = subprocess.run([*pip, "--no-index", str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(subprocess.check_output([str(python), "-c", purelib], text=True).strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return Installed(venv / "bin", site)


def installed_command(
    installed: Installed, shared: Path | None, folder: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """The installed ``ndcgspec`` run in `folder` with ``NDCGSPEC_SHARED`` set to `shared`
    (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != SHARED_ENV}
    if shared is not None:
        env[SHARED_ENV] = str(shared)
    return subprocess.run(
        [str(installed.scripts / "ndcgspec"), *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def published_results(
    installed: Installed, shared: Path | None, folder: Path
) -> list[dict[str, Any]]:
    """The result records of ``ndcgspec run reference`` on the published cases of PUBLISHED."""
    report = folder / "report.jsonl"
    run = ["run", "reference", "--preset", "trec_eval", "-q", "-j", "1", "--cases", PUBLISHED]
    done = installed_command(installed, shared, folder, *run, "--report", str(report))
    assert report.is_file(), done.stderr[-2000:]
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    results = [r for r in records if r["type"] == "result"]
    assert results, done.stdout
    return results


def checked_counts(installed: Installed, shared: Path | None, folder: Path) -> tuple[int, int]:
    """Cases and skipped cases of ``ndcgspec cases check`` on PUBLISHED."""
    check = ["cases", "check", "--glob", PUBLISHED, "--jobs", "1"]
    done = installed_command(installed, shared, folder, *check)
    found = re.search(r"(\d+) cases, 0 problems, (\d+) skipped", done.stdout)
    assert found, done.stdout + done.stderr[-2000:]
    return int(found[1]), int(found[2])


def test_the_commands_run_the_installed_package(installed: Installed, tmp_path: Path) -> None:
    where = "import ndcgspec.harness; print(ndcgspec.harness.__file__)"
    python = installed.scripts / "python"
    located = subprocess.check_output([str(python), "-c", where], cwd=tmp_path, text=True)
    assert Path(located.strip()).is_relative_to(installed.site)


def test_installed_the_variable_names_the_shared_data(
    installed: Installed, shared_data: Path, tmp_path: Path
) -> None:
    results = published_results(installed, shared_data.parent, tmp_path)
    assert {r["outcome"] for r in results} == {"pass"}, results[0].get("reason")
    cases, skipped = checked_counts(installed, shared_data.parent, tmp_path)
    assert cases > 0 and skipped == 0


def test_installed_an_empty_shared_folder_skips_the_published_cases(
    installed: Installed, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for result in published_results(installed, empty, tmp_path):
        assert result["outcome"] == "skip"
        assert f"is absent from {empty / 'data'}" in result["reason"]
    cases, skipped = checked_counts(installed, empty, tmp_path)
    assert skipped == cases > 0


def test_installed_without_the_variable_nothing_inside_site_packages_is_read(
    installed: Installed, tmp_path: Path
) -> None:
    # Where an installed ndcgspec once looked: a folder `shared` inside site-packages, here the
    # real shared folder when there is one.
    inside = installed.site / "shared"
    shared = shared_root()
    if shared is not None and shared.is_dir():
        inside.symlink_to(shared.resolve(), target_is_directory=True)
    try:
        results = published_results(installed, None, tmp_path)
        cases, skipped = checked_counts(installed, None, tmp_path)
    finally:
        inside.unlink(missing_ok=True)
    for result in results:
        assert result["outcome"] == "skip"
        assert SHARED_ENV in result["reason"] and "site-packages" not in result["reason"]
    assert skipped == cases > 0
