"""The fast engine: the reference's numbers for large TREC files (spec anchor ``ndcg``).

The files are read once into columns (`read`), joined and ranked once (`rank`, `prepared`).
The gain of each distinct label (`label_gains`), the discount of each rank (`discounts`) and
the error a query raises (`fallback`) all come from the plain reference's own functions, so the
definitions live in one place; the arithmetic is exact integer arithmetic with a stated error
bound (`fixed_point`), one rounding per output (``ndcg.precision``): each query's DCG and IDCG
(``ndcg.definition.dcg``, ``ndcg.definition.idcg``) lie between two integers and round from
them (`query_bounds`), and the mean (``ndcg.aggregate``) is an exact `mean.MeanPart`, rounded
once. What cannot be rounded from bounds is computed by the reference (`fallback`).

`stream` feeds it one block of queries at a time; input the columnar reader does not handle
(or input errors) is scored by the plain reference, with the reason logged on the ``ndcgspec``
logger (set ``NDCGSPEC_LOG=INFO`` to see it).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ndcgspec.engine.credits import credited_gains
from ndcgspec.engine.discounts import discounts_of
from ndcgspec.engine.fallback import raise_first_error, reference_results, reference_share
from ndcgspec.engine.ideal import CHOICES as IDEAL_LISTS
from ndcgspec.engine.ideal import IdealInputs, cut_runs
from ndcgspec.engine.mean import MeanPart, NeedsMoreDigits
from ndcgspec.engine.prepared import Prepared
from ndcgspec.engine.query_bounds import (
    QueryBounds,
    dcg_bounds,
    ideal_sum,
    query_result,
    query_share,
)
from ndcgspec.engine.result_digits import Entries, ResultDigits
from ndcgspec.engine.route import LOG
from ndcgspec.reference import aggregate
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import plain_digits
from ndcgspec.reference.evaluate import Evaluation
from ndcgspec.reference.ideal import every_gain_enters
from ndcgspec.reference.precision import working_precision


def _scored_queries(prep: Prepared, config: Config) -> list[int]:
    """The queries the aggregate axis scores, in qrels order (``ndcg.aggregate``)."""
    return aggregate.CHOICES[config.choice("aggregate")](
        range(len(prep.qrels.qids)), np.flatnonzero(prep.run.present).tolist()
    )


def _by_reference(
    prep: Prepared, config: Config, queries: list[int], per_query: bool
) -> tuple[Entries, MeanPart]:
    """`evaluate_queries` by the plain reference, every query's entry kept with `per_query`."""
    entries, total = reference_share(reference_results(prep, config, queries))
    return entries if per_query else {}, total


def evaluate_queries(
    prep: Prepared, config: Config, per_query: bool = True
) -> tuple[Entries, MeanPart]:
    """Each scored query's entry of the result object, correctly rounded, and their share of
    the mean: what a block of queries contributes (``ndcg.precision``). Without `per_query`
    no entry is made (none is rounded: `query_share`), only the share."""
    choices = {a: config.choice(a) for a in ("duplicates", "unjudged", "ties", "empty")}
    k = config.cutoff
    classes = prep.gain_classes(config)
    queries = _scored_queries(prep, config)
    if classes.gains is None:
        LOG.info("gains whose enclosures are not apart: the reference scores every query")
        return _by_reference(prep, config, queries, per_query)
    ranking = prep.ranking(classes, choices)
    credits = credited_gains(classes, ranking, choices["ties"] == "average")
    sources = IdealInputs(
        judged_qidx=prep.qrels.qidx,
        judged_class=classes.of_label[prep.qrels.label_id],
        ranking=ranking,
        zero=classes.zero,
        classes=len(classes.gains),
        values=credits.values,
        credit=credits.credit,
        every_gain=every_gain_enters(config),
        cutoff=k,
    )
    found = IDEAL_LISTS[config.choice("ideal")](sources)
    if found is None:
        LOG.info("credited gains whose enclosures are not apart: the reference scores every query")
        return _by_reference(prep, config, queries, per_query)
    ideal = cut_runs(found)
    counted = ranking.rank <= k if k is not None else np.ones(len(ranking.rank), bool)
    # A credit of zero adds nothing to the DCG: only credits not exactly 0 meet a discount.
    counted &= credits.nonzero[credits.credit]
    rows = np.flatnonzero(counted)
    ideal_depth = max((sum(count for _, count in runs) for runs in ideal.values()), default=0)
    ranked_depth = int(ranking.rank[rows].max()) if len(rows) else 0
    discounts = discounts_of(config, max(ranked_depth, ideal_depth))
    fixed = credits.fixed
    idcg_of = {q: ideal_sum(runs, fixed, discounts) for q, runs in ideal.items()}
    raise_first_error(prep, config, classes, ranking, idcg_of, queries)
    dcg_of = dcg_bounds(
        ranking.qidx[rows], credits.credit[rows], ranking.rank[rows], fixed, discounts
    )
    lengths = sources.ranked_lengths
    entries: Entries = {}
    total = MeanPart()
    for q in queries:
        bounds = QueryBounds(dcg_of.get(q, (0, 0)), idcg_of.get(q, (0, 0)))
        qid = prep.qrels.qids[q]
        inputs = partial(prep.query_inputs, q)
        if per_query:
            entries[qid], part = query_result(config, qid, bounds, inputs, lengths.get(q, 0))
        else:
            part = query_share(config, qid, bounds, inputs, lengths.get(q, 0))
        total = total.combine(part)
    return entries, total


def evaluate_prepared(prep: Prepared, config: Config) -> ResultDigits:
    """The result of `config`, equal to the plain reference's digit for digit."""
    per_query, total = evaluate_queries(prep, config)
    try:
        mean = total.rounded_mean()
    except NeedsMoreDigits:
        LOG.info("the mean lies too near a rounding boundary: the reference takes it over")
        results = reference_results(prep, config, _scored_queries(prep, config))
        with working_precision():
            mean = aggregate.mean({q: (r.value, r.in_mean) for q, r in results.items()})
            return ResultDigits.of(Evaluation(config, results, mean))
    return ResultDigits(config, None if mean is None else plain_digits(mean), per_query)
