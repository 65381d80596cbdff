"""The joint search of ``identify`` and of ``run``'s diagnosis: the choices the implementation
computes where it is asked others, and the fewest axes on which it departs from every choice,
that together explain the adapter's answers to the probes.

Each probe is asked under a configuration of its own: ``identify`` asks every probe under the
adapter's declared configuration, a run each case under the case's. What the search finds is
a set of changes (`Changes`): on an axis, asked one choice, the implementation computes
another; with one asked configuration they make one configuration of the spec's choices
(`JointFit.on`). Every axis and every choice is read from ``spec/ndcg.yaml`` (``ndcg.axes``): a
choice the spec declares is a candidate with no change here. The asked configurations are only
where the search starts and what breaks its ties: the answers decide. A probe the changed
configuration does not meet is explained by a departed axis when the reference's answer to it
depends on that axis (it differs between the axis's choices); every other axis keeps the choice
the search found for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, partial
from itertools import combinations
from typing import NamedTuple

from ndcgspec.harness.adapters.base import NumberFormat
from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_ids
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.probes import (
    OutcomeKey,
    ProbeInput,
    computed_in_halves,
    depends_on,
    meets,
    outcome_key,
    replaced,
    with_choice,
)

Met = Callable[[ProbeInput, Config], bool | None]
"""Whether the adapter's answer to a probe meets the reference under a configuration (at the
probe's cutoff); None when the answer is evidence of nothing (the adapter failed)."""

Asked = Callable[[ProbeInput], Config]
"""The configuration a probe was asked under (its cutoff aside)."""

MOST_DEPARTED = 2
"""The most axes the search lets depart at once: beyond two, nearly every probe depends on
some departed axis, and the departures explain everything and so nothing."""

FEWER_AXES = 2
"""How many times fewer met probes must contradict a departure of more axes for it to replace
one of fewer that already explains every miss (`_departures`)."""


class Change(NamedTuple):
    """Asked `asked` on `axis`, the implementation computes the spec's choice `computes`. A
    tuple: the search hashes and compares sets of changes hundreds of thousands of times."""

    axis: str
    asked: str
    computes: str


@dataclass(frozen=True)
class Changes:
    """What the implementation computes where it is asked another choice: at most one
    `Change` per axis and asked choice, in a fixed order, so that equal sets are equal."""

    found: tuple[Change, ...] = ()

    def computes(self, axis_id: str, asked: str) -> str:
        """The choice computed on `axis_id` where `asked` is asked."""
        return next(
            (c.computes for c in self.found if (c.axis, c.asked) == (axis_id, asked)), asked
        )

    def setting(self, axis_id: str, asked: str, computes: str) -> Changes:
        """These changes with `asked` on `axis_id` computing `computes` (none: `asked`)."""
        kept = [c for c in self.found if (c.axis, c.asked) != (axis_id, asked)]
        if computes != asked:
            kept.append(Change(axis_id, asked, computes))
        return Changes(tuple(sorted(kept, key=lambda c: (c.axis, c.asked))))

    def applying(self, asked: Config) -> tuple[Change, ...]:
        """The changes whose asked choice `asked` makes."""
        return tuple(c for c in self.found if asked.choice(c.axis) == c.asked)

    def on(self, asked: Config) -> Config:
        """What the implementation computes when asked `asked`: the changes that apply to it
        applied (every other axis, and the cutoff, as asked)."""
        config = asked
        for change in self.applying(asked):
            changed = with_choice(config, change.axis, change.computes, asked)
            # The search proposes no choice the asked configuration cannot give.
            assert changed is not None, change
            config = changed
        return config


@dataclass(frozen=True)
class JointFit:
    """The changes the search found (`changes`), the axes on which no choice of the spec
    explains the answers (`departed`), for each the probes attributed to it (`attributed`),
    and the probes neither the changes nor a departure explains (`unexplained`)."""

    changes: Changes
    departed: tuple[str, ...]
    attributed: Mapping[str, tuple[str, ...]]
    unexplained: tuple[str, ...]

    def on(self, asked: Config) -> Config:
        """The configuration found for the probes asked under `asked`."""
        return self.changes.on(asked)

    def set_aside_for(self, axis_id: str) -> set[str]:
        """The probes that are no evidence about `axis_id`: those another departed axis
        explains."""
        return {case for a, cases in self.attributed.items() if a != axis_id for case in cases}


