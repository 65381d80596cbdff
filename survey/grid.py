"""What the conformance page shows about each implementation, for its markdown and its HTML
alike: a cell per axis of the grid (the choice it stands for, whether that is the spec's
default, whether the implementation departs there), its sharp edges each with a one-line
reproduction drawn from the smallest probe input that shows it, its rates (presets passed,
fresh queries predicted, published values reproduced), and the rows on which two
implementations of the same code differ.

Everything here is read from the records ``ndcgspec matrix`` computes
(``survey/matrix.py``); nothing is stated by hand.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ndcgspec.reference.config import choice_axes, choice_ids
from ndcgspec.spec.presets import Departure
from ndcgspec.survey.identification import (
    MET,
    NONE,
    NOT_EXERCISED,
    NOT_OBSERVABLE,
    OUTSIDE_UNIT,
    READS_IDS_AS_NUMBERS,
    READS_NEIGHBOURS_EQUAL,
    SCORE_RESOLUTION,
    TIES_CLOSE_SCORES,
    Observation,
)
from ndcgspec.survey.implementation import Implementation
from ndcgspec.survey.probes import RESOLUTION_GAP, ProbeInput
from ndcgspec.survey.reasons import without_temporary_paths

SHOWN = 4
REPRODUCTION_ROWS = 12
"""A probe input of at most this many qrels and run rows is quoted whole as a reproduction."""
VALUES, SCORES = "values", "scores"
SCORE_CHOICES = ("exact", "float32")
"""How an implementation ranks scores a relative `RESOLUTION_GAP` apart: as distinct (exact
doubles) or as ties (float32)."""
CELL_TEXT = {NONE: "none", NOT_EXERCISED: "–"}
"""How a cell of the choices table shows a finding that meets no choice."""


@dataclass(frozen=True)
class Cell:
    """One implementation on one column of the grid: the text the markdown table shows, the
    choice it stands for (its colour; None when it meets no choice of the spec, cannot be
    observed or was not exercised), whether that choice is the spec's default, whether the
    implementation departs there (meets no choice, computes another choice than the one asked
    for, or some probes disagree with the verdict) and the finding's status."""

    text: str
    choice: str | None
    default: bool
    departs: bool
    status: str = MET


def column_choices() -> dict[str, list[str]]:
    """Every column of the grid and its choices in a fixed order (a choice's colour is its
    place there): the spec's choice axes in spec order, then the float width of the values and
    the resolution of the scores."""
    columns = {entry.id: list(choice_ids(entry.id)) for entry in choice_axes()}
    columns[VALUES] = ["float64", "float32"]
    columns[SCORES] = list(SCORE_CHOICES)
    return columns


def spec_defaults() -> dict[str, str]:
    """The spec's default choice of every column (float64 values, exact scores)."""
    found = {entry.id: entry.default for entry in choice_axes()}
    return {**found, VALUES: "float64", SCORES: "exact"}


def axis_cell(item: Implementation, axis_id: str) -> Cell:
    """The grid cell of a spec axis, from the identification's findings on it."""
    result = item.identification
    own = result.configuration.choice(axis_id)
    default = spec_defaults()[axis_id]
    findings = [f for f in result.findings if f.axis == axis_id]
    if not findings:
        return Cell(own, own, own == default, False)
    if any(f.status == NOT_OBSERVABLE for f in findings):
        return Cell("n/o", None, False, False, NOT_OBSERVABLE)
    parts = []
    for finding in findings:
        text = " or ".join(finding.choices) if finding.status == MET else CELL_TEXT[finding.status]
        if finding.closest:
            text += f" (≈{finding.closest})"
        parts.append(text if len(findings) == 1 else f"{finding.asked}→{text}")
    departs = any(
        f.status == NONE or f.disagreeing or (f.status == MET and f.asked not in f.choices)
        for f in findings
    )
    if any(f.status == NONE for f in findings):
        return Cell("; ".join(parts), None, False, True, NONE)
    if all(f.status == NOT_EXERCISED for f in findings):
        return Cell("; ".join(parts), None, False, False, NOT_EXERCISED)
    return Cell("; ".join(parts), own, own == default, departs)


