"""The joint search of ``identify``: one configuration of the spec's choices, and the fewest
axes on which the implementation departs from every choice, that together explain the
adapter's answers to the probes.

Every axis and every choice is read from ``spec/ndcg.yaml`` (``ndcg.axes``): a choice the spec
declares is a candidate with no change here. The adapter's declared configuration is only
where the search starts and what breaks its ties: the answers decide. A probe the configuration
does not meet is explained by a departed axis when the reference's answer to it depends on that
axis (it differs between the axis's choices), and is attributed to that axis alone; every
other axis keeps the choice the search found for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ndcgspec.harness.adapters.base import NumberFormat
from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_ids
from ndcgspec.survey.probes import (
    Answer,
    ProbeInput,
    distinguishing,
    meets,
    outcome_key,
    replaced,
    with_choice,
)

Met = Callable[[ProbeInput, Config], bool | None]
"""Whether the adapter's answer to a probe meets the reference under a configuration (at the
probe's cutoff); None when the answer is evidence of nothing (the adapter failed)."""

MOST_DEPARTED = 2
"""The most axes the search lets depart at once: beyond two, nearly every probe depends on
some departed axis, and the departures explain everything and so nothing."""


@dataclass(frozen=True)
class JointFit:
    """The configuration the search found (`configuration`), the axes on which no choice of
    the spec explains the answers (`departed`), for each the probes attributed to it
    (`attributed`), and the probes neither the configuration nor a departure explains
    (`unexplained`)."""

    configuration: Config
    departed: tuple[str, ...]
    attributed: Mapping[str, tuple[str, ...]]
    unexplained: tuple[str, ...]

    def set_aside_for(self, axis_id: str) -> set[str]:
        """The probes that are no evidence about `axis_id`: those another departed axis
        explains."""
        return {case for a, cases in self.attributed.items() if a != axis_id for case in cases}


class _Table:
    """Each probe's verdict under each candidate, and its dependence on each axis, computed
    once: the search visits the same few configurations many times."""

    def __init__(
        self, probes: Sequence[ProbeInput], met: Met, axes: Sequence[str], whole: int | None
    ) -> None:
        self.probes = probes
        self.axes = axes
        self._whole = whole
        self._met = met
        self._verdicts: dict[tuple[str, str], bool | None] = {}
        self._depends: dict[tuple[str, Config, str], bool] = {}
        self._misses: dict[Config, list[ProbeInput]] = {}

    def placed(self, probe: ProbeInput, config: Config) -> Config:
        """`config` at the probe's cutoff, or at the cutoff the implementation applies when
        asked for the whole ranking."""
        cutoff = probe.config.cutoff
        return replaced(config, cutoff=self._whole if cutoff is None else cutoff)

    def verdict(self, probe: ProbeInput, config: Config) -> bool | None:
        # Keyed by the reference's answer, not the configuration: most candidates answer a
        # probe alike, and judging an answer is the search's costliest step.
        placed = self.placed(probe, config)
        key = (probe.case_id, outcome_key(probe, placed))
        if key not in self._verdicts:
            self._verdicts[key] = self._met(probe, placed)
        return self._verdicts[key]

    def depends(self, probe: ProbeInput, config: Config, axis_id: str) -> bool:
        key = (probe.case_id, config, axis_id)
        if key not in self._depends:
            placed = self.placed(probe, config)
            self._depends[key] = distinguishing(probe, placed, axis_id) is not None
        return self._depends[key]

    def misses(self, config: Config) -> list[ProbeInput]:
        # The descent asks again of the configurations it compares and moves to.
        if config not in self._misses:
            self._misses[config] = [p for p in self.probes if self.verdict(p, config) is False]
        return self._misses[config]


def _cost(
    table: _Table, config: Config, departed: Sequence[str], start: Config
) -> tuple[int, int, int]:
    """What the search minimises: the probes nothing explains, then the probes the
    configuration misses (a departure explains as few as it can), then the axes on which it
    differs from the declared configuration (the declaration breaks ties)."""
    missed = table.misses(config)
    unexplained = sum(not any(table.depends(p, config, a) for a in departed) for p in missed)
    differing = sum(config.choice(a) != start.choice(a) for a in table.axes)
    return unexplained, len(missed), differing


def _neighbours(config: Config, axes: Sequence[str]) -> list[Config]:
    """`config` with one axis set to another of the spec's choices."""
    found = []
    for axis_id in axes:
        for choice in choice_ids(axis_id):
            if choice == config.choice(axis_id):
                continue
            changed = with_choice(config, axis_id, choice, config)
            if changed is not None:
                found.append(changed)
    return found


