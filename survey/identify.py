"""Identification (``ndcgspec identify``): a black-box fingerprint of an nDCG implementation.

For every axis of ``spec/ndcg.yaml`` it finds the golden inputs whose answers differ between
the axis's choices while every other axis stays at the adapter's own choice, asks the adapter
for them and reports the choice whose reference answers it meets on all of them, "none of the
spec's choices" with the cases that disagree, or "not observable through this API". It then
probes what lies outside the axes: a cutoff the implementation chooses itself when asked for
the whole ranking (which then belongs to its configuration), scores 1e-9 and 1e-12 apart
(relative) that it ties under its own tie rule, decimals one double apart that its number reader
takes for equal, per-query values it leaves undefined or out where its configuration gives a
number, and the ranking length from which its tie order departs from its tie rule. Finally it
gives the canonical configuration and the closest preset.

The findings are data (`AxisFinding`, `Observation`), which the command's text output
(``commands/identify.py``), ``--format json`` and the conformance matrix render. All the
harness knows of the adapter beyond its answers is its start reply, what it cannot be shown
included (``observability``): the adapter runs in worker processes only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from typing import Any

from ndcgspec.harness.adapters.base import (
    ApiView,
    NumberFormat,
    declared_number_format,
    declared_view,
)
from ndcgspec.harness.pool import declared_adapter, shared_pools
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.reference.config import axis, choice_axes, choice_ids, presets
from ndcgspec.reference.rejection import REJECTING_CHOICE, choice_anchor
from ndcgspec.spec import load_spec
from ndcgspec.suite.tolerance import is_undefined
from ndcgspec.survey.probes import (
    RESOLUTION_GAP,
    RESOLUTION_GAPS,
    TIE_LENGTHS,
    ULP,
    Answer,
    Gap,
    ProbeInput,
    analysis_pool,
    ask,
    beyond_view,
    distinguishing,
    expected_of,
    meets,
    meets_aggregate,
    meets_values,
    number_reading_inputs,
    outcome_key,
    probe_inputs,
    quotient_values,
    replaced,
    scores_merged,
    spread_ties,
    tie_order_inputs,
    with_choice,
    within_tie_bounds,
)
from ndcgspec.survey.reasons import REASON_SHOWN, first_line

EVIDENCE_SHOWN = 5
NONE_SHARE = 0.5
"""The share of an axis's telling probes that may meet no choice of the axis while a choice
is still reported as met: beyond it, most of the evidence says the implementation computes
something the spec does not describe, and the minority that meets a choice meets it by
coincidence (an ideal DCG that always counts k slots meets ``judged`` wherever k judged
documents are relevant). Half, because a verdict should rest on most of its evidence."""
# Whole-ranking probes tried against every cutoff up to this length, to find a chosen cutoff,
# and then against the longer defaults of libraries (trectools' depth=1000, say).
CUTOFF_SEARCH_LENGTH = 200
CUTOFF_DEFAULTS = (256, 500, 512, 1000, 1024, 2000, 5000)

MET, NONE, NOT_OBSERVABLE, NOT_EXERCISED = "met", "none", "not observable", "not exercised"
"""The status of an axis finding: the adapter meets the finding's choices, meets none of the
spec's choices, cannot be asked about the axis through its API, or answered no probe of it."""
STATUS_TEXT = {
    NONE: "none of the spec's choices",
    NOT_OBSERVABLE: "not observable through this API",
    NOT_EXERCISED: "not exercised by the golden inputs",
}


@dataclass(frozen=True)
class CaseError:
    """A probe on which the adapter raised or its process failed, and the error's text."""

    case: str
    error: str


