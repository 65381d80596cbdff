"""An adapter's answer to one probe, as the survey reads it: the protocol's result object,
whether it failed, rejected the input, and for what reason (``survey/reasons.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ndcgspec.survey.reasons import crashed_by_its_code, failure_key, refusal_key


@dataclass(frozen=True)
class Answer:
    """An adapter's reply for one (input, asked configuration): the protocol result object."""

    result: Mapping[str, Any]

    @property
    def failed(self) -> bool:
        """Whether the adapter raised or its process failed (not a deliberate rejection)."""
        return "error" in self.result

    @property
    def process_failed(self) -> bool:
        """Whether the adapter's process crashed, hung or was not sent the question: a
        failure of the machine's moment, where an exception the adapter raised is its answer
        to the input (``harness/pool.py`` marks the first kind)."""
        return bool(self.result.get("process_failed"))

    @property
    def crashed_by_its_code(self) -> bool:
        """Whether the process failed because the adapter's own code killed it on this input
        (a segfault, ``survey/reasons.py``). The pool sends a case alone again when its
        batch's process fails, so such a failure is the input's own, whatever the load."""
        return self.process_failed and crashed_by_its_code(self.result.get("error", ""))

    @property
    def refusal(self) -> str | None:
        """The name of the adapter's rejection (`refusal_key`), None when it did not reject."""
        return refusal_key(self.result["rejected"]) if "rejected" in self.result else None

    @property
    def failure(self) -> str | None:
        """The name of the adapter's failure (`failure_key`), None when it did not fail."""
        return failure_key(self.result["error"]) if self.failed else None
