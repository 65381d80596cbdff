"""What a run hands to whoever explains its failures, and how the explanation reads.

The harness judges each case; why cases fail is the survey's question (``survey/diagnosis.py``
answers it with ``identify``'s machinery). The run keeps each failing case's input and the
adapter's answer (`Failure`) and gives them to a `Diagnose` function, whose entries the footer
of the JSONL report carries as ``"diagnosis"``: per cause the axis, the choice the adapter
``computes`` there (or ``"none"`` with a short description when no choice of the spec fits),
the choice it was ``asked`` for, how many failing cases it ``explains`` and an ``example``.
Every rendering shows them before the per-case list (`diagnosis_lines`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.suite.result import CaseResult


@dataclass(frozen=True)
class Failure:
    """A case that failed: its result, the case as the suite holds it (inline input included)
    and the adapter's answer (the protocol result object)."""

    record: CaseResult
    case: Mapping[str, Any]
    answer: Mapping[str, Any]


@dataclass(frozen=True)
class Diagnosis:
    """The causes found (the footer's ``diagnosis`` entries), how many failing cases were
    examined (inline inputs answered with values) and how many of them some cause explains."""

    entries: list[dict[str, Any]]
    examined: int
    explained: int

    def footer(self, failures: int) -> dict[str, Any]:
        """The footer's fields: the entries, and the counts under ``diagnosed``."""
        counts = {"failures": failures, "examined": self.examined, "explained": self.explained}
        return {"diagnosis": self.entries, "diagnosed": counts}


Diagnose = Callable[[Declaration, Sequence[Failure]], Diagnosis]
"""The adapter's declaration and the failures → their diagnosis."""


def cause_text(entry: Mapping[str, Any]) -> str:
    """One diagnosis entry in words: "negative: computes keep-in-ideal (asked zero)"."""
    computes = entry["computes"]
    said = f"{entry['axis']}: computes {computes} (asked {entry['asked']})"
    if computes == "none" and entry.get("description"):
        said += f": {entry['description']}"
    return said


def diagnosis_rows(footer: Mapping[str, Any] | None) -> list[list[str]]:
    """The diagnosis as table rows, one per axis on which the adapter departs (an entry that
    computes what it was asked names no departure): failing cases explained, the causes on
    that axis, an example case; most cases first."""
    merged: dict[str, list[Mapping[str, Any]]] = {}
    for entry in (footer or {}).get("diagnosis") or []:
        if entry["computes"] != entry["asked"]:
            merged.setdefault(entry["axis"], []).append(entry)
    rows = [
        (sum(e["explains"] for e in found), "; ".join(map(cause_text, found)), found[0]["example"])
        for found in merged.values()
    ]
    return [[str(n), cause, example] for n, cause, example in sorted(rows, key=lambda r: -r[0])]


def diagnosis_headline(footer: Mapping[str, Any] | None) -> str | None:
    """How many of the failing cases the diagnosis explains, or None without a diagnosis."""
    summary = (footer or {}).get("diagnosed")
    if not summary:
        return None
    left = summary["failures"] - summary["examined"]
    beyond = f" ({left} not examined: published or long inputs)" if left else ""
    listed = sum(int(row[0]) for row in diagnosis_rows(footer))
    # A case that two causes explain together is counted under each of them.
    together = (
        f"; the counts below add to {listed}, a case that causes explain together counted "
        "under each"
        if listed > summary["explained"]
        else ""
    )
    return (
        f"diagnosis: {summary['explained']} of {summary['failures']} failing cases explained"
        f"{beyond}{together}"
    )


def diagnosis_lines(footer: Mapping[str, Any] | None) -> list[str]:
    """The diagnosis as text lines, headline first; nothing when there is none."""
    headline = diagnosis_headline(footer)
    if headline is None:
        return []
    rows = diagnosis_rows(footer)
    width = max((len(r[0]) for r in rows), default=0)
    return [
        headline,
        *(f"  {n.rjust(width)}  {cause}  e.g. {example}" for n, cause, example in rows),
    ]
