"""How ``identify`` weighs its evidence: probes that one axis cannot explain are no evidence on
another (``harness/analysis/identify.py``)."""

from __future__ import annotations

from ndcgspec.harness.analysis.identify import AxisFinding, _outside_the_spec, _verdict


def test_a_probe_no_choice_meets_is_listed_as_unexplained() -> None:
    finding = _verdict("gain", "linear", {"a": ["linear"], "b": ["linear"], "c": []}, [])
    assert finding.verdict == "linear"
    assert finding.unexplained == ["c"]


def test_mixed_support_is_no_verdict() -> None:
    finding = _verdict("discount", "log", {"a": ["log"], "b": ["log"], "c": ["none"]}, [])
    assert finding.matched == []
    assert finding.closest == "log"


def test_probes_another_axis_cannot_explain_are_set_aside() -> None:
    gain = AxisFinding("gain", "linear", "linear", ["linear"], unexplained=["c"])
    discount = AxisFinding("discount", "log", "none", [], unexplained=[])
    empty_zero = AxisFinding("empty", "zero", "zero", ["zero"], unexplained=["d"])
    empty_skip = AxisFinding("empty", "skip", "skip", ["skip"], unexplained=["e"])
    aside = _outside_the_spec([gain, discount, empty_zero, empty_skip], total=20)
    # Each finding keeps its own unexplained probes, and those of its own axis.
    assert aside == [{"d", "e"}, {"c", "d", "e"}, {"c"}, {"c"}]


def test_a_finding_without_verdict_sets_nothing_aside() -> None:
    discount = AxisFinding("discount", "log", "none", [], unexplained=["c"])
    gain = AxisFinding("gain", "linear", "linear", ["linear"])
    assert _outside_the_spec([discount, gain], total=20) == [set(), set()]


def test_nothing_is_set_aside_when_half_the_probes_would_be() -> None:
    gain = AxisFinding("gain", "linear", "linear", ["linear"], unexplained=["a", "b"])
    discount = AxisFinding("discount", "log", "log", ["log"])
    assert _outside_the_spec([gain, discount], total=4) == [set(), set()]
    assert _outside_the_spec([gain, discount], total=5) == [set(), {"a", "b"}]
