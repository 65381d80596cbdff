"""The records of an identification (``survey/identify.py``): the finding on one axis
(`AxisFinding`), what the probes beyond the axes show (`Observation`) and the whole fingerprint
(`Identification`), with the words of their statuses, topics and outcomes, which the text of
``identify``, its ``--format json``, the conformance page and the prediction check read."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.reference import Config
from ndcgspec.reference.config import axis
from ndcgspec.reference.rejection import choice_anchor
from ndcgspec.survey.probes import RESOLUTION_GAP, TIE_LENGTHS, Gap
from ndcgspec.survey.undefined_rules import UNDEFINED_RULES

EVIDENCE_SHOWN = 5
NONE_SHARE = 0.5
"""The share of an axis's telling probes that may meet no choice of the axis while a choice
is still reported as met: beyond it, most of the evidence says the implementation computes
something the spec does not describe, and the minority that meets a choice meets it by
coincidence (an ideal DCG that always counts k slots meets ``judged`` wherever k judged
documents are relevant). Half, because a verdict should rest on most of its evidence."""

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
            "anchor": axis(self.axis).anchor,
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
            inputs = "input" if len(self.evidence) == 1 else "inputs"
            return f"refuses {len(self.evidence)} {inputs} its own configuration scores"
        if self.outcome == CHOSEN_CUTOFF:
            return f"@{self.cutoffs[0]} (a cutoff the implementation chose)"
        if self.outcome == NO_SINGLE_CUTOFF:
            return "misses whole-ranking probes that no single cutoff explains"
        if self.outcome == TIES_CLOSE_SCORES:
            float32 = " (float32 scores)" if gap_text(RESOLUTION_GAP) in self.gaps else ""
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


@dataclass(frozen=True)
class ProbesAsked:
    """How many of the probes its view shows an adapter was asked under its own configuration
    (``survey/probe_choice.py``): the axes are read on those alone."""

    asked: int
    shown: int

    def to_json(self) -> dict[str, int]:
        return {"asked": self.asked, "shown": self.shown}


@dataclass
class Identification:
    """The whole fingerprint of one adapter: what its start reply declares, a finding
    per axis and asked choice, the observations beyond the axes, the configuration identified,
    the closest preset, and how many probes were asked (None where not counted)."""

    adapter: Declaration
    findings: list[AxisFinding]
    extras: list[Observation]
    configuration: Config
    preset: str | None
    preset_differences: dict[str, list[str]]
    probes: ProbesAsked | None = None

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
            "adapter": self.adapter.to_json(),
            "axes": [f.to_json() for f in self.findings],
            "outside_the_axes": [f.to_json() for f in self.extras],
            "configuration": self.configuration.canonical(),
            "departs": self.departs,
            "closest_preset": self.preset.split(", ") if self.preset else [],
            "preset_differences": self.preset_differences,
            "probes": None if self.probes is None else self.probes.to_json(),
        }


def own_configuration(adapter: Declaration) -> Config:
    """The adapter's own configuration: the first declared choice of every axis (a peer lists
    the library's default first), the spec's default where it declares nothing."""
    return Config.from_mapping({a: c[0] for a, c in adapter.claims.items() if c})


def gap_text(gap: Gap) -> str:
    """A gap between two scores in words."""
    return gap if isinstance(gap, str) else f"{gap:e} relative"
