"""Properties of nDCG that hold under every configuration the spec allows (anchor ``ndcg``),
checked on small random queries drawn with hypothesis.

Comparisons that the mathematics makes exact but 50-digit arithmetic may round allow a relative
error of 10^-(dps − 5), far below any digit the reference reports.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import Decimal
from itertools import pairwise, permutations, product
from typing import Any

import mpmath
import pytest
from conftest import choice_axes, config_mappings, decimals_within, examples, spec_param
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ndcgspec.reference import (
    Config,
    Evaluation,
    InputError,
    QueryResult,
    qrels_from_labels,
    run_from_scores,
)
from ndcgspec.reference.cutoff import cuts_nothing
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.spec import load_spec

DPS: int = load_spec()["precision"]["dps"]
# Every output is its true value correctly rounded to output_digits significant digits
# (``ndcg.precision``), so within half a unit of the last digit; two outputs, or an output and
# a value the test derives from them, agree within a unit of the last digit.
EPSILON = mpmath.mpf(10) ** -(load_spec()["precision"]["output_digits"] - 1)
COMPARED_DIGITS = 30
EXAMPLES = settings(max_examples=examples(100), deadline=None)

Labels = dict[str, str]
Postings = list[tuple[str, str]]

# Choices that raise on some inputs or leave a query undefined are excluded where a property
# needs a number for every query.
ALWAYS_DEFINED = {
    "unjudged": {"error"},
    "negative": {"error"},
    "fractional": {"error"},
    "empty": {"error", "nan", "skip"},
}
SMALL_CUTOFFS = st.one_of(st.none(), st.integers(1, 9))
grades = st.one_of(st.integers(0, 4), st.decimals(0, 4, places=1)).map(str)
binary_grades = st.sampled_from(["0", "1"])
tied_scores = st.integers(0, 4).map(str)


def close(a: mpmath.mpf, b: mpmath.mpf) -> bool:
    return abs(a - b) <= EPSILON * max(1, abs(a), abs(b))


def at_most(a: mpmath.mpf, b: mpmath.mpf) -> bool:
    return a <= b + EPSILON * max(1, abs(b))


@st.composite
def queries(
    draw: st.DrawFn,
    labels: st.SearchStrategy[str] = grades,
    scores: st.SearchStrategy[str] = tied_scores,
    with_unjudged: bool = True,
) -> tuple[Labels, Postings]:
    """One query: its judgments (some retrieved, some not) and its run (unique doc ids)."""
    size = draw(st.integers(1, 7))
    run = [(f"d{i}", draw(scores)) for i in range(size)]
    judged = {docid: draw(labels) for docid, _ in run if not with_unjudged or draw(st.booleans())}
    unretrieved = draw(st.lists(labels, max_size=3)) if with_unjudged else []
    judged.update({f"x{i}": label for i, label in enumerate(unretrieved)})
    return judged, run


def evaluated(
    mapping: Mapping[str, Any],
    qrels: Mapping[str, Labels],
    run: Mapping[str, Postings],
    dps: int = DPS,
) -> Evaluation:
    return evaluate(
        Config.from_mapping(mapping), qrels_from_labels(qrels), run_from_scores(run), dps=dps
    )


def one(mapping: Mapping[str, Any], judged: Labels, postings: Postings) -> QueryResult:
    return evaluated(mapping, {"q": judged}, {"q": postings}).per_query["q"]


def configs(
    excluded: Mapping[str, set[str]] = ALWAYS_DEFINED, **only: str | list[str]
) -> st.SearchStrategy[dict[str, Any]]:
    """Configuration objects without the `excluded` choices, and with the axes named in `only`
    restricted to the choice ids given there."""
    narrowed = {axis: set(ids) for axis, ids in excluded.items()}
    for axis, kept in only.items():
        wanted = {kept} if isinstance(kept, str) else set(kept)
        ids = {c["id"] for a in choice_axes() if a["id"] == axis for c in a["choices"]}
        narrowed[axis] = narrowed.get(axis, set()) | (ids - wanted)
    return config_mappings(excluded=narrowed, cutoffs=SMALL_CUTOFFS)


@pytest.fixture(autouse=True, scope="module")
def spec_precision() -> Iterator[None]:
    """The tests' own arithmetic on results runs at the spec's precision too."""
    with mpmath.workdps(DPS):
        yield


@EXAMPLES
@given(configs(), queries())
def test_ndcg_lies_in_the_unit_interval(mapping: dict[str, Any], query: tuple) -> None:
    result = one(mapping, *query)
    assert result.ndcg is not None
    assert result.ndcg >= 0
    assert at_most(result.ndcg, mpmath.mpf(1))


# The ideal choices whose ideal list is a reordering of the ranking cut where the ranking is:
# uncut sums relevant documents beyond k, and assumed-k assumes k relevant documents,
# so a perfect ranking may score below 1 under them (ndcg.ideal).
REACHABLE_IDEALS = ["judged", "retrieved", "cut-at-n", "top-k"]


@EXAMPLES
@given(
    configs(gain=["linear", "exponential"], ideal=REACHABLE_IDEALS),
    st.lists(grades, min_size=1, max_size=7),
)
def test_any_ordering_by_non_increasing_gain_scores_one(
    mapping: dict[str, Any], labels: list[str]
) -> None:
    assume(any(Decimal(label) > 0 for label in labels))
    # The score is the label: equal labels tie, so every tie rule orders by non-increasing gain.
    judged = {f"d{i}": label for i, label in enumerate(labels)}
    postings = [(f"d{i}", label) for i, label in enumerate(labels)]
    result = one({**mapping, "fractional": "keep"}, judged, postings)
    assert result.ndcg is not None and close(result.ndcg, mpmath.mpf(1))


@EXAMPLES
@given(
    configs(discount="log"),
    st.lists(
        st.one_of(st.just("e"), decimals_within(spec_param("log_base")).map(str)),
        min_size=2,
        max_size=2,
    ),
    queries(),
)
def test_log_base_cancels_in_ndcg(mapping: dict[str, Any], bases: list[str], query: tuple) -> None:
    first, second = (one({**mapping, "log_base": base}, *query) for base in bases)
    assume(first.idcg > 0)
    assert close(first.ndcg, second.ndcg)
    # DCG itself scales with ln(b): DCG_b = ln(b) · Σ g / ln(i + o).
    ln = [mpmath.mpf(1) if b == "e" else mpmath.log(mpmath.mpf(b)) for b in bases]
    assert close(first.dcg / ln[0], second.dcg / ln[1])


@EXAMPLES
@given(configs(gain=["linear", "exponential"]), queries(binary_grades))
def test_linear_equals_exponential_on_binary_labels(mapping: dict[str, Any], query: tuple) -> None:
    linear = one({**mapping, "gain": "linear"}, *query)
    exponential = one({**mapping, "gain": "exponential"}, *query)
    assert (linear.ndcg, linear.dcg, linear.idcg) == (
        exponential.ndcg,
        exponential.dcg,
        exponential.idcg,
    )


def scored(config: Config, qrels: Mapping[str, Labels], run: Mapping[str, Postings]) -> Any:
    """Each query's values, whether it enters the mean, and the mean; or the error raised."""
    try:
        found = evaluate(config, qrels_from_labels(qrels), run_from_scores(run))
    except InputError as error:
        return str(error)
    values = {q: (r.ndcg, r.dcg, r.idcg, r.in_mean) for q, r in found.per_query.items()}
    return values, found.aggregate


