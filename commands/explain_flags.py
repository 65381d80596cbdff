"""The ``explain`` command's arguments, apart from what it prints
(`ndcgspec.commands.explain`), so that ``ndcgspec explain --help`` imports neither the
reference nor the engine."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``explain`` subcommand."""
    parser = subparsers.add_parser(
        "explain",
        help="explain a measure: full form, fingerprint, definitions, citations, a trace",
        description="Explain a measure. With --query, --qrels and --run, also print the "
        "rank-by-rank computation of that query.",
    )
    parser.add_argument(
        "measure", nargs="?", metavar="MEASURE", help="a measure string or preset name"
    )
    parser.add_argument(
        "--choices",
        action="store_true",
        help="list the choice ids of every axis, as adapters declare them, and exit",
    )
    parser.add_argument("--query", metavar="QID", help="the query to trace")
    parser.add_argument("--qrels", metavar="FILE", help="qrels file for the trace")
    parser.add_argument("--run", metavar="FILE", help="run file for the trace")
    parser.add_argument(
        "--cite",
        action="store_true",
        help="print only the paragraph to paste into a paper (at most six lines) and the "
        "BibTeX entry",
    )
    parser.add_argument(
        "--long",
        action="store_true",
        help="with --cite: the paragraph names every axis's setting in the spec's words, with "
        "its anchor",
    )
    parser.add_argument(
        "--result",
        metavar="FILE",
        help="with --cite: a JSON result of score, compare or diff of this measure, whose "
        "inputs' digests and versions the paragraph then names",
    )
    parser.set_defaults(handler=run_explain)


def run_explain(args: argparse.Namespace) -> int:
    """`ndcgspec.commands.explain.run_explain`, imported when the command runs."""
    from ndcgspec.commands.explain import run_explain as explained

    return explained(args)
