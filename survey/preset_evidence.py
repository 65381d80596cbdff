"""The preset checks of one ``ndcgspec matrix`` run, kept as data: ``presets.json`` beside the
conformance page.

The matrix runs each library once; the page's table of presets is rendered from these records
and ``tests/test_presets_verified.py`` reads the committed ones, so no library runs twice. A
record states the configuration and departures it was checked under; when ``spec/presets.yaml``
says otherwise today, the record is stale and proves nothing until the matrix runs again. CI
regenerates the file and fails when the committed one differs, so the committed records are
what the pinned libraries do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ndcgspec.harness.registry import preset_adapters
from ndcgspec.survey.evidence_files import PRESETS_EVIDENCE_SCHEMA, checked_document
from ndcgspec.survey.preset_check import PresetCheck, declared_departures, preset_config
from ndcgspec.survey.reasons import without_temporary_paths

EVIDENCE_FILE = "presets.json"


@dataclass(frozen=True)
class RecordedDeparture:
    """A departure a preset declared when it was checked: its outcome, what the library does,
    the probe cases that show it and the rule on the input it follows (`when`), if any."""

    outcome: str
    behaviour: str
    cases: tuple[str, ...]
    when: str | None = None


@dataclass(frozen=True)
class PresetRecord:
    """The record of one preset check: what was checked (adapter, library version, the full
    configuration and the declared departures) and the case ids of every outcome, those that
    fail, error or declare a departure that does not hold with the reason."""

    preset: str
    adapter: str
    library_version: str
    configuration: str
    departures: tuple[RecordedDeparture, ...]
    passed: tuple[str, ...]
    departed: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]
    errors: tuple[tuple[str, str], ...]
    stale: tuple[tuple[str, str], ...]

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> PresetRecord:
        """A record of ``presets.json``, which has met its schema."""

        def pairs(key: str) -> tuple[tuple[str, str], ...]:
            return tuple((case, why) for case, why in record[key])

        return cls(
            record["preset"],
            record["adapter"],
            record["library_version"],
            record["configuration"],
            tuple(
                RecordedDeparture(d["outcome"], d["behaviour"], tuple(d["cases"]), d.get("when"))
                for d in record["departures"]
            ),
            tuple(record["passed"]),
            tuple(record["departed"]),
            pairs("failed"),
            pairs("errors"),
            pairs("stale"),
        )

    def problems(self) -> list[str]:
        """One line per case on which the preset misdescribed its library in the check."""
        return [f"{case}: {why}" for case, why in [*self.failed, *self.errors, *self.stale]]


def _departures_of(preset_id: str) -> tuple[RecordedDeparture, ...]:
    return tuple(
        RecordedDeparture(d.outcome, d.behaviour, tuple(d.cases), d.when or None)
        for d in declared_departures(preset_id)
    )


def check_record(check: PresetCheck, library_version: str) -> PresetRecord:
    """The record of one preset check, under the preset's configuration and departures as
    ``spec/presets.yaml`` states them today."""

    def reasons(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        return tuple((case, without_temporary_paths(why)) for case, why in pairs)

    return PresetRecord(
        check.preset,
        check.adapter,
        library_version,
        preset_config(check.preset).full(),
        _departures_of(check.preset),
        tuple(check.passed),
        tuple(check.departed),
        reasons(check.failed),
        reasons(check.errors),
        reasons(check.stale),
    )


def evidence_text(records: Iterable[PresetRecord]) -> str:
    """``presets.json``: the records in preset order, one key per line, the same bytes for the
    same checks."""
    ordered = sorted(records, key=lambda r: r.preset)
    # A record's fields are the keys of its JSON object, in order; a departure's `when` is
    # written only when there is one, and no other field is ever None.
    fields = [
        asdict(r, dict_factory=lambda kept: {k: v for k, v in kept if v is not None})
        for r in ordered
    ]
    return json.dumps(fields, indent=1, ensure_ascii=False) + "\n"


def read_evidence(path: Path) -> dict[str, PresetRecord]:
    """The records of a ``presets.json``, by preset id (NdcgSpecError, in one line, when the
    file does not meet its schema)."""
    records = checked_document(path.read_text(encoding="utf-8"), PRESETS_EVIDENCE_SCHEMA, path)
    return {r["preset"]: PresetRecord.from_json(r) for r in records}


def staleness(record: PresetRecord) -> str | None:
    """Why a record no longer speaks for its preset as ``spec/presets.yaml`` states it today,
    or None when it does."""
    adapter = preset_adapters().get(record.preset)
    if adapter != record.adapter:
        return f"checked on adapter {record.adapter}, the preset now names {adapter}"
    configuration = preset_config(record.preset).full()
    if configuration != record.configuration:
        return f"checked under {record.configuration}, the preset is now {configuration}"
    if _departures_of(record.preset) != record.departures:
        return "the preset's departures changed since the check"
    return None
