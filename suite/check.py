"""``ndcgspec cases check``: lint every case file (schema, anchors), check ids are unique and
traceable, and have the reference reproduce the expected values it did not write by
regeneration: exactly (all 40 digits) for hand cases, to the stated decimal places for published
ones (computed by the fast engine; skipped with a reason when their data is absent). Printed
numbers of documents and enumeration counts are checked too. Generated cases are linted and
counted; their values are proven by regenerating them byte for byte (``ndcgspec cases
generate``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ndcgspec.reference import NdcgSpecError
from ndcgspec.suite import generated, published
from ndcgspec.suite.case_record import Case, CaseFile, Enumeration
from ndcgspec.suite.expect import open_outcomes, published_outcome, reference_outcome
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.lint import Problem, duplicate_id_problems, lint_file, pointer
from ndcgspec.suite.load import (
    case_files,
    cases_root,
    unavailable_reason,
)
from ndcgspec.suite.manifest import CHANGELOG, MANIFEST, manifest_is_current, untraced_ids
from ndcgspec.suite.tolerance import exact, published_tolerance


@dataclass
class CheckReport:
    """The outcome of a check: problems, cases skipped with their reason, and counts."""

    files: int = 0
    cases: int = 0
    problems: list[Problem] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def within(actual: str | None, published: str, places: int) -> bool:
    """Whether the decimal `actual` meets the value `published` to `places` decimals, by the
    harness's one statement of the rule (``ndcg.comparison.published``)."""
    if actual is None:
        return False
    return abs(exact(actual) - exact(published)) <= published_tolerance(places)


def _differences(expected: Any, actual: Any, at: str) -> Iterator[tuple[str, Any, Any]]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            yield from _differences(expected.get(key), actual.get(key), at + pointer(key))
    elif expected != actual:
        yield at, expected, actual


def _exact_problems(path: str, where: str, case: Case) -> list[Problem]:
    qrels, run = case.inputs(None)
    if case.open is not None:
        choices = list(case.open.choices)
        got = open_outcomes(case.config, case.open.axis, choices, qrels, run)
        if [found.to_json() for found in got] == [e.to_json() for e in case.expected_any]:
            return []
        return [
            Problem(
                path,
                where + "/expected_any",
                "wrong-expected",
                "the allowed answers differ from the reference's",
            )
        ]
    actual = reference_outcome(case.config, qrels, run)
    stated = {} if case.expected is None else case.expected.to_json()
    return [
        Problem(
            path,
            where + "/expected" + at,
            "wrong-expected",
            f"expected {want!r}, the reference gives {got!r}",
        )
        for at, want, got in _differences(stated, actual.to_json(), "")
    ]


def _published_values(expected: ExpectedValues) -> Iterator[tuple[str, str | None, str]]:
    for qid, row in (expected.per_query or {}).items():
        if row.ndcg is not None:
            yield f"/per_query{pointer(qid, 'ndcg')}", qid, row.ndcg
    if expected.aggregate is not None:
        yield "/aggregate", None, expected.aggregate


def _published_problems(path: str, where: str, case: Case, data: Path | None) -> list[Problem]:
    if case.input_files is None or case.expected is None or case.decimal_places is None:
        raise ValueError(f"published case {case.id} lacks its files, values or precision")
    actual = published_outcome(case.config, case.input_files, data)
    if actual.error is not None:
        return [
            Problem(
                path,
                where,
                "input",
                f"the reference rejects the input: {{'anchor': {actual.error!r}}}",
            )
        ]
    places = case.decimal_places
    found = []
    for at, qid, value in _published_values(case.expected):
        got = actual.aggregate if qid is None else actual.ndcg_of(qid)
        known = case.discrepancy
        if known and qid is None:
            if not within(got, known.reference_value, places):
                found.append(
                    Problem(
                        path,
                        where + "/discrepancy",
                        "wrong-expected",
                        f"recorded reference value {known.reference_value}, "
                        f"the reference gives {got}",
                    )
                )
        elif not within(got, value, places):
            found.append(
                Problem(
                    path,
                    where + "/expected" + at,
                    "wrong-expected",
                    f"published {value}, the reference gives {got} ({places} places)",
                )
            )
    return found


def _printed_problems(path: str, where: str, case: Case) -> list[Problem]:
    found = []
    for i, entry in enumerate(case.printed):
        values = case.expected
        if values is None or (entry.what != "aggregate" and values.per_query is None):
            raise ValueError(f"case {case.id} prints numbers but states no values")
        ours = (
            values.aggregate
            if entry.what == "aggregate"
            else (values.per_query or {})[str(entry.qid)].value(entry.what)
        )
        agrees = within(ours, entry.value, entry.decimal_places)
        at = f"{where}/printed/{i}"
        if not agrees and entry.erratum is None:
            found.append(
                Problem(
                    path,
                    at,
                    "printed-mismatch",
                    f"the document prints {entry.value}, the expected value is {ours}",
                )
            )
        if agrees and entry.erratum is not None:
            found.append(
                Problem(
                    path,
                    at,
                    "printed-mismatch",
                    f"recorded as an erratum but {entry.value} agrees with {ours}",
                )
            )
    return found


