"""The ``ideal`` axis: the documents the ideal list is built from (``ndcg.ideal``).

Each choice returns the candidate gains; `ideal_gains` keeps those > 0 (all of them under
``ndcg.negative.keep-in-ideal``), sorts them in non-increasing order and cuts them at k
(``ndcg.definition.idcg``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mpmath

from ndcgspec.reference.config import Config
from ndcgspec.reference.cutoff import cut


def judged(
    judged_gains: Sequence[mpmath.mpf], retrieved_gains: Sequence[mpmath.mpf]
) -> list[mpmath.mpf]:
    """``ndcg.ideal.judged``: every judged document of the query, retrieved or not."""
    return list(judged_gains)


def retrieved(
    judged_gains: Sequence[mpmath.mpf], retrieved_gains: Sequence[mpmath.mpf]
) -> list[mpmath.mpf]:
    """``ndcg.ideal.retrieved``: only the documents of the ranking."""
    return list(retrieved_gains)


CHOICES: dict[str, Callable[[Sequence[mpmath.mpf], Sequence[mpmath.mpf]], list[mpmath.mpf]]] = {
    "judged": judged,
    "retrieved": retrieved,
}


def every_gain_enters(config: Config) -> bool:
    """Whether zero and negative gains enter the ideal list too
    (``ndcg.negative.keep-in-ideal``), not only the positive ones."""
    return config.choice("negative") == "keep-in-ideal"


def ideal_gains(
    judged_gains: Sequence[mpmath.mpf], retrieved_gains: Sequence[mpmath.mpf], config: Config
) -> list[mpmath.mpf]:
    """The ideal list's gains at ranks 1, 2, ...: positive (every gain under
    ``ndcg.negative.keep-in-ideal``), non-increasing, cut at k."""
    candidates = CHOICES[config.choice("ideal")](judged_gains, retrieved_gains)
    if not every_gain_enters(config):
        candidates = [g for g in candidates if g > 0]
    return cut(sorted(candidates, reverse=True), config)
