"""The ``predict`` command: whether a configuration string, with the departures named on the
command line, predicts an adapter on fresh seeded queries (``survey/prediction.py``); exit
status 1 when a query is unexplained or none was compared."""

from __future__ import annotations

import argparse
import json

from ndcgspec.commands.adapter_flags import add_time_arguments
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import NdcgSpecError
from ndcgspec.survey.prediction import (
    ERRORS_ID,
    MODELS,
    PAGE_QUERIES,
    PAGE_SEED,
    TIE_ORDER_ID,
    UNDEFINED_WHERE_SCORED_ID,
    Declared,
    ModelParams,
    predict,
)
from ndcgspec.survey.probes import time_limits


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``predict`` subcommand."""
    parser = subparsers.add_parser(
        "predict",
        help="check that a configuration string predicts an adapter on fresh random queries",
        description="Score seeded fresh queries with the adapter and with the reference under "
        "MEASURE; every query is predicted, explained by a declared departure, or shown.",
    )
    parser.add_argument("adapter", metavar="ADAPTER", help="built-in name or module:object")
    parser.add_argument("measure", metavar="MEASURE", help="configuration string, e.g. nDCG@10")
    parser.add_argument(
        "--departure",
        action="append",
        default=[],
        metavar="ID",
        help=f"a declared departure: {', '.join(sorted(MODELS))}; tie-order=N breaks ties "
        "from rankings of N documents on (2 when N is not given); "
        "undefined-where-scored=mean-undefined leaves the mean undefined too; errors=LINE "
        "fails with an error whose first line is LINE",
    )
    parser.add_argument("--seed", type=int, default=PAGE_SEED)
    parser.add_argument("--queries", type=int, default=PAGE_QUERIES, help="at least 1")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    add_time_arguments(parser)
    parser.set_defaults(handler=handle)


def declared_option(text: str) -> Declared:
    """A departure named on the command line: ``ID``, ``tie-order=N``,
    ``undefined-where-scored=mean-undefined`` or ``errors=FIRST LINE``."""
    name, _, value = text.partition("=")
    if name not in MODELS:
        raise NdcgSpecError(f"unknown departure {name!r}; known: {', '.join(sorted(MODELS))}")
    if not value:
        return Declared(name, text)
    if name == TIE_ORDER_ID and value.isdigit() and int(value) >= 2:
        return Declared(name, text, ModelParams(from_length=int(value)))
    if name == ERRORS_ID:
        return Declared(name, text, ModelParams(errors=(value,)))
    if name == UNDEFINED_WHERE_SCORED_ID and value == "mean-undefined":
        return Declared(name, text, ModelParams(mean_kept=False))
    raise NdcgSpecError(
        f"--departure {text}: only tie-order=N (a length >= 2), errors=FIRST-LINE and "
        "undefined-where-scored=mean-undefined take a value"
    )


def handle(args: argparse.Namespace) -> int:
    """Print the prediction; exit 1 when a query is unexplained or none was compared."""
    declared = [declared_option(text) for text in args.departure]
    if args.queries < 1:
        raise NdcgSpecError("--queries must be at least 1: with none, nothing is checked")
    measure = parse_measure(args.measure)
    with time_limits(args.timeout, args.budget):
        found = predict(args.adapter, measure, declared, args.seed, args.queries)
    if args.format == "json":
        print(json.dumps(found.to_json(), indent=1, default=str))
    else:
        print(found.summary())
        for entry in found.unexplained[:10]:
            print(f"  unexplained {entry['query']}: {entry['line'][:400]}")
    compared = found.queries - found.left_out
    if compared == 0:
        print("no fresh query could be shown to the adapter: nothing was checked")
        return 1
    return 1 if found.unexplained else 0
