"""What a run hands to whoever explains its failures, and how the explanation reads.

The harness judges each case; why cases fail is the survey's question (``survey/diagnosis.py``
answers it with ``identify``'s joint search). The run keeps every case the adapter answered,
failing or passing, with its input and the adapter's answer (`Answered`): a passing case is
evidence of what the adapter computes too. A `Diagnose` function gives the causes of the
failures (`Cause`), which the footer of the JSONL report carries as ``"diagnosis"``: per axis
on which the adapter departs and choice asked there, the choice it ``computes`` (or ``"none"``
with a short description when no choice of the spec fits), how many failing cases it
``explains`` and an ``example``. Each failing case is counted under one cause at most: a case
that needs several departures together under the first of them in the footer's order
(``"together"`` counts such cases). Every rendering shows the causes before the per-case list,
one row per axis (`diagnosis_lines`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.suite.case_record import Case
from ndcgspec.suite.result import CaseResult

NONE_CHOICE = "none"
"""What a cause ``computes`` where no choice of the spec fits."""
REFUSALS = "rejections"
"""The ``axis`` of the causes that are valid inputs the adapter refused, one per reason (its
``description``): a refusal no change of an axis explains names no axis."""
FLOAT_WIDTH = "float width"
"""The ``axis`` of the cause that is values met at a narrower float width than the adapter
declares (``ndcg.comparison``): no axis either."""


@dataclass(frozen=True)
class Answered:
    """A case the adapter answered with values or a rejection, judged pass or fail: its
    result, the case as the suite holds it (inline input included) and the adapter's
    answer."""

    record: CaseResult
    case: Case
    answer: CaseAnswer

    @property
    def failed(self) -> bool:
        """Whether the case failed."""
        return self.record.outcome == "fail"


@dataclass(frozen=True)
class Cause:
    """On `axis`, asked `asked`, the adapter computes `computes` (a choice id, or
    `NONE_CHOICE` with a `description`); it explains `explains` failing cases, counted under
    it, and takes part in `together` more, each counted under an earlier cause; `example` is
    one of them."""

    axis: str
    computes: str
    asked: str
    explains: int
    example: str
    description: str = ""
    together: int = 0

    def to_json(self) -> dict[str, Any]:
        """The cause as the footer's ``diagnosis`` entry."""
        described = {"description": self.description} if self.description else {}
        more = {"together": self.together} if self.together else {}
        return {
            "axis": self.axis,
            "computes": self.computes,
            "asked": self.asked,
            "explains": self.explains,
            "example": self.example,
            **described,
            **more,
        }


@dataclass(frozen=True)
class Diagnosis:
    """The causes found, in the order the footer lists them; how many failing cases were
    examined (inline inputs, and rejections), how many of them a cause explains, and how
    many of those need several departures together (each counted under the first)."""

    causes: tuple[Cause, ...]
    examined: int
    explained: int
    together: int = 0


Diagnose = Callable[[Declaration, Sequence[Answered]], Diagnosis]
"""The adapter's declaration and the cases it answered → the diagnosis of the failing ones."""


@dataclass(frozen=True)
class Diagnosed:
    """The diagnosis of a run's `failures` failing cases, as the footer of its report carries
    it."""

    diagnosis: Diagnosis
    failures: int

    def to_json(self) -> dict[str, Any]:
        """The footer's fields: the causes, and the counts under ``diagnosed``."""
        found = self.diagnosis
        counts = {
            "failures": self.failures,
            "examined": found.examined,
            "explained": found.explained,
            "together": found.together,
        }
        return {"diagnosis": [c.to_json() for c in found.causes], "diagnosed": counts}

    @classmethod
    def from_footer(cls, footer: Mapping[str, Any] | None) -> Diagnosed | None:
        """The diagnosis of a report's footer; None without one."""
        summary = (footer or {}).get("diagnosed")
        if not summary:
            return None
        causes = tuple(Cause(**entry) for entry in (footer or {}).get("diagnosis") or [])
        found = Diagnosis(
            causes, summary["examined"], summary["explained"], summary.get("together", 0)
        )
        return cls(found, summary["failures"])


def cause_text(causes: Sequence[Cause]) -> str:
    """Causes of one axis that compute alike in words, their axis aside: "computes retrieved
    (asked judged or top-k)", or a refusal's reason."""
    first = causes[0]
    if first.axis == REFUSALS:
        return first.description
    asked = [c.asked for c in causes]
    choices = asked[0] if len(asked) == 1 else f"{', '.join(asked[:-1])} or {asked[-1]}"
    if first.computes != NONE_CHOICE:
        return f"computes {first.computes} (asked {choices})"
    said = f"computes none of the spec's choices (asked {choices})"
    return f"{said}: {first.description}" if first.description else said


def diagnosis_rows(diagnosed: Diagnosed | None) -> list[list[str]]:
    """The diagnosis as table rows, one per axis on which the adapter departs, in the
    footer's order: the failing cases counted under it, its causes (those computing alike
    together), an example case."""
    merged: dict[str, dict[tuple[str, str], list[Cause]]] = {}
    for cause in diagnosed.diagnosis.causes if diagnosed else ():
        alike = (cause.computes, cause.description)
        if cause.axis == REFUSALS:
            alike = (cause.asked, cause.description)
        merged.setdefault(cause.axis, {}).setdefault(alike, []).append(cause)
    rows = []
    for axis_id, groups in merged.items():
        found = [c for group in groups.values() for c in group]
        said = f"{axis_id}: " + "; ".join(map(cause_text, groups.values()))
        together = sum(c.together for c in found)
        also = f" (and in {together} counted above, with another departure)" if together else ""
        rows.append([str(sum(c.explains for c in found)), said + also, found[0].example])
    return rows


def diagnosis_headline(diagnosed: Diagnosed | None) -> str | None:
    """How many of the failing cases the diagnosis explains, how many it leaves and how it
    counts them; None without a diagnosis."""
    if diagnosed is None:
        return None
    found, failures = diagnosed.diagnosis, diagnosed.failures
    examined, explained = found.examined, found.explained
    said = [f"diagnosis: {explained} of {failures} failing cases explained"]
    if examined > explained:
        said.append(f"{examined - explained} left unexplained")
    if failures > examined:
        said.append(f"{failures - examined} not examined (published or long inputs)")
    if found.together:
        said.append(
            f"{found.together} need several departures together, each counted once, on the "
            "first of their rows"
        )
    return "; ".join(said)


def diagnosis_lines(diagnosed: Diagnosed | None) -> list[str]:
    """The diagnosis as text lines, headline first; nothing when there is none."""
    headline = diagnosis_headline(diagnosed)
    if headline is None:
        return []
    rows = diagnosis_rows(diagnosed)
    width = max((len(r[0]) for r in rows), default=0)
    return [
        headline,
        *(f"  {n.rjust(width)}  {cause}  e.g. {example}" for n, cause, example in rows),
    ]
