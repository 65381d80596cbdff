"""The one rule that finds the shared folder (``suite/folders.py``), on folders laid out
as a checkout and as an installed package: ``NDCGSPEC_SHARED`` wins, then ``shared`` beside a
checkout, never a folder inside site-packages; with no folder known, the published cases are
unavailable and trec_eval cannot be built, each saying how to name the folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO_ROOT

from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.harness.adapters.peers.trec_eval_build import trec_eval_program
from ndcgspec.reference import InputError
from ndcgspec.suite import folders
from ndcgspec.suite.folders import SHARED_ENV, data_root, shared_root, trec_eval_source
from ndcgspec.suite.loaded import iter_cases

BM25 = "published/bm25.json"


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The harness running from a clone at ``tmp/clone`` (its ``pyproject.toml`` beside
    ``harness/``) with the variable unset; returns the clone's parent."""
    clone = tmp_path / "clone"
    (clone / "harness").mkdir(parents=True)
    (clone / "pyproject.toml").write_text('[project]\nname = "ndcgspec"\n')
    monkeypatch.setattr(folders, "PACKAGE_SOURCE", clone / "suite")
    monkeypatch.delenv(SHARED_ENV, raising=False)
    return tmp_path


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The harness running from ``site-packages/ndcgspec/harness`` with the variable unset, a
    folder ``shared/data`` inside site-packages and one beside the environment; returns the
    site-packages folder."""
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "ndcgspec" / "harness").mkdir(parents=True)
    (site / "shared" / "data").mkdir(parents=True)
    (tmp_path / "shared" / "data").mkdir(parents=True)
    monkeypatch.setattr(folders, "PACKAGE_SOURCE", site / "ndcgspec" / "suite")
    monkeypatch.delenv(SHARED_ENV, raising=False)
    return site


def test_the_variable_wins_over_the_checkouts_shared_folder(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (checkout / "shared").mkdir()
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv(SHARED_ENV, str(elsewhere))
    assert shared_root() == elsewhere
    assert data_root() == elsewhere / "data"
    assert trec_eval_source() == elsewhere / "tools" / "trec_eval-src.tar.gz"


def test_a_checkout_finds_shared_beside_it(checkout: Path) -> None:
    assert shared_root() == checkout / "shared"
    assert data_root() == checkout / "shared" / "data"
    assert trec_eval_source() == checkout / "shared" / "tools" / "trec_eval-src.tar.gz"


def test_an_empty_variable_counts_as_unset(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SHARED_ENV, "")
    assert shared_root() == checkout / "shared"


def test_a_checkout_without_the_folder_reports_its_cases_absent_from_it(checkout: Path) -> None:
    cases = list(iter_cases(BM25))
    absent = f"is absent from {checkout / 'shared' / 'data'}"
    assert cases and all(c.unavailable and absent in c.unavailable for c in cases)


def test_an_installed_package_looks_nowhere_inside_site_packages(installed: Path) -> None:
    assert shared_root() is None
    assert data_root() is None
    assert trec_eval_source() is None


def test_an_installed_package_follows_the_variable(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SHARED_ENV, str(tmp_path / "shared"))
    assert data_root() == tmp_path / "shared" / "data"


def test_with_no_folder_known_published_cases_say_how_to_name_it(installed: Path) -> None:
    cases = list(iter_cases(BM25))
    assert cases and all(c.unavailable and SHARED_ENV in c.unavailable for c in cases)
    assert not any("site-packages" in c.unavailable for c in cases if c.unavailable)
    with pytest.raises(InputError, match=SHARED_ENV):
        cases[0].case.inputs(None)


def test_with_no_folder_known_trec_eval_says_how_to_name_it(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NDCGSPEC_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(AdapterError, match=SHARED_ENV) as raised:
        trec_eval_program()
    assert "\n" not in str(raised.value)


def test_this_checkout_finds_shared_beside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    if folders.PACKAGE_SOURCE != REPO_ROOT / "suite":
        pytest.skip(f"ndcgspec is imported from {folders.PACKAGE_SOURCE}, not this checkout")
    monkeypatch.delenv(SHARED_ENV, raising=False)
    assert shared_root() == REPO_ROOT.parent / "shared"