def _q1_ndcg(case: Case) -> Decimal:
    value = case.expected.ndcg_of("q1") if case.expected else None
    if value is None:
        raise ValueError(f"case {case.id} states no nDCG of query q1")
    return Decimal(value)


def _enumeration_problems(path: str, claim: Enumeration, cases: Sequence[Case]) -> list[Problem]:
    first, second = (
        [_q1_ndcg(c) for c in cases if c.config.canonical() == m] for m in claim.measures
    )
    values = list(zip(first, second, strict=True))
    pairs = list(combinations(values, 2))
    opposite = sum(1 for (a1, b1), (a2, b2) in pairs if (a1 - a2) * (b1 - b2) < 0)
    percent = f"{Decimal(100 * opposite) / len(pairs):.1f}" if pairs else "0"
    counted = {
        "orderings": len(values),
        "pairs": len(pairs),
        "opposite_pairs": opposite,
        "opposite_percent": percent,
    }
    claimed = claim.to_json()
    return [
        Problem(
            path,
            f"/enumeration/{key}",
            "enumeration",
            f"published {claimed[key]}, the cases give {value}",
        )
        for key, value in counted.items()
        if claimed[key] != value
    ]


def value_problems(
    path: Path, indices: list[int] | None, data: Path | None
) -> tuple[list[Problem], list[tuple[str, str]]]:
    """Problems of the values of some cases of one (lint-clean) file, and the skipped cases."""
    content = CaseFile.from_json(json.loads(path.read_text(encoding="utf-8")))
    found: list[Problem] = []
    skipped: list[tuple[str, str]] = []
    name = str(path)
    chosen = range(len(content.cases)) if indices is None else indices
    for i in chosen:
        case = content.cases[i]
        where = f"/cases/{i}"
        try:
            if case.origin == "published":
                files = case.input_files
                reason = files and unavailable_reason([files.qrels.path, files.run.path], data)
                if reason:
                    skipped.append((case.id, reason))
                    continue
                found += _published_problems(name, where, case, data)
            else:
                found += _exact_problems(name, where, case) + _printed_problems(name, where, case)
        except NdcgSpecError as error:
            found.append(Problem(name, where, "input", str(error)))
    if indices is None and content.enumeration is not None:
        found += _enumeration_problems(name, content.enumeration, content.cases)
    return found, skipped


def _lint_task(
    args: tuple[str, str],
) -> tuple[list[Problem], list[tuple[str, str, str, str]], int, str]:
    path, root = Path(args[0]), Path(args[1])
    content, found = lint_file(path, root)
    if content is None:
        return found, [], 0, ""
    ids = [
        (str(path), f"/cases/{i}/id", c["id"], content["group"])
        for i, c in enumerate(content["cases"])
    ]
    return found, ids, len(content["cases"]), content["origin"]


def _value_task(
    args: tuple[str, list[int] | None, Path | None],
) -> tuple[list[Problem], list[tuple[str, str]]]:
    return value_problems(Path(args[0]), args[1], args[2])


def check(
    root: Path | None = None,
    data: Path | None = None,
    glob: str | None = None,
    jobs: int = 2,
    progress: bool = False,
) -> CheckReport:
    """Check the case files below `root` (the suite by default); with `progress`, bars on
    stderr count the files linted and the values recomputed."""
    root = root or cases_root()
    data = data or data_root()
    paths = case_files(root, glob)
    report = CheckReport(files=len(paths))
    bar = partial(tqdm, file=sys.stderr, leave=False, disable=not progress)
    with ProcessPoolExecutor(max_workers=max(jobs, 1)) as pool:
        tasks = [(str(p), str(root)) for p in paths]
        linted = list(bar(pool.map(_lint_task, tasks), total=len(tasks), unit="file"))
        ids, value_work = [], []
        for path, (found, file_ids, count, origin) in zip(paths, linted, strict=True):
            report.problems += found
            report.cases += count
            ids += file_ids
            # Generated values are proven by regenerating them byte for byte (`ndcgspec cases
            # generate`, tests/test_cases_suite.py); computing them again here proves nothing more.
            if count and not found and origin != generated.ORIGIN:
                split = [[i] for i in range(count)] if origin == published.ORIGIN else [None]
                value_work += [(str(path), part, data) for part in split]
        value_work.sort(key=lambda w: -Path(w[0]).stat().st_size)
        for found, skipped in bar(
            pool.map(_value_task, value_work), total=len(value_work), unit="value"
        ):
            report.problems += found
            report.skipped += skipped
    report.problems += duplicate_id_problems((p, at, i) for p, at, i, _ in ids)
    if (root / CHANGELOG).is_file():
        for case_id in untraced_ids(root, {i: g for _, _, i, g in ids}):
            report.problems.append(
                Problem(
                    str(root / CHANGELOG),
                    "",
                    "changelog",
                    f"case id {case_id!r} is not traceable in {CHANGELOG}",
                )
            )
    if (root / MANIFEST).is_file() and glob is None and not manifest_is_current(root):
        report.problems.append(
            Problem(
                str(root / MANIFEST),
                "",
                "manifest",
                "MANIFEST is stale: run `ndcgspec cases generate`",
            )
        )
    report.problems.sort()
    return report
