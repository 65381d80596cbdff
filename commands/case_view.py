"""One case as ``ndcgspec cases show`` prints it: its configuration (canonical string and full
form), its qrels and run rows, the expected values with the reference's per-rank trace, and
the spec anchors it cites.

A computed id (``<input id>@<fingerprint>``, what ``run`` calls an input judged under a
configuration no stored case has) names the input's case and a configuration by its
fingerprint (``reference/config.py``), which is not reversible: it is looked for among the
configurations a run judged (kept in the cache, ``suite/judged.py``), of the stored cases and
of the presets, or taken from a run's report or a measure given. With the adapter's answer at
hand (the report's, or the last run's in the cache), it is shown beside the expected values."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ndcgspec.harness.plan import configured_case, fill_expected
from ndcgspec.harness.report import read_report
from ndcgspec.harness.runner import load_cases
from ndcgspec.harness.trace import reference_trace
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config, ConfigError, InputError, Location, NdcgSpecError
from ndcgspec.reference.config import choice_axes, presets, shown
from ndcgspec.suite.expected_cache import ExpectedCache
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.folders import cache_root
from ndcgspec.suite.judged import judged_configuration, judged_result
from ndcgspec.suite.load import cases_root
from ndcgspec.suite.loaded import LoadedCase
from ndcgspec.suite.result import CaseResult

ROWS_SHOWN = 50


def _report_config(report: Path, case_id: str) -> Config | None:
    """The configuration a run's report records for the case, or None; the report is read as
    ``ndcgspec report`` reads it, every line checked, a bad one named."""
    results = read_report(report).results
    found = next((r.config for r in results if r.id == case_id), None)
    if not found:
        return None
    try:
        return Config.from_mapping(found)
    except ConfigError as error:
        raise InputError(
            f"the configuration of {shown(case_id)}: {error}", Location(str(report))
        ) from None


def _candidates(
    root: Path | None, data: Path | None, report: Path | None, case_id: str, measure: str | None
) -> Iterator[Config]:
    """The configurations a computed id's fingerprint may be: the one given, the report's, the
    stored cases' (every case file read only when those before did not match) and the
    presets'."""
    if measure:
        yield parse_measure(measure)
    judged = judged_configuration(cache_root(), case_id.partition("@")[2])
    if judged is not None:
        yield judged
    if report:
        recorded = _report_config(report, case_id)
        if recorded:
            yield recorded
    # Thousands of stored cases share a few hundred configurations.
    distinct = {c.case.config for c in load_cases(root=root, data=data)}
    yield from sorted(distinct, key=lambda config: json.dumps(config.to_mapping(), sort_keys=True))
    for entry in presets():
        yield Config.from_mapping(entry.config)


def _cases_beside(case_id: str, root: Path | None, data: Path | None) -> list[LoadedCase]:
    """The cases of the suite's file that case `case_id` names when it is there, else every
    case. A stored case's id is mostly its file's group and name (``generated.seed-0003/004``
    is in ``generated/seed-0003.json``): reading that file alone spares reading the 18,000
    cases of the others. A folder of the user's own is read whole, since it is checked whole."""
    group, slash, _ = case_id.partition("/")
    if root is None and slash and not set(group) & set("*?[]"):
        named = group.replace(".", "/", 1) + ".json"
        if (cases_root() / named).is_file():
            beside = load_cases(glob=named, data=data)
            if any(loaded.case.id == case_id for loaded in beside):
                return beside
    return load_cases(root=root, data=data)


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
    input_id, _, fingerprint = case_id.partition("@")
    stored = _cases_beside(input_id, root, data)
    for loaded in stored:
        if loaded.case.id == case_id:
            return loaded
    source = next((c for c in stored if c.case.id == input_id and fingerprint), None)
    if source is None:
        where = "the suite" if root is None else str(root)
        raise NdcgSpecError(f"no case {shown(case_id)} in {where}")
    cutoff = source.case.config.cutoff
    for config in _candidates(root, data, report, case_id, measure):
        at_cutoff = config if config.cutoff is not None else config.replace(cutoff=cutoff)
        for candidate in (config, at_cutoff):
            if candidate.fingerprint() == fingerprint:
                return fill_expected(ExpectedCache(None), configured_case(source, candidate), data)
    raise NdcgSpecError(
        f"case {shown(input_id)} exists, but no known configuration has the fingerprint "
        f"{shown(fingerprint)}: run it again, or give the run's report (--report FILE.jsonl) or "
        "its measure (-m)"
    )


