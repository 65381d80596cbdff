"""What ``ndcgspec score`` says beside the numbers: the queries of the qrels missing from the
run (the trec_eval ``-c`` question, ``ndcg.aggregate``), the run's queries the qrels lack, a
run and qrels that share no query (an error), and values rounded for reading.

Whether a qrels query is missing from the run decides, under ``ndcg.aggregate.qrels``, a 0 that
enters the mean and, under ``ndcg.aggregate.run``, a query left out: the same run scores
differently, so it is said on stderr, never silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import rounding
from ndcgspec.reference.errors import InputError

if TYPE_CHECKING:
    # A type only: `explain`, which prints through this module's `rounded`, needs no engine.
    from ndcgspec.engine.stream import QueryPresence


def query_probes() -> list[Config]:
    """Two configurations whose results list the qrels queries and the queries in both files
    (``ndcg.aggregate.qrels`` / ``ndcg.aggregate.run``); duplicates=first so that they refuse
    nothing the measures asked for would accept. Only their queries are read, so they cut the
    ranking at 1: each query costs one term, and no input that the whole ranking accepts is
    refused at rank 1 (labels, duplicates and empty ideal lists do not depend on the cutoff)."""
    every = Config.default().replace(duplicates="first", cutoff=1)
    return [every, every.replace(aggregate="run")]


def missing_note(missing: Sequence[str], qrels_queries: int, run: str | None = None) -> str:
    """One line naming the missing queries (and the `run`, among several) and what each
    aggregate choice does with them."""
    named = f" {run}" if run else ""
    return (
        f"ndcgspec: note: {len(missing)} of {qrels_queries} qrels queries are not in the "
        f"run{named} ({_shown(missing)}): aggregate=qrels scores them 0 in the mean "
        "(trec_eval -c, ir_measures), aggregate=run leaves them out (pytrec_eval; trec_eval "
        "10.0 without -c stops instead)"
    )


def unjudged_note(unjudged: Sequence[str], run: str | None = None) -> str:
    """One line naming the run's queries that the qrels lack (and the `run`, among
    several), which no aggregate scores."""
    named = f" {run}" if run else ""
    counted = "1 query" if len(unjudged) == 1 else f"{len(unjudged)} queries"
    return (
        f"ndcgspec: note: {counted} of the run{named} not in the qrels "
        f"({_shown(unjudged)}): no aggregate scores them (ndcg.definition.inputs)"
    )


def check_shared(presence: QueryPresence, qrels: str, run: str) -> None:
    """Raise InputError when the run and the qrels share no query: every aggregate would
    score nothing of the run (a mean of 0 or none), which is never what was meant."""
    if presence.in_run:
        return
    raise InputError(
        f"the run {run} and the qrels {qrels} share no query (the run's: "
        f"{_shown(presence.unjudged)}; the qrels': {_shown(presence.qrels)}): nothing to score"
    )


def _shown(queries: Sequence[str]) -> str:
    """The first five queries, quoted, and an ellipsis for the rest."""
    return ", ".join(repr(q) for q in queries[:5]) + (", ..." if len(queries) > 5 else "")


def rounded(exact: Decimal | None, digits: int | None) -> str | None:
    """A decimal written rounded half to even to `digits` decimal places (None keeps all its
    digits), without exponent; None stays None."""
    if exact is None:
        return None
    if digits is None:
        return format(exact, "f")
    # The result holds the integer part's digits and `digits` more: a context that narrow (the
    # default one has 28) would refuse to round 40 places.
    context = rounding(max(exact.adjusted() + 1, 1) + digits)
    return format(exact.quantize(Decimal(1).scaleb(-digits), context=context), "f")
