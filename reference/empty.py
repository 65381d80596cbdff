"""The ``empty`` axis: the score of a query whose IDCG is 0 (``ndcg.empty``).

Each choice takes the query id and n, the length of its ranking (``ndcg.definition.dcg``; None
where the caller does not know it), and returns (nDCG, whether the query enters the mean); an
nDCG of None is undefined.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath

from ndcgspec.reference.contexts import held
from ndcgspec.reference.rejection import rejection

Outcome = tuple[mpmath.mpf | None, bool]


def zero(qid: str, ranked: int | None) -> Outcome:
    """``ndcg.empty.zero``: scores 0 and enters the mean."""
    return held(0), True


def one(qid: str, ranked: int | None) -> Outcome:
    """``ndcg.empty.one``: scores 1 and enters the mean."""
    return held(1), True


def nan(qid: str, ranked: int | None) -> Outcome:
    """``ndcg.empty.nan``: undefined, and it makes the mean undefined."""
    return None, True


def skip(qid: str, ranked: int | None) -> Outcome:
    """``ndcg.empty.skip``: undefined and left out of the mean."""
    return None, False


def error(qid: str, ranked: int | None) -> Outcome:
    """``ndcg.empty.error``: an empty query is rejected."""
    raise rejection("empty", f"query {qid!r} has nothing relevant to find: IDCG is 0")


def agree(qid: str, ranked: int | None) -> Outcome:
    """``ndcg.empty.agree``: 1 when nothing is ranked, else 0; enters the mean.
    Undefined where n is not known: a caller that scores values gives n; one that asks only
    whether an undefined value enters the mean gives None."""
    return (None if ranked is None else held(1 if ranked == 0 else 0)), True


CHOICES: dict[str, Callable[[str, int | None], Outcome]] = {
    "zero": zero,
    "one": one,
    "nan": nan,
    "skip": skip,
    "error": error,
    "agree": agree,
}
