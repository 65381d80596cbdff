"""The kept parse of the specification's YAML files (``spec/__init__.py``): the same data as
PyYAML's own parse of the file, a file that changes is parsed again, a damaged kept parse is
replaced, and a cache that is off or cannot be written changes nothing but the time."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import ndcgspec.spec as spec

SPEC_FOLDER = Path(spec.__file__).resolve().parent


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(spec.CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def own_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A YAML file of the test's own in place of the packaged ones."""
    path = tmp_path / "tiny.yaml"
    path.write_text("axes:\n  - id: gain\n    default: exponential\n", encoding="utf-8")
    monkeypatch.setattr(spec, "spec_path", lambda name: str(path))
    return path


def kept(cache: Path) -> list[Path]:
    return sorted((cache / "spec").glob("*"))


@pytest.mark.parametrize("name", ["ndcg.yaml", "grammar.yaml", "presets.yaml", "comparison.yaml"])
def test_a_kept_parse_is_the_yaml_parse(cache: Path, name: str) -> None:
    expected = yaml.safe_load((SPEC_FOLDER / name).read_text(encoding="utf-8"))
    assert spec.load_yaml(name) == expected
    assert len(kept(cache)) == 1
    assert spec.load_yaml(name) == expected


def test_an_edited_file_is_parsed_again(cache: Path, own_file: Path) -> None:
    assert spec.load_yaml("tiny.yaml") == {"axes": [{"id": "gain", "default": "exponential"}]}
    own_file.write_text("axes:\n  - id: gain\n    default: linear\n", encoding="utf-8")
    assert spec.load_yaml("tiny.yaml") == {"axes": [{"id": "gain", "default": "linear"}]}
    assert len(kept(cache)) == 2


def test_a_damaged_kept_parse_is_replaced(cache: Path, own_file: Path) -> None:
    first = spec.load_yaml("tiny.yaml")
    [path] = kept(cache)
    path.write_bytes(path.read_bytes()[:7])
    assert spec.load_yaml("tiny.yaml") == first
    path.write_bytes(b"")
    assert spec.load_yaml("tiny.yaml") == first
    assert [p.name for p in kept(cache)] == [path.name]


def test_no_cache_when_it_is_off(tmp_path: Path, own_file: Path, monkeypatch) -> None:
    monkeypatch.setenv(spec.CACHE_ENV, "")
    monkeypatch.chdir(tmp_path)
    assert spec.load_yaml("tiny.yaml")["axes"][0]["id"] == "gain"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.yaml"]


def test_a_cache_path_that_is_a_file_changes_nothing(cache: Path, own_file: Path) -> None:
    cache.write_text("not a folder", encoding="utf-8")
    assert spec.load_yaml("tiny.yaml")["axes"][0]["default"] == "exponential"
    assert cache.read_text(encoding="utf-8") == "not a folder"
