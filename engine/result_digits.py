"""One configuration's result as the engine hands it on (``ndcg.precision``): the decimal
string of every value, correctly rounded to the output digits, per query in qrels order and
for the mean (``ndcg.aggregate``), None where undefined (``ndcg.empty.nan``). `to_json` writes
it as the JSON result object of scoring, the contract ``ndcgspec score --format json`` prints
(`reference.evaluate.result_object`); the engine's and the reference's are equal digit for
digit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ndcgspec.reference.config import Config
from ndcgspec.reference.evaluate import Evaluation, query_object, result_object
from ndcgspec.reference.precision import decimal_string

# Each query's entry of the result object (`reference.evaluate.query_object`), by query id.
Entries = dict[str, dict[str, str | None]]


@dataclass(frozen=True)
class ResultDigits:
    """The digits of `config`'s mean (`aggregate`) and of each query's nDCG, DCG and IDCG
    (`per_query`, in qrels order)."""

    config: Config
    aggregate: str | None
    per_query: Entries

    @classmethod
    def of(cls, evaluation: Evaluation) -> ResultDigits:
        """The digits of the reference's own evaluation, as `Evaluation.to_json` writes
        them."""
        per_query = {qid: query_object(r) for qid, r in evaluation.per_query.items()}
        return cls(evaluation.config, decimal_string(evaluation.aggregate), per_query)

    def to_json(self) -> dict[str, Any]:
        """The JSON result object of scoring."""
        return result_object(self.config, self.aggregate, self.per_query)