@dataclass(frozen=True)
class Judged:
    """What searches over one implementation's answers share: the verdict on each probe by
    the reference's answer it is judged against, and each probe's dependence on an axis
    under a configuration. ``identify`` searches its answers again with a cutoff of the
    implementation's own, or without whole-ranking probes, and judging is the costliest
    step."""

    verdicts: dict[tuple[str, OutcomeKey], bool | None] = field(default_factory=dict)
    depends: dict[tuple[str, Config, str], bool] = field(default_factory=dict)


class _Table:
    """Each probe's configuration under each set of changes, its verdict under each
    candidate and its dependence on each axis, computed once: the search visits the same few
    configurations many times."""

    def __init__(
        self,
        probes: Sequence[ProbeInput],
        asked: Asked,
        met: Met,
        axes: Sequence[str],
        whole: int | None,
        judged: Judged,
    ) -> None:
        self.probes = probes
        self.asked = asked
        self.axes = axes
        self._whole = whole
        self._met = met
        self._configs: dict[tuple[int, int | None, tuple[Change, ...]], Config] = {}
        # Each probe's asked configuration and a number for it, one per distinct one: the
        # descent keys configurations by the number, where hashing a Config costs a call.
        self._asked: dict[str, tuple[Config, int]] = {}
        self._numbers: dict[Config, int] = {}
        self._verdicts = judged.verdicts
        self._depends = judged.depends
        self._misses: dict[Changes, list[ProbeInput]] = {}

    def config(self, probe: ProbeInput, changes: Changes) -> Config:
        """What `changes` make of the probe's asked configuration, at the probe's cutoff, or
        at the cutoff the implementation applies when asked for the whole ranking."""
        cutoff = probe.config.cutoff
        if probe.case_id not in self._asked:
            asked = self.asked(probe)
            number = self._numbers.setdefault(asked, len(self._numbers))
            self._asked[probe.case_id] = (asked, number)
        asked, number = self._asked[probe.case_id]
        # Keyed by the changes that apply: most changes leave most probes as they were.
        key = (number, cutoff, changes.applying(asked))
        found = self._configs.get(key)
        if found is None:
            placed = replaced(asked, cutoff=self._whole if cutoff is None else cutoff)
            found = self._configs[key] = changes.on(placed)
        return found

    def verdict(self, probe: ProbeInput, changes: Changes) -> bool | None:
        # Keyed by the reference's answer, not the configuration: most candidates answer a
        # probe alike, and judging an answer is the search's costliest step.
        placed = self.config(probe, changes)
        key = (probe.case_id, outcome_key(probe, placed))
        if key not in self._verdicts:
            self._verdicts[key] = self._met(probe, placed)
        return self._verdicts[key]

    def depends(self, probe: ProbeInput, changes: Changes, axis_id: str) -> bool:
        placed = self.config(probe, changes)
        key = (probe.case_id, placed, axis_id)
        if key not in self._depends:
            self._depends[key] = depends_on(probe, placed, axis_id)
        return self._depends[key]

    def explained(self, probe: ProbeInput, changes: Changes, departed: Sequence[str]) -> bool:
        """Whether a departure of one of the `departed` axes explains a miss of `probe`: the
        reference's answer to it depends on that axis."""
        return any(self.depends(probe, changes, a) for a in departed)

    def misses(self, changes: Changes) -> list[ProbeInput]:
        # The descent asks again of the changes it compares and moves to.
        if changes not in self._misses:
            self._misses[changes] = [p for p in self.probes if self.verdict(p, changes) is False]
        return self._misses[changes]


Cost = tuple[int, int, int]


