"""The suite discriminates: for every choice of every axis, scoring the hand-authored cases that
make that choice with any other choice of the axis instead fails at least 3 of them; and a
wrong cutoff k fails at least 3 cutoff cases."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from ndcgspec.reference.config import choice_axes, choice_ids
from ndcgspec.suite.case_record import Case
from ndcgspec.suite.expect import reference_outcome
from ndcgspec.suite.loaded import iter_cases

REQUIRED_FAILURES = 3
# A choice whose parameters have no default needs some value to be scored with.
WRONG_PARAMS = {"map": {"gain_map": {"1": "3", "2": "9", "3": "27"}}}


@cache
def hand_cases() -> list[Case]:
    """The hand-authored cases with one expected answer, the smallest first."""
    cases = [
        c.case for c in iter_cases() if c.case.origin == "hand" and c.case.expected is not None
    ]
    return sorted(cases, key=lambda c: len(c.input.run) + len(c.input.qrels) if c.input else 0)


def failures(cases: list[Case], change: dict[str, Any]) -> Iterator[str]:
    """The ids of cases whose expected answer differs from the reference's under `change`."""
    for case in cases:
        qrels, run = case.inputs(None)
        wrong = case.config.replace(**change)
        if reference_outcome(wrong, qrels, run) != case.expected:
            yield case.id


def first_failures(cases: list[Case], change: dict[str, Any]) -> list[str]:
    found = []
    for case_id in failures(cases, change):
        found.append(case_id)
        if len(found) == REQUIRED_FAILURES:
            break
    return found


PAIRS = [
    (a.id, right, wrong)
    for a in choice_axes()
    for right in choice_ids(a.id)
    for wrong in choice_ids(a.id)
    if wrong != right
]


@pytest.mark.parametrize(("axis", "right", "wrong"), PAIRS)
def test_wrong_choice_fails_at_least_three_cases(axis: str, right: str, wrong: str) -> None:
    cases = [c for c in hand_cases() if c.config.choice(axis) == right]
    found = first_failures(cases, {axis: wrong, **WRONG_PARAMS.get(wrong, {})})
    assert len(found) >= REQUIRED_FAILURES, (
        f"{axis}={wrong} instead of {axis}={right} fails only {found} of {len(cases)} cases"
    )


@pytest.mark.parametrize("shift", [-1, +1, None])
def test_wrong_cutoff_fails_at_least_three_cases(shift: int | None) -> None:
    with_k = [c for c in hand_cases() if c.config.cutoff is not None]
    found = []
    for case in with_k:
        k = case.config.cutoff
        wrong = None if shift is None else k + shift
        if wrong == 0:
            continue
        found += first_failures([case], {"cutoff": wrong})
    assert len(found) >= REQUIRED_FAILURES, found


def test_cutoff_on_a_whole_ranking_fails_at_least_three_cases() -> None:
    without_k = [c for c in hand_cases() if c.config.cutoff is None]
    assert len(first_failures(without_k, {"cutoff": 1})) >= REQUIRED_FAILURES
