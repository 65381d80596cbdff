"""An adapter's answer for one case: a result object of the protocol's run reply
(``spec/schema/protocol/run-reply.json``), or the error the harness records for a case whose
adapter process failed on it (``harness/pool.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CaseAnswer:
    """Values (`per_query`, and the `aggregate` when the adapter gives one: `has_aggregate`),
    a rejection of the input (`rejected`, the reason), or an `error` with the adapter's
    `detail`; `process_failed` when the error is the process's, not an exception the adapter
    reported. `result` is the result object it was read from (none for an answer the host
    makes), as the survey reads and keeps it."""

    per_query: Mapping[str, Any] | None = None
    aggregate: float | None = None
    has_aggregate: bool = False
    rejected: str | None = None
    error: str | None = None
    detail: str | None = None
    process_failed: bool = field(default=False, kw_only=True)
    result: Mapping[str, Any] = field(default_factory=dict, kw_only=True, repr=False, compare=False)

    @classmethod
    def from_json(cls, result: Mapping[str, Any]) -> CaseAnswer:
        """The answer of a result object (the protocol's, or the pool's for a failed
        process)."""
        return cls(
            per_query=result.get("per_query"),
            aggregate=result.get("aggregate"),
            has_aggregate="aggregate" in result,
            rejected=result.get("rejected"),
            error=result.get("error"),
            detail=result.get("detail"),
            process_failed=bool(result.get("process_failed")),
            result=result,
        )

    def to_json(self, case_id: str) -> dict[str, Any]:
        """The result object of case `case_id` in a ``run`` reply."""
        if self.rejected is not None:
            return {"id": case_id, "rejected": self.rejected}
        if self.error is not None:
            detail = {} if self.detail is None else {"detail": self.detail}
            return {"id": case_id, "error": self.error, **detail}
        values: dict[str, Any] = {"id": case_id, "per_query": dict(self.per_query or {})}
        if self.has_aggregate:
            values["aggregate"] = self.aggregate
        return values