@dataclass
class AxisFinding:
    """What the adapter computes on one axis when asked for its choice `asked`.

    `status` is MET, with the `choices` met on every probe that tells the axis's choices apart
    and that some choice meets (several when those probes cannot tell them apart); NONE, with
    the `closest` choice when different probes meet different choices; NOT_OBSERVABLE, with the
    adapter's `reason`; or NOT_EXERCISED. `probes` counts the probes that tell the choices apart,
    `support` maps each choice to those it meets, `evidence` are the probes that show the
    verdict (or the closest choice), `disagreeing` those against it, `unexplained` those no
    choice meets, `set_aside` those left out as no evidence on this axis (another axis cannot
    explain them) and `errors` the probes the adapter failed on."""

    axis: str
    asked: str
    status: str
    choices: list[str] = field(default_factory=list)
    closest: str | None = None
    probes: int = 0
    support: dict[str, list[str]] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    disagreeing: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)
    errors: list[CaseError] = field(default_factory=list)
    reason: str = ""

    def verdict(self) -> str:
        """The verdict in words: the choices met, or what the status says."""
        return " or ".join(self.choices) if self.status == MET else STATUS_TEXT[self.status]

    def note(self) -> str:
        """What qualifies the verdict, in words."""
        if self.status == NOT_OBSERVABLE:
            return self.reason
        said = []
        if (
            self.status == NONE
            and self.closest
            and len(self.unexplained) > NONE_SHARE * self.probes
        ):
            said.append(
                f"{len(self.unexplained)} of {self.probes} probes meet no choice of this axis, "
                f"more than {NONE_SHARE:.0%}: the {len(self.support[self.closest])} that meet "
                f"{self.closest} do not show what it computes"
            )
        elif self.status == NONE and self.closest:
            mixed = "; ".join(f"{c} on {len(cases)}" for c, cases in self.support.items())
            said.append(f"different probes meet different choices: {mixed} of {self.probes}")
        elif self.status == NONE:
            said.append(f"no choice meets any of the {self.probes} probes that tell them apart")
        elif self.unexplained:
            said.append(
                f"{len(self.unexplained)} of {self.probes} probes meet no choice of this axis"
            )
        if self.set_aside:
            more = f" (+{len(self.set_aside) - 1})" if len(self.set_aside) > 1 else ""
            said.append(
                f"set aside {len(self.set_aside)} probes that another axis cannot explain: "
                f"{self.set_aside[0]}{more}"
            )
        return "; ".join(said)

    def to_json(self) -> dict[str, Any]:
        """The finding as JSON, with the spec anchors of its axis and of the choices named."""
        named = [*self.choices, *([self.closest] if self.closest else [])]
        return {
            **asdict(self),
            "anchor": axis(self.axis)["anchor"],
            "choice_anchors": {c: choice_anchor(self.axis, c) for c in named},
        }


REJECTIONS, CUTOFF, SCORE_RESOLUTION = "rejections", "cutoff", "score resolution"
# The tie-order probes bear on the ties axis, and are shown under its label.
NUMBER_READING, UNDEFINED_VALUES, TIE_ORDER = "number reading", "undefined values", "ties"
NEGATIVE_IDEAL = "negative ideal"
DOCUMENT_IDS, VALUE_RANGE = "document ids", "value range"
"""The topics of the probes beyond the axes."""
REFUSES_VALID_INPUTS = "refuses valid inputs"
CHOSEN_CUTOFF = "chosen cutoff"
NO_SINGLE_CUTOFF = "no single cutoff"
TIES_CLOSE_SCORES = "ties close scores"
RANKS_CLOSE_SCORES = "ranks close scores"
READS_NEIGHBOURS_EQUAL = "reads adjacent doubles as equal"
READS_NEIGHBOURS_APART = "reads adjacent doubles apart"
UNDEFINED_WHERE_SCORED = "undefined where scored"
DIVIDES_NEGATIVE_IDEAL = "divides by a negative ideal DCG"
TIE_RULE_BREAKS = "tie rule breaks"
TIE_RULE_HOLDS = "tie rule holds"
READS_IDS_AS_NUMBERS = "reads ids as numbers"
READS_IDS_AS_TEXT = "reads ids as text"
OUTSIDE_UNIT = "values outside [0, 1]"
EXACT_OUTCOMES = (RANKS_CLOSE_SCORES, READS_NEIGHBOURS_APART, TIE_RULE_HOLDS, READS_IDS_AS_TEXT)
"""The outcomes of those probes; every one but the EXACT_OUTCOMES departs from exact nDCG."""


