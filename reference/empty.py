"""The ``empty`` axis: the score of a query whose IDCG is 0 (``ndcg.empty``).

Each choice returns (nDCG, whether the query enters the mean); an nDCG of None is undefined.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath

from ndcgspec.reference.contexts import held
from ndcgspec.reference.rejection import rejection

Outcome = tuple[mpmath.mpf | None, bool]


def zero(qid: str) -> Outcome:
    """``ndcg.empty.zero``: scores 0 and enters the mean."""
    return held(0), True


def one(qid: str) -> Outcome:
    """``ndcg.empty.one``: scores 1 and enters the mean."""
    return held(1), True


def nan(qid: str) -> Outcome:
    """``ndcg.empty.nan``: undefined, and it makes the mean undefined."""
    return None, True


def skip(qid: str) -> Outcome:
    """``ndcg.empty.skip``: undefined and left out of the mean."""
    return None, False


def error(qid: str) -> Outcome:
    """``ndcg.empty.error``: an empty query is rejected."""
    raise rejection("empty", f"query {qid!r} has nothing relevant to find: IDCG is 0")


CHOICES: dict[str, Callable[[str], Outcome]] = {
    "zero": zero,
    "one": one,
    "nan": nan,
    "skip": skip,
    "error": error,
}
