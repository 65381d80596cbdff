"""Fast engine or plain reference: the one decision every path makes (``ndcg``).

Files (TREC text and tables, `scoring`), in-memory inputs (`memory`), the sweep (`sweep`) and a
Spark partition (`ndcgspec.spark.partition`) each hand `routed` their two ways of computing the
same result. The engine computes it when it declares every anchor each configuration uses
(`support.not_computed`: it fails closed) and its columns hold the input; otherwise the plain
reference, the definition, does. Either way the digits are the reference's; the reason the
reference was used is logged at INFO (`log_if_asked`: ``NDCGSPEC_LOG=info`` shows it on stderr).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

from ndcgspec.engine.read import Unsupported
from ndcgspec.engine.support import not_computed
from ndcgspec.reference.config import Config

LOG = logging.getLogger("ndcgspec.fast")
LOG_ENV = "NDCGSPEC_LOG"

T = TypeVar("T")


def log_if_asked() -> None:
    """Log to stderr at the level ``NDCGSPEC_LOG`` names, when set: called once per command
    (`scoring.scored_files`), not per configuration."""
    level = os.environ.get(LOG_ENV)
    if level and not LOG.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("ndcgspec: %(message)s"))
        LOG.addHandler(handler)
        LOG.setLevel(level.upper())


def routed(configs: Sequence[Config], engine: Callable[[], T], reference: Callable[[], T]) -> T:
    """`engine()` when the engine declares every one of `configs`, else `reference()`; an
    Unsupported that `engine()` raises (input its columns cannot hold) also sends the work to
    `reference()`. Both compute the same thing for the same configurations."""
    for config in configs:
        if missing := not_computed(config):
            LOG.info("plain reference used: %s uses %s", config.canonical(), ", ".join(missing))
            return reference()
    try:
        return engine()
    except Unsupported as reason:
        LOG.info("plain reference used: %s", reason)
    return reference()