@dataclass
class Observation:
    """What the probes of one `topic` beyond the axes show (its `outcome`): refusing valid
    inputs (with the first line of each distinct reason, `reasons`), applying a cutoff of its
    own when asked for the whole ranking (the cutoff in `cutoffs`), or not (the cutoffs that
    explain some of the probes missed), tying or ranking scores apart by the relative `gaps`,
    reading decimals one double apart as equal or not, leaving per-query values undefined or
    out where its configuration gives a number (`mean_meets`: those probes whose mean still
    meets the configuration's), and breaking or keeping its tie rule on rankings of the
    `lengths` tried (when it breaks, the lengths on which it did). `evidence` are the probes that
    show it, `disagreeing` those against it."""

    topic: str
    outcome: str
    asked: str
    evidence: list[str] = field(default_factory=list)
    disagreeing: list[str] = field(default_factory=list)
    cutoffs: list[int] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    anchor: str | None = None
    gaps: list[str] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    mean_meets: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    when: str | None = None

    @property
    def departs(self) -> bool:
        """Whether the implementation departs from exact nDCG here (a sharp edge)."""
        return self.outcome not in EXACT_OUTCOMES

    def verdict(self) -> str:
        """The outcome in words."""
        if self.outcome == REFUSES_VALID_INPUTS:
            return f"refuses {len(self.evidence)} inputs its own configuration scores"
        if self.outcome == CHOSEN_CUTOFF:
            return f"@{self.cutoffs[0]} (a cutoff the implementation chose)"
        if self.outcome == NO_SINGLE_CUTOFF:
            return "misses whole-ranking probes that no single cutoff explains"
        if self.outcome == TIES_CLOSE_SCORES:
            float32 = " (float32 scores)" if _gap_text(RESOLUTION_GAP) in self.gaps else ""
            return f"ties scores {' and '.join(self.gaps)} apart{float32}"
        if self.outcome == READS_NEIGHBOURS_EQUAL:
            return "reads decimals one double apart as equal scores"
        if self.outcome == READS_NEIGHBOURS_APART:
            return "reads decimals one double apart as different scores"
        if self.outcome == UNDEFINED_WHERE_SCORED:
            said = "leaves per-query values undefined or out where its configuration gives one"
            return said + (f", exactly when {UNDEFINED_RULES[self.when][0]}" if self.when else "")
        if self.outcome == READS_IDS_AS_NUMBERS:
            return "reads document ids as numbers: ids such as 0010, 1e5 or -0 are misread"
        if self.outcome == READS_IDS_AS_TEXT:
            return "reads document ids as text"
        if self.outcome == OUTSIDE_UNIT:
            return f"returns per-query values outside [0, 1] (the farthest {self.values[0]})"
        if self.outcome == DIVIDES_NEGATIVE_IDEAL:
            return "scores a query whose ideal DCG is negative DCG / IDCG, not as empty"
        if self.outcome == TIE_RULE_BREAKS:
            return (
                f"breaks ties against its tie rule from rankings of {self.lengths[0]} "
                f"documents on ({len(self.lengths)} of {len(TIE_LENGTHS)} lengths tried)"
            )
        if self.outcome == TIE_RULE_HOLDS:
            return f"keeps its tie rule on rankings of {self.lengths[0]} to {self.lengths[-1]}"
        return f"ranks scores {' and '.join(self.gaps)} apart"

    def note(self) -> str:
        """How the probes show it, in words."""
        if self.outcome == REFUSES_VALID_INPUTS:
            return "reasons: " + " | ".join(self.reasons[:3])
        if self.outcome == CHOSEN_CUTOFF:
            k = self.cutoffs[0]
            return (
                f"asked for the whole ranking, it returns nDCG@{k} on every such probe longer "
                f"than {k} that it misses"
            )
        if self.outcome == NO_SINGLE_CUTOFF:
            return f"cutoffs that explain some: {self.cutoffs or 'none'}"
        if self.outcome in (READS_NEIGHBOURS_EQUAL, READS_NEIGHBOURS_APART):
            return (
                "probes: two documents scored with adjacent doubles written as their shortest "
                "decimals (0.223, 0.22300000000000003), the relevant one higher"
            )
        if self.outcome == UNDEFINED_WHERE_SCORED:
            return (
                f"its mean meets the configuration's on {len(self.mean_meets)} of "
                f"{len(self.evidence)} such probes"
            )
        if self.outcome == DIVIDES_NEGATIVE_IDEAL:
            return "probes: the inputs whose negative labels make a query's ideal DCG negative"
        if self.outcome in (READS_IDS_AS_NUMBERS, READS_IDS_AS_TEXT):
            return (
                "probes: a relevant document with an id that looks like a number (0010, or 010, "
                "007, 1e5, 1.0, -0 beside its numeric twin) ranked second"
            )
        if self.outcome == OUTSIDE_UNIT:
            return (
                f"on {len(self.evidence)} probes asked for its own configuration; the spec's "
                "configurations give such values only for negative labels or gains"
            )
        if self.outcome in (TIE_RULE_BREAKS, TIE_RULE_HOLDS):
            return (
                f"probes: {TIE_LENGTHS[0]} to {TIE_LENGTHS[-1]} documents per ranking, scores "
                "of three values, every document judged; a miss counts when every value lies "
                "between the pessimistic and the optimistic tie order"
            )
        return (
            "probes: the ties cases with each tie group spread by the relative gaps, against "
            "the adapter's own tie rule"
        )

    def to_json(self) -> dict[str, Any]:
        """The observation as JSON."""
        return {**asdict(self), "departs": self.departs}