PAIRED_MOVES = 8
"""Where no single change lowers the cost, the changes of two axes tried start from this many
of the best single changes: enough for two axes whose changes each mend nothing alone."""


def _descend(
    table: _Table, config: Config, axes: Sequence[str], departed: Sequence[str], start: Config
) -> tuple[Config, tuple[int, int, int]]:
    """From `config`, the best single-axis change while one lowers the cost, then the best
    change of two axes at once where no single change does and probes are still missed (two
    departures from the declaration may each break probes the other's change alone cannot
    mend)."""

    costs: dict[Config, tuple[int, int, int]] = {}

    def cost_of(candidate: Config) -> tuple[int, int, int]:
        if candidate not in costs:
            costs[candidate] = _cost(table, candidate, departed, start)
        return costs[candidate]

    cost = cost_of(config)
    while cost[1]:
        moves = sorted(_neighbours(config, axes), key=cost_of)
        if not moves:
            break
        best = moves[0]
        if cost_of(best) >= cost:
            pairs = [n for m in moves[:PAIRED_MOVES] for n in _neighbours(m, axes)]
            best = min(pairs, key=cost_of, default=config)
            if cost_of(best) >= cost:
                break
        config, cost = best, cost_of(best)
    return config, cost


def _departures(
    table: _Table, config: Config, axes: Sequence[str]
) -> tuple[tuple[int, int], tuple[str, ...]]:
    """The fewest axes (at most `MOST_DEPARTED`) whose departure explains the most probes
    `config` misses, with how many stay unexplained. Among as many explaining as much, those
    on which the fewest met probes depend: a departure shows on the probes that depend on its
    axis, and the discount, on which nearly every answer depends, would otherwise explain
    every miss."""
    missed = table.misses(config)
    met = [p for p in table.probes if table.verdict(p, config)]

    def cost(departed: tuple[str, ...]) -> tuple[int, int]:
        unexplained = sum(not any(table.depends(p, config, a) for a in departed) for p in missed)
        contradicted = sum(any(table.depends(p, config, a) for a in departed) for p in met)
        return unexplained, contradicted

    best: tuple[tuple[int, int], tuple[str, ...]] = ((len(missed), 0), ())
    for size in range(1, MOST_DEPARTED + 1):
        if best[0][0] == 0:
            break
        for departed in combinations(axes, size):
            found = cost(departed)
            if found < best[0]:
                best = (found, departed)
    return best


def joint_fit(
    start: Config,
    axes: Sequence[str],
    probes: Sequence[ProbeInput],
    met: Met,
    whole: int | None = None,
) -> JointFit:
    """The configuration and the fewest departed axes (at most `MOST_DEPARTED`) that explain
    the most probes, searched over every choice of `axes` from the declared `start`: first
    the configuration that misses the fewest probes, then the departures that explain its
    misses, then the configuration again with the probes they explain left out. `whole` is
    the cutoff the implementation applies when asked for the whole ranking, if it chooses one
    (``identify``'s chosen cutoff)."""
    table = _Table(probes, met, axes, whole)
    configuration, _ = _descend(table, start, axes, (), start)
    _, departed = _departures(table, configuration, axes)
    if departed:
        configuration, _ = _descend(table, configuration, axes, departed, start)
    missed = table.misses(configuration)
    attributed = {
        a: tuple(p.case_id for p in missed if table.depends(p, configuration, a)) for a in departed
    }
    unexplained = tuple(
        p.case_id for p in missed if not any(table.depends(p, configuration, a) for a in departed)
    )
    return JointFit(configuration, departed, attributed, unexplained)


def answers_fit(
    own: Config,
    axes: Sequence[str],
    probes: Sequence[ProbeInput],
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
    trust_rejections: bool = True,
    whole: int | None = None,
) -> JointFit:
    """`joint_fit` of the adapter's `answers` to the probes, each asked under its own
    configuration `own` at the probe's cutoff. A rejection is evidence only when the adapter
    rejects no input its own configuration accepts (`trust_rejections`): otherwise it may
    refuse for a reason no axis explains. `whole` as `joint_fit`'s."""

    def met(probe: ProbeInput, config: Config) -> bool | None:
        sent = replaced(own, cutoff=probe.config.cutoff)
        answer = answers.get((probe.case_id, sent.full()))
        if answer is None or ("rejected" in answer.result and not trust_rejections):
            return None
        return meets(probe, config, answer, sent, *numbers)

    return joint_fit(own, axes, probes, met, whole)
