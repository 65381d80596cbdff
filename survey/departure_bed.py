"""The generalisation bed of ``identify``'s joint search (``survey/joint_search.py``):
implementations computed by the exact reference under a preset of ``spec/presets.yaml`` with
one or two axes changed to other choices of the spec, declared as the preset, whose answers the
search must explain by naming exactly the changed axes; and the confusion matrix of those
verdicts (axis changed x axis reported), rendered as text."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from multiprocessing import get_context

from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes, choice_ids, presets
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.joint_search import JointFit, joint_fit
from ndcgspec.survey.probes import (
    OutcomeKey,
    ProbeInput,
    expected_of,
    meets,
    outcome_key,
    probe_inputs,
    replaced,
    with_choice,
)

EXACT = (64, None)
"""The float format of the bed's implementations: the reference rounded to doubles."""


@dataclass(frozen=True)
class Departure:
    """An implementation: the reference under `truth`, declared as the preset `preset`
    (`declared`), which it departs from on `axes`."""

    preset: str
    declared: Config
    truth: Config
    axes: tuple[str, ...]


def _answer(probe: ProbeInput, config: Config) -> Answer:
    """The reference's answer under `config`, as an adapter of doubles gives it."""
    found = expected_of(probe, config)
    if found.error is not None:
        return Answer({"rejected": found.error})
    per_query = {
        q: None if v.ndcg is None else float(v.ndcg) for q, v in (found.per_query or {}).items()
    }
    aggregate = found.aggregate
    return Answer(
        {"per_query": per_query, "aggregate": None if aggregate is None else float(aggregate)}
    )


def _observable(departure: Departure, probes: Sequence[ProbeInput]) -> bool:
    """Whether some probe shows each departed axis: the implementation's answers change when
    that axis alone goes back to the declaration. A change no probe shows (a negative-label
    rule under binary gain, which scores every negative label 0) is no departure any search
    could name."""

    def differ(one: Config, other: Config) -> bool:
        return any(
            outcome_key(p, replaced(one, cutoff=p.config.cutoff))
            != outcome_key(p, replaced(other, cutoff=p.config.cutoff))
            for p in probes
        )

    return all(differ(departure.truth, _reverted(departure, axis_id)) for axis_id in departure.axes)


def _reverted(departure: Departure, axis_id: str) -> Config:
    """The implementation's configuration with `axis_id` back at the declared choice."""
    declared = departure.declared
    reverted = with_choice(departure.truth, axis_id, declared.choice(axis_id), declared)
    return departure.truth if reverted is None else reverted


def _preset_configs() -> list[tuple[str, Config]]:
    return [(p.id, Config.from_mapping(p.config)) for p in presets()]


def _changes(config: Config, axis_id: str) -> Iterator[Config]:
    for choice in choice_ids(axis_id):
        if choice != config.choice(axis_id):
            changed = with_choice(config, axis_id, choice, config)
            if changed is not None:
                yield changed


def single_departures() -> list[Departure]:
    """Every preset with each axis changed to each other choice of the spec."""
    return [
        Departure(name, declared, truth, (a.id,))
        for name, declared in _preset_configs()
        for a in choice_axes()
        for truth in _changes(declared, a.id)
    ]


def double_departures() -> list[Departure]:
    """Every preset with each pair of axes changed, each to every other choice of the spec."""
    axes = [a.id for a in choice_axes()]
    return [
        Departure(name, declared, both, pair)
        for name, declared in _preset_configs()
        for pair in combinations(axes, 2)
        for one in _changes(declared, pair[0])
        for both in _changes(one, pair[1])
    ]


def sample(departures: Sequence[Departure], count: int, seed: int = 0) -> list[Departure]:
    """`count` of the departures, drawn with a fixed seed: the same sample on every run."""
    return random.Random(seed).sample(list(departures), min(count, len(departures)))


_VERDICTS: dict[tuple[str, str, OutcomeKey, OutcomeKey], bool | None] = {}
"""The bed's verdicts by probe, asked configuration and the two answers compared: the
departures of one preset answer most probes alike, and judging is the bed's costliest step."""


