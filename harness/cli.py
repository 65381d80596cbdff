"""The ``ndcgspec`` command line. Each subcommand lives in its own module, which exposes
``register(subparsers)``; errors of ndcgspec reach the user as one line, never a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ndcgspec.reference.errors import NdcgSpecError

COMMAND_MODULES: list[str] = [
    "score",
    "explain",
    "suite.command",
    "running.command",
    "running.render",
    "analysis.smoke",
    "analysis.identify",
    "analysis.matrix",
    "analysis.which",
    "analysis.compare_runs",
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand of `COMMAND_MODULES` registered."""
    from importlib import import_module

    parser = argparse.ArgumentParser(
        prog="ndcgspec", description="nDCG specification, exact reference and conformance suite"
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        import_module(f"ndcgspec.harness.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; exit status 0 on success, 1 on a failed check, 2 on an error."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except NdcgSpecError as error:
        print(f"ndcgspec: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ndcgspec: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python's own flush at
        # exit from raising the same error again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
