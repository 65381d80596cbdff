"""The ``which`` command: which configurations reproduce a reported nDCG value.

Given qrels, a run and a number as a paper reports it, the configurations that reproduce it
(`ndcgspec.analysis.convention_search`), listed as groups of configurations that give the same
per-query scores on this input; when nothing reproduces the value, the closest results.
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any

import mpmath

from ndcgspec.analysis.convention_search import (
    Answer,
    Group,
    answer,
    evaluate_space,
    written_decimals,
)
from ndcgspec.analysis.space import DEFAULT_CUTOFFS
from ndcgspec.reference.contexts import held
from ndcgspec.reference.decimals import OUTPUT_DIGITS, parse_decimal
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.reference.precision import decimal_string, working_precision

SHOWN_DIGITS = 10


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


def run_which(args: argparse.Namespace) -> int:
    """Search, then print; exit status 0 when something reproduces the value, 1 when not."""
    try:
        value = parse_decimal(args.value)
    except NdcgSpecError:
        raise NdcgSpecError(f"VALUE must be a decimal number, got {args.value!r}") from None
    if value > 1 and not args.above_one:
        # Said before the search, which takes seconds to minutes: a paper's "50.58" is 0.5058.
        raise NdcgSpecError(
            f"VALUE {args.value} is above 1: a percentage? give {value / 100} "
            "(or --above-one to search for it as written)"
        )
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
