"""The ``smoke`` command: a handful of trivial cases, to tell a broken adapter from a
non-conforming library.

Every case uses the adapter's native configuration, the choice it declares first on each axis
(``harness/plan.py``). A perfect ranking scores 1 and an empty run 0
(or what the declared ``empty`` and ``aggregate`` choices make of it), whatever the conventions;
an adapter that misses these is wired wrongly, not merely unconventional.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ndcgspec.harness.plan import native_config
from ndcgspec.harness.pool import declared_adapter
from ndcgspec.harness.run_command import (
    add_adapter_arguments,
    command_of,
    execute,
    pool_options,
    show_progress,
)
from ndcgspec.harness.runner import HarnessError, fixed_cases
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.suite.case import cite, computed_case
from ndcgspec.suite.load import LoadedCase

Rows = list[list[str]]

TRIVIAL_INPUTS: list[tuple[str, str, Rows, Rows]] = [
    (
        "smoke/perfect-ranking",
        "graded documents in ideal order score 1",
        [["q1", "d1", "2"], ["q1", "d2", "1"], ["q1", "d3", "0"]],
        [["q1", "d1", "0.9"], ["q1", "d2", "0.8"], ["q1", "d3", "0.7"]],
    ),
    (
        "smoke/empty-run",
        "a judged query with no retrieved document",
        [["q1", "d1", "1"]],
        [],
    ),
    (
        "smoke/relevant-first",
        "the one relevant document at rank 1 scores 1",
        [["q1", "d1", "1"], ["q1", "d2", "0"]],
        [["q1", "d1", "2"], ["q1", "d2", "1"]],
    ),
    (
        "smoke/nothing-relevant-retrieved",
        "only a non-relevant document is retrieved",
        [["q1", "d1", "1"], ["q1", "d2", "0"]],
        [["q1", "d2", "1"]],
    ),
    (
        "smoke/two-queries",
        "one perfect query and one reversed",
        [["q1", "d1", "1"], ["q2", "d1", "0"], ["q2", "d2", "1"]],
        [["q1", "d1", "1"], ["q2", "d1", "2"], ["q2", "d2", "1"]],
    ),
]


def smoke_cases(config: Config) -> list[LoadedCase]:
    """The trivial cases under `config`, expected values from the reference."""
    cases = []
    for index, (case_id, description, qrels, run) in enumerate(TRIVIAL_INPUTS):
        case = computed_case(
            case_id=case_id,
            description=description,
            config=config,
            spec=[cite("ndcg.definition.ndcg")],
            sources=[],
            origin="hand",
            qrels=qrels,
            run=run,
        )
        cases.append(LoadedCase(Path("<smoke>"), "smoke", {}, case, index, None))
    return cases


def register(subparsers: argparse._SubParsersAction) -> None:
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
    command = command_of(args)
    options = pool_options(args)
    adapter = declared_adapter(command, options)
    try:
        config = native_config(adapter)
    except NdcgSpecError as error:
        raise HarnessError(f"broken adapter: {error}") from None
    report = execute(
        fixed_cases(smoke_cases(config)),
        command,
        options,
        report_path=None,
        selection={"smoke": config.canonical()},
        progress=show_progress(args.quiet),
    )
    print(f"smoke test of {adapter['name']} {adapter['version']} under {config.canonical()}")
    for result in report.results:
        print(
            f"  {result['outcome']:5} {result['id']}"
            + (f": {result['message']}" if "message" in result else "")
        )
    bad = [r for r in report.results if r["outcome"] != "pass"]
    if bad:
        print(f"broken adapter: {len(bad)} of {len(report.results)} trivial cases do not pass")
        return 1
    print(f"the adapter works: all {len(report.results)} trivial cases pass")
    return 0
