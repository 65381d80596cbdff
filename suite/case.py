"""Assembling cases and case files (``suite/case_record.py``), with expected values computed by
the reference (never typed by hand)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ndcgspec.reference import Config
from ndcgspec.reference.decimals import DPS
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.location import Location
from ndcgspec.spec import load_spec
from ndcgspec.suite.anchors import first_sentence
from ndcgspec.suite.case_record import (
    Case,
    CaseFile,
    Citation,
    Enumeration,
    Generator,
    InlineInput,
    OpenAxis,
    Printed,
    Row,
    Source,
)
from ndcgspec.suite.expect import open_outcomes, reference_outcome
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.load import cases_root, inline_inputs


def changelog_version(changelog: Path | None = None) -> str:
    """The suite's version: the first ``## X.Y.Z`` heading of ``cases/CHANGELOG.md``, where a
    new version is written down with the ids it adds (a minor version) or whose expected values
    it changes (a major one), so that the version is stated in one place."""
    changelog = changelog or cases_root() / "CHANGELOG.md"
    for line in changelog.read_text(encoding="utf-8").splitlines():
        if re.fullmatch(r"## \d+\.\d+\.\d+", line):
            return line[3:]
    raise InputError("no version heading '## X.Y.Z'", Location(str(changelog)))


SUITE_VERSION = changelog_version()
GENERATOR_NAME = "ndcgspec cases generate"


def cite(anchor: str, quote: str | None = None) -> Citation:
    """A spec reference: the anchor and exact words of its entry (its first sentence if none)."""
    return Citation(anchor, quote if quote is not None else first_sentence(anchor))


def computed_case(
    *,
    case_id: str,
    description: str,
    config: Config,
    spec: Sequence[Citation],
    sources: Sequence[Source],
    origin: str,
    qrels: list[Row],
    run: list[Row],
    open_axis: OpenAxis | None = None,
    printed: Sequence[Printed] = (),
    input_of: str | None = None,
) -> Case:
    """A case with an inline input, its expected values computed by the reference."""
    parsed_qrels, parsed_run = inline_inputs(qrels, run)
    if open_axis is None:
        expected = reference_outcome(config, parsed_qrels, parsed_run)
        expected_any: list[ExpectedValues] = []
    else:
        expected = None
        expected_any = open_outcomes(
            config, open_axis.axis, list(open_axis.choices), parsed_qrels, parsed_run
        )
    return Case(
        id=case_id,
        description=description,
        config=config,
        spec=tuple(spec),
        sources=tuple(sources),
        origin=origin,
        input=InlineInput(qrels, run),
        expected=expected,
        open=open_axis,
        expected_any=tuple(expected_any),
        printed=tuple(printed),
        input_of=input_of,
    )


def case_file(
    group: str,
    description: str,
    origin: str,
    source: str,
    cases: Sequence[Case],
    seed: int | None = None,
    enumeration: Enumeration | None = None,
) -> CaseFile:
    """A case file of the suite's version and the spec's."""
    return CaseFile(
        suite_version=SUITE_VERSION,
        spec_version=load_spec()["spec_version"],
        group=group,
        description=description,
        origin=origin,
        generator=Generator(GENERATOR_NAME, source, seed, DPS),
        cases=tuple(cases),
        enumeration=enumeration,
    )


def decimal_text(value: Any) -> str:
    """A label or score written in a source file as exact decimal text (YAML may hand us a
    number; its shortest repr is what was written)."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"not a decimal: {value!r}")
    return repr(value) if isinstance(value, float) else str(value)
