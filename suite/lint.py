"""The suite's linter: what is wrong with a case file, as (file, JSON pointer, message) problems.

It checks the JSON, the schema ``spec/schema/case.schema.json``, that the group matches the
path, that every anchor resolves and every quote is words of its entry, that every config is
valid and full and its measure string is the canonical form, and the digits of golden values.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.reference.config import choice_ids
from ndcgspec.spec import load_schema, load_spec
from ndcgspec.suite.anchors import anchor_texts
from ndcgspec.suite.case import SUITE_VERSION
from ndcgspec.suite.case_record import OpenAxis
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.load import group_of

MIN_SIGNIFICANT_DIGITS = 30


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a case file; `code` names the kind (fixtures declare it)."""

    path: str
    pointer: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.pointer or '/'}: {self.message} [{self.code}]"


@cache
def case_validator() -> Draft202012Validator:
    """The validator of case files, resolving ``config.schema.json`` among the spec schemas."""
    registry = Registry().with_resource(
        "config.schema.json", Resource.from_contents(load_schema("config"))
    )
    return Draft202012Validator(load_schema("case"), registry=registry)


def pointer(*parts: object) -> str:
    """A JSON pointer (RFC 6901) from path parts."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def parse_file(path: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The parsed JSON of a case file, or an invalid-json problem."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), []
    except UnicodeDecodeError as error:
        return None, [Problem(str(path), "", "invalid-json", f"not UTF-8: {error.reason}")]
    except RecursionError:
        # Deeper than the parser's stack: no case nests like that.
        return None, [Problem(str(path), "", "invalid-json", "nested too deep to read")]
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        return None, [
            Problem(str(path), "", "invalid-json", f"invalid JSON at {where}: {error.msg}")
        ]


def schema_problems(path: Path, content: Any) -> list[Problem]:
    """Every schema violation, deepest first, with the pointer of the offending value."""
    found = []
    for error in case_validator().iter_errors(content):
        detail = error.message if len(error.message) < 200 else error.message[:197] + "..."
        found.append(Problem(str(path), pointer(*error.absolute_path), "schema", detail))
    return sorted(found)


def _spec_problems(path: str, where: str, refs: list[dict[str, str]]) -> list[Problem]:
    found = []
    texts = anchor_texts()
    for i, ref in enumerate(refs):
        at = f"{where}/spec/{i}"
        if ref["anchor"] not in texts:
            found.append(
                Problem(
                    path,
                    at + "/anchor",
                    "unknown-anchor",
                    f"no spec entry has anchor {ref['anchor']!r}",
                )
            )
        elif ref["quote"] not in texts[ref["anchor"]]:
            found.append(
                Problem(
                    path,
                    at + "/quote",
                    "quote-mismatch",
                    f"quote is not words of {ref['anchor']}: {ref['quote']!r}",
                )
            )
    return found


def _config_problems(path: str, where: str, case: dict[str, Any]) -> list[Problem]:
    try:
        config = Config.from_mapping(case["config"])
    except NdcgSpecError as error:
        return [Problem(path, where + "/config", "invalid-config", str(error))]
    found = []
    if config.to_mapping() != case["config"]:
        found.append(
            Problem(
                path,
                where + "/config",
                "config-not-full",
                f"config is not the full form {config.to_mapping()}",
            )
        )
    try:
        same = parse_measure(case["measure"]) == config
    except NdcgSpecError as error:
        return [*found, Problem(path, where + "/measure", "measure-mismatch", str(error))]
    if not same or case["measure"] != config.canonical():
        found.append(
            Problem(
                path,
                where + "/measure",
                "measure-mismatch",
                f"measure {case['measure']!r} is not the canonical form "
                f"{config.canonical()!r} of the config",
            )
        )
    return found


def _digit_problems(path: str, where: str, values: ExpectedValues) -> list[Problem]:
    found = []
    items = [(f"{where}/aggregate", values.aggregate)] + [
        (f"{where}/per_query{pointer(q, k)}", row.value(k))
        for q, row in (values.per_query or {}).items()
        for k in row.stated
    ]
    for at, value in items:
        if value is None or value == "0":
            continue
        digits = len(value.lstrip("-").replace(".", "").lstrip("0"))
        if digits < MIN_SIGNIFICANT_DIGITS:
            found.append(
                Problem(
                    path,
                    at,
                    "digits",
                    f"{value!r} has {digits} significant digits, "
                    f"fewer than {MIN_SIGNIFICANT_DIGITS}",
                )
            )
    return found


def _open_problems(path: str, where: str, open_: OpenAxis) -> list[Problem]:
    try:
        valid = choice_ids(open_.axis)
    except NdcgSpecError as error:
        return [Problem(path, where + "/open/axis", "open", str(error))]
    wrong = [c for c in open_.choices if c not in valid]
    return (
        [Problem(path, where + "/open/choices", "open", f"not choices of {open_.axis}: {wrong}")]
        if wrong
        else []
    )


def case_problems(path: str, where: str, case: dict[str, Any], file_origin: str) -> list[Problem]:
    """What is wrong with one schema-valid case, beyond its values."""
    found = _spec_problems(path, where, case["spec"]) + _config_problems(path, where, case)
    if case["origin"] != file_origin:
        found.append(
            Problem(
                path,
                where + "/origin",
                "origin",
                f"case origin {case['origin']!r} differs from the file's {file_origin!r}",
            )
        )
    error = case.get("expected", {}).get("error")
    if error and error["anchor"] not in anchor_texts():
        found.append(
            Problem(
                path,
                where + "/expected/error/anchor",
                "unknown-anchor",
                f"no spec entry has anchor {error['anchor']!r}",
            )
        )
    if "open" in case:
        found += _open_problems(path, where, OpenAxis.from_json(case["open"]))
    if case["origin"] != "published":
        outcomes = case.get("expected_any") or [case["expected"]]
        for i, values in enumerate(outcomes):
            at = f"{where}/expected" + (f"_any/{i}" if "expected_any" in case else "")
            if "error" not in values:
                found += _digit_problems(path, at, ExpectedValues.from_json(values))
                if "aggregate" not in values:
                    found.append(Problem(path, at, "schema", "'aggregate' is a required property"))
    return found


def lint_file(path: Path, root: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The parsed file (None when unusable) and every problem the linter finds in it."""
    content, found = parse_file(path)
    if content is None:
        return None, found
    found = schema_problems(path, content)
    if found:
        return None, found
    name = str(path)
    if content["group"] != group_of(path, root):
        found.append(
            Problem(
                name,
                "/group",
                "group",
                f"group {content['group']!r} differs from the file's path {group_of(path, root)!r}",
            )
        )
    if content["suite_version"] != SUITE_VERSION:
        found.append(
            Problem(
                name,
                "/suite_version",
                "version",
                f"suite_version is {content['suite_version']}, the suite is {SUITE_VERSION}",
            )
        )
    if content["spec_version"] != load_spec()["spec_version"]:
        found.append(
            Problem(
                name,
                "/spec_version",
                "version",
                f"spec_version is {content['spec_version']}, "
                f"the spec is {load_spec()['spec_version']}",
            )
        )
    for i, case in enumerate(content["cases"]):
        found += case_problems(name, f"/cases/{i}", case, content["origin"])
    return content, found


def duplicate_id_problems(ids: Iterable[tuple[str, str, str]]) -> list[Problem]:
    """A problem for every (file, pointer, id) whose id was seen before."""
    seen: dict[str, str] = {}
    found = []
    for path, at, case_id in ids:
        if case_id in seen:
            found.append(
                Problem(path, at, "duplicate-id", f"id {case_id!r} is also used at {seen[case_id]}")
            )
        else:
            seen[case_id] = f"{path}#{at}"
    return found
