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
from pathlib import Path
from typing import Any

from ndcgspec.harness.registry import preset_adapters
from ndcgspec.survey.evidence_files import PRESETS_EVIDENCE_SCHEMA, checked_document
from ndcgspec.survey.preset_check import PresetCheck, declared_departures, preset_config
from ndcgspec.survey.reasons import without_temporary_paths

EVIDENCE_FILE = "presets.json"


def _departures_of(preset_id: str) -> list[dict[str, Any]]:
    return [
        {
            "outcome": d.outcome,
            "behaviour": d.behaviour,
            "cases": list(d.cases),
            **({"when": d.when} if d.when else {}),
        }
        for d in declared_departures(preset_id)
    ]


def check_record(check: PresetCheck, library_version: str) -> dict[str, Any]:
    """The record of one preset check: what was checked (adapter, library version, the full
    configuration and the declared departures) and the case ids of every outcome."""

    def reasons(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
        return [[case, without_temporary_paths(why)] for case, why in pairs]

    return {
        "preset": check.preset,
        "adapter": check.adapter,
        "library_version": library_version,
        "configuration": preset_config(check.preset).full(),
        "departures": _departures_of(check.preset),
        "passed": list(check.passed),
        "departed": list(check.departed),
        "failed": reasons(check.failed),
        "errors": reasons(check.errors),
        "stale": reasons(check.stale),
    }


def evidence_text(records: Iterable[Mapping[str, Any]]) -> str:
    """``presets.json``: the records in preset order, one key per line, the same bytes for the
    same checks."""
    ordered = sorted(records, key=lambda r: r["preset"])
    return json.dumps(ordered, indent=1, ensure_ascii=False) + "\n"


def read_evidence(path: Path) -> dict[str, dict[str, Any]]:
    """The records of a ``presets.json``, by preset id (NdcgSpecError, in one line, when the
    file does not meet its schema)."""
    records = checked_document(path.read_text(encoding="utf-8"), PRESETS_EVIDENCE_SCHEMA, path)
    return {r["preset"]: r for r in records}


def staleness(record: Mapping[str, Any]) -> str | None:
    """Why a record no longer speaks for its preset as ``spec/presets.yaml`` states it today,
    or None when it does."""
    preset_id = record["preset"]
    adapter = preset_adapters().get(preset_id)
    if adapter != record["adapter"]:
        return f"checked on adapter {record['adapter']}, the preset now names {adapter}"
    configuration = preset_config(preset_id).full()
    if configuration != record["configuration"]:
        return f"checked under {record['configuration']}, the preset is now {configuration}"
    if _departures_of(preset_id) != record["departures"]:
        return "the preset's departures changed since the check"
    return None


def record_problems(record: Mapping[str, Any]) -> list[str]:
    """One line per case on which the preset misdescribed its library in the check."""
    return [
        f"{case}: {why}" for case, why in [*record["failed"], *record["errors"], *record["stale"]]
    ]
