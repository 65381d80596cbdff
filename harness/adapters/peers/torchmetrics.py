"""torchmetrics' nDCG as built-in adapters: the module ``RetrievalNormalizedDCG``, whose
``empty_target_action`` the empty axis picks (``ndcgspec run torchmetrics``), and the
functional ``retrieval_normalized_dcg`` called per query (``torchmetrics-functional``).

Both see only the retrieved documents of a query, given as ``preds``/``target`` tensors (the
module groups rows by ``indexes``). torchmetrics computes in float32: it casts float64
predictions down, so the adapters declare float width 32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ndcgspec.harness.adapters.base import CaseInput, Rejected, Values, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    ArraysPeerAdapter,
    QueryArrays,
    query_arrays,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "torchmetrics"
EXTRA = "torchmetrics"
ADAPTERS = {"torchmetrics": "adapter", "torchmetrics-functional": "adapter_functional"}
EMPTY_TARGET_ACTIONS = {"zero": "neg", "one": "pos", "skip": "skip", "error": "error"}
COMMON_CAPABILITIES = {"ideal": ["retrieved"], "ties": ["average"], "negative": ["keep"]}


class TorchmetricsAdapter(ArraysPeerAdapter):
    """``RetrievalNormalizedDCG(top_k=k, empty_target_action=...)(preds, target, indexes)``."""

    def __init__(self) -> None:
        self.torch = require("torch", EXTRA)
        self.retrieval = require("torchmetrics.retrieval", EXTRA)
        super().__init__(
            name="torchmetrics",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                **COMMON_CAPABILITIES,
                "empty": list(EMPTY_TARGET_ACTIONS),
                "aggregate": ["run"],
            },
            float_width=32,
            library=DISTRIBUTION,
        )

    def _metric(
        self, queries: Sequence[QueryArrays], cutoff: int | None, empty: str
    ) -> list[float]:
        """The per-query values the module averages, in query order, and then its mean.

        A callable ``aggregation`` (part of the module's API) receives the values that enter
        the mean; a query skipped by ``empty_target_action='skip'`` never reaches it."""
        torch = self.torch
        entered: list[float] = []

        def mean_of(values: Any, dim: int | None = None) -> Any:
            entered.extend(float(v) for v in values.reshape(-1))
            return values.mean() if dim is None else values.mean(dim=dim)

        metric = self.retrieval.RetrievalNormalizedDCG(
            top_k=cutoff,
            empty_target_action=EMPTY_TARGET_ACTIONS[empty],
            aggregation=mean_of,
        )
        indexes = [i for i, q in enumerate(queries) for _ in q.labels]
        try:
            value = metric(
                torch.tensor([float(v) for q in queries for v in q.scores], dtype=torch.float64),
                torch.tensor([float(v) for q in queries for v in q.labels], dtype=torch.float64),
                indexes=torch.tensor(indexes, dtype=torch.long),
            )
        except ValueError as error:
            raise Rejected(str(error)) from None
        return [*entered, float(value)]

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """Each query alone (undefined when the module leaves it out of the mean), then every
        query in one module for its own mean (which is 0 when every query is left out)."""
        queries = list(query_arrays(case_input, config.choice("aggregate"), retrieved_only=True))
        per_query = {}
        for query in queries:
            values = self._metric([query], config.cutoff, config.choice("empty"))
            per_query[query.qid] = values[0] if len(values) > 1 else None
        mean = self._metric(queries, config.cutoff, config.choice("empty"))[-1]
        return Values.with_aggregate(per_query, mean)


class TorchmetricsFunctionalAdapter(ArraysPeerAdapter):
    """``retrieval_normalized_dcg(preds, target, top_k=k)`` per query."""

    def __init__(self) -> None:
        self.torch = require("torch", EXTRA)
        self.functional = require("torchmetrics.functional.retrieval", EXTRA)
        super().__init__(
            name="torchmetrics-functional",
            version=distribution_version(DISTRIBUTION),
            capabilities={**COMMON_CAPABILITIES, "aggregate": ["run"]},
            float_width=32,
            library=DISTRIBUTION,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each query with a retrieved document (the function refuses empty tensors)."""
        torch = self.torch
        return {
            q.qid: float(
                self.functional.retrieval_normalized_dcg(
                    torch.tensor(q.scores), torch.tensor(q.labels), top_k=config.cutoff
                )
            )
            for q in query_arrays(case_input, config.choice("aggregate"), retrieved_only=True)
        }


adapter = TorchmetricsAdapter
adapter_functional = TorchmetricsFunctionalAdapter