def _rows(title: str, rows: list[list[str]]) -> list[str]:
    shown = [f"{title} ({len(rows)} rows):"]
    shown += ["  " + " ".join(map(str, r)) for r in rows[:ROWS_SHOWN]]
    if len(rows) > ROWS_SHOWN:
        shown.append(f"  ... {len(rows) - ROWS_SHOWN} more rows")
    return shown


def _expected(expected: ExpectedValues) -> list[str]:
    if expected.error is not None:
        return [f"expected: the input is rejected ({expected.error})"]
    lines = [f"expected: mean {expected.aggregate}"]
    for qid, value in (expected.per_query or {}).items():
        lines.append(f"  {qid}: nDCG {value.ndcg}")
    return lines


@dataclass(frozen=True)
class ShownMismatch:
    """A mismatch of the adapter's result record as written: what differs, the adapter's
    value and the expected one (None where the record leaves one out)."""

    what: object
    actual: object
    expected: object

    def line(self) -> str | None:
        """The mismatch as ``cases show`` prints it; None for a whole result (an answer where a
        rejection was expected), which the answer's own message already says."""
        if self.what == "result":
            return None
        return f"  {self.what}: adapter {self.actual!r}, expected {self.expected}"


@dataclass(frozen=True)
class AdapterAnswer:
    """The adapter's result record of a case as ``cases show`` gives it: where it was seen,
    its outcome, what it said (its message or reason) and its mismatches."""

    seen: str
    outcome: str
    said: str
    mismatches: tuple[ShownMismatch, ...]

    @classmethod
    def of(cls, result: CaseResult, seen: str) -> AdapterAnswer:
        """The answer a result record of a report (or of the cache) holds, seen in `seen`."""
        return cls(
            seen,
            result.outcome,
            result.message or result.reason or "",
            tuple(
                ShownMismatch(m.get("what"), m.get("actual"), m.get("expected"))
                for m in result.mismatches
            ),
        )

    def lines(self) -> list[str]:
        """The answer's lines below the expected values."""
        lines = [f"adapter ({self.seen}): {self.outcome}: {self.said}"]
        return lines + [line for miss in self.mismatches if (line := miss.line()) is not None]


def adapter_result(case_id: str, report: Path | None) -> AdapterAnswer | None:
    """The adapter's result record of the case: the report's, or the last run's kept in the
    cache for a failing or erring case; None when neither has it."""
    if report:
        found = next((r for r in read_report(report).results if r.id == case_id), None)
        if found:
            return AdapterAnswer.of(found, str(report))
    judged = judged_result(cache_root(), case_id)
    return None if judged is None else AdapterAnswer.of(judged, "the last run that failed it")


def configuration_anchors(config: Config) -> list[str]:
    """The spec anchor of each choice the configuration makes (``ndcg.<axis>.<choice>``)."""
    mapping = config.to_mapping()
    return [f"ndcg.{a.id}.{mapping[a.id]}" for a in choice_axes() if a.id in mapping]


def case_text(loaded: LoadedCase, data: Path | None, result: AdapterAnswer | None = None) -> str:
    """The case as text, with the adapter's `result` record when one is given."""
    case = loaded.case
    config = case.config
    described = case.description
    if case.input_of:
        described = f"the input of {case.input_of} under this configuration"
    lines = [
        f"case {case.id} ({loaded.path.name}): {described}",
        f"configuration: {config.canonical()}",
        f"full form: {config.full()}",
    ]
    if case.input_of:
        # The stored case's citations are of its own configuration, not of this one.
        lines.append("spec: " + ", ".join(configuration_anchors(config)))
        lines.append(f"input of: {case.input_of} (computed by the reference at run time)")
    else:
        for cited in case.spec:
            lines.append(f"spec {cited.anchor}: {cited.quote}".rstrip(": "))
    if case.input is not None:
        lines += _rows("qrels", case.input.qrels) + _rows("run", case.input.run)
    elif case.input_files is not None:
        files = (case.input_files.qrels, case.input_files.run)
        lines.append("input files: " + ", ".join(f.path for f in files))
    expected = case.expected or ExpectedValues()
    lines += _expected(expected)
    if result:
        lines += result.lines()
    queries = list(expected.per_query or {})
    if queries:
        lines.append("reference trace:")
        lines += reference_trace(loaded, queries, data)
    return "\n".join(lines) + "\n"
