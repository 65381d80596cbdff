"""Why a run's cases fail: ``identify``'s findings, made on the failing cases themselves.

``ndcgspec run`` hands over every failing case with its input and the adapter's answer
(``harness/diagnosis.py``); nothing is asked of the adapter again. Each failing case is a probe
(``survey/probes.py``) asked under the case's own configuration. On every axis the candidates
that vary the axis tell which choices the answer meets. Rounds follow: the choice that more
failing cases meet than meet the one asked, on the axis where it accounts for the most of them,
is taken as what the adapter computes where it was asked the case's choice, the cases it
explains are set aside, and the next round judges the rest under the corrected configurations,
so that two departures together (a negative label kept in the ideal, in a ranking whose ties
the adapter breaks its own way) explain a case that either alone does not. What no choice
explains is then tried against the tie order (``ndcg.ties``): a case whose every value lies
between the pessimistic and the optimistic tie order fails by the order of its tied documents
alone. Last, an axis on which no choice meets the remaining cases (identify's finding of "none
of the spec's choices", by `axis_verdict` and its majority rule) is named for the cases that
depend on it, and the valid inputs the adapter refused are grouped by reason (``identify``'s
"rejections").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ndcgspec.harness.adapters.base import NumberFormat
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.diagnosis import Diagnosis, Failure
from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes, choice_ids
from ndcgspec.survey.axis_identification import axis_verdict
from ndcgspec.survey.identification import NONE, REJECTIONS, AxisFinding
from ndcgspec.survey.probes import (
    Answer,
    ProbeInput,
    distinguishing,
    meets,
    outcome_key,
    with_choice,
    within_tie_bounds,
)
from ndcgspec.survey.reasons import refusal_key

SAMPLED = 60
"""How many failing cases the causes are looked for on (`_discover`); every failing case is
then checked against the causes found, at a few reference evaluations each."""
EXAMINED_ROWS = 2000
"""The largest input examined (qrels and run rows): the reference evaluates each under every
candidate of every axis, and the long inputs of the suite repeat what the short ones show."""
NONE_CHOICE = "none"
TIE_ORDER_DEPARTS = "order departs from the {asked} rule on rankings of {length} documents or more"


@dataclass
class _Cause:
    """One cause: on `axis`, asked `asked`, the adapter computes `computes` (a choice id, or
    `NONE_CHOICE` with a `description`); `explains` lists the failing cases it accounts for."""

    axis: str
    computes: str
    asked: str
    description: str = ""
    explains: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        described = {"description": self.description} if self.description else {}
        return {
            "axis": self.axis,
            "computes": self.computes,
            "asked": self.asked,
            "explains": len(self.explains),
            "example": self.explains[0],
            **described,
        }


@dataclass
class _Failed:
    """One failing case as a probe: what it was asked, the configuration that explains it so
    far (the causes applied to it), and its answer."""

    probe: ProbeInput
    asked: Config
    answer: Answer
    current: Config
    causes: list[_Cause] = field(default_factory=list)
    explained: bool = False

    def fresh(self) -> _Failed:
        """The case as it was asked, no cause applied."""
        return _Failed(self.probe, self.asked, self.answer, self.asked)

    def explained_by(self, cause: _Cause | None = None) -> None:
        """The case meets its answer once `cause` is applied too: every cause applied to it
        explains it."""
        if cause is not None:
            self.causes.append(cause)
        self.explained = True
        for applied in self.causes:
            applied.explains.append(self.probe.case_id)


def _examined(failure: Failure) -> _Failed | None:
    """The failing case as a probe; None for a published input or one of more than
    `EXAMINED_ROWS` rows (the reference would take long to evaluate them under every
    candidate), or an answer that is no values (a refusal of a valid input tells nothing about
    the axes)."""
    case, answer = failure.case, failure.answer
    if "input" not in case or "per_query" not in answer:
        return None
    if len(case["input"]["qrels"]) + len(case["input"]["run"]) > EXAMINED_ROWS:
        return None
    asked = Config.from_mapping(failure.record.config)
    probe = ProbeInput(
        case["id"],
        tuple(tuple(r) for r in case["input"]["qrels"]),
        tuple(tuple(r) for r in case["input"]["run"]),
        asked,
    )
    return _Failed(probe, asked, Answer(answer), asked)


@dataclass(frozen=True)
class _Met:
    """A candidate the answer meets: its configuration, and whether it meets it exactly or
    only up to the order of tied documents (every value between the pessimistic and the
    optimistic tie order)."""

    config: Config
    exactly: bool


def _met_choices(item: _Failed, axis_id: str, numbers: NumberFormat) -> dict[str, _Met] | None:
    """The candidates of the axis the answer meets, each the case's current configuration with
    that choice; None when the input does not tell the axis's choices apart. Off the ties
    axis, a candidate met up to the order of tied documents counts: a tie order of the
    adapter's own (``np.argsort``'s) would otherwise hide every other departure on the same
    input."""
    candidates = distinguishing(item.probe, item.current, axis_id)
    if candidates is None:
        return None
    found = {}
    for choice, config in candidates.items():
        if meets(item.probe, config, item.answer, item.asked, *numbers):
            found[choice] = _Met(config, True)
        elif (
            axis_id != "ties"
            and _has_ties(item.probe)
            and within_tie_bounds(item.probe, config, item.answer, item.asked, *numbers)
        ):
            found[choice] = _Met(config, False)
    return found


def _has_ties(probe: ProbeInput) -> bool:
    """Whether two documents of a query share a score: only then can the tie order matter."""
    scored = [(qid, Decimal(score)) for qid, _, score in probe.run]
    return len(set(scored)) < len(scored)


def _best_fix(
    failing: Sequence[_Failed],
    axes: Sequence[str],
    fixed: set[tuple[str, str]],
    numbers: NumberFormat,
) -> tuple[_Cause, set[str]] | None:
    """The cause that accounts for the most failing cases: on one axis, among the cases asked
    the same choice, another choice that more of them meet than meet the one asked; with the
    cases it makes pass. None when no axis has one. A plurality, not identify's majority
    (`NONE_SHARE`): where the adapter departs on three axes, each departure may show on a third
    of the failing cases, the others failing on another axis, and the rounds take one
    departure at a time."""
    best: tuple[int, _Cause, set[str]] | None = None
    for axis_id in axes:
        by_asked: dict[str, dict[str, dict[str, _Met]]] = {}
        for item in failing:
            asked = item.asked.choice(axis_id)
            met = None if (axis_id, asked) in fixed else _met_choices(item, axis_id, numbers)
            if met is not None:
                by_asked.setdefault(asked, {})[item.probe.case_id] = met
        for asked, met_by in by_asked.items():
            support = Counter(c for met in met_by.values() for c in met)
            # Ties go to the spec's order of the choices.
            others = [c for c in choice_ids(axis_id) if c != asked and support[c]]
            if not others:
                continue
            choice = max(others, key=support.__getitem__)
            consistent = support[choice]
            if consistent <= support[asked]:
                continue
            passing = {k for k, met in met_by.items() if choice in met and met[choice].exactly}
            if best is None or consistent > best[0]:
                best = (consistent, _Cause(axis_id, choice, asked), passing)
    return None if best is None else best[1:]


def _ranking_length(probe: ProbeInput) -> int:
    return max(Counter(q for q, *_ in probe.run).values(), default=0)


def diagnose(adapter: Declaration, failures: Sequence[Failure]) -> Diagnosis:
    """The causes of the failures, those explaining most failing cases first: found on an
    even sample of them (`SAMPLED`), then checked on every one."""
    numbers = adapter.number_format
    hidden = adapter.view.hidden
    axes = [a["id"] for a in choice_axes() if a["id"] not in hidden]
    items = [item for f in failures if (item := _examined(f)) is not None]
    causes = _discover([item.fresh() for item in _spread(items)], axes, numbers)
    for item in items:
        _apply(item, causes, numbers)
    causes += _tie_order([i for i in items if not i.explained], numbers)
    causes += _unmatched_axes([i for i in items if not i.explained], axes, numbers)
    refusals = _refusals(failures)
    shown = sorted((c for c in [*causes, *refusals] if c.explains), key=lambda c: -len(c.explains))
    return Diagnosis(
        [c.to_json() for c in shown],
        examined=len(items) + sum(len(c.explains) for c in refusals),
        explained=sum(i.explained for i in items) + sum(len(c.explains) for c in refusals),
    )


def _refusals(failures: Sequence[Failure]) -> list[_Cause]:
    """The failing cases the adapter refused although the reference scores them, by reason
    (``identify``'s observation of the same name, `REJECTIONS`)."""
    by_reason: dict[str, _Cause] = {}
    for failure in failures:
        if "rejected" not in failure.answer:
            continue
        key = refusal_key(failure.answer["rejected"])
        if key not in by_reason:
            by_reason[key] = _Cause(REJECTIONS, NONE_CHOICE, "a value", f"refuses: {key}")
        by_reason[key].explains.append(failure.record.id)
    return list(by_reason.values())


def _spread(items: Sequence[_Failed]) -> list[_Failed]:
    """At most `SAMPLED` of the items, evenly spaced in suite order: every group of cases
    keeps its share."""
    step = max(1, math.ceil(len(items) / SAMPLED))
    return list(items[::step])


def _discover(
    sample: Sequence[_Failed], axes: Sequence[str], numbers: NumberFormat
) -> list[_Cause]:
    """The causes found on the sample, in the order the rounds take them (`_best_fix`)."""
    causes: list[_Cause] = []
    fixed: set[tuple[str, str]] = set()
    failing = list(sample)
    while failing and (found := _best_fix(failing, axes, fixed, numbers)) is not None:
        cause, passing = found
        fixed.add((cause.axis, cause.asked))
        causes.append(cause)
        for item in failing:
            _applied(item, cause)
        failing = [item for item in failing if item.probe.case_id not in passing]
    return causes


def _applied(item: _Failed, cause: _Cause) -> bool:
    """Apply the cause to the case's current configuration when it was asked the cause's
    choice and the choice changes the reference's answer on its input; whether it did."""
    if item.asked.choice(cause.axis) != cause.asked:
        return False
    changed = with_choice(item.current, cause.axis, cause.computes, item.probe.config)
    if changed is None or outcome_key(item.probe, changed) == outcome_key(item.probe, item.current):
        return False
    item.current = changed
    item.causes.append(cause)
    return True


def _apply(item: _Failed, causes: Sequence[_Cause], numbers: NumberFormat) -> None:
    """Apply the causes in turn to one failing case, until its answer meets the reference."""
    for cause in causes:
        if _applied(item, cause) and meets(
            item.probe, item.current, item.answer, item.asked, *numbers
        ):
            item.explained_by()
            return


def _tie_order(failing: Sequence[_Failed], numbers: NumberFormat) -> list[_Cause]:
    """The causes of the failing cases that the order of their tied documents explains: every
    value between the pessimistic and the optimistic tie order (``ndcg.ties``), one cause per
    tie choice asked, with the shortest ranking among its cases."""
    tied: dict[str, list[_Failed]] = {}
    for item in failing:
        if within_tie_bounds(item.probe, item.current, item.answer, item.asked, *numbers):
            tied.setdefault(item.current.choice("ties"), []).append(item)
    causes = []
    for asked, cases in tied.items():
        length = min(_ranking_length(i.probe) for i in cases)
        cause = _Cause(
            "ties", NONE_CHOICE, asked, TIE_ORDER_DEPARTS.format(asked=asked, length=length)
        )
        for item in cases:
            item.explained_by(cause)
        causes.append(cause)
    return causes


def _unmatched_axes(
    failing: Sequence[_Failed], axes: Sequence[str], numbers: NumberFormat
) -> list[_Cause]:
    """For the cases still failing, the axes on which no choice of the spec meets them (a
    finding of "none of the spec's choices"): each case under the most local such axis, the
    one fewest of them depend on, since nearly every input depends on the discount too."""
    findings: dict[str, AxisFinding] = {}
    for axis_id in axes:
        met_by = {
            item.probe.case_id: list(met)
            for item in _spread(failing)
            if (met := _met_choices(item, axis_id, numbers)) is not None
        }
        finding = axis_verdict(axis_id, "", met_by)
        if finding.status == NONE:
            findings[axis_id] = finding
    causes: dict[tuple[str, str], _Cause] = {}
    for item in failing:
        mine = [a for a in findings if _met_choices(item, a, numbers) == {}]
        if not mine:
            continue
        local = min(mine, key=lambda a: findings[a].probes)
        asked = item.asked.choice(local)
        key = (local, asked)
        if key not in causes:
            causes[key] = _Cause(local, NONE_CHOICE, asked, findings[local].note())
        item.explained_by(causes[key])
    return list(causes.values())
