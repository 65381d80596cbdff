"""The ``run`` command: run an adapter against the golden cases and report every outcome.

``ndcgspec run ADAPTER`` takes a built-in name (``reference``, ``node-example``), a Python
``module:object`` or, with ``--exec "command line"``, any program speaking the protocol. The
terminal summary is a table by axis; the exit status is 1 when any case fails or errors other
than as its preset declares (``harness/departures.py``), and with ``--strict`` on those too.

The harness runs and judges the cases (``harness/execution.py``); why they fail is
``identify``'s question, which the survey answers (``survey/diagnosis.py``). The harness may not
import the survey, so the diagnosis is handed to it here, as a function of the failing cases.
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from ndcgspec.commands.adapter_flags import add_adapter_arguments, command_of, pool_options
from ndcgspec.harness.departures import declared_departures
from ndcgspec.harness.execution import Execution, Progress, execute, show_progress
from ndcgspec.harness.outputs import output_path
from ndcgspec.harness.plan import Selection
from ndcgspec.harness.render import render_text
from ndcgspec.harness.report import exit_status
from ndcgspec.harness.runner import load_cases
from ndcgspec.reference import NdcgSpecError
from ndcgspec.survey.diagnosis import diagnose


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``run`` subcommand."""
    parser = subparsers.add_parser(
        "run",
        help="run an adapter against the golden cases",
        description="Run an nDCG implementation against the golden cases. Cases whose "
        "configuration the adapter does not declare are unsupported; exit status 1 on any "
        "fail or error that is not a departure its preset declares (on those too with "
        "--strict).",
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
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail the run on the departures its preset declares too (for CI)",
    )
    parser.set_defaults(handler=handle)


def stop_on_sigterm() -> None:
    """Treat SIGTERM (a cancelled CI job) like Ctrl-C, so the adapter processes are killed
    and the partial report is left in place."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def handle(args: argparse.Namespace) -> int:
    """Run the selected cases; print the summary; 1 on any undeclared fail or error (any at
    all with --strict)."""
    stop_on_sigterm()
    command = command_of(args)
    options = pool_options(args)
    if args.report:
        output_path(args.report, "--report")
    progress = Progress(show_progress(args.quiet))
    try:
        progress.doing("loading the cases")
        chosen = Selection(load_cases(args.cases, args.suite, args.data), args.preset, args.measure)
        if not chosen.stored:
            raise NdcgSpecError("no case file matches the selection")
        report = execute(
            Execution(
                chosen.cases_for,
                command,
                options,
                report_path=args.report,
                selection={"preset": args.preset, "measures": args.measure, "cases": args.cases},
                progress=progress,
                data=args.data,
                diagnose=diagnose,
                departures=declared_departures(args.adapter),
            )
        )
    finally:
        # The bar goes before anything is printed, an error's line included.
        progress.close()
    print(render_text(report), end="")
    return exit_status(report.results, args.strict)