@dataclass
class Identification:
    """The whole fingerprint of one adapter: its start reply's ``adapter`` object, a finding
    per axis and asked choice, the observations beyond the axes, the configuration identified
    and the closest preset."""

    adapter: dict[str, Any]
    findings: list[AxisFinding]
    extras: list[Observation]
    configuration: Config
    preset: str | None
    preset_differences: dict[str, list[str]]

    @property
    def departs(self) -> list[str]:
        """The axes on which the implementation, asked its own choice, meets none of the
        spec's: the configuration shows the closest choice there, and every output says so."""
        own = own_configuration(self.adapter)
        return [f.axis for f in self.findings if f.status == NONE and f.asked == own.choice(f.axis)]

    def configuration_text(self) -> str:
        """The canonical configuration, with the axes it could not fit marked."""
        text = self.configuration.canonical()
        if not self.departs:
            return text
        return f"{text} (departs on {', '.join(self.departs)}: no choice of the spec fits)"

    def to_json(self) -> dict[str, Any]:
        """The fingerprint as JSON (``identify --format json``)."""
        return {
            "adapter": self.adapter,
            "axes": [f.to_json() for f in self.findings],
            "outside_the_axes": [f.to_json() for f in self.extras],
            "configuration": self.configuration.canonical(),
            "departs": self.departs,
            "closest_preset": self.preset.split(", ") if self.preset else [],
            "preset_differences": self.preset_differences,
        }


def own_configuration(adapter: Mapping[str, Any]) -> Config:
    """The adapter's own configuration: the first declared choice of every axis (a peer lists
    the library's default first), the spec's default where it declares nothing."""
    declared = adapter.get("capabilities") or {}
    return Config.from_mapping({a: c[0] for a, c in declared.items() if c})


def _rejects_on(axis_id: str, probe: ProbeInput, candidates: Mapping[str, Config]) -> bool:
    """Whether some candidate of the axis makes the reference reject the input because of
    that axis itself (its ``error`` choice)."""
    anchors = {expected_of(probe, c).get("error", {}).get("anchor") for c in candidates.values()}
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
    shown = {
        "probes": len(met_by),
        "support": support,
        "unexplained": unexplained,
        "errors": errors,
    }
    if not explained:
        return AxisFinding(axis_id, asked_choice, NONE, disagreeing=unexplained, **shown)
    if len(unexplained) > NONE_SHARE * len(met_by):
        closest = max(choices, key=lambda c: len(support[c]))
        return AxisFinding(
            axis_id,
            asked_choice,
            NONE,
            closest=closest,
            evidence=support[closest],
            disagreeing=unexplained,
            **shown,
        )
    winners = [c for c in choices if all(c in met for met in explained.values())]
    if winners:
        return AxisFinding(
            axis_id,
            asked_choice,
            MET,
            winners,
            evidence=sorted(explained),
            disagreeing=unexplained,
            **shown,
        )
    closest = max(choices, key=lambda c: len(support[c]))
    return AxisFinding(
        axis_id,
        asked_choice,
        NONE,
        closest=closest,
        evidence=support[closest],
        disagreeing=sorted(k for k, met in explained.items() if closest not in met) + unexplained,
        **shown,
    )


def identify_axis(
    axis_id: str,
    asked: Config,
    reference: Config,
    probes: Sequence[ProbeInput],
    command: Sequence[str] | str,
    numbers: NumberFormat,
    trust_rejections: bool = True,
) -> AxisFinding:
    """The finding on one axis, from the adapter's answers asked under `asked` (cutoff aside),
    against candidates that vary the axis on `reference` (the other axes as identified).
    Only the probes on which the candidates differ are asked: the others tell nothing about
    the axis.

    A rejection is evidence for the axis's ``error`` choice only when the adapter rejects no
    input its own configuration accepts (`trust_rejections`), or when that choice is asked."""
    telling = []
    for probe in probes:
        sent = replaced(asked, cutoff=probe.config.cutoff)
        candidates = distinguishing(probe, replaced(reference, cutoff=sent.cutoff), axis_id)
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


def _outside_the_spec(findings: Sequence[AxisFinding], total: int) -> list[set[str]]:
    """For each finding, the probes that a finding of another axis, one with a verdict,
    cannot explain.

    Such a probe shows a behaviour no single choice describes (a query judged empty by its
    labels, say), so a choice it meets on another axis meets it by coincidence and is no
    evidence there. They are set aside only while they are fewer than half of the probes:
    more would mean the verdicts themselves are in doubt."""
    outside = {case for f in findings if f.choices for case in f.unexplained}
    if 2 * len(outside) >= total:
        return [set() for _ in findings]
    return [
        {
            case
            for other in findings
            if other.choices and other.axis != f.axis
            for case in other.unexplained
        }
        for f in findings
    ]


def _mostly_unexplained(finding: AxisFinding) -> bool:
    """Whether the finding is "none of the spec's choices" because most of its probes meet no
    choice (or none meets any)."""
    return finding.status == NONE and len(finding.unexplained) > NONE_SHARE * finding.probes


