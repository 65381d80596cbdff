"""The departures the presets of a built-in peer declare (``spec/presets.yaml``,
``departures``), as ``run`` and the pytest plugin report them.

A preset may declare probe cases on which its library refuses, crashes on or differs from valid
input in a way no choice of the spec describes; ``matrix`` checks that each still departs exactly
so (``survey/preset_check.py``). A run of that built-in adapter under the preset's configuration
judges the same inputs: a result that departs there as declared is a declared departure, which
the report marks (``declared_departure``) and the exit status does not count as a failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ndcgspec.harness.adapters.registry import preset_adapters
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.reference.config import preset

REFUSES, CRASHES, DIFFERS = "refuses", "crashes", "differs"
REJECTED_VALID_INPUT = "adapter rejected a valid input"
"""How `harness/outcome.py` words a refusal of a valid input."""


def departure_kind(record: Mapping[str, Any]) -> str | None:
    """How a result departs from the expected values: `CRASHES` (an error), `REFUSES` (a valid
    input rejected), `DIFFERS` (any other fail); None when it passed or did not run."""
    if record["outcome"] == "error":
        return CRASHES
    if record["outcome"] != "fail":
        return None
    return REFUSES if record.get("message", "").startswith(REJECTED_VALID_INPUT) else DIFFERS


@dataclass(frozen=True)
class Departures:
    """The declared departures of the presets of one built-in adapter: by the configuration
    (cutoff aside) and the input case id, the preset, the outcome and the behaviour."""

    declared: Mapping[tuple[str, str], tuple[str, str, str]]

    def of(self, record: Mapping[str, Any]) -> dict[str, str] | None:
        """The declared departure a result is, as the report records it; None if none."""
        kind = departure_kind(record)
        if kind is None or not self.declared:
            return None
        try:
            config = Config.from_mapping(record.get("config") or {}).replace(cutoff=None)
        except NdcgSpecError:
            return None
        # A computed case's id is its input's id and the configuration's fingerprint.
        found = self.declared.get((config.fingerprint(), record["id"].partition("@")[0]))
        if found is None or found[1] != kind:
            return None
        name, outcome, behaviour = found
        return {"preset": name, "outcome": outcome, "behaviour": behaviour}


def declared_departures(adapter: str | None) -> Departures:
    """The departures declared by every preset whose library is the built-in `adapter`."""
    declared: dict[tuple[str, str], tuple[str, str, str]] = {}
    for name, library in preset_adapters().items():
        if library != adapter:
            continue
        entry = preset(name)
        config = Config.from_mapping(entry.get("config", {})).replace(cutoff=None)
        for departure in entry.get("departures", []):
            for case in departure["cases"]:
                declared.setdefault(
                    (config.fingerprint(), case),
                    (name, departure["outcome"], " ".join(departure["behaviour"].split())),
                )
    return Departures(declared)
