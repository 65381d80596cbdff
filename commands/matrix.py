"""The ``matrix`` command: every installed built-in adapter (or the named ones) identified and
checked, and the conformance page written into ``--out`` (``survey/matrix.py``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ndcgspec.harness.outputs import output_path
from ndcgspec.survey.matrix import write_page


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``matrix`` subcommand."""
    parser = subparsers.add_parser(
        "matrix",
        help="identify every installed built-in adapter and write the conformance matrix",
        description="Write docs/conformance.md and docs/conformance.html.",
    )
    parser.add_argument("--out", type=Path, default=Path("docs"), help="output folder (docs)")
    parser.add_argument("adapters", nargs="*", metavar="ADAPTER", help="only these built-ins")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="adapters examined at once")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Build the matrix and write its files."""
    output_path(args.out, "--out", folder=True)
    written = write_page(args.out, args.adapters or None, args.jobs)
    print(f"wrote {', '.join(str(path) for path in written[:-1])} and {written[-1]}")
    return 0
