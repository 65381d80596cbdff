"""An input error says which axis rejected the input, and where, as fields, not only in its
message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ndcgspec.reference import Config, InputError, Location
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.suite import expect

# Each axis's `error` choice, an input it refuses (qrels, run) and the one line a user reads;
# the anchors are the ones spec/ndcg.yaml publishes.
REJECTIONS = [
    (
        "duplicates",
        "ndcg.duplicates.error",
        "q1 0 d1 1\n",
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n",
        "{run}:2: duplicate document 'd1' for query 'q1' (duplicates=error)",
        ("run", 2),
    ),
    (
        "unjudged",
        "ndcg.unjudged.error",
        "q1 0 d1 1\n",
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n",
        "{run}:2: document 'd2' of query 'q1' is not judged (unjudged=error)",
        ("run", 2),
    ),
    (
        "negative",
        "ndcg.negative.error",
        "q1 0 d1 1\nq1 0 d2 -1\n",
        "q1 Q0 d1 1 2.0 t\n",
        "{qrels}:2: negative label -1 is not allowed (negative=error)",
        ("qrels", 2),
    ),
    (
        "fractional",
        "ndcg.fractional.error",
        "q1 0 d1 0.5\n",
        "q1 Q0 d1 1 2.0 t\n",
        "{qrels}:1: fractional label 0.5 is not allowed (fractional=error)",
        ("qrels", 1),
    ),
    (
        "empty",
        "ndcg.empty.error",
        "q1 0 d1 0\n",
        "q1 Q0 d1 1 2.0 t\n",
        "query 'q1' has nothing relevant to find: IDCG is 0 (empty=error)",
        (None, None),
    ),
]


@pytest.mark.parametrize(("axis", "anchor", "qrels", "run", "line", "at"), REJECTIONS)
def test_a_rejecting_choice_names_its_axis_anchor_file_and_line(
    tmp_path: Path, axis: str, anchor: str, qrels: str, run: str, line: str, at: tuple
) -> None:
    # Paths that read like "file:line" themselves: the fields are not taken from the text.
    qrels_path, run_path = tmp_path / "qrels:9", tmp_path / "run:9"
    qrels_path.write_text(qrels, encoding="utf-8")
    run_path.write_text(run, encoding="utf-8")
    config = Config.from_mapping({axis: "error"})
    with pytest.raises(InputError) as caught:
        evaluate(config, read_qrels(qrels_path), read_run(run_path))
    assert (caught.value.axis, caught.value.anchor) == (axis, anchor)
    assert str(caught.value) == line.format(qrels=qrels_path, run=run_path)
    kind, number = at
    paths = {"qrels": str(qrels_path), "run": str(run_path), None: None}
    assert (caught.value.file, caught.value.line) == (paths[kind], number)
    assert expect.outcome(config, read_qrels(qrels_path), read_run(run_path)).error == anchor


def test_an_error_no_axis_makes_carries_no_axis(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 x t\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_run(path)
    assert (caught.value.axis, caught.value.anchor) == (None, None)


@pytest.mark.parametrize(
    ("outcome", "computed_by"),
    [(expect.outcome, "evaluate_inputs"), (expect.reference_outcome, "evaluate")],
)
def test_the_expected_outcome_reads_the_fields_not_the_message(
    monkeypatch: pytest.MonkeyPatch, outcome: Any, computed_by: str
) -> None:
    """An error whose message reads like a rejection but that no axis raised is not taken
    for one, whether the engine or the reference computes the outcome."""

    def fails(*_: object, **__: object) -> None:
        raise InputError("cannot read (duplicates=error)", Location("run", 1))

    monkeypatch.setattr(expect, computed_by, fails)
    with pytest.raises(InputError, match="cannot read"):
        outcome(Config.default(), {}, {})


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 x t\n", 2),  # a score that is no number
        ("q1 Q0 d1 1 2.0 t\n\nq1 Q0 d2 2\n", 3),  # too few fields, after a blank line
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d\x01 2 1.0 t\n", 2),  # a control character
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d\xff 2 1.0 t\n", 2),  # not UTF-8
    ],
)
def test_a_malformed_line_is_the_fields_file_and_line(tmp_path: Path, text: str, at: int) -> None:
    # A name that ends like "file:line" and holds more colons.
    path = tmp_path / "a:b:3.txt"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as caught:
        read_run(path)
    assert (caught.value.file, caught.value.line) == (str(path), at)
    assert str(caught.value).startswith(f"{path}:{at}: ")


def test_a_whole_file_error_has_no_line(tmp_path: Path) -> None:
    path = tmp_path / "run:3"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_run(path)
    assert (caught.value.file, caught.value.line) == (str(path), None)
    assert str(caught.value) == f"{path}: file is empty"


def test_a_location_is_written_file_colon_line() -> None:
    assert str(InputError("bad", Location("a:b", 7))) == "a:b:7: bad"
    assert str(InputError("bad", Location("a:b"))) == "a:b: bad"
    assert str(InputError("bad")) == "bad"
