"""The subcommands of ``ndcgspec``: where each lives and its line in ``ndcgspec --help``, which
`commands.cli` prints without importing the subcommands' modules."""

from __future__ import annotations


class Subcommand:
    """Where a subcommand lives (the module whose ``register`` adds it) and its line in
    ``ndcgspec --help``, which is printed without importing the module. A plain class: a
    NamedTuple would import typing, and a dataclass inspect, at every start."""

    __slots__ = ("module", "summary")

    def __init__(self, module: str, summary: str) -> None:
        self.module = module
        self.summary = summary


COMMANDS: dict[str, Subcommand] = {
    "score": Subcommand("ndcgspec.commands.score", "score a TREC run against TREC qrels"),
    "trec_eval": Subcommand(
        "ndcgspec.commands.trec_eval", "trec_eval's command line and output for its nDCG measures"
    ),
    "explain": Subcommand(
        "ndcgspec.commands.explain_flags",
        "explain a measure: full form, fingerprint, definitions, citations, a trace",
    ),
    "cases": Subcommand("ndcgspec.commands.cases", "generate or check the golden cases"),
    "run": Subcommand("ndcgspec.commands.run", "run an adapter against the golden cases"),
    "report": Subcommand("ndcgspec.commands.report", "render a JSONL report of `ndcgspec run`"),
    "smoke": Subcommand(
        "ndcgspec.commands.smoke",
        "check that an adapter works at all, on a handful of trivial cases",
    ),
    "identify": Subcommand(
        "ndcgspec.commands.identify",
        "fingerprint an nDCG implementation: which choice it makes on every axis",
    ),
    "predict": Subcommand(
        "ndcgspec.commands.predict",
        "check that a configuration string predicts an adapter on fresh random queries",
    ),
    "matrix": Subcommand(
        "ndcgspec.commands.matrix",
        "identify every installed built-in adapter and write the conformance matrix",
    ),
    "which": Subcommand(
        "ndcgspec.commands.which_flags", "which configurations reproduce a reported nDCG value"
    ),
    "compare": Subcommand(
        "ndcgspec.commands.compare",
        "compare runs under every convention: ranks, Kendall's tau, flips",
    ),
    "diff": Subcommand(
        "ndcgspec.commands.diff",
        "a score-regression gate: fail when a candidate run is worse than a baseline",
    ),
}
