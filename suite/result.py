"""The result of one case, as a run judges it and as its report line records it (``result`` of
``spec/schema/report.schema.json``): written to JSON by the report's writer and the cache of
judged results, read back where reports and that cache are read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

STORED = "stored"
"""Where the expected values of a case come from when the report does not say: the suite."""


@dataclass(frozen=True)
class DeclaredDeparture:
    """A departure one preset declares (``spec/presets.yaml``, ``departures``), as a result that
    departs so records it: the preset, how the result departs, the behaviour in words."""

    preset: str
    outcome: str
    behaviour: str

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> DeclaredDeparture:
        """The report's ``declared_departure`` object."""
        return cls(entry["preset"], entry["outcome"], entry["behaviour"])

    def to_json(self) -> dict[str, str]:
        """The report's ``declared_departure`` object."""
        return {"preset": self.preset, "outcome": self.outcome, "behaviour": self.behaviour}


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case: its id, its outcome (``harness/outcome.py`` ``OUTCOMES``), the
    group of the input it judges, its measure and configuration object, where its expected
    values come from; the message of a fail or error, the reason of an unsupported or skipped
    case, the mismatches of a fail (as the report records them), the adapter's detail of an
    error, the case whose input a failure was judged on, and the departure it is, if a preset
    declares it."""

    id: str
    outcome: str
    group: str = ""
    measure: str = ""
    config: Mapping[str, Any] = field(default_factory=dict)
    expected_source: str = STORED
    message: str | None = None
    reason: str | None = None
    mismatches: tuple[Mapping[str, Any], ...] = ()
    detail: str | None = None
    input_of: str | None = None
    declared_departure: DeclaredDeparture | None = None

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> CaseResult:
        """A report's result line (checked against its schema by whoever read it)."""
        declared = record.get("declared_departure")
        return cls(
            id=record["id"],
            outcome=record["outcome"],
            group=record.get("group", ""),
            measure=record.get("measure", ""),
            config=record.get("config") or {},
            expected_source=record.get("expected_source", STORED),
            message=record.get("message"),
            reason=record.get("reason"),
            mismatches=tuple(record.get("mismatches", ())),
            detail=record.get("detail"),
            input_of=record.get("input_of"),
            declared_departure=None if declared is None else DeclaredDeparture.from_json(declared),
        )

    def to_json(self) -> dict[str, Any]:
        """The report line, its fields in the report's order; what the result lacks left out."""
        record: dict[str, Any] = {
            "type": "result",
            "id": self.id,
            "group": self.group,
            "measure": self.measure,
            "config": self.config,
            "expected_source": self.expected_source,
            "outcome": self.outcome,
        }
        optional: dict[str, Any] = {
            "message": self.message,
            "reason": self.reason,
            "mismatches": list(self.mismatches),
            "detail": self.detail,
            "input_of": self.input_of,
            "declared_departure": self.declared_departure and self.declared_departure.to_json(),
        }
        return record | {key: value for key, value in optional.items() if value}
