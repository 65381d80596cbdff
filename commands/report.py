"""The ``report`` command: render a JSONL report of ``ndcgspec run`` in one of the formats of
``harness/render.py``, to stdout or a file; exit status 1 when it records a fail or an error, or
judged no case at all."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ndcgspec.harness.outputs import output_path
from ndcgspec.harness.render import RENDERERS
from ndcgspec.harness.report import Report, exit_status, read_report
from ndcgspec.reference import InputError, Location


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand."""
    parser = subparsers.add_parser(
        "report",
        help="render a JSONL report of `ndcgspec run`",
        description="Render a JSONL report (or the .partial file of a killed run).",
    )
    parser.add_argument("report", metavar="FILE.jsonl", type=Path)
    parser.add_argument("--format", choices=list(RENDERERS), default="text")
    parser.add_argument("-o", "--output", type=Path, help="write here instead of stdout")
    parser.set_defaults(handler=handle)


def write_output(path: Path, text: str, report: Report) -> None:
    """Write `text` to `path` in one step (a temporary file renamed over it), refusing a
    path where no file can be made and the report being read: the user's files are never
    lost."""
    output_path(path, "-o")
    if path.exists() and path.samefile(report.source):
        raise InputError(
            "is the report being rendered; refusing to overwrite it", Location(str(path))
        )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise InputError(f"cannot write: {error.strerror or error}", Location(str(path))) from None


def handle(args: argparse.Namespace) -> int:
    """Render the report; exit status 1 when it records a fail or an error, or judged no
    case at all."""
    report = read_report(args.report)
    text = RENDERERS[args.format](report)
    if args.output:
        write_output(args.output, text, report)
    else:
        print(text, end="")
    return exit_status(report.results)
