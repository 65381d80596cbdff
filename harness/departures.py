"""The departures the presets of a built-in peer declare (``spec/presets.yaml``,
``departures``), as ``run`` and the pytest plugin report them.

A preset may declare probe cases on which its library refuses, crashes on or differs from valid
input in a way no choice of the spec describes; ``matrix`` checks that each still departs exactly
so (``survey/preset_check.py``). A departure may also name a condition on the input (``when``,
``harness/departure_conditions.py``) under which the library departs so on any input. A run of
that built-in adapter under the preset's configuration judges the same inputs and many more: a
result that departs as declared, on a listed probe case or where the declared condition holds,
is a declared departure, which the report marks (``declared_departure``) and the exit status
does not count as a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ndcgspec.harness.departure_conditions import CONDITIONS, Condition, Rows
from ndcgspec.harness.registry import preset_adapters
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.reference.config import preset
from ndcgspec.suite.result import CaseResult, DeclaredDeparture

REFUSES, CRASHES, DIFFERS = "refuses", "crashes", "differs"
REJECTED_VALID_INPUT = "adapter rejected a valid input"
"""How `harness/outcome.py` words a refusal of a valid input."""


def departure_kind(record: CaseResult) -> str | None:
    """How a result departs from the expected values: `CRASHES` (an error), `REFUSES` (a valid
    input rejected), `DIFFERS` (any other fail); None when it passed or did not run."""
    if record.outcome == "error":
        return CRASHES
    if record.outcome != "fail":
        return None
    return REFUSES if (record.message or "").startswith(REJECTED_VALID_INPUT) else DIFFERS


@dataclass(frozen=True)
class Departures:
    """The declared departures of the presets of one built-in adapter, by the configuration
    (cutoff aside): on listed probe cases (`listed`, by input case id) and wherever a condition
    holds (`conditional`, ``harness/departure_conditions.py``)."""

    listed: Mapping[tuple[str, str], DeclaredDeparture]
    conditional: Mapping[str, tuple[tuple[Condition, DeclaredDeparture], ...]]

    def of(self, record: CaseResult, rows: Callable[[], Rows]) -> DeclaredDeparture | None:
        """The declared departure a result is; None if none.
        `rows` gives the case's input, asked only of a failing result whose configuration
        declares a condition."""
        kind = departure_kind(record)
        if kind is None or not (self.listed or self.conditional):
            return None
        try:
            config = Config.from_mapping(record.config).replace(cutoff=None)
        except NdcgSpecError:
            return None
        # A computed case's id is its input's id and the configuration's fingerprint; a preset
        # file's case names the input it judges.
        case = record.input_of or record.id.partition("@")[0]
        found = self.listed.get((config.fingerprint(), case))
        if found is not None and found.outcome == kind:
            return found
        for condition, declared in self.conditional.get(config.fingerprint(), ()):
            if declared.outcome == kind and condition(rows(), config):
                return declared
        return None


def declared_departures(adapter: str | None) -> Departures:
    """The departures declared by every preset whose library is the built-in `adapter`."""
    listed: dict[tuple[str, str], DeclaredDeparture] = {}
    conditional: dict[str, list[tuple[Condition, DeclaredDeparture]]] = {}
    for name, library in preset_adapters().items():
        if library != adapter:
            continue
        entry = preset(name)
        fingerprint = Config.from_mapping(entry.config).replace(cutoff=None).fingerprint()
        for departure in entry.departures:
            declared = DeclaredDeparture(name, departure.outcome, departure.said)
            for case in departure.cases:
                listed.setdefault((fingerprint, case), declared)
            if departure.when is not None:
                conditional.setdefault(fingerprint, []).append(
                    (condition_named(departure.when, name), declared)
                )
    return Departures(listed, {f: tuple(c) for f, c in conditional.items()})


def condition_named(when: str, preset_id: str) -> Condition:
    """The condition a departure of `preset_id` names; an unknown one is an error naming it."""
    if when not in CONDITIONS:
        raise NdcgSpecError(
            f"preset {preset_id}: unknown departure condition {when!r}; "
            f"known: {', '.join(sorted(CONDITIONS))}"
        )
    return CONDITIONS[when]
