"""How ``identify`` weighs its evidence: probes that one axis cannot explain are no evidence on
another (``survey/identify.py``, ``survey/axis_identification.py``)."""

from __future__ import annotations

from ndcgspec.survey.axis_identification import axis_verdict
from ndcgspec.survey.identification import MET, NONE, NOT_EXERCISED


def test_a_probe_no_choice_meets_is_listed_as_unexplained() -> None:
    finding = axis_verdict("gain", "linear", {"a": ["linear"], "b": ["linear"], "c": []}, [])
    assert (finding.status, finding.choices) == (MET, ["linear"])
    assert (finding.evidence, finding.disagreeing, finding.unexplained) == (
        ["a", "b"],
        ["c"],
        ["c"],
    )
    assert finding.note() == "1 of 3 probes meet no choice of this axis"


def test_mixed_support_is_no_verdict() -> None:
    finding = axis_verdict("discount", "log", {"a": ["log"], "b": ["log"], "c": ["none"]}, [])
    assert (finding.status, finding.choices, finding.closest) == (NONE, [], "log")
    assert finding.support == {"log": ["a", "b"], "none": ["c"]}
    assert (finding.evidence, finding.disagreeing) == (["a", "b"], ["c"])
    assert finding.note() == "different probes meet different choices: log on 2; none on 1 of 3"


def test_a_choice_named_none_is_a_choice() -> None:
    # The discount axis has a choice "none": meeting it is a verdict, not "no choice".
    finding = axis_verdict("discount", "none", {"a": ["none"], "b": ["none"]}, [])
    assert (finding.status, finding.choices, finding.verdict()) == (MET, ["none"], "none")


def test_no_probe_met_by_any_choice_is_no_verdict() -> None:
    finding = axis_verdict("ties", "input", {"a": [], "b": []}, [])
    assert (finding.status, finding.closest, finding.disagreeing) == (NONE, None, ["a", "b"])
    assert finding.verdict() == "none of the spec's choices"
    assert finding.note() == "no choice meets any of the 2 probes that tell them apart"


def test_no_probe_answered_is_not_exercised() -> None:
    finding = axis_verdict("empty", "zero", {}, [])
    assert (finding.status, finding.verdict()) == (
        NOT_EXERCISED,
        "not exercised by the golden inputs",
    )


def test_most_probes_unexplained_is_none_of_the_choices():
    # An ideal DCG that always counts k slots meets `judged` only where k judged documents are
    # relevant: 2 such probes of 5 are no evidence that it computes `judged`.
    met_by = {"a": ["judged"], "b": ["judged"], "c": [], "d": [], "e": []}
    finding = axis_verdict("ideal", "judged", met_by)
    assert (finding.status, finding.closest, finding.choices) == (NONE, "judged", [])
    assert "3 of 5 probes meet no choice" in finding.note()
    # Half or fewer unexplained: the choice the others meet stands.
    assert axis_verdict("ideal", "judged", {**met_by, "c": ["judged"]}).choices == ["judged"]
