"""The JSONL report of a run: a header, one line per case result, a footer.

Lines go to ``FILE.partial``, locked by the one run writing it (a second is refused), and are
flushed as each case completes; at the end the footer is written and the file renamed to FILE
in one step. A killed run therefore leaves FILE untouched
(or absent) and a ``FILE.partial`` whose every complete line is valid JSON; `read_report` reads
either, says whether the footer is there, and ignores a last line cut short.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ndcgspec.harness.outcome import OUTCOMES
from ndcgspec.reference import InputError, Location
from ndcgspec.reference.config import choice_axes
from ndcgspec.spec import load_schema
from ndcgspec.suite.result import CaseResult

REPORT_FORMAT = 1
RAN = ("pass", "fail", "error")
DEPARTED = "declared departures"
"""The column of the by-axis counts that holds the fails and errors a preset declares, kept out
of the fail and error columns as the headline keeps them out of its counts."""
"""The outcomes the adapter decided: the cases that ran."""
PARTIAL_SUFFIX = ".partial"


def partial_path(path: Path) -> Path:
    """Where the lines of `path` are written until the run finishes."""
    return path.with_name(path.name + PARTIAL_SUFFIX)


class ReportWriter:
    """Writes a report line by line; `finish` makes it final, atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = partial_path(path)
        try:
            self._fd = os.open(self.partial, os.O_WRONLY | os.O_CREAT, 0o644)
        except OSError as error:
            raise InputError(
                f"cannot write report: {error.strerror}", Location(str(self.partial))
            ) from None
        try:
            # One writer per report: a second run would interleave its lines with these.
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            raise InputError(
                "another run is writing this report; give each run its own --report",
                Location(str(self.path)),
            ) from None
        os.ftruncate(self._fd, 0)

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one record as one line, with a single write, and flush it to the file."""
        os.write(self._fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))

    def finish(self) -> None:
        """Flush to disk and rename the partial file to its final name, still locked, so that
        no other run can take the partial file over before it is in place."""
        os.fsync(self._fd)
        os.replace(self.partial, self.path)
        os.close(self._fd)
        self._fd = -1

    def __enter__(self) -> ReportWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


@dataclass(frozen=True)
class Report:
    """A report as read back; `complete` is False for a partial report (no footer)."""

    header: dict[str, Any]
    results: list[CaseResult]
    footer: dict[str, Any] | None
    source: Path

    @property
    def complete(self) -> bool:
        """Whether the run finished (the footer is present)."""
        return self.footer is not None


@cache
def _line_validator(kind: str) -> Draft202012Validator:
    schema = load_schema("report")
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{kind}"})


def _what(record: Any) -> str:
    if isinstance(record, dict):
        return (
            f"a {record['type']!r} object" if isinstance(record.get("type"), str) else "an object"
        )
    return "null" if record is None else f"a JSON {type(record).__name__}"


def line_problem(record: Any, first: bool) -> str | None:
    """What is wrong with one report line against ``spec/schema/report.schema.json`` and its
    place in the file (a header first, then results, then at most one footer); None if
    nothing."""
    kind = record.get("type") if isinstance(record, dict) else None
    if first and kind != "header":
        return f"not an ndcgspec report: the first line is {_what(record)}, not a header"
    if not first and kind not in ("result", "footer"):
        return f"{_what(record)} where a result or the footer belongs"
    error = best_match(_line_validator(kind).iter_errors(record))
    if error is None:
        return None
    where = "/" + "/".join(str(p) for p in error.absolute_path)
    text = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    return f"{kind} line violates report.schema.json at {where}: {text}"


def read_report(path: Path) -> Report:
    """Read a report, or its ``.partial`` file when only that exists; every line is checked
    against ``spec/schema/report.schema.json``, and a bad one is an InputError naming it."""
    if not path.exists() and partial_path(path).exists():
        path = partial_path(path)
    if path.is_dir():
        raise InputError("is a folder, not a report", Location(str(path)))
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read report: {error}", Location(str(path))) from None
    records: list[dict[str, Any]] = []
    footer = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            if number == len(lines):
                break  # the last line of a killed run, cut short
            raise InputError("report line is not JSON", Location(str(path), number)) from None
        problem = "a line after the footer" if footer else line_problem(record, first=not records)
        if problem:
            raise InputError(problem, Location(str(path), number))
        records.append(record)
        if record["type"] == "footer":
            footer = record
    if not records:
        raise InputError("not an ndcgspec report: it holds no line", Location(str(path)))
    results = [CaseResult.from_json(r) for r in records if r["type"] == "result"]
    return Report(records[0], results, footer, path)


@dataclass
class Tally:
    """Counts of outcomes, overall and per axis choice."""

    counts: Counter[str] = field(default_factory=Counter)
    by_choice: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    """Per axis choice, the count of each outcome, declared departures counted under
    `DEPARTED` instead of their outcome."""
    sources: Counter[str] = field(default_factory=Counter)
    """The cases that ran, by where their expected values came from: stored in the suite or
    computed by the reference at run time."""
    departed_by: Counter[str] = field(default_factory=Counter)
    """The fails and errors that depart as their preset declares (``harness/departures.py``),
    by outcome: shown apart from the other fails and errors, as the conformance page does."""
    reasons: dict[str, Counter[str]] = field(default_factory=dict)
    """Why cases were not judged or could not run, by outcome: the reason of an unsupported or
    skipped case, the message of an error."""

    def top_reasons(self, outcome: str, limit: int = 3) -> list[tuple[str, int]]:
        """The `limit` commonest reasons of `outcome`, with their counts, commonest first."""
        return (self.reasons.get(outcome) or Counter()).most_common(limit)

    @property
    def departed(self) -> int:
        """The declared departures among the fails and errors."""
        return sum(self.departed_by.values())

    def undeclared(self, outcome: str) -> int:
        """The cases of `outcome` that are no declared departure."""
        return self.counts[outcome] - self.departed_by[outcome]

    @property
    def run(self) -> int:
        """Cases whose outcome was decided by the adapter: pass, fail or error."""
        return sum(self.counts[o] for o in RAN)

    @property
    def judged(self) -> int:
        """The cases that ran, declared departures apart: what the percentage is of."""
        return self.run - self.departed

    @property
    def percent(self) -> float | None:
        """Passes over the supported cases that ran, declared departures apart (skip and
        unsupported excluded too); None when no such case ran."""
        return None if not self.judged else 100.0 * self.counts["pass"] / self.judged

    def to_json(self) -> dict[str, Any]:
        """The counts and percentage as the footer records them."""
        return {
            "counts": {o: self.counts[o] for o in OUTCOMES},
            "expected_sources": dict(sorted(self.sources.items())),
            "conformance_percent": None if self.percent is None else round(self.percent, 2),
            **({"declared_departures": self.departed} if self.departed else {}),
        }


def _why(result: CaseResult) -> str | None:
    """What says why a result has its outcome: the reason of an unsupported or skipped case,
    the message of an error (a fail's cause is the diagnosis of the run)."""
    if result.outcome in ("unsupported", "skip"):
        return result.reason
    return result.message if result.outcome == "error" else None


UNDECLARED = " is not among the declared "
"""How `Declaration.unsupported_reason` (``harness/adapters/declaration.py``) words a choice
the adapter does not declare."""


def tally(results: Iterable[CaseResult]) -> Tally:
    """Count the outcomes of results, overall and for every axis choice they make."""
    out = Tally()
    axis_ids = [a.id for a in choice_axes()]
    for result in results:
        out.counts[result.outcome] += 1
        if result.declared_departure is not None:
            out.departed_by[result.outcome] += 1
        if result.outcome in RAN:
            out.sources[result.expected_source] += 1
        why = _why(result)
        if why:
            out.reasons.setdefault(result.outcome, Counter())[str(why)] += 1
        for axis_id in [*axis_ids, "cutoff"]:
            if axis_id in result.config:
                value = result.config[axis_id]
                key = (axis_id, "none" if value is None else str(value))
                counted = DEPARTED if result.declared_departure is not None else result.outcome
                out.by_choice.setdefault(key, Counter())[counted] += 1
    return out


def failed(tallied: Tally, strict: bool = False) -> bool:
    """Whether any case failed or errored other than as its preset declares (`strict`: at
    all): the run's exit status is then non-zero."""
    allowed = 0 if strict else tallied.departed
    return tallied.counts["fail"] + tallied.counts["error"] > allowed


def nothing_ran(tallied: Tally) -> str | None:
    """Why no case was judged, or None when some were: a check that checked nothing has
    failed, so the exit status is then non-zero too."""
    if tallied.run:
        return None
    total = sum(tallied.counts.values())
    said = f"judged nothing: all {total} cases were unsupported or skipped"
    commonest = max(
        (
            (n, outcome, why)
            for outcome in ("unsupported", "skip")
            for why, n in tallied.top_reasons(outcome, 1)
        ),
        default=None,
    )
    if commonest is None:
        return said
    n, outcome, why = commonest
    return f"{said}; {n} {outcome}: {why}; {_remedy(outcome, why)}"


def _remedy(outcome: str, why: str) -> str:
    """What makes the commonest reason go away: the choice to declare, or the data to give."""
    if outcome == "skip":
        return "give --data the folder that holds the data"
    if UNDECLARED in why:
        choice = why.partition(UNDECLARED)[0]
        return (
            f"declare {choice} among the adapter's capabilities if it computes it, "
            "or drop the --preset or -m that asks for it"
        )
    return "drop the --preset or -m that selects these cases"


def exit_status(results: Sequence[CaseResult], strict: bool = False) -> int:
    """The exit status of a command that judged `results`: 1 when any case failed or
    errored other than as its preset declares (with `strict`, a declared departure too), or
    when no case was judged at all (every one unsupported or skipped), which is then said in
    one line on stderr; else 0."""
    tallied = tally(results)
    why = nothing_ran(tallied)
    if why:
        print(f"ndcgspec: {why}", file=sys.stderr)
        return 1
    return 1 if failed(tallied, strict) else 0
