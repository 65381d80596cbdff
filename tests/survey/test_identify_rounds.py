"""``identify`` asks in rounds (``survey/identify.py`` `_searched_answers`,
``survey/probe_choice.py``): the probes that tell the candidates apart, then those that tell
apart what the answers point to, and every probe once a miss departs from every choice. The
adapters are fakes of ``tests/fakes.py`` whose one flaw is known."""

from __future__ import annotations

import pytest

from ndcgspec.survey import identify as identify_module
from ndcgspec.survey.identify import identify
from ndcgspec.survey.probes import probe_inputs

# A whole identify each, the extra probes beyond the axes included: 10-20 s from a cold cache.
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def fewer_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every fourth probe: each kind of input is still there, at a quarter of the cost.
    monkeypatch.setattr(identify_module, "probe_inputs", lambda: probe_inputs()[::4])


def test_a_library_computing_another_choice_is_found_on_fewer_probes() -> None:
    # The fake builds the ideal from the retrieved documents whatever it is asked: asked its
    # own judged ideal, it computes the spec's retrieved one, a change and no departure.
    found = identify("fakes:ideal_retrieved")
    assert found.configuration_text() == "nDCG(ideal=retrieved)"
    assert found.probes is not None and found.probes.asked < found.probes.shown
    every = identify("fakes:ideal_retrieved", every_probe=True)
    assert every.probes is not None and every.probes.asked == every.probes.shown
    assert [(f.axis, f.asked, f.status, f.choices) for f in found.findings] == [
        (f.axis, f.asked, f.status, f.choices) for f in every.findings
    ]


def test_a_departure_is_weighed_on_every_probe() -> None:
    # One rank late, log2(i + 2) is no choice of the discount axis: the search misses probes
    # no choice explains, and every probe is asked.
    found = identify("fakes:discount_off_by_one")
    assert "discount" in found.departs
    assert found.probes is not None and found.probes.asked == found.probes.shown
