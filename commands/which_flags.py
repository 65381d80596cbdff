"""The ``which`` command's arguments, apart from its search (`ndcgspec.commands.which`), so
that ``ndcgspec which --help`` imports neither the reference nor the engine."""

from __future__ import annotations

import argparse
from decimal import Decimal


def _gain_map(text: str) -> dict[Decimal, Decimal]:
    """A gain map as written in a measure string, e.g. ``{1:0,2:1,3:3}``."""
    from ndcgspec.measures.grammar import parse_measure
    from ndcgspec.reference.errors import ConfigError

    try:
        config = parse_measure(f"nDCG(gain=map,gain_map={text})")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(f"not a gain map {text!r}: {error}") from None
    return dict(config.param("gain_map"))


def _cutoff(text: str) -> int:
    from ndcgspec.reference.config import Config
    from ndcgspec.reference.errors import ConfigError

    try:
        return Config.from_mapping({"cutoff": text}).cutoff or 0
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``which`` subcommand."""
    parser = subparsers.add_parser(
        "which",
        help="which configurations reproduce a reported nDCG value",
        description="List every configuration of the declared space (presets, their one- "
        "and two-axis departures, common cutoffs, gain maps that collapse grades) whose nDCG "
        "of RUN against QRELS reproduces VALUE, most plausible first.",
    )
    parser.add_argument("qrels", metavar="QRELS", help="qrels file: qid iter docid label")
    parser.add_argument("run", metavar="RUN", help="run file: qid Q0 docid rank score tag")
    parser.add_argument("value", metavar="VALUE", help="the reported value, e.g. 0.4040")
    parser.add_argument(
        "--decimals",
        type=int,
        metavar="D",
        help="decimals the value was reported with (default: as many as VALUE is written with)",
    )
    parser.add_argument("--top", type=int, default=10, metavar="N", help="groups shown (10)")
    parser.add_argument(
        "--cutoff",
        action="append",
        type=_cutoff,
        default=[],
        metavar="K",
        help="also search cutoff K (repeatable)",
    )
    parser.add_argument(
        "--gain-map",
        action="append",
        type=_gain_map,
        default=[],
        metavar="MAP",
        help="also search this gain map, written as in a measure: {1:3,2:9} (repeatable)",
    )
    parser.add_argument(
        "--extra-fields",
        action="store_true",
        help="ignore text after the sixth field of a run line, as trec_eval does",
    )
    parser.add_argument(
        "--above-one",
        action="store_true",
        help="search for a VALUE above 1 as written (negative=keep-in-ideal can give one), "
        "not refuse it as a percentage",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run_which)


def run_which(args: argparse.Namespace) -> int:
    """`ndcgspec.commands.which.run_which`, imported when the command runs."""
    from ndcgspec.commands.which import run_which as searched

    return searched(args)
