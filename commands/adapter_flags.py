"""The flags of the commands that run an adapter: which adapter, and how its processes run
(``run`` and ``smoke``), and how long the survey's commands may take (``identify`` and
``predict``)."""

from __future__ import annotations

import argparse

from ndcgspec.harness.execution import checked_pool_options
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.registry import builtin_names
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import NdcgSpecError
from ndcgspec.survey.probes import CASE_TIMEOUT, COMMAND_BUDGET


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


def pool_options(args: argparse.Namespace) -> PoolOptions:
    """The process options of the command line (`checked_pool_options`)."""
    return checked_pool_options(
        args.jobs,
        args.timeout,
        args.max_output_mb,
        args.validate_protocol,
        ("-j", "--timeout", "--max-output-mb"),
    )


def command_of(args: argparse.Namespace) -> list[str] | str:
    """The adapter command the arguments name."""
    if bool(args.adapter) == bool(args.exec_line):
        raise NdcgSpecError("name exactly one adapter: ADAPTER or --exec COMMAND")
    return adapter_command(args.adapter, args.exec_line)


def add_time_arguments(parser: argparse.ArgumentParser) -> None:
    """``--timeout`` (seconds per case) and ``--budget`` (seconds for the whole command) of
    ``predict`` and ``identify``: an adapter that hangs costs at most these (`time_limits` of
    ``survey/probes.py``)."""
    parser.add_argument(
        "--timeout",
        type=float,
        default=CASE_TIMEOUT,
        help=f"seconds allowed per case (default {CASE_TIMEOUT:g}); once the adapter has "
        "timed out it is taken as hung, and the cases not yet sent are skipped",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=COMMAND_BUDGET,
        help="seconds allowed for the whole command, however the adapter behaves: past them "
        f"it stops, the adapter's processes killed (default {COMMAND_BUDGET:g})",
    )
