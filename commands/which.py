"""The ``which`` command: which configurations reproduce a reported nDCG value.

Given qrels, a run and a number as a paper reports it, every configuration of the declared
space (`ndcgspec.commands.space`) is evaluated once over shared per-query work
(`ndcgspec.engine.sweep`), with the engine's exact arithmetic: the reference's
digits. A configuration reproduces the value when its mean is within half a unit of the last
reported decimal (``ndcg.comparison.published``). Configurations that give the same per-query
scores on this input cannot be told apart by it; they are listed as one group under the most
plausible of them. When nothing reproduces the value, the closest results are shown.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import mpmath
from tqdm import tqdm

from ndcgspec.commands.space import DEFAULT_CUTOFFS, Candidate, describe_space, search_space
from ndcgspec.engine.sweep import Scores, Sweep, label_values
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.config import Config
from ndcgspec.reference.contexts import held
from ndcgspec.reference.decimals import (
    OUTPUT_DIGITS,
    decimal_string,
    parse_decimal,
    working_precision,
)
from ndcgspec.reference.errors import ConfigError, InputError, NdcgSpecError
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.suite.tolerance import published_tolerance

SHOWN_DIGITS = 10


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
        return None if mean is None else abs(exact(mean) - value)

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


def exact(value: mpmath.mpf) -> Fraction:
    """The binary value of an mpf as an exact fraction."""
    man, exp = value.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


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
    qrels, run = read_qrels(qrels_path), read_run(run_path, extra_fields)
    candidates, options = search_space(label_values(qrels), cutoffs, extra_maps)
    sweep = Sweep(qrels, run, {c.cutoff for c in candidates})
    groups: dict[tuple, Group] = {}
    keys: dict[int, Any] = {}
    # Many configurations share one Scores object (the sweep's cache): its group is found once.
    group_of: dict[int, Group] = {}
    rejected = 0
    for candidate in tqdm(candidates, desc="which", unit="config", disable=not progress):
        config = candidate.config
        if id(config) not in keys:
            keys[id(config)] = sweep.keys(config)
        result = sweep.scores(config, candidate.cutoff, keys[id(config)])
        if isinstance(result, InputError):
            rejected += 1
            continue
        group = group_of.get(id(result))
        if group is None:
            group = group_of[id(result)] = groups.setdefault(result.signature(), Group(result))
        group.members.append(candidate)
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


def _group_json(group: Group, target: Fraction) -> dict[str, Any]:
    measure = group.best.measure()
    return {
        "measure": measure.canonical(),
        "fingerprint": measure.fingerprint(),
        "origin": {
            "preset": group.best.preset,
            "departures": [{"axis": a, "choice": o} for a, o in group.best.departures],
        },
        "aggregate": decimal_string(group.scores.aggregate),
        "difference": _difference(group, target),
        "equivalent": len(group.members) - 1,
        "varying_axes": group.varying_axes(),
        "members": [m.measure().canonical() for m in group.members],
    }


def _difference(group: Group, target: Fraction) -> str | None:
    """|mean − value| as a decimal string of the spec's output digits."""
    distance = group.distance(target)
    if distance is None:
        return None
    with working_precision():
        return decimal_string(held(distance.numerator) / distance.denominator)


def answer_json(answer: Answer, top: int) -> dict[str, Any]:
    """The JSON object ``which --format json`` prints."""
    target = Fraction(answer.value)
    return {
        "value": str(answer.value),
        "decimals": answer.decimals,
        "tolerance": str(Decimal(5).scaleb(-answer.decimals - 1)),
        "space": answer.space,
        "searched": answer.searched,
        "rejected": answer.rejected,
        "seconds": round(answer.seconds, 3),
        "reproduced_by": sum(len(g.members) for g in answer.matches),
        "matches": [_group_json(g, target) for g in answer.matches[:top]],
        "closest": [] if answer.matches else [_group_json(g, target) for g in answer.closest[:top]],
    }


def _shown(value: mpmath.mpf | None) -> str:
    return "undefined" if value is None else mpmath.nstr(value, SHOWN_DIGITS, strip_zeros=False)


def _group_lines(number: int, group: Group, target: Fraction) -> list[str]:
    measure = group.best.measure()
    lines = [
        f"{number:>3}. {group.best.origin()}",
        f"     {_shown(group.scores.aggregate)}  {measure.canonical()}  "
        f"(fingerprint {measure.fingerprint()})",
    ]
    if len(group.members) > 1:
        lines.append(
            f"     and {len(group.members) - 1} more with the same per-query scores on this "
            f"input, differing on: {', '.join(group.varying_axes())}"
        )
    return lines