def identified(departure: Departure, probes: Sequence[ProbeInput]) -> JointFit:
    """The joint search's fit of the implementation's answers, asked under its declaration."""
    axes = [a.id for a in choice_axes()]

    def met(probe: ProbeInput, config: Config) -> bool | None:
        sent = replaced(departure.declared, cutoff=probe.config.cutoff)
        computed = replaced(departure.truth, cutoff=probe.config.cutoff)
        key = (probe.case_id, sent.full(), outcome_key(probe, computed), outcome_key(probe, config))
        if key not in _VERDICTS:
            _VERDICTS[key] = meets(probe, config, _answer(probe, computed), sent, *EXACT)
        return _VERDICTS[key]

    return joint_fit(departure.declared, axes, probes, met)


def reported(departure: Departure, fit: JointFit) -> tuple[str, ...]:
    """The axes the fit names: those it found departed and those whose choice differs from
    the declaration."""
    return tuple(
        a.id
        for a in choice_axes()
        if a.id in fit.departed
        or fit.on(departure.declared).choice(a.id) != departure.declared.choice(a.id)
    )


@dataclass(frozen=True)
class BedResult:
    """The verdicts on some departures: each observable departure with the axes reported,
    and how many departures no probe shows (`unobservable`)."""

    verdicts: tuple[tuple[Departure, tuple[str, ...]], ...]
    unobservable: int

    def confusion(self) -> Counter[tuple[str, str]]:
        """(axis departed, axis reported) counts: for each departed axis, itself when it is
        reported, "-" when it is not, and every reported axis on which the implementation does
        not depart (the other departed axis of a double departure is its own row's)."""
        counts: Counter[tuple[str, str]] = Counter()
        for departure, named in self.verdicts:
            for axis_id in departure.axes:
                counts[axis_id, axis_id if axis_id in named else "-"] += 1
                for other in named:
                    if other not in departure.axes:
                        counts[axis_id, other] += 1
        return counts

    def exact(self) -> int:
        """The departures whose reported axes are exactly the departed ones."""
        return sum(set(d.axes) == set(named) for d, named in self.verdicts)


def run_bed(
    departures: Sequence[Departure], probes: Sequence[ProbeInput] | None = None, jobs: int = 1
) -> BedResult:
    """The verdict of the joint search on each departure some probe shows; with `jobs`
    processes, each given the departures of some presets (whose searches ask the reference
    mostly the same questions), on every probe."""
    if jobs > 1:
        if probes is not None:
            # A probe keeps its hash from the process that made it: each process reads its own.
            raise ValueError("a bed run in several processes reads every probe itself")
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
            parts = list(pool.map(run_bed, _by_preset(departures, jobs)))
        return BedResult(
            tuple(v for part in parts for v in part.verdicts), sum(p.unobservable for p in parts)
        )
    probes = probes if probes is not None else probe_inputs()
    verdicts = []
    hidden = 0
    for departure in departures:
        if not _observable(departure, probes):
            hidden += 1
            continue
        verdicts.append((departure, reported(departure, identified(departure, probes))))
    return BedResult(tuple(verdicts), hidden)


def _by_preset(departures: Sequence[Departure], parts: int) -> list[list[Departure]]:
    """The departures in `parts` lists of whole presets, each next preset (the largest first)
    given to the list with the fewest departures."""
    presets: dict[str, list[Departure]] = {}
    for departure in departures:
        presets.setdefault(departure.preset, []).append(departure)
    shares: list[list[Departure]] = [[] for _ in range(parts)]
    for group in sorted(presets.values(), key=len, reverse=True):
        min(shares, key=len).extend(group)
    return [share for share in shares if share]


def render(result: BedResult, title: str) -> str:
    """The confusion matrix as a text table: a row per axis departed, a column per axis
    reported ("-": none), then how many departures were named exactly."""
    counts = result.confusion()
    axes = [a.id for a in choice_axes()]
    columns = [*axes, "-"]
    width = max(len(a) for a in columns) + 1
    lines = [
        title,
        "departed \\ reported".ljust(width + 2) + "".join(c[:6].rjust(7) for c in columns),
    ]
    for axis_id in axes:
        cells = "".join(str(counts.get((axis_id, c), 0) or ".").rjust(7) for c in columns)
        lines.append(axis_id.ljust(width + 2) + cells)
    lines.append(
        f"named exactly: {result.exact()} of {len(result.verdicts)} "
        f"({result.unobservable} departures no probe shows left out)"
    )
    return "\n".join(lines)