@EXAMPLES
@given(
    config_mappings(),
    st.lists(queries(), min_size=1, max_size=3),
    st.booleans(),
    st.integers(0, 3),
)
def test_a_cutoff_past_every_list_is_the_whole_ranking(
    mapping: dict[str, Any], drawn: list[tuple[Labels, Postings]], one_unranked: bool, past: int
) -> None:
    """``ndcg.cutoff``: where `cuts_nothing` says k cuts nothing, as at or past every query's
    rows in the run and in the qrels, every value and every error is the null cutoff's (a
    query may have no ranking at all, and every choice is drawn, errors and empty rules
    included)."""
    qrels = {f"q{i}": judged for i, (judged, _) in enumerate(drawn)}
    run = {f"q{i}": postings for i, (_, postings) in enumerate(drawn)}
    if one_unranked and len(run) > 1:
        del run["q0"]
    longest = max(len(rows) for rows in [*qrels.values(), *run.values()])
    config = Config.from_mapping({**mapping, "cutoff": longest + past})
    assume(cuts_nothing(config, longest))
    whole = Config.from_mapping({**mapping, "cutoff": None})
    assert scored(config, qrels, run) == scored(whole, qrels, run)


@EXAMPLES
@given(configs(), queries())
def test_dcg_at_k_is_non_decreasing_in_k(mapping: dict[str, Any], query: tuple) -> None:
    dcgs = [one({**mapping, "cutoff": k}, *query).dcg for k in range(1, len(query[1]) + 2)]
    assert all(a <= b for a, b in pairwise(dcgs))
    assert dcgs[-1] == one({**mapping, "cutoff": None}, *query).dcg