def _cost(table: _Table, changes: Changes, departed: Sequence[str]) -> Cost:
    """What the search minimises: the probes nothing explains, then the probes the changed
    configurations miss (a departure explains as few as it can), then the changes (the asked
    configurations break ties)."""
    missed = table.misses(changes)
    unexplained = sum(not table.explained(p, changes, departed) for p in missed)
    return unexplained, len(missed), len(changes.found)


def _beats(table: _Table, changes: Changes, departed: Sequence[str], bound: Cost) -> bool:
    """Whether `_cost` of `changes` is below `bound`, reading the probes only until the
    count so far reaches it: the count only grows as probes are read, and most of the pairs
    the descent tries are worse than where it stands."""
    unexplained = missed = 0
    for probe in table.probes:
        if table.verdict(probe, changes) is False:
            missed += 1
            unexplained += not table.explained(probe, changes, departed)
            if (unexplained, missed, len(changes.found)) >= bound:
                return False
    return (unexplained, missed, len(changes.found)) < bound


def _costs(table: _Table, departed: Sequence[str], candidates: Sequence[Changes]) -> list[Cost]:
    """The `_cost` of each of `candidates`."""
    return [_cost(table, c, departed) for c in candidates]


def _costs_below(
    table: _Table, departed: Sequence[str], bound: Cost, pairs: Sequence[Changes]
) -> list[Cost | None]:
    """The `_cost` of each of `pairs` below `bound`, None for the others."""
    return [_cost(table, p, departed) if _beats(table, p, departed, bound) else None for p in pairs]


def _neighbours(table: _Table, changes: Changes) -> list[Changes]:
    """`changes` with the choice computed for one asked choice of one axis set to another of
    the spec's choices. Only the choices asked of probes the changes miss: another change
    alters what met probes compute, and mends nothing."""
    missed = table.misses(changes)
    found = []
    for axis_id in table.axes:
        examples = {table.asked(p).choice(axis_id): table.asked(p) for p in missed}
        for asked in (c for c in choice_ids(axis_id) if c in examples):
            now = changes.computes(axis_id, asked)
            for choice in _alternatives(examples[asked], axis_id, now):
                found.append(changes.setting(axis_id, asked, choice))
    return found


def _alternatives(example: Config, axis_id: str, now: str) -> list[str]:
    """The spec's choices of `axis_id` other than `now` that an implementation asked `example`
    may compute: the asked choice, or one the asked configuration can give."""
    asked = example.choice(axis_id)
    return [
        choice
        for choice in choice_ids(axis_id)
        if choice != now
        and (choice == asked or with_choice(example, axis_id, choice, example) is not None)
    ]


PAIRED_MOVES = 8
"""Where no single change lowers the cost, the changes of two axes tried start from this many
of the best single changes: enough for two axes whose changes each mend nothing alone."""


def _descend(table: _Table, changes: Changes, departed: Sequence[str]) -> tuple[Changes, Cost]:
    """From `changes`, the best single change while one lowers the cost, then the best
    change of two at once where no single change does and probes are still missed (two
    departures from the asked configurations may each break probes the other's change alone
    cannot mend)."""

    costs: dict[Changes, Cost] = {}

    def cost_of(candidate: Changes) -> Cost:
        if candidate not in costs:
            costs[candidate] = _cost(table, candidate, departed)
        return costs[candidate]

    cost = cost_of(changes)
    while cost[1]:
        moves = _neighbours(table, changes)
        if not moves:
            break
        # The single changes not costed before, half of them weighed by a copy (`halves`).
        fresh = [move for move in dict.fromkeys(moves) if move not in costs]
        weighed = computed_in_halves(partial(_costs, table, departed), fresh)
        costs.update(zip(fresh, weighed, strict=True))
        moves.sort(key=cost_of)
        best = moves[0]
        if cost_of(best) >= cost:
            # The first of the pairs with the lowest cost below the current one (where a walk
            # in order, each pair weighed against the best before it, ends), without the whole
            # cost of the pairs that cannot be lower; half of them weighed by a copy of this
            # process on a second core (`halves`). A change the descent has costed (a single
            # change, or the changes it stands on) costs no less than where it stands.
            pairs = list(
                dict.fromkeys(
                    pair
                    for move in moves[:PAIRED_MOVES]
                    for pair in _neighbours(table, move)
                    if pair not in costs
                )
            )
            below = computed_in_halves(partial(_costs_below, table, departed, cost), pairs)
            found = [(c, i) for i, c in enumerate(below) if c is not None]
            if not found:
                break
            # Its cost is weighed already, maybe by the copy: kept, not weighed again.
            lowest, index = min(found)
            best = pairs[index]
            costs[best] = lowest
        changes, cost = best, cost_of(best)
    return changes, cost


