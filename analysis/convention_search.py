"""Which configurations reproduce a reported nDCG value: the search behind ``ndcgspec which``.

Every configuration of the declared space (`ndcgspec.analysis.space`) is evaluated once over
shared per-query work (`ndcgspec.engine.sweep`), with the engine's exact arithmetic: the
reference's digits. A configuration reproduces the value when its mean is within half a unit
of the last reported decimal (``ndcg.comparison.published``). Configurations that give the
same per-query scores on this input cannot be told apart by it: they form one group under the
most plausible of them."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from tqdm import tqdm

from ndcgspec.analysis.space import DEFAULT_CUTOFFS, Candidate, describe_space, search_space
from ndcgspec.engine.sweep import Scores, Signature, Sweep, label_values
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.precision import mpf_fraction
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.suite.tolerance import published_tolerance


@dataclass
class Group:
    """Configurations with the same per-query scores on this input, most plausible first."""

    scores: Scores
    members: list[Candidate] = field(default_factory=list)

    @property
    def best(self) -> Candidate:
        return self.members[0]

    def distance(self, value: Fraction) -> Fraction | None:
        mean = self.scores.aggregate
        return None if mean is None else abs(mpf_fraction(mean) - value)

    def varying_axes(self) -> list[str]:
        """The axes (and cutoff) on which the members differ."""
        first = self.best.measure().to_mapping()
        axes: list[str] = []
        for member in self.members[1:]:
            other = member.config.to_mapping()
            other["cutoff"] = member.cutoff
            axes += [k for k in first if other.get(k) != first[k] and k not in axes]
        return [k for k in first if k in axes]


@dataclass
class Answer:
    """The outcome of a search: matching groups, closest groups, and what was searched."""

    value: Decimal
    decimals: int
    space: list[str]
    searched: int
    rejected: int
    seconds: float
    matches: list[Group]
    closest: list[Group]


def written_decimals(value: Decimal) -> int:
    """The number of decimals `value` is written with."""
    exponent = value.as_tuple().exponent
    return max(0, -int(exponent))


@dataclass
class Searched:
    """Every configuration of the space evaluated on one qrels file and one run, grouped by
    identical per-query scores, groups in order of their most plausible member."""

    groups: list[Group]
    space: list[str]
    searched: int
    rejected: int
    seconds: float


def evaluate_space(
    qrels_path: str,
    run_path: str,
    cutoffs: Sequence[int | None] = DEFAULT_CUTOFFS,
    extra_maps: Sequence[dict[Decimal, Decimal]] = (),
    progress: bool = False,
    extra_fields: bool = False,
) -> Searched:
    """Evaluate every configuration of the space once, over shared per-query work; with
    `extra_fields`, text after the run's sixth field is ignored, as trec_eval ignores it."""
    started = time.perf_counter()
    # Shown from the start: reading a large run and building the space take seconds before
    # the first configuration is counted.
    bar = tqdm(
        desc="which: reading the inputs",
        unit="config",
        disable=not progress,
        bar_format="{desc} [{elapsed}]",
    )
    qrels, run = read_qrels(qrels_path), read_run(run_path, extra_fields)
    bar.set_description_str("which: building the space")
    candidates, options = search_space(label_values(qrels), cutoffs, extra_maps)
    sweep = Sweep(qrels, run, {c.cutoff for c in candidates})
    bar.bar_format = None
    bar.set_description("which", refresh=False)
    bar.reset(total=len(candidates))
    groups: dict[Signature, Group] = {}
    keys: dict[int, Any] = {}
    # Many configurations share one Scores object (the sweep's cache): its group is found once.
    # Each entry holds its Scores too: one the reference computed is kept by nothing else, and
    # once freed its id would name the next one's group.
    group_of: dict[int, tuple[Scores, Group]] = {}
    rejected = 0
    for candidate in candidates:
        bar.update()
        config = candidate.config
        if id(config) not in keys:
            keys[id(config)] = sweep.keys(config)
        result = sweep.scores(config, candidate.cutoff, keys[id(config)])
        if isinstance(result, InputError):
            rejected += 1
            continue
        if id(result) in group_of:
            group = group_of[id(result)][1]
        else:
            group = groups.setdefault(result.signature(), Group(result))
            group_of[id(result)] = (result, group)
        group.members.append(candidate)
    bar.close()
    return Searched(
        groups=sorted(groups.values(), key=lambda g: g.best.order),
        space=describe_space(options, cutoffs),
        searched=len(candidates),
        rejected=rejected,
        seconds=time.perf_counter() - started,
    )


def answer(searched: Searched, value: Decimal, decimals: int) -> Answer:
    """The groups that reproduce `value` at `decimals` places, and the closest ones."""
    target, tolerance = Fraction(value), published_tolerance(decimals)
    matches = [
        g for g in searched.groups if (d := g.distance(target)) is not None and d <= tolerance
    ]
    defined = [g for g in searched.groups if g.scores.aggregate is not None]
    closest = sorted(defined, key=lambda g: (g.distance(target), g.best.order))
    return Answer(
        value=value,
        decimals=decimals,
        space=searched.space,
        searched=searched.searched,
        rejected=searched.rejected,
        seconds=searched.seconds,
        matches=matches,
        closest=closest,
    )
