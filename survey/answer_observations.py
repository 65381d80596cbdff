"""What the adapter's answers under its own configuration show beyond the axes (``identify``):
valid inputs it refuses, per-query values it leaves undefined or out where its configuration
gives a number, a negative ideal DCG it divides by, and values outside [0, 1]. Each reads the
answers already given, and asks nothing more."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ndcgspec.harness.adapters.base import NumberFormat
from ndcgspec.reference import Config
from ndcgspec.reference.config import axis
from ndcgspec.suite.tolerance import is_undefined
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.identification import (
    DIVIDES_NEGATIVE_IDEAL,
    NEGATIVE_IDEAL,
    OUTSIDE_UNIT,
    REFUSES_VALID_INPUTS,
    REJECTIONS,
    UNDEFINED_VALUES,
    UNDEFINED_WHERE_SCORED,
    VALUE_RANGE,
    Observation,
)
from ndcgspec.survey.probes import (
    ProbeInput,
    expected_of,
    meets,
    meets_aggregate,
    meets_values,
    quotient_values,
    replaced,
)
from ndcgspec.survey.reasons import REASON_SHOWN, first_line
from ndcgspec.survey.undefined_rules import UNDEFINED_RULES, undefined_rule


def rejected_valid_inputs(
    own: Config, probes: Sequence[ProbeInput], answers: Mapping[tuple[str, str], Answer]
) -> Observation | None:
    """Inputs the adapter refuses although its own configuration scores them."""
    refused = []
    for probe in probes:
        sent = replaced(own, cutoff=probe.config.cutoff)
        answer = answers.get((probe.case_id, sent.full()))
        if answer and "rejected" in answer.result and expected_of(probe, sent).error is None:
            refused.append((probe.case_id, str(answer.result["rejected"])))
    if not refused:
        return None
    return Observation(
        REJECTIONS,
        REFUSES_VALID_INPUTS,
        own.canonical(),
        evidence=sorted(case for case, _ in refused),
        reasons=sorted({first_line(why)[:REASON_SHOWN] for _, why in refused}),
    )


def leaves_undefined(probe: ProbeInput, config: Config, answer: Answer) -> bool:
    """Whether the answer leaves a query undefined (NaN) or out where `config` scores it."""
    given = answer.result.get("per_query") or {}
    expected = expected_of(probe, config)
    return any(
        entry.ndcg is not None and is_undefined(given.get(qid))
        for qid, entry in (expected.per_query or {}).items()
    )


def undefined_values(
    own: Config,
    identified: Config,
    probes: Sequence[ProbeInput],
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
) -> Observation | None:
    """Per-query values the adapter, asked for its own configuration, leaves undefined (NaN)
    or out of its answer where the identified configuration gives a number: an observation of
    the implementation, recorded with the probes whose mean still meets the configuration's."""
    shown, mean_meets = [], []
    for probe in probes:
        sent = replaced(own, cutoff=probe.config.cutoff)
        answer = answers.get((probe.case_id, sent.full()))
        expected_config = replaced(identified, cutoff=probe.config.cutoff)
        expected = expected_of(probe, expected_config)
        if answer is None or "per_query" not in answer.result or expected.per_query is None:
            continue
        if leaves_undefined(probe, expected_config, answer):
            shown.append(probe.case_id)
            if meets_aggregate(probe, expected_config, answer, sent, *numbers):
                mean_meets.append(probe.case_id)
    if not shown:
        return None
    return Observation(
        UNDEFINED_VALUES,
        UNDEFINED_WHERE_SCORED,
        own.canonical(),
        evidence=shown,
        mean_meets=mean_meets,
        anchor=axis("empty").anchor,
        when=_undefined_when(own, identified, probes, answers),
    )


def _undefined_when(
    own: Config,
    identified: Config,
    probes: Sequence[ProbeInput],
    answers: Mapping[tuple[str, str], Answer],
) -> str | None:
    """The first rule of `UNDEFINED_RULES` that says which queries every probe's answer
    leaves undefined, or None."""
    for rule in UNDEFINED_RULES:
        verdicts = [
            undefined_rule(p, replaced(identified, cutoff=p.config.cutoff), answer, rule)
            for p in probes
            if (answer := answers.get((p.case_id, replaced(own, cutoff=p.config.cutoff).full())))
        ]
        if all(v is not False for v in verdicts) and any(verdicts):
            return rule
    return None


UNIT_SLACK = {32: 1e-6, 64: 1e-9}
"""How far outside [0, 1] a value of each float width must lie to count: more than its
rounding can take it (a float32 nDCG of 1 may come out as 1.0000001)."""


def out_of_range(
    own: Config,
    probes: Sequence[ProbeInput],
    answers: Mapping[tuple[str, str], Answer],
    width: int = 64,
) -> Observation | None:
    """Per-query values outside [0, 1] on the probes asked for the adapter's own
    configuration, the most extreme first (`Observation.values`, one per probe)."""
    slack = UNIT_SLACK.get(width, max(UNIT_SLACK.values()))
    found = []
    for probe in probes:
        answer = answers.get((probe.case_id, replaced(own, cutoff=probe.config.cutoff).full()))
        given = (answer.result.get("per_query") or {}).values() if answer else ()
        values = [float(v) for v in given if not is_undefined(v)]
        outside = [v for v in values if v > 1 + slack or v < -slack]
        if outside:
            extreme = max(outside, key=lambda v: abs(v - 0.5))
            found.append((-abs(extreme - 0.5), probe.case_id, extreme))
    if not found:
        return None
    found.sort()
    return Observation(
        VALUE_RANGE,
        OUTSIDE_UNIT,
        own.canonical(),
        evidence=[case for _, case, _ in found],
        values=[f"{value:.6g}" for _, _, value in found],
    )


def negative_ideal(
    own: Config,
    identified: Config,
    probes: Sequence[ProbeInput],
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
) -> Observation | None:
    """Queries whose ideal DCG is negative, which the identified configuration scores as
    empty (``ndcg.empty``): probes the adapter, asked for its own configuration, misses with
    DCG / IDCG for such queries instead."""
    shown = []
    for probe in probes:
        sent = replaced(own, cutoff=probe.config.cutoff)
        answer = answers.get((probe.case_id, sent.full()))
        expected = replaced(identified, cutoff=probe.config.cutoff)
        values = quotient_values(probe, expected)
        if answer is None or values is None or meets(probe, expected, answer, sent, *numbers):
            continue
        if meets_values(probe, values, answer, sent, *numbers):
            shown.append(probe.case_id)
    if not shown:
        return None
    anchor = axis("empty").anchor
    return Observation(
        NEGATIVE_IDEAL, DIVIDES_NEGATIVE_IDEAL, own.canonical(), shown, anchor=anchor
    )
