"""Every preset of spec/presets.yaml that names a library is checked by running that library.

`ndcgspec matrix` runs each library's built-in adapter once, asks it for the preset's
configuration on every probe input derived from the golden cases and judges the answers against
the exact reference under the preset's configuration (``survey/preset_check.py``).
It keeps the outcome of every case in ``docs/presets.json``, which CI regenerates with the
pinned libraries and compares with the committed file byte for byte, before this test reads it.
A preset without a current record there (none, or one checked under another configuration or
other departures than the spec states today) is checked here by running its library, and
skipped with the extra that installs it when the library is absent. Either way the preset must
pass on some cases and misdescribe its library on none: no undeclared failure or crash, and every
declared departure still happening exactly as declared.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from ndcgspec.harness.adapters.base import AdapterError, load_adapter
from ndcgspec.harness.registry import PEER_ADAPTERS, preset_adapters
from ndcgspec.survey.preset_check import PresetCheck, verify_preset
from ndcgspec.survey.preset_evidence import (
    EVIDENCE_FILE,
    PresetRecord,
    check_record,
    read_evidence,
    staleness,
)
from ndcgspec.survey.probes import ProbeInput, probe_inputs

SHOWN = 8
EVIDENCE = REPO_ROOT / "docs" / EVIDENCE_FILE


@cache
def _recorded() -> dict[str, PresetRecord]:
    return read_evidence(EVIDENCE) if EVIDENCE.is_file() else {}


@cache
def _probes() -> tuple[ProbeInput, ...]:
    return tuple(probe_inputs())


def current_check(preset_id: str) -> PresetRecord:
    """The preset's record in docs/presets.json when it is current, else a check run now."""
    record = _recorded().get(preset_id)
    if record is not None and staleness(record) is None:
        return record
    adapter = preset_adapters()[preset_id]
    try:
        version = load_adapter(adapter).version
    except AdapterError as error:
        pytest.skip(f"no current check of preset {preset_id} in {EVIDENCE}, and {error}")
    return check_record(verify_preset(preset_id, adapter, _probes()), version)


@pytest.mark.parametrize("preset_id", sorted(preset_adapters()))
def test_preset_matches_its_library(preset_id: str) -> None:
    record = current_check(preset_id)
    problems = record.problems()
    assert record.passed, f"no case of preset {preset_id} ran"
    assert not problems, (
        f"preset {preset_id} misdescribes {record.adapter} {record.library_version} "
        f"on {len(problems)} cases ({len(record.passed)} passed, {len(record.departed)} "
        "departing as declared):\n  " + "\n  ".join(problems[:SHOWN])
    )


def test_every_preset_adapter_is_a_built_in() -> None:
    assert set(preset_adapters().values()) <= set(PEER_ADAPTERS)
    assert preset_adapters()["ranx_burges"] == "ranx"


def test_the_evidence_holds_only_presets_that_name_a_library() -> None:
    assert set(_recorded()) <= set(preset_adapters())


def test_a_record_of_another_configuration_or_departure_list_is_stale() -> None:
    check = PresetCheck("ranx", "ranx", passed=["c1"])
    record = check_record(check, "0.3.21")
    assert staleness(record) is None
    assert "now names ranx" in str(staleness(replace(record, adapter="sklearn")))
    other = replace(record, configuration=record.configuration.replace("ties=input", "ties="))
    assert "the preset is now" in str(staleness(other))
    assert "departures changed" in str(staleness(replace(record, departures=())))


def test_failures_errors_and_stale_departures_are_problems() -> None:
    check = PresetCheck(
        "ranx",
        "ranx",
        passed=["c1"],
        failed=[("c2", "differs")],
        errors=[("c3", f"crashes: {Path('/tmp/x1').as_posix()} missing")],
        stale=[("c4", "declared to be a departure that refuses, but meets the preset's value")],
    )
    problems = check_record(check, "1").problems()
    assert [p.split(":")[0] for p in problems] == ["c2", "c3", "c4"]
