"""The suite's linter against bad case files, each declaring the problems it must produce
(``<name>.expect``: one ``code pointer`` a line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TESTS_DIR

from ndcgspec.spec import load_spec
from ndcgspec.suite.case import SUITE_VERSION
from ndcgspec.suite.check import check, within

FIXTURES = TESTS_DIR / "fixtures" / "bad_cases"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.json"))


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixtures as case files of this suite: their versions read from the suite and the
    spec, where each file holds a marker, so that a new version edits no fixture."""
    folder = tmp_path_factory.mktemp("bad_cases")
    versions = {
        "@suite_version@": SUITE_VERSION,
        "@spec_version@": str(load_spec()["spec_version"]),
    }
    for path in FIXTURES.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        for marker, version in versions.items():
            text = text.replace(marker, version)
        (folder / path.name).write_text(text, encoding="utf-8")
    return folder


def declared(name: str) -> set[tuple[str, str]]:
    lines = (FIXTURES / f"{name}.expect").read_text(encoding="utf-8").splitlines()
    return {(line.split(" ", 1)[0], line.split(" ", 1)[1]) for line in lines if line.strip()}


def test_every_fixture_declares_its_error_and_holds_the_version_markers() -> None:
    assert NAMES, "no linter fixtures found"
    assert all((FIXTURES / f"{n}.expect").is_file() for n in NAMES)
    assert all("@suite_version@" in (FIXTURES / f"{n}.json").read_text() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_linter_reports_exactly_the_declared_problems(fixtures: Path, name: str) -> None:
    report = check(fixtures, glob=f"{name}.json", jobs=1)
    found = {(p.code, p.pointer) for p in report.problems}
    assert found == declared(name), [str(p) for p in report.problems]


def test_problem_names_file_pointer_and_cause(fixtures: Path) -> None:
    report = check(fixtures, glob="wrong-anchor.json", jobs=1)
    text = str(report.problems[0])
    assert text.startswith(str(fixtures / "wrong-anchor.json") + ": /cases/0/spec/0/anchor: ")
    assert "ndcg.ties.averaged" in text


@pytest.mark.parametrize(
    ("actual", "published", "places", "passes"),
    [
        ("0.50575", "0.5058", 4, True),  # exactly half a unit below: inclusive
        ("0.50585", "0.5058", 4, True),
        ("0.505749", "0.5058", 4, False),
        ("0.5664478625", "0.567", 3, False),
        ("0.5664478625", "0.566448", 6, True),
        (None, "0.5", 1, False),
    ],
)
def test_stated_precision_rule(
    actual: str | None, published: str, places: int, passes: bool
) -> None:
    assert within(actual, published, places) is passes