def _record_set_aside(
    findings: Sequence[AxisFinding], earlier: Sequence[AxisFinding], aside: Sequence[set[str]]
) -> None:
    """Record on each finding the probes `_outside_the_spec` set aside that bore on its axis."""
    for finding, before, cases in zip(findings, earlier, aside, strict=True):
        finding.set_aside = sorted(cases & {*before.evidence, *before.disagreeing})


def _depends_on(probe: ProbeInput, config: Config, axes: set[str]) -> bool:
    return any(distinguishing(probe, replaced(config, cutoff=probe.config.cutoff), a) for a in axes)


def _local(axis_id: str, config: Config, probes: Sequence[ProbeInput]) -> bool:
    """Whether fewer than half of the probes depend on the axis: only such an axis can be
    set aside without setting aside the evidence about every other (the discount, on which
    nearly every answer depends, never can)."""
    return 2 * sum(_depends_on(p, config, {axis_id}) for p in probes) < len(probes)


def _identified(own: Config, findings: Sequence[AxisFinding]) -> Config:
    """The adapter's own configuration with each axis's identified (or closest) choice."""
    chosen = {}
    for finding in findings:
        if finding.asked != own.choice(finding.axis):
            continue
        if len(finding.choices) == 1:
            chosen[finding.axis] = finding.choices[0]
        elif finding.closest:
            chosen[finding.axis] = finding.closest
    return replaced(own, **chosen)


def _questions(asked: Config, probes: Sequence[ProbeInput]) -> list[tuple[ProbeInput, Config]]:
    return [(p, replaced(asked, cutoff=p.config.cutoff)) for p in probes]


def rejected_valid_inputs(
    own: Config, probes: Sequence[ProbeInput], answers: Mapping[tuple[str, str], Answer]
) -> Observation | None:
    """Inputs the adapter refuses although its own configuration scores them."""
    refused = []
    for probe in probes:
        sent = replaced(own, cutoff=probe.config.cutoff)
        answer = answers.get((probe.case_id, sent.full()))
        if answer and "rejected" in answer.result and "error" not in expected_of(probe, sent):
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


def _leaves_undefined(probe: ProbeInput, config: Config, answer: Answer) -> bool:
    """Whether the answer leaves a query undefined (NaN) or out where `config` scores it."""
    given = answer.result.get("per_query") or {}
    expected = expected_of(probe, config)
    return any(
        entry["ndcg"] is not None and is_undefined(given.get(qid))
        for qid, entry in expected.get("per_query", {}).items()
    )


def chosen_cutoff(
    command: Sequence[str] | str,
    identified: Config,
    probes: Sequence[ProbeInput],
    numbers: NumberFormat,
) -> Observation | None:
    """A cutoff the implementation applies when asked for the whole ranking: whole-ranking
    probes it misses, met by the reference at one cutoff k instead, every one of them that
    is longer than k (ranked or judged documents of a query); a miss on a probe no longer than
    k, which no cutoff of k can explain, has another cause and is listed as disagreeing. Each
    missed probe first names the smallest k that meets it; a probe that gains nothing past
    rank 2 is met at 2 as well as at the library's 10, so every k named is then tried on every
    missed probe longer than it, and the smallest that meets them all is the cutoff."""
    asked = replaced(identified, cutoff=None)
    whole = [p for p in probes if p.config.cutoff is None]
    answers = ask(command, _questions(asked, whole))
    found: dict[int, list[str]] = {}
    missed: dict[str, int] = {}
    for probe in whole:
        answer = answers[(probe.case_id, asked.full())]
        scored = "per_query" in answer.result and "error" not in expected_of(probe, asked)
        if not scored or meets(probe, asked, answer, asked, *numbers):
            continue
        if _leaves_undefined(probe, asked, answer):
            # Another observation (`undefined_values`), whatever the cutoff.
            continue
        longest = max(Counter(q for q, *_ in probe.run).values(), default=0)
        missed[probe.case_id] = max(longest, *Counter(q for q, *_ in probe.qrels).values(), 0)
        candidates = [
            *range(1, min(longest, CUTOFF_SEARCH_LENGTH) + 1),
            *(k for k in CUTOFF_DEFAULTS if CUTOFF_SEARCH_LENGTH < k < longest),
        ]
        for k in candidates:
            if meets(probe, replaced(asked, cutoff=k), answer, asked, *numbers):
                found.setdefault(k, []).append(probe.case_id)
                break
    if not missed:
        return None
    anchor = axis(CUTOFF)["anchor"]
    by_id = {p.case_id: p for p in whole}
    for k in sorted(found):
        longer = [case for case, length in missed.items() if length > k]
        met = [
            case
            for case in longer
            if meets(
                by_id[case],
                replaced(asked, cutoff=k),
                answers[(case, asked.full())],
                asked,
                *numbers,
            )
        ]
        if longer and len(met) == len(longer):
            others = sorted(set(missed) - set(met))
            return Observation(
                CUTOFF, CHOSEN_CUTOFF, "null", sorted(met), others, cutoffs=[k], anchor=anchor
            )
    return Observation(
        CUTOFF,
        NO_SINGLE_CUTOFF,
        "null",
        disagreeing=sorted(missed),
        cutoffs=sorted(found),
        anchor=anchor,
    )


