"""``identify`` of an implementation whose whole ranking changes with the input: a library that
requires k, given one that grows with the input's rows (``survey/identify.py``). Its misses lie
on whole-ranking probes alone; they say what it takes the whole ranking to be (the cutoff's
observation), not a departure of the axis every such answer depends on."""

from __future__ import annotations

import pytest

from ndcgspec.survey import identify as identify_module
from ndcgspec.survey.identification import CUTOFF, NO_SINGLE_CUTOFF
from ndcgspec.survey.identify import identify
from ndcgspec.survey.probes import probe_inputs


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
