"""``ndcgspec cases generate|check|show``: write the golden cases, check them, and print one.

``cases show ID`` takes a stored case's id or the id ``run`` gives an input judged under a
configuration no stored case has (``<input id>@<fingerprint>``, ``harness/plan.py``). The
configuration of such an id is found among the suite's, the presets' and the built-in
adapters' own, or read from the run's report (``--report``) or given (``-m``)."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

DEFAULT_JOBS = 2


def register(subparsers: Any) -> None:
    """Add ``cases`` with its ``generate``, ``check`` and ``show`` subcommands (what each
    runs is imported when it runs, so that ``--help`` imports neither the reference nor the
    engine)."""
    parser = subparsers.add_parser("cases", help="generate or check the golden cases")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--cases-dir", type=Path, help="the cases folder (default: the suite's)")
    common.add_argument("--data-root", type=Path, help="the shared data root of published cases")
    common.add_argument("--jobs", type=int, default=DEFAULT_JOBS, help="worker processes")
    made = actions.add_parser("generate", parents=[common], help="rewrite every case file")
    made.set_defaults(handler=run_generate)
    checked = actions.add_parser("check", parents=[common], help="lint and verify the cases")
    checked.add_argument("--glob", help="only the case files matching this glob")
    checked.set_defaults(handler=run_check)
    shown = actions.add_parser("show", help="print a case: input, configuration, expected values")
    shown.add_argument("case_id", metavar="ID", help="a case id, or <input id>@<fingerprint>")
    shown.add_argument("--cases-dir", type=Path, help="the cases folder (default: the suite's)")
    shown.add_argument("--data-root", type=Path, help="the shared data root of published cases")
    shown.add_argument("--report", type=Path, metavar="FILE.jsonl", help="a run's report")
    shown.add_argument("-m", "--measure", help="the configuration of a computed id")
    shown.set_defaults(handler=run_show)


def run_generate(args: argparse.Namespace) -> int:
    """Write the case files and the manifest; say what was written."""
    from ndcgspec.harness.outputs import output_path
    from ndcgspec.suite.folders import UNKNOWN, data_root
    from ndcgspec.suite.generate import generate, published_available
    from ndcgspec.suite.load import cases_root
    from ndcgspec.suite.manifest import write_manifest

    started = time.monotonic()
    out = output_path(args.cases_dir or cases_root(), "--cases-dir", folder=True)
    data = args.data_root or data_root()
    written = generate(out, data, args.jobs)
    if not published_available(data):
        why = UNKNOWN if data is None else f"no shared data at {data}"
        print(f"published cases left as they are: {why}")
    write_manifest(out)
    print(f"wrote {len(written)} case files and MANIFEST in {time.monotonic() - started:.1f} s")
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Print every problem and a summary; exit 1 when there is a problem."""
    from ndcgspec.harness.execution import show_progress
    from ndcgspec.reference.errors import NdcgSpecError
    from ndcgspec.suite.check import check
    from ndcgspec.suite.load import cases_root

    started = time.monotonic()
    if args.cases_dir is not None and not args.cases_dir.is_dir():
        raise NdcgSpecError(f"{args.cases_dir}: not a folder of case files")
    report = check(args.cases_dir, args.data_root, args.glob, args.jobs, show_progress(False))
    for problem in report.problems:
        print(problem)
    reasons = Counter(reason for _, reason in report.skipped)
    for reason, count in sorted(reasons.items()):
        print(f"skipped {count} cases: {reason}")
    status = "FAILED" if report.problems else "ok"
    print(
        f"cases check {status}: {report.files} files, {report.cases} cases, "
        f"{len(report.problems)} problems, {len(report.skipped)} skipped "
        f"({time.monotonic() - started:.1f} s)"
    )
    if not report.cases:
        glob = f" matching {args.glob!r}" if args.glob else ""
        print(
            f"ndcgspec: checked nothing: no cases in {report.files} case files{glob} "
            f"below {args.cases_dir or cases_root()}",
            file=sys.stderr,
        )
        return 1
    return 1 if report.problems else 0


def run_show(args: argparse.Namespace) -> int:
    """Print the case."""
    from ndcgspec.commands.case_view import adapter_result, case_text, find_case

    loaded = find_case(args.case_id, args.cases_dir, args.data_root, args.report, args.measure)
    result = adapter_result(args.case_id, args.report)
    print(case_text(loaded, args.data_root, result), end="")
    return 0
