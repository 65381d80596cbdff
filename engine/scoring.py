"""Scoring TREC files under several configurations: the engine behind ``ndcgspec score``.

The files are read once, and every configuration is evaluated on the same inputs
(``ndcg.definition.inputs``). Each result is the JSON result object of `Evaluation.to_json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ndcgspec.engine.evaluate import LOG, score_files_fast
from ndcgspec.engine.read import Unsupported
from ndcgspec.reference.config import Config
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.trec_io import read_qrels, read_run


def score_files(
    configs: Sequence[Config], qrels_path: str | Path, run_path: str | Path
) -> list[dict[str, Any]]:
    """The JSON result object of each configuration, in order, for one qrels file and one run;
    an unreadable or malformed file raises InputError naming ``file:line``. The fast engine
    computes them; input it declines goes to `score_files_plain`, the reason logged."""
    try:
        return score_files_fast(configs, qrels_path, run_path)
    except Unsupported as reason:
        LOG.info("plain reference used: %s", reason)
    return score_files_plain(configs, qrels_path, run_path)


def score_files_plain(
    configs: Sequence[Config], qrels_path: str | Path, run_path: str | Path
) -> list[dict[str, Any]]:
    """`score_files` computed by the plain reference alone: the definition."""
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    return [evaluate(config, qrels, run).to_json() for config in configs]
