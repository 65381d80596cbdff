"""``identify``'s findings are data: the text output, ``--format json`` and the conformance
matrix render the same objects, and anchors come from the spec (``survey/``).

The findings below are written by hand; what each rendering must say follows from them.
"""

from __future__ import annotations

import json

from ndcgspec.commands.identify import render
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.reference import Config
from ndcgspec.survey.grid import axis_cell, sharp_edges
from ndcgspec.survey.identification import (
    CHOSEN_CUTOFF,
    CUTOFF,
    MET,
    NONE,
    NOT_OBSERVABLE,
    RANKS_CLOSE_SCORES,
    REFUSES_VALID_INPUTS,
    REJECTIONS,
    SCORE_RESOLUTION,
    AxisFinding,
    CaseError,
    Identification,
    Observation,
    ProbesAsked,
)
from ndcgspec.survey.implementation import Implementation

ADAPTER = Declaration.from_json(
    {"name": "lib", "version": "1.0", "float_width": 64, "capabilities": {}}
)


def identification(findings: list[AxisFinding], extras: list[Observation]) -> Identification:
    return Identification(ADAPTER, findings, extras, Config.default(), "trec_eval", {})


def test_a_finding_as_json_names_its_anchors_from_the_spec() -> None:
    finding = AxisFinding(
        "ties",
        "docid-desc",
        NONE,
        closest="input",
        probes=3,
        support={"input": ["a", "b"], "docid-asc": ["c"]},
        evidence=["a", "b"],
        disagreeing=["c"],
        set_aside=["d", "e"],
        errors=[CaseError("f", "ValueError: boom")],
    )
    found = json.loads(json.dumps(finding.to_json()))
    assert found["anchor"] == "ndcg.ties"
    assert found["choice_anchors"] == {"input": "ndcg.ties.input"}
    assert found["status"] == "none"
    assert found["set_aside"] == ["d", "e"]
    assert found["errors"] == [{"case": "f", "error": "ValueError: boom"}]
    assert finding.note() == (
        "different probes meet different choices: input on 2; docid-asc on 1 of 3; "
        "set aside 2 probes that another axis cannot explain: d (+1)"
    )


def test_the_text_output_renders_the_data() -> None:
    gain = AxisFinding("gain", "linear", MET, ["linear"], probes=2, evidence=["a", "b"])
    hidden = AxisFinding("duplicates", "error", NOT_OBSERVABLE, reason="no document ids")
    cutoff = Observation(CUTOFF, CHOSEN_CUTOFF, "null", ["c"], cutoffs=[32])
    text = render(identification([gain, hidden], [cutoff]))
    assert text.splitlines()[:8] == [
        "lib 1.0 (float64)",
        "",
        "gain (asked linear): linear",
        "    shown by: a, b",
        "duplicates (asked error): not observable through this API",
        "    no document ids",
        "cutoff (asked null): @32 (a cutoff the implementation chose)",
        "    shown by: c",
    ]
    assert "it returns nDCG@32 on every such probe longer than 32 that it misses" in text


def test_observations_as_json_say_whether_they_depart() -> None:
    refused = Observation(REJECTIONS, REFUSES_VALID_INPUTS, "nDCG", ["a"], reasons=["too short"])
    exact = Observation(SCORE_RESOLUTION, RANKS_CLOSE_SCORES, "exact decimals", ["b"])
    assert refused.to_json()["departs"] is True
    assert exact.to_json()["departs"] is False
    assert refused.verdict() == "refuses 1 input its own configuration scores"
    assert refused.note() == "reasons: too short"


def test_the_matrix_renders_statuses_not_sentences() -> None:
    # A library that computes no discount meets the choice "none": a verdict, no sharp edge.
    no_discount = AxisFinding("discount", "none", MET, ["none"], probes=1, evidence=["a"])
    mixed = AxisFinding(
        "ties",
        "input",
        NONE,
        closest="input",
        probes=2,
        support={"input": ["b"]},
        evidence=["b"],
        disagreeing=["c"],
    )
    hidden = AxisFinding("duplicates", "error", NOT_OBSERVABLE, reason="no document ids")
    crash = AxisFinding(
        "gain",
        "linear",
        MET,
        ["linear"],
        probes=1,
        evidence=["d"],
        errors=[CaseError("e", "adapter crashed: killed by SIGSEGV")],
    )
    exact = Observation(SCORE_RESOLUTION, RANKS_CLOSE_SCORES, "exact decimals", ["f"])
    item = Implementation("lib", identification([crash, no_discount, mixed, hidden], [exact]))
    assert [axis_cell(item, a).text for a in ("gain", "discount", "ties", "duplicates")] == [
        "linear",
        "none",
        "none (≈input)",
        "n/o",
    ]
    assert [edge.text for edge in sharp_edges(item)] == [
        "ties (asked input): none of the spec's choices; different probes meet different "
        "choices: input on 1 of 2; disagreeing `c`",
        "errors (adapter crashed: killed by SIGSEGV) on `e`, probing gain",
    ]


def test_the_probes_asked_are_counted_where_some_were_not() -> None:
    found = identification([], [])
    found.probes = ProbesAsked(90, 400)
    assert json.loads(json.dumps(found.to_json()))["probes"] == {"asked": 90, "shown": 400}
    assert "probes asked: 90 of 400," in render(found)
    found.probes = ProbesAsked(400, 400)
    assert "probes asked" not in render(found)