def values_cell(item: Implementation) -> Cell:
    """The float width of the values, and the decimals they are printed to if rounded."""
    width_bits, places = item.identification.adapter.number_format
    width = f"float{width_bits}"
    text = width + (f", {places} decimals" if places is not None else "")
    return Cell(text, width, width == "float64", places is not None)


def scores_cell(item: Implementation) -> Cell:
    """Whether scores a relative `RESOLUTION_GAP` apart are ranked apart (the score
    resolution probes of ``identify``), or "–" when those probes did not run."""
    seen = [o for o in item.identification.extras if o.topic == SCORE_RESOLUTION]
    if not seen:
        return Cell("–", None, False, False, NOT_EXERCISED)
    if seen[0].outcome == TIES_CLOSE_SCORES:
        return Cell(f"float32: ties {RESOLUTION_GAP:e} apart", "float32", False, True)
    return Cell(f"exact: ranks {RESOLUTION_GAP:e} apart", "exact", True, False)


def grid_row(item: Implementation) -> dict[str, Cell]:
    """Every column of the grid for one implementation, in `column_choices` order."""
    row = {entry.id: axis_cell(item, entry.id) for entry in choice_axes()}
    row[VALUES] = values_cell(item)
    row[SCORES] = scores_cell(item)
    return row


def closest_preset_text(item: Implementation) -> str:
    """The preset the identified configuration matches, or the closest and where it differs."""
    result = item.identification
    differing = ", ".join(result.preset_differences)
    if not any(f.choices or f.closest for f in result.findings):
        return "– (no axis observed)"
    if differing:
        return f"none (closest {result.preset}: differs on {differing})"
    return result.preset or "–"


@dataclass(frozen=True)
class SharpEdge:
    """A statement of what the implementation does outside (or against) the spec, and the
    probe cases that show it."""

    text: str
    cases: tuple[str, ...] = ()


def case_ids(cases: Sequence[str]) -> str:
    """The first case ids as code spans, and how many more there are."""
    shown = ", ".join(f"`{c}`" for c in cases[:SHOWN])
    return shown + (f" (+{len(cases) - SHOWN})" if len(cases) > SHOWN else "")


