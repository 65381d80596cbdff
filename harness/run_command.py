"""The ``run`` command: run an adapter against the golden cases and report every outcome.

``ndcgspec run ADAPTER`` takes a built-in name (``reference``, ``node-example``), a Python
``module:object`` or, with ``--exec "command line"``, any program speaking the protocol. The
terminal summary is a table by axis; the exit status is 1 when any case fails or errors.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ndcgspec.harness.departures import Departures, declared_departures
from ndcgspec.harness.diagnosis import Diagnose, Failure
from ndcgspec.harness.outputs import output_path
from ndcgspec.harness.plan import Selection
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.registry import builtin_names
from ndcgspec.harness.render import render_text
from ndcgspec.harness.report import REPORT_FORMAT, Report, ReportWriter, exit_status, tally
from ndcgspec.harness.runner import HarnessError, Plan, case_rows, load_cases, run_cases
from ndcgspec.harness.versions import versions
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import NdcgSpecError
from ndcgspec.suite.load import LoadedCase
from ndcgspec.suite.tolerance import error_constant


def add_adapter_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments naming an adapter and how its processes run (``run`` and ``smoke``)."""
    builtins = ", ".join(builtin_names())
    parser.add_argument(
        "adapter", nargs="?", metavar="ADAPTER", help=f"built-in ({builtins}) or module:object"
    )
    parser.add_argument(
        "--exec", dest="exec_line", metavar="COMMAND", help="a protocol adapter's command line"
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, help="adapter processes in parallel")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per case")
    parser.add_argument("--max-output-mb", type=float, default=16.0, help="cap on one reply line")
    parser.add_argument(
        "-V",
        "--validate-protocol",
        action="store_true",
        help="check every adapter message against its schema",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def register(subparsers: argparse._SubParsersAction, diagnose: Diagnose | None = None) -> None:
    """Add the ``run`` subcommand; with `diagnose`, its report explains the failures
    (``commands/run.py`` gives the survey's)."""
    parser = subparsers.add_parser(
        "run",
        help="run an adapter against the golden cases",
        description="Run an nDCG implementation against the golden cases. Cases whose "
        "configuration the adapter does not declare are unsupported; exit status 1 on any "
        "fail or error.",
    )
    add_adapter_arguments(parser)
    parser.add_argument(
        "--preset", action="append", default=[], help="cases of this preset (any cutoff)"
    )
    parser.add_argument(
        "-m", "--measure", action="append", default=[], help="cases of this measure"
    )
    parser.add_argument("--cases", metavar="GLOB", help="case files matching GLOB below the suite")
    parser.add_argument(
        "--suite", type=Path, help="a folder of case files instead of the bundled suite"
    )
    parser.add_argument("--data", type=Path, help="the data root of published cases")
    parser.add_argument("--report", type=Path, metavar="FILE.jsonl", help="write a JSONL report")
    parser.set_defaults(handler=lambda args: handle(args, diagnose))


def pool_options(args: argparse.Namespace) -> PoolOptions:
    """The process options of the command line (`checked_pool_options`)."""
    return checked_pool_options(
        args.jobs,
        args.timeout,
        args.max_output_mb,
        args.validate_protocol,
        ("-j", "--timeout", "--max-output-mb"),
    )


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


def command_of(args: argparse.Namespace) -> list[str] | str:
    """The adapter command the arguments name."""
    if bool(args.adapter) == bool(args.exec_line):
        raise NdcgSpecError("name exactly one adapter: ADAPTER or --exec COMMAND")
    return adapter_command(args.adapter, args.exec_line)


def show_progress(quiet: bool) -> bool:
    """A progress bar only on an interactive terminal, never in CI."""
    return not quiet and sys.stderr.isatty() and not os.environ.get("CI")


class Progress:
    """A progress bar on stderr, or nothing."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._bar = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit="case", file=sys.stderr, leave=False)

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
    found = sorted({str(c.file.get("suite_version")) for c in cases if c.file.get("suite_version")})
    return ", ".join(found) or None


def execute(
    plan: Plan,
    command: list[str] | str,
    options: PoolOptions,
    *,
    report_path: Path | None,
    selection: dict[str, Any],
    progress: bool,
    data: Path | None = None,
    diagnose: Diagnose | None = None,
    departures: Departures | None = None,
) -> Report:
    """Run the cases `plan` makes for the adapter, writing the report as results arrive; the
    report as it ends. With `diagnose`, the footer carries the diagnosis of the failures; with
    `departures`, a result that departs as a preset declares is marked so."""
    started = time.monotonic()
    header: dict[str, Any] = {
        "type": "header",
        "report_format": REPORT_FORMAT,
        **versions(),
        "comparison": {"c": error_constant()},
        "command": command if isinstance(command, str) else " ".join(command),
        "selection": selection,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    writer: ReportWriter | None = None
    bar = Progress(0, False)
    failures: list[Failure] = []

    def failed(failure: Failure) -> None:
        # A declared departure is no failure to explain.
        if not failure.record.get("declared_departure"):
            failures.append(failure)

    def start(adapter: dict[str, Any], cases: Sequence[LoadedCase]) -> None:
        nonlocal writer, bar
        header["adapter"] = adapter
        header["suite_version"] = suite_version(cases)
        bar = Progress(len(cases), progress)
        if report_path:
            writer = ReportWriter(report_path)
            writer.write(header)

    def record(result: dict[str, Any], loaded: LoadedCase) -> None:
        declared = departures.of(result, lambda: case_rows(loaded, data)) if departures else None
        if declared:
            result["declared_departure"] = declared
        if writer:
            writer.write(result)
        bar.advance()

    try:
        ordered = run_cases(
            plan, command, options, record, start, data, failed if diagnose else None
        )
        bar.close()
        tallied = tally(ordered)
        explained = (
            diagnose(header["adapter"], failures).footer(
                sum(r["outcome"] == "fail" and "declared_departure" not in r for r in ordered)
            )
            if diagnose and failures
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
    return Report(header, ordered, footer, report_path or Path("-"))


def stop_on_sigterm() -> None:
    """Treat SIGTERM (a cancelled CI job) like Ctrl-C, so the adapter processes are killed
    and the partial report is left in place."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def handle(args: argparse.Namespace, diagnose: Diagnose | None = None) -> int:
    """Run the selected cases; print the summary; 1 on any fail or error."""
    stop_on_sigterm()
    command = command_of(args)
    options = pool_options(args)
    if args.report:
        output_path(args.report, "--report")
    chosen = Selection(load_cases(args.cases, args.suite, args.data), args.preset, args.measure)
    if not chosen.stored:
        raise NdcgSpecError("no case file matches the selection")
    selection = {"preset": args.preset, "measures": args.measure, "cases": args.cases}
    report = execute(
        chosen.cases_for,
        command,
        options,
        report_path=args.report,
        selection=selection,
        progress=show_progress(args.quiet),
        data=args.data,
        diagnose=diagnose,
        departures=declared_departures(args.adapter),
    )
    print(render_text(report), end="")
    return exit_status(report.results)
