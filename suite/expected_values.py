"""The expected object of a case (``expected`` of ``spec/schema/case.schema.json``) as a record:
the values the reference answers (per query and their mean), or the anchor of the choice that
rejects the input (``ndcg.input``). Read from JSON where case files and the cache of expected
values are read, and written back to JSON only where they are written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Digits = str | None
"""A value as a case file writes it: decimal text, or None where it is undefined."""


@dataclass(frozen=True)
class QueryValues:
    """One query's expected nDCG, DCG and IDCG, and which of them the case states (`stated`, in
    its order: a published case prints the nDCG alone)."""

    ndcg: Digits
    dcg: Digits = None
    idcg: Digits = None
    stated: tuple[str, ...] = ("ndcg", "dcg", "idcg")

    @classmethod
    def printed(cls, ndcg: str) -> QueryValues:
        """The nDCG a published table prints, alone."""
        return cls(ndcg, stated=("ndcg",))

    @classmethod
    def from_json(cls, entry: Mapping[str, Digits]) -> QueryValues:
        return cls(entry.get("ndcg"), entry.get("dcg"), entry.get("idcg"), tuple(entry))

    def value(self, what: str) -> Digits:
        """The value named `what`: ``ndcg``, ``dcg`` or ``idcg``."""
        return {"ndcg": self.ndcg, "dcg": self.dcg, "idcg": self.idcg}[what]

    def to_json(self) -> dict[str, Digits]:
        return {name: self.value(name) for name in self.stated}

    def as_tuple(self) -> tuple[Digits, Digits, Digits, tuple[str, ...]]:
        """Every field, in order: a key that hashes and compares without a call into Python."""
        return self.ndcg, self.dcg, self.idcg, self.stated


ValuesKey = tuple[
    str | None,
    Digits,
    bool,
    tuple[tuple[str, tuple[Digits, Digits, Digits, tuple[str, ...]]], ...] | None,
]
"""`ExpectedValues.as_key`: the values as a hashable tuple."""


@dataclass(frozen=True)
class ExpectedValues:
    """What the reference answers for a case: each query's values and their mean, or `error`,
    the anchor of the choice that rejects the input. `per_query` is None where a case states the
    mean alone (a published table's single number), `states_aggregate` false where it states
    the per-query values alone."""

    per_query: Mapping[str, QueryValues] | None = field(default=None)
    aggregate: Digits = None
    error: str | None = None
    states_aggregate: bool = True

    @classmethod
    def rejected(cls, anchor: str) -> ExpectedValues:
        """The outcome of an input the choice at `anchor` rejects."""
        return cls(error=anchor)

    @classmethod
    def from_result(
        cls, per_query: Mapping[str, Mapping[str, Digits]], aggregate: Digits
    ) -> ExpectedValues:
        """The values of a result object: its ``per_query`` entries and ``aggregate``."""
        return cls({q: QueryValues.from_json(v) for q, v in per_query.items()}, aggregate)

    @classmethod
    def from_json(cls, expected: Mapping[str, Any]) -> ExpectedValues:
        """A case's ``expected`` object."""
        if "error" in expected:
            return cls.rejected(expected["error"]["anchor"])
        per_query = expected.get("per_query")
        return cls(
            None
            if per_query is None
            else {q: QueryValues.from_json(v) for q, v in per_query.items()},
            expected.get("aggregate"),
            states_aggregate="aggregate" in expected,
        )

    def ndcg_of(self, qid: str) -> Digits:
        """The nDCG of query `qid`, None when the values do not state it."""
        found = (self.per_query or {}).get(qid)
        return None if found is None else found.ndcg

    def as_key(self) -> ValuesKey:
        """Every field, queries in order: equal exactly when the values and their `to_json`
        are."""
        per_query = (
            None
            if self.per_query is None
            else tuple((q, v.as_tuple()) for q, v in self.per_query.items())
        )
        return self.error, self.aggregate, self.states_aggregate, per_query

    def to_json(self) -> dict[str, Any]:
        """The ``expected`` object, its keys in the case format's order."""
        if self.error is not None:
            return {"error": {"anchor": self.error}}
        found: dict[str, Any] = {}
        if self.per_query is not None:
            found["per_query"] = {q: v.to_json() for q, v in self.per_query.items()}
        return found | ({"aggregate": self.aggregate} if self.states_aggregate else {})
