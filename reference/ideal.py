"""The ``ideal`` axis: the documents the ideal list is built from (``ndcg.ideal``).

Each choice returns the candidate gains; `ideal_gains` keeps those > 0 (all of them under
``ndcg.negative.keep-in-ideal``), sorts them in non-increasing order and cuts them at k
(``ndcg.definition.idcg``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ndcgspec.reference.arithmetic import Ordered, positive
from ndcgspec.reference.config import Config
from ndcgspec.reference.cutoff import cut


def judged(judged_gains: Sequence[Any], retrieved_gains: Sequence[Any]) -> list[Any]:
    """``ndcg.ideal.judged``: every judged document of the query, retrieved or not."""
    return list(judged_gains)


def retrieved(judged_gains: Sequence[Any], retrieved_gains: Sequence[Any]) -> list[Any]:
    """``ndcg.ideal.retrieved``: only the documents of the ranking."""
    return list(retrieved_gains)


CHOICES: dict[str, Callable[[Sequence[Any], Sequence[Any]], list[Any]]] = {
    "judged": judged,
    "retrieved": retrieved,
}


def every_gain_enters(config: Config) -> bool:
    """Whether zero and negative gains enter the ideal list too
    (``ndcg.negative.keep-in-ideal``), not only the positive ones."""
    return config.choice("negative") == "keep-in-ideal"


def ideal_gains(
    judged_gains: Sequence[Any], retrieved_gains: Sequence[Any], config: Config
) -> list[Any]:
    """The ideal list's gains at ranks 1, 2, ...: positive (every gain under
    ``ndcg.negative.keep-in-ideal``), non-increasing, cut at k."""
    candidates = CHOICES[config.choice("ideal")](judged_gains, retrieved_gains)
    if not every_gain_enters(config):
        candidates = [g for g in candidates if positive(g)]
    return cut(sorted(candidates, key=Ordered, reverse=True), config)
