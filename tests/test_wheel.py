"""The built wheel ships the spec and the cases as package data, so an installed ndcgspec
finds ``ndcg.yaml`` and the JSON Schemas without a checkout (spec anchor ``ndcg``)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import version

import pytest
from conftest import REPO_ROOT

BUILD_WHEEL = (
    "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
)
SOURCE_ITEMS = [
    "pyproject.toml",
    "README.md",
    "api",
    "spec",
    "cases",
    "reference",
    "engine",
    "harness",
    "spark",
]


def can_build_wheels(setuptools_version: str) -> bool:
    """Setuptools builds wheels by itself from 70.1 on; older releases need 'wheel'."""
    major, minor = (int(part) for part in setuptools_version.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The file names inside a wheel built, without network access, from a copy of the tree
    (a copy, so that the build leaves no artefacts in the checkout)."""
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
    wheel = out / built.stdout.split()[-1]
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


def test_wheel_ships_the_reference_and_the_harness(wheel_names: set[str]) -> None:
    assert "ndcgspec/reference/config_schema.py" in wheel_names
    assert "ndcgspec/harness/cli.py" in wheel_names
    assert "ndcgspec/engine/scoring.py" in wheel_names
    assert "ndcgspec/spark/scoring.py" in wheel_names
    for folder in ("suite", "running", "adapters", "adapters/peers", "analysis"):
        assert f"ndcgspec/harness/{folder}/__init__.py" in wheel_names
    assert "ndcgspec/harness/adapters/ndcg_adapter.mjs" in wheel_names


def test_wheel_ships_the_python_api_as_the_ndcgspec_package(wheel_names: set[str]) -> None:
    assert "ndcgspec/__init__.py" in wheel_names
    assert "ndcgspec/evaluation.py" in wheel_names


def test_wheel_ships_the_citation_file(wheel_names: set[str]) -> None:
    # `explain --cite` reads the release year from it in an installed package.
    assert "ndcgspec/harness/CITATION.cff" in wheel_names
