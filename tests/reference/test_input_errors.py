"""An input error says which axis rejected the input as fields, not only in its message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ndcgspec.reference import Config, InputError, evaluate
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
    ),
    (
        "unjudged",
        "ndcg.unjudged.error",
        "q1 0 d1 1\n",
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n",
        "{run}:2: document 'd2' of query 'q1' is not judged (unjudged=error)",
    ),
    (
        "negative",
        "ndcg.negative.error",
        "q1 0 d1 1\nq1 0 d2 -1\n",
        "q1 Q0 d1 1 2.0 t\n",
        "{qrels}:2: negative label -1 is not allowed (negative=error)",
    ),
    (
        "fractional",
        "ndcg.fractional.error",
        "q1 0 d1 0.5\n",
        "q1 Q0 d1 1 2.0 t\n",
        "{qrels}:1: fractional label 0.5 is not allowed (fractional=error)",
    ),
    (
        "empty",
        "ndcg.empty.error",
        "q1 0 d1 0\n",
        "q1 Q0 d1 1 2.0 t\n",
        "query 'q1' has nothing relevant to find: IDCG is 0 (empty=error)",
    ),
]


@pytest.mark.parametrize(("axis", "anchor", "qrels", "run", "line"), REJECTIONS)
def test_a_rejecting_choice_names_its_axis_and_anchor(
    tmp_path: Path, axis: str, anchor: str, qrels: str, run: str, line: str
) -> None:
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(qrels, encoding="utf-8")
    run_path.write_text(run, encoding="utf-8")
    config = Config.from_mapping({axis: "error"})
    with pytest.raises(InputError) as caught:
        evaluate(config, read_qrels(qrels_path), read_run(run_path))
    assert (caught.value.axis, caught.value.anchor) == (axis, anchor)
    assert str(caught.value) == line.format(qrels=qrels_path, run=run_path)
    assert expect.outcome(config, read_qrels(qrels_path), read_run(run_path)) == {
        "error": {"anchor": anchor}
    }


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

    def fails(*_: object) -> None:
        raise InputError("cannot read (duplicates=error)", "run:1")

    monkeypatch.setattr(expect, computed_by, fails)
    with pytest.raises(InputError, match="cannot read"):
        outcome(Config.default(), {}, {})
