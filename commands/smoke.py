"""The ``smoke`` command: the trivial cases of ``survey/smoke.py`` on an adapter, each outcome
printed, and whether the adapter works at all (exit status 1 when it does not)."""

from __future__ import annotations

import argparse

from ndcgspec.commands.adapter_flags import add_adapter_arguments, command_of, pool_options
from ndcgspec.harness.execution import show_progress
from ndcgspec.survey.smoke import smoke_test


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``smoke`` subcommand."""
    parser = subparsers.add_parser(
        "smoke",
        help="check that an adapter works at all, on a handful of trivial cases",
        description="Run a handful of trivial cases under the configuration the adapter "
        "declares first. Exit status 1 when any of them fails or errors.",
    )
    add_adapter_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Run the trivial cases and say whether the adapter is broken."""
    found = smoke_test(command_of(args), pool_options(args), show_progress(args.quiet))
    adapter, results = found.adapter, found.report.results
    print(f"smoke test of {adapter.name} {adapter.version} under {found.config.canonical()}")
    for result in results:
        print(
            f"  {result.outcome:5} {result.id}" + (f": {result.message}" if result.message else "")
        )
    if found.broken:
        print(f"broken adapter: {len(found.broken)} of {len(results)} trivial cases do not pass")
        return 1
    print(f"the adapter works: all {len(results)} trivial cases pass")
    return 0
