"""Which probes ``identify`` asks (``survey/probe_choice.py``): those that tell the configuration
found apart from the other choices, most first, and one of every case file."""

from __future__ import annotations

import pytest

from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes
from ndcgspec.survey import probe_choice
from ndcgspec.survey.probe_choice import probes_to_ask, told_apart
from ndcgspec.survey.probes import ProbeInput, replaced

AXES = [a.id for a in choice_axes()]

# One query, both documents judged and retrieved, the lesser one ranked first, no tie, no
# repeat, no negative or fractional label. By hand, with log2(i + 1) discounts:
# linear gain: DCG 1 + 2/log2(3) = 2.262, IDCG 2 + 1/log2(3) = 2.631, nDCG 0.860;
# exponential (2^l - 1): DCG 1 + 3/log2(3) = 2.893, IDCG 3 + 1/log2(3) = 3.631, nDCG 0.797;
# binary and judged gains 1 to both: nDCG 1; no discount: DCG 3 = IDCG, nDCG 1; Jarvelin's
# (no discount below rank 2) the same, nDCG 1; 1/i: DCG 1 + 2/2 = 2, IDCG 2 + 1/2, nDCG 0.8.
SWAPPED = ProbeInput(
    "hand/swapped",
    (("q1", "d1", "2"), ("q1", "d2", "1")),
    (("q1", "d2", "0.9"), ("q1", "d1", "0.5")),
    Config.default(),
)


def test_a_probe_tells_apart_the_choices_that_change_its_answer() -> None:
    told = told_apart(SWAPPED, Config.default(), AXES)
    assert {
        ("gain", "exponential"),
        ("gain", "binary"),
        ("gain", "judged"),
        ("discount", "none"),
        ("discount", "jarvelin2002"),
        ("discount", "reciprocal"),
    } <= told
    # Nothing unjudged, negative, fractional, tied, repeated or empty, one query in both.
    quiet = {"unjudged", "negative", "fractional", "ties", "duplicates", "empty", "aggregate"}
    assert not {axis for axis, _ in told} & quiet


def test_what_a_probe_tells_is_relative_to_the_configuration_found() -> None:
    # Every judged document here is relevant: binary and judged gains agree, linear does not.
    told = told_apart(SWAPPED, replaced(Config.default(), gain="binary"), ["gain"])
    assert ("gain", "judged") not in told
    assert ("gain", "linear") in told


def _probe(case_id: str) -> ProbeInput:
    return ProbeInput(case_id, (), (), Config.default())


@pytest.fixture
def telling(monkeypatch: pytest.MonkeyPatch) -> dict[str, frozenset[tuple[str, str]]]:
    """Telling sets given by hand, in place of the reference's."""
    sets: dict[str, frozenset[tuple[str, str]]] = {}
    monkeypatch.setattr(probe_choice, "told_apart", lambda p, found, axes: sets[p.case_id])
    return sets


def test_the_probe_telling_most_apart_comes_first_and_each_file_is_asked(
    telling: dict[str, frozenset[tuple[str, str]]],
) -> None:
    g, d = ("gain", "binary"), ("discount", "none")
    telling.update(
        {"a/1": frozenset({d}), "a/2": frozenset({g, d}), "a/3": frozenset({g}), "b/1": frozenset()}
    )
    probes = [_probe(case) for case in telling]
    # Once each: a/2 tells both apart; b/1 tells nothing, but nothing of its file was asked.
    assert [p.case_id for p in probes_to_ask(probes, Config.default(), AXES, (), told=1)] == [
        "a/2",
        "b/1",
    ]
    # Twice each: a/2, then a/1 and a/3 for one more each, in suite order.
    assert [p.case_id for p in probes_to_ask(probes, Config.default(), AXES, (), told=2)] == [
        "a/1",
        "a/2",
        "a/3",
        "b/1",
    ]


def test_probes_asked_already_count_and_are_not_asked_again(
    telling: dict[str, frozenset[tuple[str, str]]],
) -> None:
    g = ("gain", "binary")
    telling.update({"a/1": frozenset({g}), "a/2": frozenset({g}), "b/1": frozenset({g})})
    probes = [_probe(case) for case in telling]
    # a/1 asked tells the gain apart once; one more is owed, and b's file is still unasked.
    assert [p.case_id for p in probes_to_ask(probes, Config.default(), AXES, {"a/1"}, 2)] == [
        "a/2",
        "b/1",
    ]
    assert probes_to_ask(probes, Config.default(), AXES, {"a/1", "a/2", "b/1"}, 2) == []
