"""Identification (``ndcgspec identify``): a black-box fingerprint of an nDCG implementation.

It asks the adapter probes under its own configuration, in rounds of those that tell apart the
candidates the answers leave (``survey/probe_choice.py``; every probe once a departure shows,
or with ``--every-probe``), and one joint search (``survey/joint_search.py``) finds the
configuration of the spec's choices and the fewest axes departing from every choice that
together explain the answers; the declared configuration is only where the search starts. For
every axis of ``spec/ndcg.yaml`` it then takes the golden
inputs whose answers differ between the axis's choices while every other axis stays as the
search found it, and reports the choice whose reference answers the adapter meets on all of
them, "none of the spec's choices" with the cases that disagree, or "not observable through this
API"; a probe another departed axis explains is no evidence there, nor, under a choice other
than the adapter's own, a probe whose answer changes between choices its own configuration
leaves unsettled. It then probes what lies outside the axes, each asked under the adapter's own
configuration: a cutoff the implementation chooses itself when asked for the whole ranking
(which then belongs to its configuration), or misses of whole-ranking probes alone that no
single cutoff explains (which then depart on no axis), scores 1e-9 and 1e-12 apart (relative)
that it ties under its own tie rule, decimals one double apart that its number reader takes
for equal, per-query values it leaves undefined or out where its configuration gives a number,
and the ranking length from which its tie order departs from its tie rule. Finally it gives
the canonical configuration and the closest preset.

The findings are data (``survey/identification.py``: `AxisFinding`, `Observation`), which
the command's text output (``commands/identify.py``), ``--format json`` and the conformance
matrix render. Each axis's finding is ``survey/axis_identification.py``'s, and the probes
beyond the axes are ``survey/extra_probes.py`` and ``survey/answer_observations.py``; this
module runs them in turn and finds the closest preset. All the harness knows of the adapter
beyond its answers is its start reply, what it cannot be shown included (``observability``):
the adapter runs in worker processes only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from ndcgspec.harness.adapters.base import ApiView, NumberFormat
from ndcgspec.harness.pool import shared_pools
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes, presets
from ndcgspec.suite.collector import collector_paused
from ndcgspec.suite.json_lines import write_pending
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.answer_observations import (
    negative_ideal,
    out_of_range,
    rejected_valid_inputs,
    undefined_values,
)
from ndcgspec.survey.asked_ahead import AskedAhead, in_background
from ndcgspec.survey.axis_identification import identify_axis
from ndcgspec.survey.extra_probes import (
    ID_PROBES,
    chosen_cutoff,
    close_scores,
    numeric_ids,
    questions_ahead,
    tie_order_by_length,
)
from ndcgspec.survey.identification import (
    CHOSEN_CUTOFF,
    EVIDENCE_SHOWN,
    NONE,
    NOT_EXERCISED,
    NOT_OBSERVABLE,
    AxisFinding,
    Identification,
    Observation,
    ProbesAsked,
    own_configuration,
)
from ndcgspec.survey.joint_search import JointFit, Judged, answers_fit, exact_fit
from ndcgspec.survey.kept_answers import declaration
from ndcgspec.survey.probe_choice import probes_to_ask
from ndcgspec.survey.probes import (
    ProbeInput,
    analysis_pool,
    ask,
    beyond_view,
    depends_on,
    distinguishing,
    probe_inputs,
    questions,
    replaced,
    with_choice,
)


def _depends_on(
    probe: ProbeInput, config: Config, axes: Mapping[str, Sequence[str] | None]
) -> bool:
    """Whether the reference's answer to the probe under `config` changes between some two
    choices of one of the `axes` (of those named, or of every choice)."""
    placed = replaced(config, cutoff=probe.config.cutoff)
    return any(depends_on(probe, placed, a, choices) for a, choices in axes.items())


def _whole_ranking(probes: Sequence[ProbeInput]) -> set[str]:
    """The probes asked for the whole ranking (a null cutoff)."""
    return {p.case_id for p in probes if p.config.cutoff is None}


def identified_configuration(own: Config, findings: Sequence[AxisFinding]) -> Config:
    """The adapter's own configuration with each axis's identified (or closest) choice. Where
    the probes meet several choices alike, the adapter's own if it is one of them, else the
    first in the spec's order: the string must state a choice the answers meet (a library
    whose every judged document gains 1 meets keep and keep-in-ideal alike on negative
    labels, and the default zero on none)."""
    chosen = {}
    for finding in findings:
        if finding.asked != own.choice(finding.axis):
            continue
        if finding.choices and finding.asked not in finding.choices:
            chosen[finding.axis] = finding.choices[0]
        elif finding.closest:
            chosen[finding.axis] = finding.closest
    return replaced(own, **chosen)


def closest_preset(
    configuration: Config, findings: Sequence[AxisFinding], observable: set[str]
) -> tuple[str | None, dict[str, list[str]]]:
    """The presets differing from the identified configuration on the fewest observable axes
    (ids joined by ", " when several tie), and, per differing axis of the first, the preset's
    choice and the cases that show the difference. An axis on which the implementation meets
    no choice of the spec differs from every preset."""
    evidence = {f.axis: f.disagreeing or f.evidence for f in findings}
    unmatched = {f.axis for f in findings if f.status == NONE}
    ranked: list[tuple[int, str, dict[str, list[str]]]] = []
    for entry in presets():
        theirs = Config.from_mapping(entry.config)
        differences = {
            a.id: [
                f"preset: {theirs.choice(a.id)}",
                *evidence.get(a.id, [])[:EVIDENCE_SHOWN],
            ]
            for a in choice_axes()
            if (a.id in observable and theirs.choice(a.id) != configuration.choice(a.id))
            or a.id in unmatched
        }
        ranked.append((len(differences), entry.id, differences))
    fewest = min(count for count, _, _ in ranked)
    best = [item for item in ranked if item[0] == fewest]
    return ", ".join(name for _, name, _ in best), best[0][2]


def identify(
    target: str | None,
    exec_line: str | None = None,
    progress: bool = False,
    every_probe: bool = False,
) -> Identification:
    """Fingerprint the adapter named by `target` (or the protocol program `exec_line`); with
    `progress`, a bar on stderr counts the probes answered. The probes are asked as
    `_searched_answers` chooses them, or every one with `every_probe`. One set of adapter
    processes answers every question."""
    with shared_pools(), collector_paused():
        return _identify(adapter_command(target, exec_line), progress, every_probe)


@dataclass(frozen=True)
class SearchedAnswers:
    """The probes asked under the adapter's own configuration (in suite order), its answers,
    the valid inputs it rejects (``rejected_valid_inputs``), what the search judged and what
    it found."""

    probes: list[ProbeInput]
    answers: dict[tuple[str, str], Answer]
    refused: Observation | None
    judged: Judged
    fit: JointFit


def _searched_answers(
    command: list[str] | str,
    own: Config,
    searched: Sequence[str],
    probes: Sequence[ProbeInput],
    numbers: NumberFormat,
    every_probe: bool,
    progress: bool,
) -> SearchedAnswers:
    """The probes asked under the adapter's `own` configuration and the joint search over its
    answers (`SearchedAnswers`).

    Asked in rounds (``survey/probe_choice.py``): the probes that tell the configuration the
    answers point to apart from every other choice of the `searched` axes, and one of every
    case file; then, while the search finds another configuration, those that tell that one
    apart. Where the search finds a miss no choice of the spec explains, every probe is asked
    and searched again: a departure is weighed against every probe that depends on its axis
    (`joint_search._departures`). With `every_probe`, every probe from the start."""
    asked: list[ProbeInput] = []
    answers: dict[tuple[str, str], Answer] = {}
    # A verdict depends on the answer and on whether rejections are trusted, not on the round.
    judged = {True: Judged(), False: Judged()}
    more = list(probes) if every_probe else probes_to_ask(probes, own, searched, ())
    while True:
        answers |= ask(command, questions(own, more), progress=progress)
        ids = {p.case_id for p in [*asked, *more]}
        asked = [p for p in probes if p.case_id in ids]
        refused = rejected_valid_inputs(own, asked, answers)
        trust = refused is None
        if len(asked) == len(probes):
            fit = answers_fit(own, searched, asked, answers, numbers, trust, judged=judged[trust])
            return SearchedAnswers(asked, answers, refused, judged[trust], fit)
        exact = exact_fit(own, searched, asked, answers, numbers, trust, judged[trust])
        if exact is None:
            more = [p for p in probes if p.case_id not in ids]
            continue
        more = probes_to_ask(probes, exact.on(own), searched, ids)
        if not more:
            return SearchedAnswers(asked, answers, refused, judged[trust], exact)


def _shown(own: Config, probes: Sequence[ProbeInput], view: ApiView) -> list[ProbeInput]:
    """The probes whose answers under `own` the adapter's API can show (`beyond_view`)."""
    return [p for p, asked in questions(own, probes) if not beyond_view(p, asked, view)]


