"""The conditions on an input under which a built-in peer departs, as ``spec/presets.yaml``
lists them (``conditions``) and a preset's departure names one (``when``): `run` and the pytest
plugin mark a failing result as the declared departure on every input that meets it, not only
on the probe cases the departure lists.

The trec_eval 10.0 conditions follow the program's own order of stopping (trec_eval.c main,
get_qrels.c, get_trec_results.c, form_res_rels.c, utility_pool.c te_chk_and_malloc), walked by
`trec_eval_10_stop`: an empty qrels or run file stops it before anything is evaluated; then the
qrels queries are evaluated in strcmp order of their ids, and the first of them that stops the
program decides. A query stops it when the run lacks it (without -c), when its ranking or its
judgments repeat a document (the spec's ``duplicates: error`` expects that refusal), or when its
highest judgment (read with atol) is below 0: ``rel_levels`` is then sized ``max_rel + 1 <= 0``,
which te_chk_and_malloc answers with the buffer it already has, NULL before any query allocated
one (the measure cannot be computed, exit 4) and otherwise a buffer that memset is asked to clear
with a negative size when ``max_rel + 1 < 0`` (SIGSEGV).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from ndcgspec.measures.trec_eval_names import atol
from ndcgspec.reference import Config
from ndcgspec.reference.aggregate import CHOICES as AGGREGATE_CHOICES

Rows = Mapping[str, Sequence[Sequence[str]]]
"""A case's input as protocol rows: ``{"qrels": [[qid, docid, label]], "run": [[qid, docid,
score]]}``."""
Condition = Callable[[Rows, Config], bool]

QRELS_EMPTY = "trec_eval-10-empty-qrels"
RUN_EMPTY = "trec_eval-10-empty-run"
QUERY_MISSING = "trec_eval-10-query-missing"
DUPLICATE = "trec_eval-10-duplicate"
NO_LEVEL_FIRST = "trec_eval-10-no-level-first"
NO_LEVEL_AFTER = "trec_eval-10-no-level-after"
SKLEARN_ONE_DOCUMENT = "sklearn-one-document"
NO_SCORED_ROW = "arrays-no-scored-row"
BOGUS_DOCNO = "ceci_nest_pas_un_docno"
"""The one document of the ranking trec_eval -c evaluates for a qrels query the run lacks."""


def trec_eval_10_stop(rows: Rows, complete: bool) -> str | None:
    """Where trec_eval 10.0 stops on the input (one of the ids above), or None when it
    evaluates every query; `complete` is -c. A label beyond C's long, where atol is undefined,
    is the OverflowError of `atol`."""
    if not rows["qrels"]:
        return QRELS_EMPTY
    if not rows["run"]:
        return RUN_EMPTY
    judged: dict[str, list[tuple[str, int]]] = {}
    for qid, docid, label in rows["qrels"]:
        judged.setdefault(qid, []).append((docid, atol(label)))
    ranked: dict[str, list[str]] = {}
    for qid, docid, _ in rows["run"]:
        ranked.setdefault(qid, []).append(docid)
    allocated = False
    for qid in sorted(judged, key=lambda q: q.encode("utf-8")):
        ranking = ranked.get(qid, [BOGUS_DOCNO] if complete else None)
        if ranking is None:
            return QUERY_MISSING
        docids = [docid for docid, _ in judged[qid]]
        if len(set(ranking)) < len(ranking) or len(set(docids)) < len(docids):
            return DUPLICATE
        levels = max(level for _, level in judged[qid]) + 1
        if levels > 0:
            allocated = True
        elif not allocated:
            return NO_LEVEL_FIRST
        elif levels < 0:
            return NO_LEVEL_AFTER
    return None


def _trec_eval_10_stops_at(where: str) -> Condition:
    def condition(rows: Rows, config: Config) -> bool:
        try:
            return trec_eval_10_stop(rows, config.choice("aggregate") == "qrels") == where
        except OverflowError:
            # What trec_eval does with such a label is undefined: no departure is declared.
            return False

    condition.__doc__ = f"trec_eval 10.0 stops first at {where} (`trec_eval_10_stop`)."
    return condition


def sklearn_one_document(rows: Rows, config: Config) -> bool:
    """A query the ``aggregate`` axis scores has exactly one retrieved document: the row of one
    document that ``ndcg_score`` refuses (sklearn/metrics/_ranking.py ndcg_score, 'Computing
    NDCG is only meaningful when there is more than 1 document'); its adapter gives it one row
    per scored query of the retrieved documents."""
    return 1 in _retrieved_per_scored_query(rows, config)


def no_scored_row(rows: Rows, config: Config) -> bool:
    """No query the ``aggregate`` axis scores has a retrieved document: an API of per-query
    label and score arrays (``query_arrays`` of harness/adapters/peers/common.py, which leaves
    out a query without a retrieved row) is given no row at all, where the spec's mean over no
    query is undefined. torchmetrics' RetrievalNormalizedDCG and LightGBM's Dataset refuse it,
    XGBoost's ndcg gives 0.0 and CatBoost's eval_metric dies with SIGSEGV (their presets'
    departures)."""
    return not any(_retrieved_per_scored_query(rows, config))


def _retrieved_per_scored_query(rows: Rows, config: Config) -> list[int]:
    """How many documents the run retrieves for each query the ``aggregate`` axis scores: the
    rows an adapter of per-query arrays gives its library."""
    retrieved = Counter(qid for qid, _, _ in rows["run"])
    judged = dict.fromkeys(qid for qid, _, _ in rows["qrels"])
    scored = AGGREGATE_CHOICES[config.choice("aggregate")](judged, dict.fromkeys(retrieved))
    return [retrieved[qid] for qid in scored]


CONDITIONS: Mapping[str, Condition] = MappingProxyType(
    {
        **{
            where: _trec_eval_10_stops_at(where)
            for where in (QRELS_EMPTY, RUN_EMPTY, QUERY_MISSING, NO_LEVEL_FIRST, NO_LEVEL_AFTER)
        },
        SKLEARN_ONE_DOCUMENT: sklearn_one_document,
        NO_SCORED_ROW: no_scored_row,
    }
)
"""Every condition ``spec/presets.yaml`` lists, by id."""
