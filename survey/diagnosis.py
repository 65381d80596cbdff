"""Why a run's cases fail: ``identify``'s joint search, made on the cases of the run itself.

``ndcgspec run`` hands over every case the adapter answered, with its input and the answer
(``harness/diagnosis.py``); nothing is asked of the adapter again. Each case is a probe
(``survey/probes.py``) asked under the case's own configuration, and one joint search
(`changes_fit` of ``survey/joint_search.py``) finds, on a few failing and a few passing cases
of every case file (`EVIDENCE`), what the adapter computes where it is asked another choice of
an axis, and the fewest axes on which it departs from every choice of the spec; a departure is
named where the evidence that tells the axis's choices apart bears it out, by ``identify``'s
verdict on an axis (`_borne_out`). Every failing case is then attributed (`_needs`): to the
fewest of the changes that apply to it whose configuration its answer meets; else to the
departures its answer depends on, with the changes that alter the reference's answer to it;
else to nothing. A case is counted once, under the first of its causes in the order of how many
failing cases each takes part in (`_counted`). Values met at float32 where the adapter declares
float64 are a cause of their own (`_narrow`), and valid inputs the adapter refused that no
change explains are grouped by reason (``identify``'s "rejections").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from ndcgspec.harness.adapters.base import NumberFormat
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.diagnosis import (
    FLOAT_WIDTH,
    NONE_CHOICE,
    REFUSALS,
    Answered,
    Cause,
    Diagnosis,
)
from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes
from ndcgspec.suite.tolerance import float_widths
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.axis_identification import axis_verdict
from ndcgspec.survey.identification import NONE, NONE_SHARE
from ndcgspec.survey.joint_search import Changes, JointFit, Met, changes_fit
from ndcgspec.survey.probes import (
    ProbeInput,
    depends_on,
    distinguishing,
    meets,
    outcome_key,
    within_tie_bounds,
)
from ndcgspec.survey.reasons import refusal_key

EVIDENCE = 100
"""About how many cases the search is made on: as many failing and as many passing cases of
each case file, evenly spaced, and at least `EVIDENCE_PER_FILE` (`_evidence`). Each file holds
the inputs of a few conventions, so every file with failures is heard; every failing case is
then attributed at a few reference evaluations each."""
EVIDENCE_PER_FILE = {True: 2, False: 1}
"""The fewest failing (True) and passing (False) cases of a file the search is made on: two
failing inputs of a convention tell apart choices that one may meet alike; a passing one
is there to refute a change."""
EXAMINED_ROWS = 2000
"""The largest input examined (qrels and run rows): the reference evaluates it under many
candidates, and the long inputs of the suite repeat what the short ones show."""
DEPARTS = "no choice meets the failing cases whose answers depend on it"
TIE_ORDER_DEPARTS = (
    "each value an order of the tied documents that no rule gives, from rankings of {length} "
    "documents"
)
CLOSEST = "; closest {choice}"

Key = tuple[str, str]
"""A cause: the axis (or `REFUSALS`, `FLOAT_WIDTH`) and the choice asked there (or the
refusal's reason, the float width declared)."""


@dataclass(frozen=True)
class _Case:
    """An answered case as a probe asked under its configuration (`probe.config`), its
    answer and whether it failed."""

    probe: ProbeInput
    answer: Answer
    failed: bool


def _inline(case: Answered) -> bool:
    """Whether the case's input is inline and of at most `EXAMINED_ROWS` rows."""
    given = case.case.input
    return given is not None and len(given.qrels) + len(given.run) <= EXAMINED_ROWS


def _examined(case: Answered) -> _Case:
    """The case as a probe, asked under its own configuration."""
    given = case.case.input
    if given is None:
        raise ValueError(f"case {case.record.id} has no inline input")
    probe = ProbeInput(
        case.record.id,
        tuple((qid, docid, label) for qid, docid, label in given.qrels),
        tuple((qid, docid, score) for qid, docid, score in given.run),
        case.case.config,
    )
    return _Case(probe, Answer(case.answer.result), case.failed)


def _evidence(cases: Sequence[Answered]) -> set[str]:
    """The ids of the cases the search is made on: of each case file, as many failing and as
    many passing cases, evenly spaced, together about `EVIDENCE` and at least
    `EVIDENCE_PER_FILE` of each."""
    by_file: dict[tuple[str, bool], list[Answered]] = {}
    for case in cases:
        by_file.setdefault((case.record.group, case.failed), []).append(case)
    share = math.ceil(EVIDENCE / max(1, len(by_file)))
    chosen: set[str] = set()
    for (_, failed), found in by_file.items():
        step = max(1, math.ceil(len(found) / max(EVIDENCE_PER_FILE[failed], share)))
        chosen.update(c.record.id for c in found[::step])
    return chosen


def diagnose(adapter: Declaration, answered: Sequence[Answered]) -> Diagnosis:
    """The causes of the failures among the answered cases, one row per axis (the axes in the
    order of how many failing cases each takes part in), and the counts of the headline."""
    axes = [a.id for a in choice_axes() if a.id not in adapter.view.hidden]
    inline = [a for a in answered if _inline(a)]
    chosen = _evidence(inline)
    cases = [_examined(a) for a in inline if a.failed or a.record.id in chosen]
    answers = {c.probe.case_id: c.answer for c in cases}
    narrow = _narrow(cases, adapter.number_format)
    # Values of float32 where float64 is declared miss every candidate by their rounding
    # alone: the axes are judged at the width the adapter computes in.
    width, places = adapter.number_format
    numbers = (min(float_widths()), places) if narrow else (width, places)

    def met(probe: ProbeInput, config: Config) -> bool | None:
        return meets(probe, config, answers[probe.case_id], probe.config, *numbers)

    evidence = [c.probe for c in cases if c.probe.case_id in chosen]
    fit = changes_fit(lambda probe: probe.config, axes, evidence, met)
    departures = _borne_out(fit, evidence, met)
    failing = [c for c in cases if c.failed]
    needs = {
        c.probe.case_id: ((FLOAT_WIDTH, str(width)),)
        if c.probe.case_id in narrow
        else _needs(c.probe, fit, departures, met)
        for c in failing
    }
    for failure in answered:
        reason = failure.answer.rejected
        if failure.failed and reason is not None and not needs.get(failure.record.id):
            needs[failure.record.id] = ((REFUSALS, refusal_key(reason)),)
    found = _Found(fit, departures, {c.probe.case_id: c for c in failing}, numbers)
    return _counted(needs, found)


def _narrow(cases: Sequence[_Case], numbers: NumberFormat) -> set[str]:
    """The failing cases whose answers meet the configuration asked at the narrowest float
    width (``ndcg.comparison.float``) where the adapter declares a wider one, when they are
    most of the failing cases (`NONE_SHARE`, a verdict resting on most of its evidence):
    values computed in float32, which no axis explains. A few such cases are wrong values
    that happen to lie that close."""
    width, places = numbers
    narrowest = min(float_widths())
    if width == narrowest:
        return set()
    failing = [c for c in cases if c.failed]
    found = {
        c.probe.case_id
        for c in failing
        if meets(c.probe, c.probe.config, c.answer, c.probe.config, narrowest, places)
    }
    return found if len(found) > NONE_SHARE * len(failing) else set()


def _borne_out(fit: JointFit, evidence: Sequence[ProbeInput], met: Met) -> set[Key]:
    """The departures the evidence bears out: each departed axis with each choice asked there
    on which the evidence whose answers depend on the axis meets no choice of the spec, by
    ``identify``'s verdict on an axis (`axis_verdict`: most of it meets none, or no one choice
    meets all the rest). Where one choice meets most of it, the implementation computes that
    choice, and the failures that depend on the axis fail for a reason of another kind (a
    document id misread, a cutoff of its own, the width of its floats)."""
    met_by: dict[Key, dict[str, list[str]]] = {}
    for probe in evidence:
        found = fit.on(probe.config)
        for axis_id in fit.departed:
            candidates = distinguishing(probe, found, axis_id)
            if candidates is not None:
                key = (axis_id, probe.config.choice(axis_id))
                met_by.setdefault(key, {})[probe.case_id] = [
                    choice for choice, config in candidates.items() if met(probe, config)
                ]
    return {key for key, seen in met_by.items() if axis_verdict(*key, seen).status == NONE}


def _needs(probe: ProbeInput, fit: JointFit, departures: set[Key], met: Met) -> tuple[Key, ...]:
    """The causes of one failing case: the fewest of the changes that apply to it whose
    configuration its answer meets; else the departures borne out that its answer depends on,
    with the changes that alter the reference's answer to it; else none."""
    asked = probe.config
    applying = fit.changes.applying(asked)
    found = fit.on(asked)
    # Asked as it was, the case failed: only a change can make its answer met.
    if applying and met(probe, found):
        for size in range(1, len(applying) + 1):
            for chosen in combinations(applying, size):
                if met(probe, Changes(chosen).on(asked)):
                    return tuple((c.axis, c.asked) for c in chosen)
    departed = [
        a
        for a in fit.departed
        if (a, asked.choice(a)) in departures and depends_on(probe, found, a)
    ]
    if not departed:
        return ()
    key = outcome_key(probe, found)
    altering = [
        c
        for c in applying
        if c.axis not in departed
        and outcome_key(probe, Changes(tuple(d for d in applying if d != c)).on(asked)) != key
    ]
    return (*((a, asked.choice(a)) for a in departed), *((c.axis, c.asked) for c in altering))


@dataclass(frozen=True)
class _Found:
    """What the causes are told from: the search's fit, the departures the evidence bears out,
    the failing cases examined by id and the adapter's number format."""

    fit: JointFit
    departures: set[Key]
    cases: dict[str, _Case]
    numbers: NumberFormat


def _counted(needs: dict[str, tuple[Key, ...]], found: _Found) -> Diagnosis:
    """The causes of the failing cases examined (`needs`, none for a case left unexplained),
    each case counted once, under the first of its causes' axes in the order of how many
    failing cases each axis takes part in; each cause also says in how many cases counted
    under an earlier axis it takes part."""
    reach = Counter(axis for keys in needs.values() for axis in {a for a, _ in keys})
    order = {axis: rank for rank, (axis, _) in enumerate(reach.most_common())}
    taking: dict[Key, list[str]] = {}
    counted: dict[Key, list[str]] = {}
    for case_id, keys in needs.items():
        for key in keys:
            taking.setdefault(key, []).append(case_id)
        if keys:
            first = min(keys, key=lambda k: order[k[0]])
            counted.setdefault(first, []).append(case_id)
    causes = [
        _cause(key, counted.get(key, []), ids, found)
        for key, ids in sorted(
            taking.items(), key=lambda kv: (order[kv[0][0]], -len(counted.get(kv[0], [])))
        )
    ]
    return Diagnosis(
        tuple(causes),
        examined=len(needs),
        explained=sum(len(ids) for ids in counted.values()),
        together=sum(len({a for a, _ in keys}) > 1 for keys in needs.values()),
    )


def _cause(key: Key, counted: list[str], taking: list[str], found: _Found) -> Cause:
    """The cause `key`, which the failing cases `taking` need and under which `counted` are
    counted, in words: for a departure borne out, "none" for the cases no choice meets, and the
    choice found where every case of the asked choice meets it."""
    axis_id, asked = key
    explains, also, example = len(counted), len(taking) - len(counted), (counted or taking)[0]
    if axis_id == REFUSALS:
        return Cause(REFUSALS, NONE_CHOICE, "a value", explains, example, f"refuses: {asked}")
    fit, numbers = found.fit, found.numbers
    if axis_id == FLOAT_WIDTH:
        return Cause(FLOAT_WIDTH, f"float{numbers[0]}", f"float{asked}", explains, example)
    computes = fit.changes.computes(axis_id, asked)
    unmet = [
        c
        for c in (found.cases[i] for i in taking)
        if not meets(c.probe, fit.on(c.probe.config), c.answer, c.probe.config, *numbers)
    ]
    if key not in found.departures or not unmet:
        return Cause(axis_id, computes, asked, explains, example, together=also)
    said = DEPARTS
    if axis_id == "ties" and all(
        within_tie_bounds(c.probe, fit.on(c.probe.config), c.answer, c.probe.config, *numbers)
        for c in unmet
    ):
        # Every value lies between the pessimistic and the optimistic tie order (``ndcg.ties``).
        length = min(max(Counter(q for q, *_ in c.probe.run).values()) for c in unmet)
        said = TIE_ORDER_DEPARTS.format(length=length)
    closest = CLOSEST.format(choice=computes) if computes != asked else ""
    return Cause(axis_id, NONE_CHOICE, asked, explains, example, said + closest, also)
