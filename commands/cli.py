"""The ``ndcgspec`` command line. Each subcommand lives in its own module, which exposes
``register(subparsers)``; errors of ndcgspec reach the user as one line, never a traceback,
and so do Ctrl-C and SIGTERM, from the first line of `main` on."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from ndcgspec.commands.parser import Parser
from ndcgspec.commands.subcommands import COMMANDS


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
    imported (``score`` needs no harness machinery), otherwise every subcommand of `COMMANDS`
    is listed by its summary alone, for the help and the list of valid commands, with none of
    their modules imported."""
    # Typed as argparse's own: the subcommands' modules register on its subparsers.
    parser: argparse.ArgumentParser = Parser(
        prog="ndcgspec", description="nDCG specification, exact reference and conformance suite"
    )
    parser.add_argument(
        "--version", action=VersionAction, help="print the package and spec versions and exit"
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    words = sys.argv[1:] if argv is None else argv
    named = words[0] if words and words[0] in COMMANDS else None
    for command, subcommand in COMMANDS.items():
        if named is None:
            subparsers.add_parser(command, help=subcommand.summary)
        elif named == command:
            from importlib import import_module

            import_module(subcommand.module).register(subparsers)
    return parser


TRACEBACK = "NDCGSPEC_TRACEBACK"


class Terminated(BaseException):
    """SIGTERM, raised where the command is, as Ctrl-C raises KeyboardInterrupt: its `finally`
    blocks run (`harness.outputs.staged` removes its private folder), where the default action
    would end the process at once."""


class _Terminable:
    """SIGTERM raises `Terminated` in this process while the block runs. A process forked
    from it (a worker of a process pool) that gets SIGTERM ends at once, as it would have. A
    class, not a contextlib generator: contextlib costs a millisecond of every start (issue
    41)."""

    def __enter__(self) -> None:
        pid = os.getpid()

        def terminated(number: int, _: object) -> None:
            if os.getpid() != pid:
                signal.signal(number, signal.SIG_DFL)
                os.kill(os.getpid(), number)
                return
            raise Terminated

        try:
            self.previous = signal.signal(signal.SIGTERM, terminated)
            self.handled = True
        except ValueError:
            # Not the main thread, the only one Python sets handlers in (asked this way rather
            # than of threading, which costs a millisecond of every start): SIGTERM keeps its
            # action.
            self.handled = False

    def __exit__(self, *_: object) -> None:
        if self.handled:
            signal.signal(signal.SIGTERM, self.previous)


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser(argv).parse_args(argv)
    # Imported here, inside main's try, and once the arguments are read: the reference's
    # modules take most of a start-up, which a help needs none of, and Ctrl-C while they load
    # is an interruption like any other.
    from ndcgspec.reference.errors import NdcgSpecError

    try:
        return int(args.handler(args) or 0)
    except NdcgSpecError as error:
        print(f"ndcgspec: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader going away is no defect: `main` stops quietly.
        raise
    except Exception as error:
        # A defect of ndcgspec, not of the input: still one line and status 2 (an error),
        # never a traceback that exits 1, which a gate would read as a failed check.
        if os.environ.get(TRACEBACK):
            raise
        print(
            f"ndcgspec: internal error: {type(error).__name__}: {error} (a defect of ndcgspec; "
            f"{TRACEBACK}=1 shows the traceback)",
            file=sys.stderr,
        )
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; exit status 0 on success, 1 on a failed check, 2 on an error, 130
    when interrupted (Ctrl-C), 143 when terminated (SIGTERM)."""
    try:
        with _Terminable():
            return _run(argv)
    except KeyboardInterrupt:
        print("ndcgspec: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("ndcgspec: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python's own flush at
        # exit from raising the same error again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