def _departures(
    table: _Table, changes: Changes, axes: Sequence[str]
) -> tuple[tuple[int, int], tuple[str, ...]]:
    """The axes (at most `MOST_DEPARTED`) whose departure explains the most probes `changes`
    miss, with how many stay unexplained. Among those explaining as much, the ones on which
    the fewest met probes depend, then the fewest: a departure shows on the probes that
    depend on its axis. More axes replace fewer that explain every miss only where
    `FEWER_AXES` times fewer met probes contradict them: the discount, on which nearly every
    answer depends, explains every miss alone but is contradicted by every met probe, and a
    library that counts a repeated document and scores a query of no ideal its own way
    departs on duplicates and empty (70 met probes against 349); an ideal of the first k
    judgments, which the judged ideal's met probes contradict as much as any pair, stays the
    one departure (281 against 243). Between departures of as many axes that explain and are
    contradicted alike, the one more of whose misses another choice of a departed axis meets,
    the nearer to the spec, then the one on which the misses depend the more (the share of its
    other choices that change their answers): an ideal of the first k judgments explains its
    211 misses as the gain does, each contradicted by 326 met probes, but other ideals meet 38
    of them where other gains meet 14; a log discount one rank late is met by no other choice,
    and its misses depend on the discount (9.0) more than on the gain (8.3), whose judged
    choice alone changes most of them."""
    missed = table.misses(changes)
    best: tuple[tuple[int, int], tuple[str, ...]] = ((len(missed), 0), ())
    if not missed:
        return best
    met = [p for p in table.probes if table.verdict(p, changes)]

    def cost(departed: tuple[str, ...]) -> tuple[int, int]:
        unexplained = sum(not table.explained(p, changes, departed) for p in missed)
        contradicted = sum(table.explained(p, changes, departed) for p in met)
        return unexplained, contradicted

    @cache
    def near(departed: tuple[str, ...]) -> tuple[int, Fraction]:
        return (
            sum(
                any(_met_by_another_choice(table, changes, p, a) for a in departed) for p in missed
            ),
            sum(
                (max(_share_changing(table, changes, p, a) for a in departed) for p in missed),
                Fraction(0),
            ),
        )

    def replaces(found: tuple[int, int], departed: tuple[str, ...]) -> bool:
        fewer = len(best[1])
        if found < best[0]:
            return bool(best[0][0] or len(departed) == fewer or FEWER_AXES * found[1] <= best[0][1])
        return found == best[0] and len(departed) == fewer and near(departed) > near(best[1])

    for size in range(1, MOST_DEPARTED + 1):
        for departed in combinations(axes, size):
            found = cost(departed)
            if replaces(found, departed):
                best = (found, departed)
    return best


def _share_changing(table: _Table, changes: Changes, probe: ProbeInput, axis_id: str) -> Fraction:
    """The share of the other choices of `axis_id` under which the reference answers the probe
    otherwise: how strongly its answer depends on the axis."""
    placed = table.config(probe, changes)
    now = outcome_key(probe, placed)
    others = [
        config
        for choice in choice_ids(axis_id)
        if choice != placed.choice(axis_id)
        and (config := with_choice(placed, axis_id, choice, probe.config)) is not None
    ]
    return Fraction(sum(outcome_key(probe, c) != now for c in others), max(1, len(others)))


