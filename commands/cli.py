"""The ``ndcgspec`` command line. Each subcommand lives in its own module, which exposes
``register(subparsers)``; errors of ndcgspec reach the user as one line, never a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ndcgspec.reference.errors import NdcgSpecError

# Each subcommand and the module whose ``register`` adds it.
COMMAND_MODULES: dict[str, str] = {
    "score": "ndcgspec.commands.score",
    "trec_eval": "ndcgspec.commands.trec_eval",
    "explain": "ndcgspec.commands.explain",
    "cases": "ndcgspec.commands.cases",
    "run": "ndcgspec.commands.run",
    "report": "ndcgspec.harness.render",
    "smoke": "ndcgspec.commands.smoke",
    "identify": "ndcgspec.commands.identify",
    "predict": "ndcgspec.commands.predict",
    "matrix": "ndcgspec.commands.matrix",
    "which": "ndcgspec.commands.which",
    "compare": "ndcgspec.commands.compare",
    "diff": "ndcgspec.commands.diff",
}


class VersionAction(argparse.Action):
    """``--version``: the versions are read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from ndcgspec.harness.versions import version_line

        print(version_line())
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser for `argv`: when it names a subcommand only that one's module is
    imported (``score`` needs no harness machinery), otherwise every subcommand of
    `COMMAND_MODULES` is registered, for the help and the list of valid commands."""
    from importlib import import_module

    parser = argparse.ArgumentParser(
        prog="ndcgspec", description="nDCG specification, exact reference and conformance suite"
    )
    parser.add_argument(
        "--version", action=VersionAction, help="print the package and spec versions and exit"
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    words = sys.argv[1:] if argv is None else argv
    named = words[0] if words and words[0] in COMMAND_MODULES else None
    for command, module in COMMAND_MODULES.items():
        if named in (None, command):
            import_module(module).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; exit status 0 on success, 1 on a failed check, 2 on an error."""
    args = build_parser(argv).parse_args(argv)
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