def _gap_text(gap: Gap) -> str:
    return gap if isinstance(gap, str) else f"{gap:e} relative"


def _spread_verdicts(
    pairs: Sequence[tuple[ProbeInput, ProbeInput]],
    asked: Config,
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
) -> tuple[list[str], list[str]]:
    """The spread probes the adapter ranks exactly, and those it ties again as the original."""
    exact, collapsed = [], []
    for original, spread in pairs:
        sent = replaced(asked, cutoff=spread.config.cutoff)
        if outcome_key(original, sent) == outcome_key(spread, sent):
            continue
        answer = answers[(spread.case_id, sent.full())]
        if meets(spread, sent, answer, sent, *numbers):
            exact.append(spread.case_id)
        elif meets(original, sent, answer, sent, *numbers):
            collapsed.append(spread.case_id)
    return exact, collapsed


def close_scores(
    command: Sequence[str] | str,
    identified: Config,
    probes: Sequence[ProbeInput],
    numbers: NumberFormat,
) -> list[Observation]:
    """Scores a relative 1e-9 or 1e-12 apart (``RESOLUTION_GAPS``): does the implementation
    rank them, or tie them again under its own tie rule, whichever it is? And decimals one
    double apart (0.223, 0.22300000000000003): does its number reader tell them apart? The
    second is asked only of an implementation that ranks the coarser gaps exactly."""
    rule = identified.choice("ties")
    ties = [p for p in probes if p.case_id.startswith("ties.")]
    spreads = {
        gap: [(p, s) for p in ties if (s := spread_ties(p, rule, gap)) is not None]
        for gap in RESOLUTION_GAPS
        if gap != ULP
    }
    adjacent = number_reading_inputs()
    asked = replaced(identified, cutoff=None)
    answers = ask(
        command,
        [
            *(
                (s, replaced(identified, cutoff=s.config.cutoff))
                for pairs in spreads.values()
                for _, s in pairs
            ),
            *((p, asked) for p in adjacent),
        ],
    )
    verdicts = {
        gap: _spread_verdicts(pairs, identified, answers, numbers) for gap, pairs in spreads.items()
    }
    precision = load_spec()["precision"]["anchor"]
    tied = [gap for gap in spreads if verdicts[gap][1]]
    if tied:
        exact, collapsed = verdicts[tied[0]]
        return [
            Observation(
                SCORE_RESOLUTION,
                TIES_CLOSE_SCORES,
                "exact decimals",
                evidence=collapsed,
                disagreeing=exact,
                anchor=precision,
                gaps=[_gap_text(g) for g in tied],
            )
        ]
    found = []
    exact = [case for gap in spreads for case in verdicts[gap][0]]
    if exact:
        found.append(
            Observation(
                SCORE_RESOLUTION,
                RANKS_CLOSE_SCORES,
                "exact decimals",
                evidence=exact,
                anchor=precision,
                gaps=[_gap_text(g) for g in spreads],
            )
        )
    apart, equal = [], []
    for probe in adjacent:
        answer = answers[(probe.case_id, asked.full())]
        if meets(probe, identified, answer, asked, *numbers):
            apart.append(probe.case_id)
        elif within_tie_bounds(scores_merged(probe), identified, answer, asked, *numbers):
            equal.append(probe.case_id)
    if apart or equal:
        found.append(
            Observation(
                NUMBER_READING,
                READS_NEIGHBOURS_EQUAL if equal else READS_NEIGHBOURS_APART,
                "exact decimals",
                evidence=equal or apart,
                disagreeing=apart if equal else [],
                anchor=precision,
                gaps=[ULP],
            )
        )
    return found


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
        if answer is None or "per_query" not in answer.result or "per_query" not in expected:
            continue
        if _leaves_undefined(probe, expected_config, answer):
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
        anchor=axis("empty")["anchor"],
        when=_undefined_when(own, identified, probes, answers),
    )


