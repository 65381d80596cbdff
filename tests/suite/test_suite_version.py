"""The suite's version is the first version heading of cases/CHANGELOG.md (suite/case.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndcgspec.reference.errors import InputError
from ndcgspec.suite.case import SUITE_VERSION, changelog_version
from ndcgspec.suite.load import cases_root


def test_the_suite_version_is_the_changelogs_first_heading(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## 4.0.0\n\nchanged\n\n## 3.9.1\n", encoding="utf-8")
    assert changelog_version(changelog) == "4.0.0"


def test_a_changelog_without_a_version_heading_is_named(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## Unreleased\n", encoding="utf-8")
    with pytest.raises(InputError, match="no version heading") as raised:
        changelog_version(changelog)
    assert str(changelog) in str(raised.value)


def test_the_manifest_names_the_changelogs_version() -> None:
    # The manifest's first line is written from SUITE_VERSION by `cases generate`.
    first = (cases_root() / "MANIFEST").read_text(encoding="utf-8").splitlines()[0]
    assert first == f"ndcgspec cases {SUITE_VERSION}"
