"""The kept expected values (``suite/expected_cache.py``): a later process reads what an earlier
one kept, whatever the shape of the line, and computes again what it cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ndcgspec.suite.expected_cache import ExpectedCache, definition_digest
from ndcgspec.suite.expected_values import ExpectedValues, QueryValues
from ndcgspec.suite.json_lines import settle

VALUES = ExpectedValues({"q1": QueryValues("0.5", "1", "2"), "q 2": QueryValues(None)}, "0.25")
OTHER = ExpectedValues({"q1": QueryValues("1", "2", "2")}, "1")


def _never() -> ExpectedValues:
    raise AssertionError("computed again")


def _file(root: Path, fingerprint: str) -> Path:
    return root / "expected" / definition_digest() / f"{fingerprint}.jsonl"


@pytest.mark.parametrize("key", ["0123abcd" * 8, 'a "quoted" \\ key', "é"])
def test_a_kept_value_is_read_back_by_a_later_cache(tmp_path: Path, key: str) -> None:
    assert ExpectedCache(tmp_path).value("f", key, lambda: VALUES) == VALUES
    assert ExpectedCache(tmp_path).value("f", key, _never) == VALUES
    assert ExpectedCache(tmp_path).value("f", "another input", lambda: OTHER) == OTHER


def test_a_line_of_another_shape_is_read_as_json(tmp_path: Path) -> None:
    path = _file(tmp_path, "f")
    path.parent.mkdir(parents=True)
    lines = [
        json.dumps({"expected": VALUES.to_json(), "input": "k1"}),
        json.dumps({"input": "k2", "expected": OTHER.to_json()}, separators=(",", ":")),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cache = ExpectedCache(tmp_path)
    assert cache.value("f", "k1", _never) == VALUES
    assert cache.value("f", "k2", _never) == OTHER


def test_a_line_cut_short_is_computed_again(tmp_path: Path) -> None:
    ExpectedCache(tmp_path).value("f", "kept", lambda: VALUES)
    path = _file(tmp_path, "f")
    # Written behind: the file is written another way only once its lines are there.
    settle(path)
    whole = json.dumps({"input": "cut", "expected": VALUES.to_json()})
    with path.open("a", encoding="utf-8") as file:
        file.write(whole[: len(whole) - 5] + "\n")
    cache = ExpectedCache(tmp_path)
    assert cache.value("f", "kept", _never) == VALUES
    assert cache.value("f", "cut", lambda: OTHER) == OTHER
    assert ExpectedCache(tmp_path).value("f", "cut", _never) == OTHER


@pytest.mark.parametrize("key", ["0123abcd" * 8, 'a "quoted" \\ key', "é"])
def test_a_kept_line_is_the_json_of_its_input_and_values(tmp_path: Path, key: str) -> None:
    cache = ExpectedCache(tmp_path)
    # Equal values kept twice, the second written from the first's text.
    cache.value("f", key, lambda: VALUES)
    cache.value("g", key, lambda: ExpectedValues.from_json(VALUES.to_json()))
    for fingerprint in ("f", "g"):
        path = _file(tmp_path, fingerprint)
        settle(path)
        assert path.read_text(encoding="utf-8").splitlines() == [
            json.dumps({"input": key, "expected": VALUES.to_json()})
        ]


def test_the_values_kept_after_a_mark_are_adopted_and_written_by_another_cache(
    tmp_path: Path,
) -> None:
    """A forked copy's values (`survey/halves.py`): those it kept after the mark, adopted by
    the process that made it, which writes the ones it does not know, once."""
    copy = ExpectedCache(tmp_path / "copy")
    copy.value("f", "before", lambda: OTHER)
    mark = copy.mark()
    copy.value("f", "after", lambda: VALUES)
    copy.value("g", "new configuration", lambda: OTHER)
    kept = copy.kept_since(mark)
    assert kept == [("f", "after", VALUES), ("g", "new configuration", OTHER)]
    here = ExpectedCache(tmp_path / "here")
    here.value("f", "after", lambda: OTHER)
    here.adopt(kept)
    # Known here already: its own value stays, and its line is not written again.
    assert here.value("f", "after", _never) == OTHER
    assert here.value("g", "new configuration", _never) == OTHER
    for fingerprint, lines in (("f", 1), ("g", 1)):
        path = _file(tmp_path / "here", fingerprint)
        settle(path)
        assert len(path.read_text(encoding="utf-8").splitlines()) == lines