@EXAMPLES
@given(
    configs(ties=["average", "pessimistic", "optimistic"]),
    queries(with_unjudged=False),
    st.randoms(use_true_random=False),
)
def test_permuting_documents_of_equal_label_changes_nothing(
    mapping: dict[str, Any], query: tuple, rng: Any
) -> None:
    judged, postings = query
    # Under these tie rules a document's place depends only on its score and gain, never on its
    # id or line: swap the scores of documents of equal label and shuffle the lines.
    by_label: dict[Decimal, list[int]] = {}
    for index, (docid, _) in enumerate(postings):
        by_label.setdefault(Decimal(judged[docid]), []).append(index)
    swapped = list(postings)
    for indices in by_label.values():
        scores = [postings[i][1] for i in indices]
        rng.shuffle(scores)
        for i, score in zip(indices, scores, strict=True):
            swapped[i] = (postings[i][0], score)
    rng.shuffle(swapped)
    before, after = one(mapping, judged, postings), one(mapping, judged, swapped)
    assert (before.ndcg, before.dcg, before.idcg) == (after.ndcg, after.dcg, after.idcg)


def tie_orderings(postings: Postings) -> list[Postings]:
    """Every run that differs from `postings` only in the order of documents of equal score."""
    groups: dict[Decimal, list[tuple[str, str]]] = {}
    for posting in postings:
        groups.setdefault(Decimal(posting[1]), []).append(posting)
    return [
        [posting for group in choice for posting in group]
        for choice in product(*(permutations(g) for g in groups.values()))
    ]


@settings(max_examples=examples(40), deadline=None)
@given(configs(), queries(scores=st.integers(0, 2).map(str)))
def test_tie_average_is_the_mean_over_all_tie_orderings(
    mapping: dict[str, Any], query: tuple
) -> None:
    judged, postings = query
    orderings = tie_orderings(postings)
    assume(len(orderings) <= 720)
    average = one({**mapping, "ties": "average"}, judged, postings)
    dcgs = [one({**mapping, "ties": "input"}, judged, run).dcg for run in orderings]
    assert close(average.dcg, mpmath.fsum(dcgs) / len(dcgs))


@EXAMPLES
@given(configs(), queries())
def test_pessimistic_at_most_average_and_input_at_most_optimistic(
    mapping: dict[str, Any], query: tuple
) -> None:
    dcg = {
        ties: one({**mapping, "ties": ties}, *query).dcg
        for ties in ("pessimistic", "average", "input", "optimistic")
    }
    assert at_most(dcg["pessimistic"], dcg["average"])
    assert at_most(dcg["average"], dcg["optimistic"])
    assert at_most(dcg["pessimistic"], dcg["input"])
    assert at_most(dcg["input"], dcg["optimistic"])


@EXAMPLES
@given(configs(excluded={"unjudged": {"error"}}), queries())
def test_condense_equals_removing_unjudged_documents(mapping: dict[str, Any], query: tuple) -> None:
    judged, postings = query
    defined = {**mapping, "fractional": "keep", "empty": "zero"}
    condensed = one({**defined, "unjudged": "condense"}, judged, postings)
    judged_only = [p for p in postings if p[0] in judged]
    removed = one({**defined, "unjudged": "zero"}, judged, judged_only)
    assert (condensed.ndcg, condensed.dcg, condensed.idcg) == (
        removed.ndcg,
        removed.dcg,
        removed.idcg,
    )


def first_occurrences(postings: Postings) -> Postings:
    """``ndcg.duplicates.first`` written out: per doc id the highest score, the earliest line
    among equal scores; kept lines stay in run order."""
    best: dict[str, int] = {}
    for index, (docid, score) in enumerate(postings):
        if docid not in best or Decimal(score) > Decimal(postings[best[docid]][1]):
            best[docid] = index
    return [p for index, p in enumerate(postings) if index in best.values()]


@EXAMPLES
@given(
    configs(),
    st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), tied_scores), min_size=1),
    st.dictionaries(st.sampled_from(["a", "b", "c", "e"]), grades),
)
def test_duplicates_first_equals_the_deduplicated_run(
    mapping: dict[str, Any], postings: Postings, judged: Labels
) -> None:
    kept = one({**mapping, "duplicates": "first"}, judged, postings)
    deduplicated = one({**mapping, "duplicates": "error"}, judged, first_occurrences(postings))
    assert (kept.ndcg, kept.dcg, kept.idcg) == (
        deduplicated.ndcg,
        deduplicated.dcg,
        deduplicated.idcg,
    )
    if len({docid for docid, _ in postings}) < len(postings):
        with pytest.raises(InputError, match="duplicate"):
            one({**mapping, "duplicates": "error"}, judged, postings)


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict[str, Labels], dict[str, Postings]]:
    """Several queries; some qrels queries are missing from the run, and the run has queries
    the qrels do not judge."""
    qrels, run = {}, {}
    for index in range(draw(st.integers(1, 4))):
        judged, postings = draw(queries())
        qrels[f"q{index}"] = judged
        if draw(st.booleans()):
            run[f"q{index}"] = postings
    run.update({f"z{i}": [("d0", "1")] for i in range(draw(st.integers(0, 2)))})
    return qrels, run


