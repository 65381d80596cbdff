"""The generalisation bed of ``identify``'s joint search (``survey/departure_bed.py``,
``survey/joint_search.py``): implementations computed by the reference under a preset with one
or two axes changed to other choices of the spec, declared as the preset. The search must name
exactly the changed axes: every single departure on the diagonal of the confusion matrix, both
axes of at least 95 % of double departures (issue 38). The fast tests take a seeded sample on a
third of the probes; the slow ones every single departure and a seeded sample of the doubles
on every probe, and print the matrices (``pytest -s``)."""

from __future__ import annotations

import pytest

from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes
from ndcgspec.survey.departure_bed import (
    Departure,
    _by_preset,
    double_departures,
    run_bed,
    sample,
    single_departures,
)
from ndcgspec.survey.joint_search import joint_fit
from ndcgspec.survey.probes import ProbeInput, distinguishing, outcome_key, probe_inputs, replaced

DOUBLE_SAMPLE = 200
# The slow runs use both cores whatever else runs beside them: the two take ten minutes each,
# and a test scheduler that gives both to one worker leaves the other core idle meanwhile.
BED_JOBS = 2


def _some_probes() -> list[ProbeInput]:
    return list(probe_inputs()[::3])


def _at(probe: ProbeInput, config: Config) -> Config:
    return replaced(config, cutoff=probe.config.cutoff)


def test_a_sample_of_single_departures_is_named_exactly() -> None:
    result = run_bed(sample(single_departures(), 3, seed=38), _some_probes())
    assert result.verdicts
    for departure, named in result.verdicts:
        assert named == departure.axes, departure


def test_a_sample_of_double_departures_names_both_axes() -> None:
    result = run_bed(sample(double_departures(), 1, seed=38), _some_probes())
    assert result.verdicts
    for departure, named in result.verdicts:
        assert set(named) == set(departure.axes), departure


def test_the_departures_are_shared_out_by_whole_presets_in_balanced_shares() -> None:
    departures = single_departures()
    parts = _by_preset(departures, 2)
    presets_of = [{d.preset for d in part} for part in parts]
    assert len(parts) == 2 and not presets_of[0] & presets_of[1]

    def key(d: Departure) -> tuple[str, str]:
        return d.preset, d.truth.full()

    assert sorted(key(d) for part in parts for d in part) == sorted(map(key, departures))
    # Greedy by size: the parts differ by at most the largest preset's departures.
    largest = max(sum(d.preset == p for d in departures) for p in presets_of[0] | presets_of[1])
    assert abs(len(parts[0]) - len(parts[1])) <= largest
    assert _by_preset(departures[:1], 2) == [departures[:1]]


def test_a_bed_of_several_processes_reads_every_probe_itself() -> None:
    with pytest.raises(ValueError, match="reads every probe itself"):
        run_bed(single_departures()[:1], _some_probes(), jobs=2)


def test_a_convention_of_no_choice_is_blamed_on_its_axis_alone() -> None:
    # An implementation that is the default configuration except that it misses every probe
    # whose answer depends on the ideal: the discount, on which nearly every probe depends,
    # explains those misses as well, but is met on the probes that depend on it alone.
    probes = _some_probes()
    default = Config.default()
    axes = [a.id for a in choice_axes()]

    def met(probe: ProbeInput, config: Config) -> bool:
        if distinguishing(probe, _at(probe, default), "ideal") is not None:
            return False
        return outcome_key(probe, config) == outcome_key(probe, _at(probe, default))

    fit = joint_fit(default, axes, probes, met)
    assert (fit.departed, fit.unexplained) == (("ideal",), ())
    assert fit.on(default) == default
    ideal = {p.case_id for p in probes if distinguishing(p, _at(p, default), "ideal")}
    assert set(fit.attributed["ideal"]) == ideal
    assert fit.set_aside_for("gain") == ideal
    assert fit.set_aside_for("ideal") == set()


@pytest.mark.slow
def test_every_single_departure_is_on_the_diagonal() -> None:
    from ndcgspec.survey.departure_bed import render

    result = run_bed(single_departures(), jobs=BED_JOBS)
    print("\n" + render(result, "single departures from every preset"))
    assert result.exact() == len(result.verdicts)


@pytest.mark.slow
def test_double_departures_name_both_axes_at_least_95_percent() -> None:
    from ndcgspec.survey.departure_bed import render

    result = run_bed(sample(double_departures(), DOUBLE_SAMPLE, seed=38), jobs=BED_JOBS)
    print("\n" + render(result, f"{DOUBLE_SAMPLE} double departures, seeded sample"))
    assert 100 * result.exact() >= 95 * len(result.verdicts)
