"""Which probes ``identify`` asks, in the order of what they tell (issue 41: "identify asks the
probes that still discriminate between the candidates left, not all of them").

A probe tells a configuration apart from another choice of one axis when the reference
answers it differently under the two (``ndcg.axes``). Against the configuration the answers
so far point to, every other choice of every axis searched is a candidate left; the probes
asked are, first, those that tell the most candidates apart that fewer than `TOLD_APART`
probes asked already tell apart (or every probe that tells one apart, where fewer do), then
one probe of every case file no probe was taken from, the one telling the most candidates
apart: every kind of input the suite holds is asked at least once, whatever it tells.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from functools import partial

from ndcgspec.reference import Config
from ndcgspec.survey.probes import (
    ProbeInput,
    computed_in_halves,
    distinguishing,
    outcome_key,
    replaced,
)

TOLD_APART = 8
"""How many probes asked must tell the configuration found apart from each other choice of
an axis before that choice is taken as ruled out: a library that departs from its
configuration on one kind of input rarely meets eight probes of another choice by chance."""

Candidate = tuple[str, str]
"""An axis and one of its choices, other than the configuration's."""


def told_apart(probe: ProbeInput, found: Config, axes: Sequence[str]) -> frozenset[Candidate]:
    """The choices of `axes` that the probe tells apart from `found` (at the probe's cutoff):
    those under which the reference answers it otherwise."""
    placed = replaced(found, cutoff=probe.config.cutoff)
    mine = outcome_key(probe, placed)
    told: set[Candidate] = set()
    for axis_id in axes:
        candidates = distinguishing(probe, placed, axis_id)
        if candidates is not None:
            told.update(
                (axis_id, choice)
                for choice, config in candidates.items()
                if outcome_key(probe, config) != mine
            )
    return frozenset(told)


def _each_told_apart(
    found: Config, axes: Sequence[str], probes: Sequence[ProbeInput]
) -> list[frozenset[Candidate]]:
    """`told_apart` of each of `probes`."""
    return [told_apart(p, found, axes) for p in probes]


def case_file(probe: ProbeInput) -> str:
    """The case file a probe's case comes from: its id up to the last slash."""
    return probe.case_id.rpartition("/")[0] or probe.case_id


def probes_to_ask(
    probes: Sequence[ProbeInput],
    found: Config,
    axes: Sequence[str],
    asked: Collection[str],
    told: int = TOLD_APART,
) -> list[ProbeInput]:
    """The probes not yet `asked` (by case id) that tell `found` apart from the candidates
    left, in suite order: greedily the one telling the most candidates apart that fewer than
    `told` probes do, ties to the first in suite order, then one of every case file that no
    probe asked or taken comes from."""
    # Half of the probes weighed by a copy of this process on a second core (`halves`).
    each = computed_in_halves(partial(_each_told_apart, found, axes), probes)
    telling = {p.case_id: t for p, t in zip(probes, each, strict=True)}
    available = Counter(c for candidates in telling.values() for c in candidates)
    owed = {
        c: min(told, count) - sum(c in telling[case] for case in asked)
        for c, count in available.items()
    }
    left = [p for p in probes if p.case_id not in asked]
    taken: list[ProbeInput] = []
    while any(count > 0 for count in owed.values()):
        best = max(left, key=lambda p: sum(owed.get(c, 0) > 0 for c in telling[p.case_id]))
        for candidate in telling[best.case_id]:
            owed[candidate] -= 1
        left.remove(best)
        taken.append(best)
    covered = {case_file(p) for p in probes if p.case_id in asked} | {case_file(p) for p in taken}
    for probe in sorted(left, key=lambda p: -len(telling[p.case_id])):
        if case_file(probe) not in covered:
            covered.add(case_file(probe))
            taken.append(probe)
    chosen = {p.case_id for p in taken}
    return [p for p in probes if p.case_id in chosen]
