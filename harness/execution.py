"""Running an adapter over cases and writing the report: what ``ndcgspec run`` and ``smoke``,
the pytest plugin and the benchmarks run (the command line is ``commands/run.py``).

An `Execution` says what to run and how; `execute` runs the cases its plan makes for the
adapter, writes the JSON-lines report (``harness/report.py``) as results arrive, and returns
the `Report` as it ends, its footer carrying the tally and, with a `Diagnose`, the diagnosis of
the failures; the configurations it judged and its failing results are kept in the cache
(``suite/judged.py``), where ``cases show`` finds them.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.departures import Departures
from ndcgspec.harness.diagnosis import Answered, Diagnose, Diagnosed
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.report import REPORT_FORMAT, Report, ReportWriter, tally
from ndcgspec.harness.runner import HarnessError, Plan, case_rows, run_cases
from ndcgspec.harness.versions import versions
from ndcgspec.reference import NdcgSpecError
from ndcgspec.suite.folders import cache_root
from ndcgspec.suite.judged import remember
from ndcgspec.suite.loaded import LoadedCase
from ndcgspec.suite.result import CaseResult
from ndcgspec.suite.tolerance import error_constant

if TYPE_CHECKING:
    from tqdm import tqdm


@dataclass(frozen=True)
class Execution:
    """One run of an adapter: the `plan` that makes the cases from its start reply, the
    adapter's `command` and process `options`; the report's file (none when None) and the
    header's `selection`, what was chosen to run as the report records it; its progress bar
    (shown or not); the `data` root of published cases; with `diagnose`, the footer carries
    the diagnosis of the failures, and with `departures`, a result that departs as a preset
    declares is marked so."""

    plan: Plan
    command: list[str] | str
    options: PoolOptions
    report_path: Path | None = None
    selection: Mapping[str, Any] = field(default_factory=dict)
    progress: Progress = field(default_factory=lambda: Progress(False))
    data: Path | None = None
    diagnose: Diagnose | None = None
    departures: Departures | None = None


def checked_pool_options(
    jobs: int,
    timeout: float,
    max_output_mb: float,
    validate: bool,
    names: tuple[str, str, str],
) -> PoolOptions:
    """The adapter processes' options, checked before anything starts: NaN or an infinity
    would reach the workers' clocks and output cap, where no limit holds. `names` are the
    options' names as the user wrote them, for the error."""
    if jobs < 1 or not all(0 < limit < math.inf for limit in (timeout, max_output_mb)):
        raise NdcgSpecError(f"{names[0]}, {names[1]} and {names[2]} must be positive and finite")
    return PoolOptions(
        jobs=jobs,
        timeout=timeout,
        start_timeout=max(timeout, 60.0),
        max_output_bytes=int(max_output_mb * 2**20),
        validate=validate,
    )


def show_progress(quiet: bool) -> bool:
    """A progress bar only on an interactive terminal, never in CI."""
    return not quiet and sys.stderr.isatty() and not os.environ.get("CI")


PHASE_FORMAT = "{desc} [{elapsed}]"
"""A bar's look while the command cannot count yet: what it is doing, and for how long."""


class Progress:
    """A progress bar on stderr, or nothing. It is shown from the command's start, saying what
    the command is doing (`doing`) until the number of cases is known (`counting`): loading
    the cases, starting the adapter and planning take seconds, which a silent terminal would
    leave the user to wonder about."""

    def __init__(self, enabled: bool) -> None:
        self._bar: tqdm[NoReturn] | None = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(unit="case", file=sys.stderr, leave=False, bar_format=PHASE_FORMAT)

    def doing(self, what: str) -> None:
        """Say what the command is doing now."""
        if self._bar is not None:
            self._bar.set_description_str(what)

    def counting(self, total: int) -> None:
        """From now on, count `total` cases."""
        if self._bar is not None:
            self._bar.bar_format = None
            self._bar.set_description("running the cases", refresh=False)
            self._bar.reset(total=total)

    def advance(self) -> None:
        """One more case done."""
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        """Remove the bar."""
        if self._bar is not None:
            self._bar.close()


def suite_version(cases: Sequence[LoadedCase]) -> str | None:
    """The suite version the case files declare (joined when they disagree)."""
    found = sorted({str(c.suite_version) for c in cases if c.suite_version})
    return ", ".join(found) or None


def execute(run: Execution) -> Report:
    """Run the cases the plan makes for the adapter, writing the report as results arrive; the
    report as it ends."""
    started = time.monotonic()
    header: dict[str, Any] = {
        "type": "header",
        "report_format": REPORT_FORMAT,
        **versions(),
        "comparison": {"c": error_constant()},
        "command": run.command if isinstance(run.command, str) else " ".join(run.command),
        "selection": dict(run.selection),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    writer: ReportWriter | None = None
    bar = run.progress
    bar.doing("starting the adapter")
    answered: list[Answered] = []
    declared: Declaration | None = None

    def keep(case: Answered) -> None:
        # A declared departure is no failure to explain.
        if not case.record.declared_departure:
            answered.append(case)

    def start(adapter: Declaration, cases: Sequence[LoadedCase]) -> None:
        nonlocal writer, declared
        declared = adapter
        header["adapter"] = adapter.to_json()
        header["suite_version"] = suite_version(cases)
        bar.counting(len(cases))
        if run.report_path:
            writer = ReportWriter(run.report_path)
            writer.write(header)

    def record(result: CaseResult, loaded: LoadedCase) -> CaseResult:
        declared = (
            run.departures.of(result, lambda: case_rows(loaded, run.data))
            if run.departures
            else None
        )
        if declared:
            result = replace(result, declared_departure=declared)
        if writer:
            writer.write(result.to_json())
        bar.advance()
        return result

    try:
        ordered = run_cases(
            run.plan,
            run.command,
            run.options,
            record,
            start,
            run.data,
            keep if run.diagnose else None,
        )
        bar.close()
        remember(cache_root(), ordered)
        tallied = tally(ordered)
        explained = (
            Diagnosed(
                run.diagnose(declared, answered),
                sum(r.outcome == "fail" and r.declared_departure is None for r in ordered),
            ).to_json()
            if run.diagnose and declared and any(a.failed for a in answered)
            else {}
        )
        footer = {
            "type": "footer",
            **tallied.to_json(),
            **explained,
            "wall_seconds": round(time.monotonic() - started, 3),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if writer:
            writer.write(footer)
            writer.finish()
    except (NdcgSpecError, KeyboardInterrupt):
        raise
    except Exception as error:
        # The harness reports its own failures as one line, like every other error.
        raise HarnessError(f"harness failure: {type(error).__name__}: {error}") from error
    finally:
        bar.close()
        if writer:
            writer.__exit__(None, None, None)
    return Report(header, ordered, footer, run.report_path or Path("-"))
