"""One case as ``ndcgspec cases show`` prints it: its configuration (canonical string and full
form), its qrels and run rows, the expected values with the reference's per-rank trace, and
the spec anchors it cites.

A computed id (``<input id>@<fingerprint>``, what ``run`` calls an input judged under a
configuration no stored case has) names the input's case and a configuration by its
fingerprint (``reference/config.py``), which is not reversible: it is looked for among the
configurations of the stored cases and of the presets, or taken from a run's report or a
measure given."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ndcgspec.harness.plan import configured_case, fill_expected
from ndcgspec.harness.report import read_report
from ndcgspec.harness.runner import load_cases
from ndcgspec.harness.trace import reference_trace
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config, ConfigError, InputError, Location, NdcgSpecError
from ndcgspec.reference.config import presets, shown
from ndcgspec.suite.expected_cache import ExpectedCache
from ndcgspec.suite.load import LoadedCase

ROWS_SHOWN = 50


def _report_config(report: Path, case_id: str) -> dict[str, Any] | None:
    """The configuration a run's report records for the case, or None; the report is read as
    ``ndcgspec report`` reads it, every line checked, a bad one named."""
    results = read_report(report).results
    return next((r.get("config") for r in results if r["id"] == case_id), None)


def _candidates(
    stored: list[LoadedCase], report: Path | None, case_id: str, measure: str | None
) -> Iterator[Config]:
    """The configurations a computed id's fingerprint may be: the one given, the report's, the
    stored cases' and the presets'."""
    if measure:
        yield parse_measure(measure)
    if report:
        found = _report_config(report, case_id)
        if found:
            try:
                yield Config.from_mapping(found)
            except ConfigError as error:
                raise InputError(
                    f"the configuration of {shown(case_id)}: {error}", Location(str(report))
                ) from None
    # Thousands of stored cases share a few hundred configurations.
    distinct = {json.dumps(c.case["config"], sort_keys=True) for c in stored}
    for config in sorted(distinct):
        yield Config.from_mapping(json.loads(config))
    for entry in presets():
        yield Config.from_mapping(entry.get("config", {}))


def find_case(
    case_id: str,
    root: Path | None,
    data: Path | None,
    report: Path | None = None,
    measure: str | None = None,
) -> LoadedCase:
    """The stored case `case_id`, or the computed case it names, its expected values filled
    in by the reference; an NdcgSpecError naming what is missing otherwise. A folder of the
    user's own is checked as ``run --suite`` checks it, a bad file named."""
    stored = load_cases(root=root, data=data)
    for loaded in stored:
        if loaded.case["id"] == case_id:
            return loaded
    input_id, _, fingerprint = case_id.partition("@")
    source = next((c for c in stored if c.case["id"] == input_id and fingerprint), None)
    if source is None:
        where = "the suite" if root is None else str(root)
        raise NdcgSpecError(f"no case {shown(case_id)} in {where}")
    cutoff = source.case["config"]["cutoff"]
    for config in _candidates(stored, report, case_id, measure):
        at_cutoff = config if config.cutoff is not None else config.replace(cutoff=cutoff)
        for candidate in (config, at_cutoff):
            if candidate.fingerprint() == fingerprint:
                computed = configured_case(source, candidate)
                fill_expected(ExpectedCache(None), computed, data)
                return computed
    raise NdcgSpecError(
        f"case {shown(input_id)} exists, but no known configuration has the fingerprint "
        f"{shown(fingerprint)}: give the run's report (--report FILE.jsonl) or its measure (-m)"
    )


def _rows(title: str, rows: list[list[str]]) -> list[str]:
    shown = [f"{title} ({len(rows)} rows):"]
    shown += ["  " + " ".join(map(str, r)) for r in rows[:ROWS_SHOWN]]
    if len(rows) > ROWS_SHOWN:
        shown.append(f"  ... {len(rows) - ROWS_SHOWN} more rows")
    return shown


def _expected(expected: dict[str, Any]) -> list[str]:
    if "error" in expected:
        error = expected["error"]
        return [f"expected: the input is rejected ({error.get('anchor', '')})"]
    lines = [f"expected: mean {expected.get('aggregate')}"]
    for qid, value in (expected.get("per_query") or {}).items():
        shown = value.get("ndcg") if isinstance(value, dict) else value
        lines.append(f"  {qid}: nDCG {shown}")
    return lines


def case_text(loaded: LoadedCase, data: Path | None) -> str:
    """The case as text."""
    case = loaded.case
    config = Config.from_mapping(case["config"])
    lines = [
        f"case {case['id']} ({loaded.path.name}): {case.get('description', '')}",
        f"configuration: {config.canonical()}",
        f"full form: {config.full()}",
    ]
    for cited in case.get("spec", []):
        lines.append(f"spec {cited['anchor']}: {cited.get('quote', '')}".rstrip(": "))
    if case.get("input_of"):
        lines.append(f"input of: {case['input_of']} (computed by the reference at run time)")
    if "input" in case:
        lines += _rows("qrels", case["input"]["qrels"]) + _rows("run", case["input"]["run"])
    else:
        lines.append("input files: " + ", ".join(f["path"] for f in case["input_files"].values()))
    expected = case.get("expected") or {}
    lines += _expected(expected)
    queries = list(expected.get("per_query") or {})
    if queries:
        lines.append("reference trace:")
        lines += reference_trace(loaded, queries, data)
    return "\n".join(lines) + "\n"