def _identify(command: list[str] | str, progress: bool, every_probe: bool) -> Identification:
    # The adapter starts (a library's import, a JVM) while the probes are read.
    started = in_background(partial(declaration, command, analysis_pool()))
    inputs = probe_inputs()
    described = started.result()
    numbers = described.number_format
    view = described.view
    hidden = view.hidden
    own = own_configuration(described)
    # The questions of the extra probes are on their way before the axes' probes are chosen.
    ids = [p for p in inputs if p.case_id.startswith(ID_PROBES)]
    ahead = AskedAhead(command, questions_ahead(own, _shown(own, ids, view), view))
    shown = _shown(own, inputs, view)
    axis_probes = [p for p in shown if not p.case_id.startswith(ID_PROBES)]
    declared = described.claims
    plans = [
        (a.id, replaced(own, **{a.id: choice}))
        for a in choice_axes()
        if a.id not in hidden
        for choice in declared.get(a.id, [own.choice(a.id)])
        if with_choice(own, a.id, choice, own) is not None
    ]
    hidden_findings = [
        AxisFinding(axis_id, own.choice(axis_id), NOT_OBSERVABLE, reason=reason)
        for axis_id, reason in hidden.items()
    ]
    # One joint search over every choice the spec declares: the configuration and the fewest
    # departed axes that explain the answers; each axis's finding then reads its probes with
    # every other axis as found, leaving out only those another departure explains. Under
    # the other choices the adapter declares, each axis's finding asks the probes that tell
    # its candidates apart.
    searched = [a.id for a in choice_axes() if a.id not in hidden]
    asked_fit = _searched_answers(
        command, own, searched, axis_probes, numbers, every_probe, progress
    )
    # The search's expected values are written while the rest is asked and read.
    write_pending()
    probes, answers, refused = asked_fit.probes, asked_fit.answers, asked_fit.refused
    judged, fit = asked_fit.judged, asked_fit.fit
    whole = None
    read = probes
    if fit.departed:
        # Whole-ranking probes missed because the implementation applies a cutoff of its own
        # are no departure of an axis: the search is run again with that cutoff on them.
        unasked = chosen_cutoff(command, own, fit.on(own), probes, numbers)
        missed = {*fit.unexplained, *(case for cases in fit.attributed.values() for case in cases)}
        if unasked is not None and unasked.outcome == CHOSEN_CUTOFF:
            whole = unasked.cutoffs[0]
            fit = answers_fit(
                own, searched, probes, answers, numbers, refused is None, whole, judged
            )
        elif unasked is not None and missed <= _whole_ranking(probes):
            # Nor are misses on whole-ranking probes alone, where no single cutoff explains
            # them: what it takes the whole ranking to be changes with the input (a library
            # that requires k, given one that grows with the input), which the cutoff's
            # observation says; the axes are read on every other probe.
            read = [p for p in probes if p.case_id not in missed]
            fit = answers_fit(own, searched, read, answers, numbers, refused is None, judged=judged)
    found = fit.on(own)
    by_plan: dict[int, AxisFinding] = {}
    unsettled: dict[str, Sequence[str] | None] = {}
    # The adapter's own choices first. An axis they leave unexercised, or on which they meet
    # several choices alike, is unsettled between them; a probe whose answer under another
    # asked choice changes between them (a query of no gain once the gain changes; a negative
    # label in the ideal or not, once it gains its label) is no evidence about the axis asked.
    for index in sorted(range(len(plans)), key=lambda i: plans[i][1] != own):
        a, asked = plans[index]
        reference = replaced(found, **{a: asked.choice(a)})
        aside = fit.set_aside_for(a)
        if asked != own:
            others = {other: choices for other, choices in unsettled.items() if other != a}
            aside |= {p.case_id for p in read if _depends_on(p, reference, others)}
        finding = identify_axis(
            a,
            asked,
            reference,
            [p for p in read if p.case_id not in aside],
            command,
            numbers,
            trust_rejections=refused is None,
            whole=whole,
        )
        finding.set_aside = sorted(
            p.case_id
            for p in read
            if p.case_id in aside and distinguishing(p, replaced(found, cutoff=p.config.cutoff), a)
        )
        if asked == own and finding.status == NOT_EXERCISED:
            unsettled[a] = None
        elif asked == own and len(finding.choices) > 1:
            unsettled[a] = finding.choices
        by_plan[index] = finding
    findings = [by_plan[index] for index in range(len(plans))]
    identified = identified_configuration(own, findings)
    confounders = dict.fromkeys(fit.departed)
    order = [a.id for a in choice_axes()]
    findings = sorted([*findings, *hidden_findings], key=lambda f: order.index(f.axis))
    cutoff = chosen_cutoff(
        command,
        own,
        identified,
        [p for p in probes if not _depends_on(p, identified, confounders)],
        numbers,
    )
    if cutoff is not None and cutoff.outcome == CHOSEN_CUTOFF:
        # The cutoff it applies unasked is part of what it computes: the configuration
        # string says it, so that the string alone predicts the implementation.
        identified = replaced(identified, cutoff=cutoff.cutoffs[0])
    # The questions asked ahead are answered before they are asked again, never sent twice.
    ahead.wait()
    extras = [
        found
        for found in (
            refused,
            cutoff,
            # Its probes are the ties cases spread apart, asked whether or not the originals were.
            *close_scores(command, own, identified, axis_probes, numbers),
            undefined_values(own, identified, probes, answers, numbers),
            negative_ideal(own, identified, probes, answers, numbers),
            tie_order_by_length(command, own, identified, numbers, view),
            numeric_ids(command, own, identified, shown, numbers),
            out_of_range(own, probes, answers, numbers[0]),
        )
        if found is not None
    ]
    observable = {f.axis for f in findings if f.asked == own.choice(f.axis) and f.choices}
    own_findings = [f for f in findings if f.asked == own.choice(f.axis)]
    preset, differences = closest_preset(identified, own_findings, observable)
    counted = ProbesAsked(len(probes), len(axis_probes))
    return Identification(described, findings, extras, identified, preset, differences, counted)
