"""nDCG of a run against qrels: per query and aggregated (``ndcg.aggregate``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath

from ndcgspec.reference import aggregate
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import DPS
from ndcgspec.reference.discount import RankWeights
from ndcgspec.reference.inputs import Qrels, Run
from ndcgspec.reference.precision import decimal_string, working_precision
from ndcgspec.reference.query import QueryResult, evaluate_query
from ndcgspec.spec import load_spec


@dataclass(frozen=True)
class Evaluation:
    """The per-query results, in qrels order, and their mean (None when undefined)."""

    config: Config
    per_query: dict[str, QueryResult]
    aggregate: mpmath.mpf | None

    def to_json(self) -> dict[str, Any]:
        """The JSON result object of scoring (a contract): what ``ndcgspec score --format
        json`` prints but the measure as written, which `result.Result` adds."""
        return result_object(
            self.config,
            decimal_string(self.aggregate),
            {qid: query_object(r) for qid, r in self.per_query.items()},
        )


def query_object(result: QueryResult) -> dict[str, str | None]:
    """One query's entry of the result object: its values as decimal strings."""
    return {
        "ndcg": decimal_string(result.ndcg),
        "dcg": decimal_string(result.dcg),
        "idcg": decimal_string(result.idcg),
    }


def result_object(
    config: Config, aggregate: str | None, per_query: dict[str, dict[str, str | None]]
) -> dict[str, Any]:
    """The JSON result object of scoring (`Evaluation.to_json`), from the decimal strings of
    the values."""
    return {
        "measure": config.canonical(),
        "fingerprint": config.fingerprint(),
        "spec_version": load_spec()["spec_version"],
        "aggregate": aggregate,
        "per_query": per_query,
    }


def evaluate(
    config: Config, qrels: Qrels, run: Run, dps: int = DPS, weights: RankWeights | None = None
) -> Evaluation:
    """Score `run` against `qrels` under `config`; `dps` is the working precision of the
    values the results hold and of the explain trace (``ndcg.precision``). `weights` are the
    configuration's discounts, for a caller that evaluates it many times and keeps them (the
    evaluation's own when not given)."""
    with working_precision(dps):
        queries = aggregate.CHOICES[config.choice("aggregate")](qrels.keys(), run.keys())
        weights = weights or RankWeights(config)
        per_query = {
            q: evaluate_query(q, qrels[q], run.get(q, ()), config, weights) for q in queries
        }
        mean = aggregate.mean({q: (r.value, r.in_mean) for q, r in per_query.items()})
    return Evaluation(config, per_query, mean)
