"""Judged@k: the share of a run's top k documents that the qrels judge, per query and mean
(Buckley and Voorhees 2004, on how far a measure had its information; ir_measures' ``Judged``).

The top k are the run's first k documents in trec_eval's order (score descending, ties by
document id descending), duplicates counted once, whatever their label; the share is their
judged count over k. The mean is over the qrels queries the run lists, as trec_eval averages;
queries the run leaves out have no share."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from ndcgspec.reference.inputs import Judgment, Posting

JUDGED = re.compile(r"judged@([1-9][0-9]*)", re.IGNORECASE)


def judged_cutoff(measure: str) -> int | None:
    """k of a ``judged@k`` measure string, or None when it is not one."""
    found = JUDGED.fullmatch(measure.strip())
    return int(found[1]) if found else None


def judged_at(
    qrels: Mapping[str, Mapping[str, Judgment]],
    run: Mapping[str, Sequence[Posting]],
    k: int,
) -> tuple[dict[str, Fraction], Fraction | None]:
    """Per query the run lists (in qrels order), the judged share of its top k, and their
    mean (None when the run lists no qrels query)."""
    shares = {}
    for query, judged in qrels.items():
        postings = run.get(query)
        if not postings:
            continue
        seen: dict[str, None] = {}
        for posting in sorted(postings, key=lambda p: (p.score, p.docid), reverse=True):
            seen.setdefault(posting.docid)
            if len(seen) == k:
                break
        shares[query] = Fraction(sum(doc in judged for doc in seen), k)
    mean = sum(shares.values(), Fraction(0)) / len(shares) if shares else None
    return shares, mean
