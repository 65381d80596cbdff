"""The finding on one axis (``identify``): the probes whose reference answers differ between
the axis's choices while the other axes stay as identified, asked of the adapter, and the choice
(or none) whose answers it meets on them (`axis_verdict`, which ``survey/diagnosis.py`` also
applies to the failing cases of a run)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from ndcgspec.harness.adapters.base import NumberFormat
from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_ids
from ndcgspec.reference.rejection import REJECTING_CHOICE, choice_anchor
from ndcgspec.survey.identification import (
    MET,
    NONE,
    NONE_SHARE,
    NOT_EXERCISED,
    AxisFinding,
    CaseError,
)
from ndcgspec.survey.probes import ProbeInput, ask, distinguishing, expected_of, meets, replaced


def _rejects_on(axis_id: str, probe: ProbeInput, candidates: Mapping[str, Config]) -> bool:
    """Whether some candidate of the axis makes the reference reject the input because of
    that axis itself (its ``error`` choice)."""
    anchors = {expected_of(probe, c).error for c in candidates.values()}
    return choice_anchor(axis_id, REJECTING_CHOICE) in anchors


def axis_verdict(
    axis_id: str,
    asked_choice: str,
    met_by: Mapping[str, Sequence[str]],
    errors: list[CaseError] | None = None,
) -> AxisFinding:
    """The finding from which candidate choices each discriminating probe's answer met.

    A probe met by no candidate disagrees with every choice of the axis; it is listed, and
    decides the verdict when such probes are the majority (`NONE_SHARE`): the choice the
    others meet is then a coincidence of the inputs they happen to be, not what the
    implementation computes."""
    errors = errors or []
    if not met_by:
        return AxisFinding(axis_id, asked_choice, NOT_EXERCISED, errors=errors)
    explained = {case: met for case, met in met_by.items() if met}
    unexplained = sorted(case for case, met in met_by.items() if not met)
    choices = [c for c in choice_ids(axis_id) if any(c in met for met in explained.values())]
    support = {c: sorted(k for k, met in explained.items() if c in met) for c in choices}
    # Every verdict below names the probes, their support and the unexplained ones.
    found = partial(
        AxisFinding,
        axis_id,
        asked_choice,
        probes=len(met_by),
        support=support,
        unexplained=unexplained,
        errors=errors,
    )
    if not explained:
        return found(NONE, disagreeing=unexplained)
    if len(unexplained) > NONE_SHARE * len(met_by):
        closest = max(choices, key=lambda c: len(support[c]))
        return found(NONE, closest=closest, evidence=support[closest], disagreeing=unexplained)
    winners = [c for c in choices if all(c in met for met in explained.values())]
    if winners:
        return found(MET, winners, evidence=sorted(explained), disagreeing=unexplained)
    closest = max(choices, key=lambda c: len(support[c]))
    return found(
        NONE,
        closest=closest,
        evidence=support[closest],
        disagreeing=sorted(k for k, met in explained.items() if closest not in met) + unexplained,
    )


def identify_axis(
    axis_id: str,
    asked: Config,
    reference: Config,
    probes: Sequence[ProbeInput],
    command: Sequence[str] | str,
    numbers: NumberFormat,
    trust_rejections: bool = True,
    whole: int | None = None,
) -> AxisFinding:
    """The finding on one axis, from the adapter's answers asked under `asked` (cutoff aside),
    against candidates that vary the axis on `reference` (the other axes as identified).
    Only the probes on which the candidates differ are asked: the others tell nothing about
    the axis. `whole` is the cutoff the implementation applies when asked for the whole
    ranking, if it chooses one: a whole-ranking probe's candidates are cut there, as the
    joint search cuts them.

    A rejection is evidence for the axis's ``error`` choice only when the adapter rejects no
    input its own configuration accepts (`trust_rejections`), or when that choice is asked."""
    telling = []
    for probe in probes:
        sent = replaced(asked, cutoff=probe.config.cutoff)
        cut = whole if sent.cutoff is None else sent.cutoff
        candidates = distinguishing(probe, replaced(reference, cutoff=cut), axis_id)
        if candidates is not None:
            telling.append((probe, sent, candidates))
    answers = ask(command, [(probe, sent) for probe, sent, _ in telling])
    met_by: dict[str, list[str]] = {}
    errors: list[CaseError] = []
    for probe, sent, candidates in telling:
        answer = answers[probe.case_id, sent.full()]
        if answer.failed:
            errors.append(CaseError(probe.case_id, str(answer.result["error"])))
            continue
        if "rejected" in answer.result and not (
            _rejects_on(axis_id, probe, candidates)
            and (trust_rejections or asked.choice(axis_id) == "error")
        ):
            # Refused for a reason this axis does not explain: no evidence about it.
            continue
        met_by[probe.case_id] = [
            choice
            for choice, config in candidates.items()
            if meets(probe, config, answer, sent, *numbers)
        ]
    return axis_verdict(axis_id, asked.choice(axis_id), met_by, errors)
