"""Checking a preset of ``spec/presets.yaml`` against the library it names, by running it.

The preset's cases are the probe inputs (the first cases of every golden file, see
``harness/probes.py``), each scored by the reference under the preset's configuration
at the probe's cutoff. The library's adapter is asked for the preset's configuration and must
meet every one of them; inputs that exercise an axis its API cannot express are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ndcgspec.reference import Config
from ndcgspec.reference.config import preset

from .probes import ProbeInput, ask, expected_of, meets, probe_inputs, touches_hidden
from .worker import adapter_command


@dataclass
class PresetCheck:
    """The outcome of a preset's cases on its library: case ids that pass, fail or error."""

    preset: str
    adapter: str
    passed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)


def preset_config(preset_id: str) -> Config:
    """The full configuration of a preset (no cutoff)."""
    return Config.from_mapping(preset(preset_id).get("config", {}))


def _describe(probe: ProbeInput, config: Config, result: Mapping[str, object]) -> str:
    expected = expected_of(probe, config)
    want = expected.get("error") or expected.get("aggregate")
    got = result.get("rejected") or result.get("aggregate") or result.get("per_query")
    return f"expected {want}, got {got}"


def verify_preset(
    preset_id: str,
    adapter: str,
    width: int,
    hidden: Mapping[str, str],
    probes: Sequence[ProbeInput] | None = None,
) -> PresetCheck:
    """Run the preset's cases on the built-in `adapter` (float width `width`, axes `hidden`
    not observable through its API)."""
    config = preset_config(preset_id)
    chosen = [
        p
        for p in (probes if probes is not None else probe_inputs())
        if not touches_hidden(p, config, hidden)
    ]
    questions = [(p, config.replace(cutoff=p.config.cutoff)) for p in chosen]
    answers = ask(adapter_command(adapter, None), questions)
    check = PresetCheck(preset_id, adapter)
    for probe, asked in questions:
        answer = answers[(probe.case_id, asked.full())]
        verdict = meets(probe, asked, answer, asked, width)
        if verdict is None:
            check.errors.append((probe.case_id, str(answer.result.get("error"))))
        elif verdict:
            check.passed.append(probe.case_id)
        else:
            check.failed.append((probe.case_id, _describe(probe, asked, answer.result)))
    return check
