"""What the engine hands to the reference, which computes it exactly (``ndcg``): a query whose
bounds cannot round a value, at higher precision as it needs (``ndcg.precision``); every query
of a configuration whose gains are not ordered by their enclosures; the mean when its bounds
straddle a rounding boundary (``ndcg.aggregate``); and the first query that is an error under
a configuration, which the reference evaluates so that the error raised is its own, with its
message and ``file:line``. The reference's discounts are kept across these calls
(`discounts.kept_weights`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ndcgspec.engine.discounts import kept_weights
from ndcgspec.engine.fixed_point import Bounds
from ndcgspec.engine.label_gains import LABEL_ERROR, GainClasses
from ndcgspec.engine.mean import MeanPart
from ndcgspec.engine.prepared import Prepared
from ndcgspec.engine.rank import ConfigRanking
from ndcgspec.engine.result_digits import Entries
from ndcgspec.engine.route import LOG
from ndcgspec.reference.config import Config
from ndcgspec.reference.evaluate import query_object
from ndcgspec.reference.ideal import every_gain_enters
from ndcgspec.reference.inputs import Judgment, Posting
from ndcgspec.reference.precision import working_precision
from ndcgspec.reference.query import QueryResult, evaluate_query


def reference_result(
    config: Config, qid: str, judgments: Mapping[str, Judgment], postings: Sequence[Posting]
) -> QueryResult:
    """The reference's result of one query, at the precision it needs (``ndcg.precision``)."""
    with working_precision():
        return evaluate_query(qid, judgments, postings, config, kept_weights(config))


def reference_results(prep: Prepared, config: Config, queries: list[int]) -> dict[str, QueryResult]:
    """The reference's results of the given queries of the columns."""
    return {
        prep.qrels.qids[q]: reference_result(config, prep.qrels.qids[q], *prep.query_inputs(q))
        for q in queries
    }


def reference_share(
    results: Mapping[str, QueryResult],
) -> tuple[Entries, MeanPart]:
    """`evaluate_queries` of queries the plain reference evaluated: each one's entry of the
    result object and their share of the mean."""
    total = MeanPart()
    for result in results.values():
        total = total.combine(MeanPart.of_real(result.value, result.in_mean))
    return {q: query_object(r) for q, r in results.items()}, total


def raise_first_error(
    prep: Prepared,
    config: Config,
    classes: GainClasses,
    ranking: ConfigRanking,
    idcg_of: dict[int, Bounds],
    queries: list[int],
) -> None:
    """Let the reference evaluate the first query that is an error under `config`, so the
    error it raises is the reference's own."""
    flagged = np.zeros(len(prep.qrels.qids), bool)
    label_class = classes.of_label[prep.qrels.label_id]
    flagged[prep.qrels.qidx[label_class == LABEL_ERROR]] = True
    if config.choice("duplicates") == "error":
        flagged[: len(prep.ranked.has_duplicates)] |= prep.ranked.has_duplicates
    if config.choice("unjudged") == "error":
        flagged[ranking.unjudged_queries] = True
    if config.choice("empty") == "error":
        # Only positive gains make an ideal list unless zero and negative ones enter it too;
        # then a query with an ideal list may still have an IDCG of 0 or below (and one whose
        # bounds straddle 0 is left to the reference).
        has_ideal = np.zeros(len(flagged), bool)
        every_gain = every_gain_enters(config)
        has_ideal[[q for q, (low, _) in idcg_of.items() if not every_gain or low > 0]] = True
        flagged |= ~has_ideal
    for q in queries:
        if flagged[q]:
            reference_result(config, prep.qrels.qids[q], *prep.query_inputs(q))
            LOG.warning("query %s was flagged as an error but the reference accepts it", q)
