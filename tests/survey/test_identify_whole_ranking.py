"""How ``identify`` (``survey/identify.py``) puts its findings together: an implementation whose
whole ranking changes with the input (a library that requires k, given one that grows with the
input's rows) misses whole-ranking probes alone, which say what it takes the whole ranking to be
(the cutoff's observation), not a departure of the axis every such answer depends on; and the
configuration states, on each axis, a choice the probes meet."""

from __future__ import annotations

import pytest

from ndcgspec.reference import Config
from ndcgspec.survey import identify as identify_module
from ndcgspec.survey.identification import CUTOFF, MET, NO_SINGLE_CUTOFF, NONE, AxisFinding
from ndcgspec.survey.identify import identified_configuration, identify
from ndcgspec.survey.probes import probe_inputs, replaced


@pytest.mark.slow
def test_misses_on_whole_rankings_alone_are_the_cutoffs_not_an_axis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fake computes the ideal that assumes k relevant documents, k the input's rows when
    # asked for the whole ranking: every probe with a cutoff meets nDCG(ideal=assumed-k). A
    # third of the probes shows it, at a third of the cost.
    monkeypatch.setattr(identify_module, "probe_inputs", lambda: probe_inputs()[::3])
    found = identify("fakes:assumed_k_of_rows")
    assert found.configuration_text() == "nDCG(ideal=assumed-k)"
    assert [
        (f.axis, f.disagreeing, f.set_aside) for f in found.findings if f.disagreeing or f.set_aside
    ] == []
    cutoff = [o for o in found.extras if o.topic == CUTOFF]
    assert [o.outcome for o in cutoff] == [NO_SINGLE_CUTOFF]
    assert cutoff[0].disagreeing and cutoff[0].cutoffs == []


def test_a_configuration_states_a_choice_the_probes_meet() -> None:
    own = Config.default()
    findings = [
        # Met alike by keep and keep-in-ideal, not by the asked zero: the first of them.
        AxisFinding("negative", "zero", MET, ["keep", "keep-in-ideal"]),
        # Met alike by the asked keep and by truncate: the asked one.
        AxisFinding("fractional", "keep", MET, ["truncate", "keep"]),
        AxisFinding("gain", "linear", MET, ["binary"]),
        AxisFinding("discount", "log", NONE, closest="jarvelin2002"),
        # Findings asked under another choice say nothing of the adapter's own.
        AxisFinding("ties", "average", MET, ["input"]),
    ]
    assert identified_configuration(own, findings) == replaced(
        own, negative="keep", gain="binary", discount="jarvelin2002"
    )
