"""Scoring TREC files under several configurations: the engine behind ``ndcgspec score``.

Each file is opened once (`trec_io.opened`), and every configuration is evaluated on the same
inputs (``ndcg.definition.inputs``). Each result is the JSON result object of
`Evaluation.to_json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ndcgspec.engine.evaluate import LOG
from ndcgspec.engine.read import Unsupported
from ndcgspec.engine.stream import score_files_fast
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.trec_io import STDIN, Source, opened, read_qrels, read_run


def score_files(
    configs: Sequence[Config], qrels_path: str | Path, run_path: str | Path
) -> list[dict[str, Any]]:
    """The JSON result object of each configuration, in order, for one qrels file and one run
    ("-" is standard input); an unreadable or malformed file raises InputError naming
    ``file:line``. The fast engine computes them; a configuration it does not declare, or
    input it declines, goes to `score_files_plain`, the reason logged at INFO."""
    if str(qrels_path) == str(run_path) == STDIN:
        raise InputError("standard input ('-') can be only one of qrels and run")
    with opened(qrels_path) as qrels, opened(run_path) as run:
        try:
            return score_files_fast(configs, qrels, run)
        except Unsupported as reason:
            LOG.info("plain reference used: %s", reason)
        return score_files_plain(configs, qrels, run)


def score_files_plain(
    configs: Sequence[Config], qrels: str | Path | Source, run: str | Path | Source
) -> list[dict[str, Any]]:
    """`score_files` computed by the plain reference alone: the definition."""
    judgments, postings = read_qrels(qrels), read_run(run)
    return [evaluate(config, judgments, postings).to_json() for config in configs]
