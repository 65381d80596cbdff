"""The exact reference as a built-in adapter (``ndcgspec run reference``).

It computes every configuration of ``spec/ndcg.yaml`` with mpmath and rounds each result once
to the nearest double, so it meets the comparison rule with room to spare on every case.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ndcgspec.harness.adapters.base import (
    ANY_VALUE,
    Adapter,
    CaseInput,
    Rejected,
    Values,
    distribution_version,
)
from ndcgspec.reference import Config, Judgment, NdcgSpecError, run_from_scores
from ndcgspec.reference.config import choice_axes, parameters
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import add_judgment


def _qrels(case_input: CaseInput) -> dict[str, dict[str, Judgment]]:
    qrels: dict[str, dict[str, Judgment]] = {}
    for number, (qid, docid, label) in enumerate(case_input.qrels, start=1):
        try:
            add_judgment(qrels, qid, docid, Judgment(parse_decimal(label)))
        except InputError as error:
            raise Rejected(f"qrels row {number}: {error}") from None
    return qrels


class ReferenceAdapter(Adapter):
    """Every choice of every axis, computed by ``ndcgspec.reference``."""

    def __init__(self) -> None:
        super().__init__(
            name="ndcgspec-reference",
            version=distribution_version("ndcgspec"),
            # The spec's default first: the reference's native configuration is the default one.
            capabilities={
                a.id: sorted((c.id for c in a.choices), key=lambda c: c != a.default)
                for a in choice_axes()
            },
            params=dict.fromkeys(parameters(), ANY_VALUE),
        )

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        """nDCG per query and aggregate, from the exact reference rounded to doubles."""
        try:
            pairs: dict[str, list[tuple[str, str]]] = {}
            for qid, docid, score in case_input.run:
                pairs.setdefault(qid, []).append((docid, score))
            evaluation = evaluate(
                Config.from_mapping(config), _qrels(case_input), run_from_scores(pairs)
            )
        except NdcgSpecError as error:
            raise Rejected(str(error)) from None
        per_query = {
            q: None if r.ndcg is None else float(r.ndcg) for q, r in evaluation.per_query.items()
        }
        aggregate = None if evaluation.aggregate is None else float(evaluation.aggregate)
        return Values.with_aggregate(per_query, aggregate)


adapter = ReferenceAdapter
