"""``cases/presets/<preset>.json``: the bundled inputs under each named convention, with their
expected values stored, so that a harness written in another language checks an implementation
of any preset from ``cases/`` alone.

Each file takes the same inputs, in suite order: every distinct input of the hand and document
cases, then the smallest generated ones, `GENERATED_INPUTS_PER_PRESET` of them, so that a hand
input added later adds a case to every file and removes none; an input that several cases
share is named by the case of the oldest choices. Each input keeps its own
cutoff; an input without one takes the preset's own cutoff, the one its tool applies unasked
(``harness/plan.py`` judges computed cases by the same rule). A case names the case its
input comes from (`input_of`), whose group says which axis the input was written for.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes, since
from ndcgspec.suite.case import case_file, cite, computed_case
from ndcgspec.suite.case_record import CaseFile, Row, Source
from ndcgspec.suite.targets import preset_target

ORIGIN = "generated"
SOURCE = "ndcgspec.suite.presets"
GENERATED_INPUTS_PER_PRESET = 245
"""Generated inputs per preset file: with the 275 hand and document inputs of suite 3.2.0,
the 520 inputs every file held then."""
LARGEST_HAND_INPUT = 200
"""Rows (qrels and run together) of the largest hand or document input taken: the one larger
input, of 10,000 documents, would multiply every file's size."""
LARGEST_GENERATED_INPUT = 24
"""Rows of the largest generated input taken, so that nineteen files stay small."""


# The configuration is the preset's, spelled out in `config`; the input's own case cites the axis
# it was written for.
DEFINITION = cite("ndcg.definition.ndcg")


@dataclass(frozen=True)
class PresetInput:
    """An input every preset file takes: the case it is named by (its id and description), its
    rows and its own cutoff."""

    case_id: str
    description: str
    qrels: list[Row]
    run: list[Row]
    cutoff: int | None


def preset_inputs(files: Iterable[CaseFile]) -> list[PresetInput]:
    """The inputs every preset file takes, from the case files of one generation (hand,
    documents and generated; published inputs are not redistributable)."""
    taken: dict[str, tuple[tuple[int, ...], PresetInput]] = {}
    ordered = sorted(files, key=lambda f: (f.group.split("/")[0] == "generated", f.group))
    hand_inputs: int | None = None
    for content in ordered:
        generated = content.group.startswith("generated/")
        limit = LARGEST_GENERATED_INPUT if generated else LARGEST_HAND_INPUT
        if generated and hand_inputs is None:
            hand_inputs = len(taken)
        for case in content.cases:
            if hand_inputs is not None and len(taken) == hand_inputs + GENERATED_INPUTS_PER_PRESET:
                return [found for _, found in taken.values()]
            rows = case.input
            if rows is None or len(rows.qrels) + len(rows.run) > limit:
                continue
            cutoff = case.config.cutoff
            key = json.dumps([rows.to_json(), cutoff], sort_keys=True)
            added = added_in(case.config)
            # An input keeps its place and, among its cases, the one of the oldest choices, so
            # that a choice added later never renames the cases of earlier inputs.
            if key not in taken or added < taken[key][0]:
                found = PresetInput(case.id, case.description, rows.qrels, rows.run, cutoff)
                taken[key] = (added, found)
    return [found for _, found in taken.values()]


def added_in(config: Config) -> tuple[int, ...]:
    """The spec version that added the newest choice of the configuration `config`."""
    return max(since(entry.id, config.choice(entry.id)) for entry in choice_axes())


def preset_file(preset_id: str, title: str, inputs: Sequence[PresetInput]) -> CaseFile:
    """The case file of the preset `preset_id` (entitled `title`) over `inputs`."""
    target = preset_target(preset_id)
    source = Source("spec", f"spec/presets.yaml#{preset_id}")
    cases = [
        computed_case(
            case_id=f"presets.{preset_id}/{found.case_id.replace('/', '.')}",
            description=found.description,
            config=target.for_input(found.cutoff),
            spec=[DEFINITION],
            sources=[source],
            origin=ORIGIN,
            qrels=found.qrels,
            run=found.run,
            input_of=found.case_id,
        )
        for found in inputs
    ]
    return case_file(
        f"presets/{preset_id}",
        f"The bundled inputs under the preset {preset_id}: {title}.",
        ORIGIN,
        SOURCE,
        cases,
    )
