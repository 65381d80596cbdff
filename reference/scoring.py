"""Scoring TREC files under several configurations: the engine behind ``ndcgspec score``.

The files are read once, and every configuration is evaluated on the same inputs
(``ndcg.definition.inputs``). Each result is the JSON result object of `Evaluation.to_json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .config import Config
from .evaluate import evaluate
from .trec_io import read_qrels, read_run


def score_files(
    configs: Sequence[Config], qrels_path: str | Path, run_path: str | Path
) -> list[dict[str, Any]]:
    """The JSON result object of each configuration, in order, for one qrels file and one run;
    an unreadable or malformed file raises InputError naming ``file:line``."""
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    return [evaluate(config, qrels, run).to_json() for config in configs]
