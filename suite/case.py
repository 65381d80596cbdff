"""Assembling case objects and case files in the key order of the case format, with expected
values computed by the reference (never typed by hand)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ndcgspec.reference import Config
from ndcgspec.reference.decimals import DPS
from ndcgspec.reference.errors import InputError, Location
from ndcgspec.spec import load_spec
from ndcgspec.suite.anchors import first_sentence
from ndcgspec.suite.expect import open_outcomes, reference_outcome
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

Row = list[str]


def cite(anchor: str, quote: str | None = None) -> dict[str, str]:
    """A spec reference: the anchor and exact words of its entry (its first sentence if none)."""
    return {"anchor": anchor, "quote": quote if quote is not None else first_sentence(anchor)}


def computed_case(
    *,
    case_id: str,
    description: str,
    config: Config,
    spec: list[dict[str, str]],
    sources: list[dict[str, str]],
    origin: str,
    qrels: list[Row],
    run: list[Row],
    open_axis: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A case with an inline input, its expected values computed by the reference."""
    case: dict[str, Any] = {
        "id": case_id,
        "description": description,
        "measure": config.canonical(),
        "config": config.to_mapping(),
        "spec": spec,
        "sources": sources,
        "origin": origin,
        "input": {"qrels": qrels, "run": run},
    }
    parsed_qrels, parsed_run = inline_inputs(case["input"])
    if open_axis is None:
        case["expected"] = reference_outcome(config, parsed_qrels, parsed_run).to_json()
    else:
        case["open"] = open_axis
        outcomes = open_outcomes(
            config, open_axis["axis"], open_axis["choices"], parsed_qrels, parsed_run
        )
        case["expected_any"] = [found.to_json() for found in outcomes]
    case.update(extra or {})
    return case


def case_file(
    group: str,
    description: str,
    origin: str,
    source: str,
    cases: list[dict[str, Any]],
    seed: int | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A case file object in the format's key order."""
    content: dict[str, Any] = {
        "suite_version": SUITE_VERSION,
        "spec_version": load_spec()["spec_version"],
        "group": group,
        "description": description,
        "origin": origin,
        "generator": {"name": GENERATOR_NAME, "source": source, "seed": seed, "reference_dps": DPS},
    }
    content.update(extra or {})
    content["cases"] = cases
    return content


def decimal_text(value: Any) -> str:
    """A label or score written in a source file as exact decimal text (YAML may hand us a
    number; its shortest repr is what was written)."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"not a decimal: {value!r}")
    return repr(value) if isinstance(value, float) else str(value)
