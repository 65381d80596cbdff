"""The departures the presets of ``spec/presets.yaml`` declare, read once into records: what a
library does on valid input that no choice of the spec describes (``departures`` of a preset),
which `run` marks on its results, the preset checks hold to the library, and `predict` models."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from ndcgspec.reference.config import preset


@dataclass(frozen=True)
class Departure:
    """A departure a preset declares: how the library departs from the preset's value on the
    probe `cases` (`outcome`), the library behaviour that makes it, the condition on any input
    under which it does (`when`, ``harness/departure_conditions.py``), if one is known, and the
    model ``predict`` reproduces it with (`model`, ``survey/prediction.py``), if any."""

    outcome: str
    behaviour: str
    cases: tuple[str, ...]
    when: str | None = None
    model: str | None = field(default=None, compare=False)

    @property
    def said(self) -> str:
        """The behaviour on one line, as reports give it."""
        return " ".join(self.behaviour.split())


@cache
def departures_of(preset_id: str) -> tuple[Departure, ...]:
    """The departures the preset declares, in file order."""
    return tuple(
        Departure(
            entry["outcome"],
            entry["behaviour"],
            tuple(entry["cases"]),
            entry.get("when"),
            entry.get("model"),
        )
        for entry in preset(preset_id).get("departures", [])
    )