def _met_by_another_choice(
    table: _Table, changes: Changes, probe: ProbeInput, axis_id: str
) -> bool:
    """Whether another of the spec's choices of `axis_id` meets the probe that `changes`
    miss."""
    example = table.asked(probe)
    asked = example.choice(axis_id)
    now = changes.computes(axis_id, asked)
    return any(
        table.verdict(probe, changes.setting(axis_id, asked, choice))
        for choice in _alternatives(example, axis_id, now)
    )


def changes_fit(
    asked: Asked,
    axes: Sequence[str],
    probes: Sequence[ProbeInput],
    met: Met,
    whole: int | None = None,
    judged: Judged | None = None,
) -> JointFit:
    """The changes and the fewest departed axes (at most `MOST_DEPARTED`) that explain the
    most probes, each probe asked under `asked(probe)`, searched over every choice of `axes`
    from no change: first the changes that miss the fewest probes, then the departures that
    explain their misses, then the changes again with the probes they explain left out.
    `whole` is the cutoff the implementation applies when asked for the whole ranking, if it
    chooses one (``identify``'s chosen cutoff); `judged`, what an earlier search of the same
    `met` judged."""
    table = _Table(probes, asked, met, axes, whole, judged or Judged())
    changes, _ = _descend(table, Changes(), ())
    _, departed = _departures(table, changes, axes)
    if departed:
        changes, _ = _descend(table, changes, departed)
    missed = table.misses(changes)
    attributed = {
        a: tuple(p.case_id for p in missed if table.depends(p, changes, a)) for a in departed
    }
    unexplained = tuple(p.case_id for p in missed if not table.explained(p, changes, departed))
    return JointFit(changes, departed, attributed, unexplained)


def joint_fit(
    start: Config,
    axes: Sequence[str],
    probes: Sequence[ProbeInput],
    met: Met,
    whole: int | None = None,
    judged: Judged | None = None,
) -> JointFit:
    """`changes_fit` of probes all asked under the declared `start` (``identify``'s): the
    configuration found is `JointFit.on(start)`."""
    return changes_fit(lambda _: start, axes, probes, met, whole, judged)


def answers_fit(
    own: Config,
    axes: Sequence[str],
    probes: Sequence[ProbeInput],
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
    trust_rejections: bool = True,
    whole: int | None = None,
    judged: Judged | None = None,
) -> JointFit:
    """`joint_fit` of the adapter's `answers` to the probes, each asked under its own
    configuration `own` at the probe's cutoff. A rejection is evidence only when the adapter
    rejects no input its own configuration accepts (`trust_rejections`): otherwise it may
    refuse for a reason no axis explains. `whole` and `judged` as `joint_fit`'s: searches of
    the same answers, own configuration and trust may share one `judged`."""
    met = _answers_met(own, answers, numbers, trust_rejections)
    return joint_fit(own, axes, probes, met, whole, judged)


def exact_fit(
    own: Config,
    axes: Sequence[str],
    probes: Sequence[ProbeInput],
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
    trust_rejections: bool,
    judged: Judged,
) -> JointFit | None:
    """`answers_fit` where changes of the spec's choices explain every answer (no departure,
    nothing unexplained), found without weighing departures; None where a miss is left. The
    rounds of ``identify`` ask more probes while it is not None, and every probe once it is."""
    met = _answers_met(own, answers, numbers, trust_rejections)
    table = _Table(probes, lambda _: own, met, axes, None, judged)
    changes, cost = _descend(table, Changes(), ())
    return JointFit(changes, (), {}, ()) if cost[1] == 0 else None


def _answers_met(
    own: Config,
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
    trust_rejections: bool,
) -> Met:
    def met(probe: ProbeInput, config: Config) -> bool | None:
        sent = replaced(own, cutoff=probe.config.cutoff)
        answer = answers.get((probe.case_id, sent.full()))
        if answer is None or ("rejected" in answer.result and not trust_rejections):
            return None
        return meets(probe, config, answer, sent, *numbers)

    return met