@EXAMPLES
@given(configs(), collections())
def test_aggregate_run_ignores_qrels_queries_missing_from_the_run(
    mapping: dict[str, Any], collection: tuple
) -> None:
    qrels, run = collection
    assume(any(q in run for q in qrels))
    by_run = evaluated({**mapping, "aggregate": "run"}, qrels, run)
    present = {q: labels for q, labels in qrels.items() if q in run}
    restricted = evaluated({**mapping, "aggregate": "qrels"}, present, run)
    assert list(by_run.per_query) == list(present)
    assert by_run.aggregate == restricted.aggregate


@EXAMPLES
@given(configs(), collections())
def test_aggregate_qrels_scores_a_missing_query_as_an_empty_ranking(
    mapping: dict[str, Any], collection: tuple
) -> None:
    qrels, run = collection
    full = evaluated({**mapping, "aggregate": "qrels"}, qrels, run)
    with_empty_rankings = {q: run.get(q, []) for q in qrels}
    explicit = evaluated({**mapping, "aggregate": "qrels"}, qrels, with_empty_rankings)
    assert list(full.per_query) == list(qrels)
    assert full.aggregate == explicit.aggregate
    for q in qrels:
        if q not in run:
            assert full.per_query[q].dcg == 0


@EXAMPLES
@given(configs(gain="linear", aggregate="qrels"), st.lists(queries(), min_size=0, max_size=3))
def test_empty_choices(mapping: dict[str, Any], others: list[tuple]) -> None:
    qrels = {"empty": {"d0": "0", "x0": "0"}}
    run = {"empty": [("d0", "1"), ("d1", "2")]}
    for index, (judged, postings) in enumerate(others):
        # A relevant document ranked first (its score 5 is above every drawn score) keeps the
        # query non-empty under every ideal choice, top-k included.
        qrels[f"q{index}"] = {**judged, "relevant": "1"}
        run[f"q{index}"] = [*postings, ("relevant", "5")]
    base = dict(mapping)
    as_zero = evaluated({**base, "empty": "zero"}, qrels, run)
    ndcgs = [r.ndcg for q, r in as_zero.per_query.items() if q != "empty"]
    assert as_zero.per_query["empty"].ndcg == 0
    assert close(as_zero.aggregate, mpmath.fsum(ndcgs) / len(qrels))
    as_one = evaluated({**base, "empty": "one"}, qrels, run)
    assert as_one.per_query["empty"].ndcg == 1
    assert close(as_one.aggregate, (mpmath.fsum(ndcgs) + 1) / len(qrels))
    as_nan = evaluated({**base, "empty": "nan"}, qrels, run)
    assert as_nan.per_query["empty"].ndcg is None and as_nan.aggregate is None
    skipped = evaluated({**base, "empty": "skip"}, qrels, run)
    assert skipped.per_query["empty"].ndcg is None
    if ndcgs:
        assert close(skipped.aggregate, mpmath.fsum(ndcgs) / len(ndcgs))
    else:
        assert skipped.aggregate is None
    with pytest.raises(InputError, match="empty"):
        evaluated({**base, "empty": "error"}, qrels, run)


def reported_digits(evaluation: Evaluation) -> list[str | None]:
    values = [evaluation.aggregate]
    for result in evaluation.per_query.values():
        values += [result.ndcg, result.dcg, result.idcg]
    return [None if v is None else mpmath.nstr(v, COMPARED_DIGITS) for v in values]


@settings(max_examples=examples(40), deadline=None)
@given(
    configs(
        excluded={"unjudged": {"error"}, "negative": {"error"}}, fractional="keep", empty="zero"
    ),
    collections(),
    st.lists(st.decimals(-2, 4, places=3).map(str), max_size=3),
)
def test_twice_the_precision_changes_no_reported_digit(
    mapping: dict[str, Any], collection: tuple, fractional_labels: list[str]
) -> None:
    qrels, run = collection
    for index, label in enumerate(fractional_labels):
        qrels.setdefault("q0", {})[f"d{index}"] = label
    spec_precision = reported_digits(evaluated(mapping, qrels, run))
    assert spec_precision == reported_digits(evaluated(mapping, qrels, run, dps=2 * DPS))