UNDEFINED_RULES: dict[str, tuple[str, Any]] = {
    "nothing-relevant-retrieved": (
        "no document of positive gain is retrieved within the cutoff (its DCG is 0)",
        lambda entry, retrieved: entry["dcg"] is not None and Decimal(entry["dcg"]) == 0,
    ),
    "nothing-retrieved": (
        "the run retrieves no document for the query",
        lambda entry, retrieved: not retrieved,
    ),
}
"""When an implementation may leave a query undefined that its configuration scores, each
rule with its words and its test of one query (the reference's entry for it, and whether the
run retrieves a document for it): the rule of an `UNDEFINED_WHERE_SCORED` observation is the
first that holds of exactly the queries left undefined, on every probe that shows it."""


def undefined_rule(probe: ProbeInput, config: Config, answer: Answer, rule: str) -> bool | None:
    """Whether `rule` of `UNDEFINED_RULES` says which queries of `probe` the answer leaves
    undefined where `config` scores them (None when the answer has no per-query values)."""
    given = answer.result.get("per_query")
    if given is None:
        return None
    retrieved = {q for q, _, _ in probe.run}
    test = UNDEFINED_RULES[rule][1]
    for qid, entry in expected_of(probe, config).get("per_query", {}).items():
        if entry["ndcg"] is None:
            continue
        if is_undefined(given.get(qid)) != bool(test(entry, qid in retrieved)):
            return False
    return True


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


ID_PROBES = "ids."
"""The case ids of the golden cases whose document ids look like numbers (``suite/ids.py``):
probed on their own, not on the axes, which they do not tell apart."""


def numeric_ids(
    command: Sequence[str] | str,
    identified: Config,
    probes: Sequence[ProbeInput],
    numbers: NumberFormat,
) -> Observation | None:
    """Document ids that look like numbers (0010, 010 beside 10, 1e5, 1.0, -0, 007): does the
    implementation read them as the text they are (``ndcg.input``), or misread them as
    numbers, silently?"""
    inputs = [p for p in probes if p.case_id.startswith(ID_PROBES)]
    if not inputs:
        return None
    asked = replaced(identified, cutoff=None)
    answers = ask(command, [(p, asked) for p in inputs])
    text, misread = [], []
    for probe in inputs:
        met = meets(probe, identified, answers[(probe.case_id, asked.full())], asked, *numbers)
        (text if met else misread).append(probe.case_id)
    anchor = load_spec()["input"]["anchor"]
    if misread:
        return Observation(
            DOCUMENT_IDS, READS_IDS_AS_NUMBERS, "ids as text", misread, text, anchor=anchor
        )
    return Observation(DOCUMENT_IDS, READS_IDS_AS_TEXT, "ids as text", text, anchor=anchor)


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
    anchor = axis("empty")["anchor"]
    return Observation(
        NEGATIVE_IDEAL, DIVIDES_NEGATIVE_IDEAL, own.canonical(), shown, anchor=anchor
    )


def tie_order_by_length(
    command: Sequence[str] | str, identified: Config, numbers: NumberFormat, view: ApiView
) -> Observation | None:
    """On rankings of every length in ``TIE_LENGTHS`` full of tied scores, does the adapter
    keep the identified tie rule (``ndcg.ties``)? The lengths on which it misses with every
    value between the pessimistic and the optimistic tie order (so that the order of tied
    documents alone explains the miss) say from which length on it breaks the rule."""
    asked = replaced(identified, cutoff=None)
    inputs = [p for p in tie_order_inputs() if not beyond_view(p, asked, view)]
    if not inputs:
        return None
    answers = ask(command, [(p, asked) for p in inputs])
    kept, broken = [], []
    for probe in inputs:
        answer = answers[(probe.case_id, asked.full())]
        if meets(probe, identified, answer, asked, *numbers):
            kept.append(int(probe.case_id.rsplit("-", 1)[1]))
        elif within_tie_bounds(probe, identified, answer, asked, *numbers):
            broken.append(int(probe.case_id.rsplit("-", 1)[1]))
    anchor = axis("ties")["anchor"]
    if broken:
        return Observation(
            TIE_ORDER,
            TIE_RULE_BREAKS,
            identified.choice("ties"),
            evidence=[f"ties.length-{n}" for n in broken],
            lengths=broken,
            anchor=anchor,
        )
    if not kept:
        return None
    return Observation(
        TIE_ORDER, TIE_RULE_HOLDS, identified.choice("ties"), lengths=kept, anchor=anchor
    )


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
        theirs = Config.from_mapping(entry.get("config", {}))
        differences = {
            a["id"]: [
                f"preset: {theirs.choice(a['id'])}",
                *evidence.get(a["id"], [])[:EVIDENCE_SHOWN],
            ]
            for a in choice_axes()
            if (a["id"] in observable and theirs.choice(a["id"]) != configuration.choice(a["id"]))
            or a["id"] in unmatched
        }
        ranked.append((len(differences), entry["id"], differences))
    fewest = min(count for count, _, _ in ranked)
    best = [item for item in ranked if item[0] == fewest]
    return ", ".join(name for _, name, _ in best), best[0][2]