def answer_text(answer: Answer, top: int) -> list[str]:
    """The lines ``which`` prints."""
    tolerance = Decimal(5).scaleb(-answer.decimals - 1)
    target = Fraction(answer.value)
    lines = [
        f"value {answer.value} at {answer.decimals} decimals: a result v reproduces it when "
        f"|v - {answer.value}| <= {tolerance} (ndcg.comparison.published)",
        f"searched {answer.searched} configurations in {answer.seconds:.1f} s "
        f"({answer.rejected} reject this input); the space:",
        *(f"  {line}" for line in answer.space),
        "",
    ]
    if answer.matches:
        total = sum(len(g.members) for g in answer.matches)
        lines.append(
            f"reproduced by {total} configurations in {len(answer.matches)} groups of identical "
            f"per-query scores, most plausible first (top {min(top, len(answer.matches))}):"
        )
        for number, group in enumerate(answer.matches[:top], 1):
            lines += _group_lines(number, group, target)
    else:
        lines.append(f"nothing in the space reproduces {answer.value}; the closest results:")
        for number, group in enumerate(answer.closest[:top], 1):
            lines += _group_lines(number, group, target)
    return lines


def _gain_map(text: str) -> dict[Decimal, Decimal]:
    """A gain map as written in a measure string, e.g. ``{1:0,2:1,3:3}``."""
    try:
        config = parse_measure(f"nDCG(gain=map,gain_map={text})")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(f"not a gain map {text!r}: {error}") from None
    return dict(config.param("gain_map"))


def _cutoff(text: str) -> int:
    try:
        return Config.from_mapping({"cutoff": text}).cutoff or 0
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``which`` subcommand."""
    parser = subparsers.add_parser(
        "which",
        help="which configurations reproduce a reported nDCG value",
        description="List every configuration of the declared space (presets, their one- "
        "and two-axis departures, common cutoffs, gain maps that collapse grades) whose nDCG "
        "of RUN against QRELS reproduces VALUE, most plausible first.",
    )
    parser.add_argument("qrels", metavar="QRELS", help="qrels file: qid iter docid label")
    parser.add_argument("run", metavar="RUN", help="run file: qid Q0 docid rank score tag")
    parser.add_argument("value", metavar="VALUE", help="the reported value, e.g. 0.4040")
    parser.add_argument(
        "--decimals",
        type=int,
        metavar="D",
        help="decimals the value was reported with (default: as many as VALUE is written with)",
    )
    parser.add_argument("--top", type=int, default=10, metavar="N", help="groups shown (10)")
    parser.add_argument(
        "--cutoff",
        action="append",
        type=_cutoff,
        default=[],
        metavar="K",
        help="also search cutoff K (repeatable)",
    )
    parser.add_argument(
        "--gain-map",
        action="append",
        type=_gain_map,
        default=[],
        metavar="MAP",
        help="also search this gain map, written as in a measure: {1:3,2:9} (repeatable)",
    )
    parser.add_argument(
        "--extra-fields",
        action="store_true",
        help="ignore text after the sixth field of a run line, as trec_eval does",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run_which)


def run_which(args: argparse.Namespace) -> int:
    """Search, then print; exit status 0 when something reproduces the value, 1 when not."""
    try:
        value = parse_decimal(args.value)
    except NdcgSpecError:
        raise NdcgSpecError(f"VALUE must be a decimal number, got {args.value!r}") from None
    decimals = written_decimals(value) if args.decimals is None else args.decimals
    if decimals < 0 or args.top < 1:
        raise NdcgSpecError("--decimals must be >= 0 and --top >= 1")
    if decimals > OUTPUT_DIGITS:
        # The means hold the output digits: more decimals would ask beyond them.
        raise NdcgSpecError(
            f"VALUE is given to {decimals} decimals; which compares means of "
            f"{OUTPUT_DIGITS} digits (ndcg.precision), so give at most {OUTPUT_DIGITS}"
        )
    cutoffs = [*DEFAULT_CUTOFFS, *(k for k in args.cutoff if k not in DEFAULT_CUTOFFS)]
    searched = evaluate_space(
        args.qrels,
        args.run,
        cutoffs,
        args.gain_map,
        progress=sys.stderr.isatty(),
        extra_fields=args.extra_fields,
    )
    found = answer(searched, value, decimals)
    if args.format == "json":
        print(json.dumps(answer_json(found, args.top), indent=2))
    else:
        print("\n".join(answer_text(found, args.top)))
    return 0 if found.matches else 1
