"""Checking a preset of ``spec/presets.yaml`` against the library it names, by running it.

The preset's cases are the probe inputs (the first cases of every golden file, see
``survey/probes.py``). The library's adapter is asked for the preset's configuration
at the probe's own cutoff (no cutoff asks for the library's default) and must meet the reference
under the preset's configuration at that cutoff, or at the preset's cutoff (the one the library
applies when none is asked) when the probe has none. Inputs whose answer depends on what the
adapter's API cannot be shown, as its start reply declares (``observability``), are left out.
A preset may declare departures: probe cases on which the library refuses, crashes on or
differs from valid input in a way no choice of the spec describes. Every other case must pass,
and every declared case must still depart exactly as declared: a listing the library no longer
bears out is stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ndcgspec.harness.departures import CRASHES, DIFFERS, REFUSES
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.reference.config import preset
from ndcgspec.spec.presets import Departure
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.kept_answers import declaration
from ndcgspec.survey.probes import (
    ProbeInput,
    analysis_pool,
    ask,
    beyond_view,
    expected_of,
    meets,
    probe_inputs,
)
from ndcgspec.survey.reasons import first_line

DEPARTURE_OUTCOMES = (REFUSES, CRASHES, DIFFERS)
"""The outcomes a declared departure names (``departures[].outcome`` of the presets schema)."""


@dataclass
class PresetCheck:
    """The outcome of a preset's cases on its library: case ids that pass, that depart as the
    preset declares, that fail or error undeclared, and declared departures that do not hold."""

    preset: str
    adapter: str
    declared: list[Departure] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    departed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    stale: list[tuple[str, str]] = field(default_factory=list)

    def problems(self) -> list[str]:
        """One line per case on which the preset misdescribes its library."""
        return [f"{case}: {why}" for case, why in [*self.failed, *self.errors, *self.stale]]


def preset_config(preset_id: str) -> Config:
    """The full configuration of a preset, with the cutoff its library applies when none is
    asked (None for most presets)."""
    return Config.from_mapping(preset(preset_id).config)


def declared_departures(preset_id: str) -> list[Departure]:
    """The departures a preset declares, in file order."""
    return list(preset(preset_id).departures)


def asked_and_expected(config: Config, probe: ProbeInput) -> tuple[Config, Config]:
    """What the library is asked for on a probe (`config` at the probe's cutoff; none asks for
    the library's default) and what its answer must meet (`config` at the probe's cutoff, or
    at `config`'s own when the probe has none)."""
    asked = config.replace(cutoff=probe.config.cutoff)
    return asked, config if probe.config.cutoff is None else asked


def departure(
    probe: ProbeInput,
    expected: Config,
    answer: Answer,
    asked: Config,
    width: int,
    places: int | None = None,
) -> str | None:
    """How the answer departs from the reference's under `expected`: None when it meets it;
    `CRASHES` when the adapter failed; `REFUSES` when it rejected an input the reference
    scores; `DIFFERS` when it gave a value that misses, or a value where the reference
    rejects."""
    verdict = meets(probe, expected, answer, asked, width, places)
    if verdict is None:
        return CRASHES
    if verdict:
        return None
    return REFUSES if "rejected" in answer.result else DIFFERS


def _what_happened(probe: ProbeInput, expected: Config, answer: Answer, found: str | None) -> str:
    """The answer in words: what the library did, and the preset's value where it missed."""
    if found is None:
        return "meets the preset's value"
    result = answer.result
    if found == CRASHES:
        return f"crashes: {first_line(result['error'])}"
    wanted = expected_of(probe, expected)
    if wanted.error is not None:
        want = f"a rejection ({wanted.error})"
    else:
        want = "undefined" if wanted.aggregate is None else wanted.aggregate
    if found == REFUSES:
        return f"refuses where the preset gives {want}: {first_line(result['rejected'])}"
    got = result["aggregate"] if "aggregate" in result else result.get("per_query")
    return f"differs: expected {want}, got {got}"


def check_preset(
    name: str,
    config: Config,
    departures: Sequence[Departure],
    adapter: str,
    probes: Sequence[ProbeInput],
) -> PresetCheck:
    """The outcome of `probes` on the built-in or ``module:object`` `adapter`, for a preset
    `name` of configuration `config` that declares `departures`."""
    command = adapter_command(adapter, None)
    described = declaration(command, analysis_pool())
    view = described.view
    numbers = described.number_format
    check = PresetCheck(name, adapter, list(departures))
    listed_cases = {case: d for d in departures for case in d.cases}
    plans = [(p, *asked_and_expected(config, p)) for p in probes]
    chosen = [
        (p, asked, expected) for p, asked, expected in plans if not beyond_view(p, expected, view)
    ]
    answers = ask(command, [(p, asked) for p, asked, _ in chosen])
    for probe, asked, expected in chosen:
        answer = answers[(probe.case_id, asked.full())]
        found = departure(probe, expected, answer, asked, *numbers)
        said = _what_happened(probe, expected, answer, found)
        listed = listed_cases.pop(probe.case_id, None)
        if listed is not None and listed.outcome == found:
            check.departed.append(probe.case_id)
        elif listed is not None:
            check.stale.append(
                (probe.case_id, f"declared to be a departure that {listed.outcome}, but {said}")
            )
        elif found is None:
            check.passed.append(probe.case_id)
        elif found == CRASHES:
            check.errors.append((probe.case_id, said))
        else:
            check.failed.append((probe.case_id, said))
    given = {p.case_id for p in probes}
    for case, listed in listed_cases.items():
        why = (
            "left out: its answer depends on what the API cannot be shown"
            if case in given
            else "not among the probe cases"
        )
        check.stale.append((case, f"declared to be a departure that {listed.outcome}, but {why}"))
    return check


def verify_preset(
    preset_id: str, adapter: str, probes: Sequence[ProbeInput] | None = None
) -> PresetCheck:
    """Run the preset's cases (the probe inputs) on the built-in `adapter` of its library."""
    return check_preset(
        preset_id,
        preset_config(preset_id),
        declared_departures(preset_id),
        adapter,
        probes if probes is not None else probe_inputs(),
    )