def identify(
    target: str | None, exec_line: str | None = None, progress: bool = False
) -> Identification:
    """Fingerprint the adapter named by `target` (or the protocol program `exec_line`); with
    `progress`, a bar on stderr counts the probes answered. One set of adapter processes
    answers every question."""
    with shared_pools():
        return _identify(adapter_command(target, exec_line), progress)


def _identify(command: list[str] | str, progress: bool) -> Identification:
    adapter = declared_adapter(command, analysis_pool())
    numbers = declared_number_format(adapter)
    view = declared_view(adapter)
    hidden = view.hidden
    own = own_configuration(adapter)
    shown = [p for p, asked in _questions(own, probe_inputs()) if not beyond_view(p, asked, view)]
    probes = [p for p in shown if not p.case_id.startswith(ID_PROBES)]
    declared = adapter.get("capabilities") or {}
    plans = [
        (a["id"], replaced(own, **{a["id"]: choice}))
        for a in choice_axes()
        if a["id"] not in hidden
        for choice in declared.get(a["id"], [own.choice(a["id"])])
        if with_choice(own, a["id"], choice, own) is not None
    ]
    # Every probe under the adapter's own configuration; under the other choices it declares,
    # each axis's finding asks the probes that tell its candidates apart.
    answers = ask(command, _questions(own, probes), progress=progress)
    refused = rejected_valid_inputs(own, probes, answers)
    hidden_findings = [
        AxisFinding(axis_id, own.choice(axis_id), NOT_OBSERVABLE, reason=reason)
        for axis_id, reason in hidden.items()
    ]
    # Pass 1 takes the adapter's declared choices as the truth of the other axes; pass 2 takes
    # what pass 1 found, and leaves out the probes that depend on an axis none of whose
    # choices the adapter meets, since they cannot tell anything about the others. Pass 3, if
    # needed, sets aside on each axis the probes another axis cannot explain.
    findings: list[AxisFinding] = []
    identified, confounders = own, set()
    aside: list[set[str]] = [set() for _ in plans]
    for step in range(3):
        earlier = findings
        findings = [
            identify_axis(
                a,
                asked,
                replaced(identified, **{a: asked.choice(a)}),
                [
                    p
                    for p in probes
                    if p.case_id not in aside[i]
                    and not _depends_on(p, identified, confounders - {a})
                ],
                command,
                numbers,
                trust_rejections=refused is None,
            )
            for i, (a, asked) in enumerate(plans)
        ]
        identified = _identified(own, findings)
        confounders = {
            f.axis
            for f in findings
            if not f.choices and f.asked == own.choice(f.axis) and _local(f.axis, own, probes)
        }
        if step == 1:
            aside = _outside_the_spec(findings, len(probes))
            if not any(aside):
                break
    if any(aside):
        _record_set_aside(findings, earlier, aside)
        # Setting probes aside may settle which choice is met where probes met different
        # ones, never find a choice where most of the evidence met none (`NONE_SHARE`).
        findings = [
            replace(before, set_aside=f.set_aside) if _mostly_unexplained(before) else f
            for f, before in zip(findings, earlier, strict=True)
        ]
        identified = _identified(own, findings)
    order = [a["id"] for a in choice_axes()]
    findings = sorted([*findings, *hidden_findings], key=lambda f: order.index(f.axis))
    cutoff = chosen_cutoff(
        command,
        identified,
        [p for p in probes if not _depends_on(p, identified, confounders)],
        numbers,
    )
    if cutoff is not None and cutoff.outcome == CHOSEN_CUTOFF:
        # The cutoff it applies unasked is part of what it computes: the configuration
        # string says it, so that the string alone predicts the implementation.
        identified = replaced(identified, cutoff=cutoff.cutoffs[0])
    extras = [
        found
        for found in (
            refused,
            cutoff,
            *close_scores(command, identified, probes, numbers),
            undefined_values(own, identified, probes, answers, numbers),
            negative_ideal(own, identified, probes, answers, numbers),
            tie_order_by_length(command, identified, numbers, view),
            numeric_ids(command, identified, shown, numbers),
            out_of_range(own, probes, answers, numbers[0]),
        )
        if found is not None
    ]
    observable = {f.axis for f in findings if f.asked == own.choice(f.axis) and f.choices}
    own_findings = [f for f in findings if f.asked == own.choice(f.axis)]
    preset, differences = closest_preset(identified, own_findings, observable)
    return Identification(adapter, findings, extras, identified, preset, differences)
