"""Which queries each input of a comparison lacks that another lists: a gate that compares a
candidate run with a baseline (``diff``) is sound only over the same queries, since under
``ndcg.aggregate.run`` a run that drops a hard query raises its mean, and under
``ndcg.aggregate.qrels`` it scores 0 there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Coverage:
    """For each input by its role (``qrels``, ``baseline``, ``candidate``), the queries it
    lacks that another input lists, in order of first listing (the inputs in the order
    given)."""

    lacking: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(cls, listed: Mapping[str, Sequence[str]]) -> Coverage:
        """The coverage of inputs listing the queries `listed` gives by role."""
        every = dict.fromkeys(q for queries in listed.values() for q in queries)
        lacking = {}
        for role, queries in listed.items():
            held = frozenset(queries)
            lacking[role] = tuple(q for q in every if q not in held)
        return cls(lacking)

    def complete(self) -> bool:
        """Whether every input lists every query."""
        return not any(self.lacking.values())

    def reasons(self) -> list[str]:
        """One sentence per input that lacks queries, naming the first five."""
        out = []
        for role, queries in self.lacking.items():
            if queries:
                shown = ", ".join(repr(q) for q in queries[:5])
                more = ", ..." if len(queries) > 5 else ""
                counted = "1 query" if len(queries) == 1 else f"{len(queries)} queries"
                out.append(f"the {role} lacks {counted} of the others ({shown}{more})")
        return out