def sharp_edges(item: Implementation) -> list[SharpEdge]:
    """Plain statements of what the implementation does outside (or against) the spec."""
    edges = []
    # The same errors on the same probes, met while probing several axes, are one edge.
    errors: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    result = item.identification
    for observation in result.extras:
        if not observation.departs:
            continue
        shown = observation.evidence or observation.disagreeing
        edges.append(
            SharpEdge(
                f"{observation.topic}: {observation.verdict()}; {observation.note()}; "
                f"cases {case_ids(shown)}",
                tuple(shown),
            )
        )
    for finding in result.findings:
        if finding.status == NONE:
            edges.append(
                SharpEdge(
                    f"{finding.axis} (asked {finding.asked}): {finding.verdict()}; "
                    f"{finding.note()}; disagreeing {case_ids(finding.disagreeing)}",
                    tuple(finding.disagreeing),
                )
            )
        elif finding.disagreeing:
            edges.append(
                SharpEdge(
                    f"{finding.axis} (asked {finding.asked}): {finding.verdict()}, but "
                    f"{finding.note()}: {case_ids(finding.disagreeing)}",
                    tuple(finding.disagreeing),
                )
            )
        crashes = sorted({without_temporary_paths(e.error) for e in finding.errors})
        if crashes:
            cases = tuple(dict.fromkeys(e.case for e in finding.errors))
            errors.setdefault(("; ".join(c[:80] for c in crashes[:2]), cases), []).append(
                finding.axis
            )
    for (said, cases), probed in errors.items():
        edges.append(
            SharpEdge(
                f"errors ({said}) on {case_ids(cases)}, probing {', '.join(dict.fromkeys(probed))}",
                cases,
            )
        )
    # A departure several presets of the library declare (the same YAML entry) is one edge.
    declaring: dict[Departure, list[str]] = {}
    for check in item.presets:
        for declared in check.declared:
            declaring.setdefault(declared, []).append(check.preset)
    for declared, presets in declaring.items():
        behaviour = declared.behaviour.rstrip(".")
        named = f"preset {presets[0]}" if len(presets) == 1 else f"presets {', '.join(presets)}"
        edges.append(
            SharpEdge(
                f"{named} declare{'s' if len(presets) == 1 else ''} that it {declared.outcome}: "
                f"{behaviour}; cases {case_ids(declared.cases)}",
                declared.cases,
            )
        )
    if item.ulps:
        # Whole ulps: a library's logarithms come from the machine's vector maths (numpy picks
        # its log2 by CPU), so the fractions differ between machines while the bound holds.
        median, worst = (math.ceil(u) for u in (item.ulps[len(item.ulps) // 2], max(item.ulps)))
        edges.append(
            SharpEdge(
                f"float{result.adapter.number_format[0]} values: median error at most {median} "
                f"ulps, worst at most {worst} ulps over {len(item.ulps)} per-query values"
            )
        )
    return list({edge.text: edge for edge in edges}.values())


def _ordinary(probe: ProbeInput) -> bool:
    """Whether an input is of the kind every user has: no negative label, no document
    listed twice for a query."""
    pairs = [(q, d) for q, d, _ in probe.run]
    return len(set(pairs)) == len(pairs) and not any(v.startswith("-") for *_, v in probe.qrels)


def _danger(observation: Observation, probes: Mapping[str, ProbeInput]) -> tuple[int, str] | None:
    """How dangerous an observation is, lowest first, and the probe case to reproduce it by:
    values outside [0, 1] on ordinary input, document ids misread, values outside [0, 1]
    only with negative labels or repeated documents, adjacent doubles read as one score.
    None for an observation of none of these kinds."""
    if observation.outcome == OUTSIDE_UNIT:
        known = [c for c in observation.evidence if c in probes]
        ordinary = [c for c in known if _ordinary(probes[c])]

        def size(case: str) -> tuple[int, str]:
            return len(probes[case].qrels) + len(probes[case].run), case

        if ordinary:
            return 0, min(ordinary, key=size)
        return (2, min(known, key=size)) if known else None
    if observation.outcome == READS_IDS_AS_NUMBERS:
        return 1, min(observation.evidence)
    if observation.outcome == READS_NEIGHBOURS_EQUAL and observation.evidence:
        return 3, observation.evidence[0]
    return None


def range_and_misreadings(
    items: Sequence[Implementation], probes: Mapping[str, ProbeInput]
) -> list[str]:
    """The lines that open the sharp edges: every implementation's values outside [0, 1] and
    silent misreadings, the most dangerous first (`_danger`), each with the one line that
    reproduces it: the smallest input that shows it, its cutoff, and what the library
    returned."""
    found = []
    for item in items:
        for observation in item.identification.extras:
            ranked = _danger(observation, probes)
            if ranked is None:
                continue
            rank, case = ranked
            shown = reproduction([case], probes) or f"`{case}`"
            cutoff = probes[case].config.cutoff if case in probes else None
            at = f" at cutoff {cutoff}" if cutoff is not None else ""
            gives = ""
            if observation.outcome == OUTSIDE_UNIT:
                gives = f" gives {observation.values[observation.evidence.index(case)]}"
            line = f"- {item.name}: {observation.verdict()}; reproduce: {shown}{at}{gives}"
            found.append((rank, item.name, line))
    return [line for *_, line in sorted(found)]


def _rows(rows: Sequence[Sequence[str]]) -> str:
    return "; ".join(" ".join(row) for row in rows) or "(empty)"


def reproduction(cases: Sequence[str], probes: Mapping[str, ProbeInput]) -> str | None:
    """One line that reproduces a sharp edge: the qrels and run of the smallest probe input
    among `cases` (a derived case, ``id~spread``, has its tied scores spread apart), or the
    size of that input when it is too long to quote; None when no case is a known probe."""
    known = []
    for case in dict.fromkeys(cases):
        probe = probes.get(case.partition("~")[0])
        if probe is not None:
            known.append((len(probe.qrels) + len(probe.run), case, probe))
    if not known:
        return None
    rows, case, probe = min(known, key=lambda found: found[:2])
    if rows > REPRODUCTION_ROWS:
        return f"smallest input: `{case}`, {rows} rows"
    spread = f", tied scores spread by a relative {RESOLUTION_GAP:e}" if "~" in case else ""
    return f"qrels `{_rows(probe.qrels)}` run `{_rows(probe.run)}`{spread} (`{case}`)"


@dataclass(frozen=True)
class Rate:
    """A count out of a total, with the part that departs as declared (drawn apart)."""

    label: str
    good: int
    declared: int
    total: int

    def text(self) -> str:
        """The rate in words."""
        declared = f" (+{self.declared} declared departures)" if self.declared else ""
        return f"{self.good} of {self.total}{declared}"


def prediction_rate(item: Implementation) -> Rate:
    """The fresh queries the published configuration predicts, and those a declared departure
    explains, of all whose answer the adapter can see (``survey/prediction.py``)."""
    found = item.prediction
    assert found is not None
    return Rate(
        "fresh queries predicted", found.predicted, found.explained, found.queries - found.left_out
    )


def rates(item: Implementation) -> list[Rate]:
    """The implementation's presets checked (cases passing, departing as declared, of all
    run), fresh queries predicted, and published values reproduced, where measured."""
    found = []
    if item.presets:
        passed = sum(len(c.passed) for c in item.presets)
        departed = sum(len(c.departed) for c in item.presets)
        wrong = sum(len(c.failed) + len(c.errors) + len(c.stale) for c in item.presets)
        found.append(Rate("preset cases", passed, departed, passed + departed + wrong))
    if item.prediction is not None:
        found.append(prediction_rate(item))
    if item.published:
        hits = sum(value == "yes" for value in item.published.values())
        found.append(Rate("DL19 official values", hits, 0, len(item.published)))
    return found


CONTRASTS = (("pytrec_eval", "trec_eval"),)
"""Pairs of implementations of the same code whose every difference the page lists:
trec_eval 9.0.8 linked into pytrec_eval and the trec_eval 10.0 program."""


def contrast(first: Implementation, second: Implementation) -> list[tuple[str, str, str]]:
    """Each column of the grid and each topic beyond the axes on which the two
    implementations' records differ: (what, the first's, the second's)."""
    rows = []
    left, right = grid_row(first), grid_row(second)
    for column in left:
        if left[column].text != right[column].text:
            rows.append((column, left[column].text, right[column].text))
    said = [
        {
            o.topic: f"{o.verdict()}; {o.note()}"
            for o in i.identification.extras
            if o.topic != SCORE_RESOLUTION  # the scores column says it
        }
        for i in (first, second)
    ]
    for topic in dict.fromkeys([*said[0], *said[1]]):
        one, other = said[0].get(topic, "–"), said[1].get(topic, "–")
        if one != other:
            rows.append((topic, one, other))
    return rows


def contrast_evidence(first: Implementation, second: Implementation, topic: str) -> tuple[str, ...]:
    """The probe cases either implementation's record gives for a topic beyond the axes (the
    scores column is the topic of score resolution)."""
    wanted = SCORE_RESOLUTION if topic == SCORES else topic
    return tuple(
        case
        for item in (first, second)
        for o in item.identification.extras
        if o.topic == wanted
        for case in o.evidence
    )


@dataclass(frozen=True)
class Contrast:
    """Two implementations of the same code side by side (their names with versions) and the
    rows on which their records differ: (what, the first's, the second's, a reproduction)."""

    names: tuple[str, str]
    rows: list[tuple[str, str, str, str]]


def contrasts(items: Sequence[Implementation], probes: Mapping[str, ProbeInput]) -> list[Contrast]:
    """Every pair of `CONTRASTS` present among `items`, with its differing rows."""
    by_name = {i.name: i for i in items}
    found = []
    for first_name, second_name in CONTRASTS:
        if first_name not in by_name or second_name not in by_name:
            continue
        first, second = by_name[first_name], by_name[second_name]
        rows = [
            (what, one, other, reproduction(contrast_evidence(first, second, what), probes) or "")
            for what, one, other in contrast(first, second)
        ]
        names = tuple(f"{i.name} {i.identification.adapter.version}" for i in (first, second))
        found.append(Contrast((names[0], names[1]), rows))
    return found
