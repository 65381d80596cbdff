"""``ndcgspec.score`` under hostile in-memory input: ids that collide as strings, NaN, None and
float ids, floats of every width, NaN and infinite numbers, wrong shapes and measures, table
paths beside dicts. Each is either scored as the same input written to TREC files is scored,
or refused with one ScoreError (TypeError for a programming error) naming what and where."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ndcgspec

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
RUN = {"q1": {"d1": 0.2, "d2": 0.9, "d3": 0.5}}


def _refused(
    qrels: Any, run: Any, kind: type[Exception] = ndcgspec.ScoreError, measure: str = "nDCG"
) -> str:
    with pytest.raises(kind) as caught:
        ndcgspec.score(qrels, run, measure)
    return str(caught.value)


@pytest.mark.parametrize(
    ("qrels", "problem"),
    [
        ({"q1": {1: 2, "1": 0}}, "document '1' is judged twice for query 'q1'"),
        ({"q1": {np.int64(7): 2, "7": 0}}, "document '7' is judged twice for query 'q1'"),
        ({1: {"d": 1}, "1": {"d": 0}}, "document 'd' is judged twice for query '1'"),
    ],
)
def test_qrels_ids_equal_as_strings_are_judged_twice(qrels: Any, problem: str) -> None:
    assert problem in _refused(qrels, RUN)


def test_run_ids_equal_as_strings_are_a_duplicate_of_the_duplicates_axis() -> None:
    # As two lines of a run file: duplicates=error refuses, duplicates=first keeps the
    # highest-ranked occurrence ('1' at 0.9), so the ranking is 1, 2: the ideal one.
    qrels, run = {"q1": {"1": 1, "2": 0}}, {"q1": {1: 0.1, "1": 0.9, "2": 0.5}}
    assert _refused(qrels, run) == "duplicate document '1' for query 'q1' (duplicates=error)"
    first = ndcgspec.score(qrels, run, "nDCG(duplicates=first)")["nDCG(duplicates=first)"]
    assert first.aggregate == 1


@pytest.mark.parametrize(
    ("ids", "problem"),
    [
        (["q1", None], "qrels row 2: query id None is a NoneType: ids are strings or integers"),
        ([1.0, 2.0], "qrels row 1: query id 1.0 is a float: ids are strings or integers"),
        (["q1", float("nan")], "qrels row 2: query id nan is a float"),
        (["q1", True], "qrels row 2: query id True is a bool"),
        (["q1", "q 2"], "qrels row 2: query id 'q 2' is empty or holds white space"),
    ],
)
def test_dataframe_ids_follow_the_table_readers_rule(ids: list[Any], problem: str) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"query_id": ids, "doc_id": ["a", "b"], "relevance": [1, 0]})
    assert problem in _refused(frame, RUN)


@pytest.mark.parametrize("width", [np.float16, np.float32, np.float64, np.longdouble])
def test_a_float_of_any_width_is_its_exact_value_in_a_dict_and_a_dataframe(width: type) -> None:
    pandas = pytest.importorskip("pandas")
    # The float nearest 0.3 of each width, above or below 0.3: against the exact 0.3 the order
    # of d1 and d2 is decided by the binary value, never its shortest rendering "0.3".
    value = width("0.3") if width is np.longdouble else width(0.3)
    above = Fraction(*(int(part) for part in value.as_integer_ratio())) > Fraction(3, 10)
    qrels = {"q1": {"d1": 1, "d2": 0}}
    run = {"q1": {"d1": value, "d2": "0.3"}}
    frame = pandas.DataFrame(
        {"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [value, "0.3"]}, dtype=object
    )
    # d1 ranked first when its exact value is above 0.3: nDCG 1; else after d2: 1/log2(3).
    expected = ndcgspec.score(qrels, {"q1": {"d1": "2" if above else "0", "d2": "1"}}, "nDCG")
    for given_run in (run, frame):
        assert ndcgspec.score(qrels, given_run, "nDCG")["nDCG"].aggregate == (
            expected["nDCG"].aggregate
        )


@pytest.mark.parametrize(
    ("qrels", "run", "problem"),
    [
        ({"q1": {"d1": Decimal("NaN")}}, RUN, "label: Decimal('NaN') is not a finite decimal"),
        ({"q1": {"d1": Decimal("Infinity")}}, RUN, "label: Decimal('Infinity') is not a finite"),
        ({"q1": {"d1": Decimal("1e999999")}}, RUN, "lies outside 10^-400 to 10^400"),
        (QRELS, {"q1": {"d1": float("nan")}}, "run query 'q1': score: nan is not a finite"),
        (
            QRELS,
            {"q1": {"d1": np.float32("inf")}},
            "score: np.float32(inf) is not a finite decimal",
        ),
        (QRELS, {"q1": {"d1": None}}, "score: None (NoneType) is not a number"),
        ({"q1": {"d1": True}}, RUN, "label: True (bool) is not a number"),
    ],
)
def test_nan_infinity_and_non_numbers_are_a_score_error(qrels, run, problem: str) -> None:
    assert problem in _refused(qrels, run)


def test_a_nan_relevance_in_a_dataframe_names_its_row() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, np.nan]}
    )
    assert _refused(frame, RUN) == "qrels row 2: label: nan is not a finite decimal number"


def test_a_dataframe_with_a_column_twice_is_a_score_error() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        [["q1", "d1", 1, 2]], columns=["query_id", "doc_id", "relevance", "relevance"]
    )
    assert _refused(frame, RUN) == (
        "qrels DataFrame has 2 columns named 'relevance', so which one to read is not known"
    )


@pytest.mark.parametrize(
    ("qrels", "run", "problem"),
    [
        ({"q1": None}, RUN, "qrels query 'q1' holds a NoneType, not a {document: value} dict"),
        ([("q1", "d1", 1)], RUN, "qrels must be a path, a {query: {document: value}} dict"),
        ({"q1"}, RUN, "qrels must be a path, a {query: {document: value}} dict or a DataFrame"),
        (b"qrels.txt", RUN, "a path is a str or os.PathLike, not bytes"),
        (QRELS, {"q1": [("d1",)]}, "run query 'q1': ('d1',) is not a (document, score) pair"),
    ],
)
def test_a_wrong_shape_is_a_type_error_naming_it(qrels, run, problem: str) -> None:
    assert _refused(qrels, run, TypeError).startswith(problem)


def test_a_run_of_pairs_is_scored_in_its_order() -> None:
    pairs = {"q1": [(d, s) for d, s in RUN["q1"].items()]}
    assert ndcgspec.score(QRELS, pairs)["nDCG"].aggregate == (
        ndcgspec.score(QRELS, RUN)["nDCG"].aggregate
    )


@pytest.mark.parametrize(
    ("measures", "problem"),
    [
        (None, "measures must be a measure string or a list of them, got None"),
        ([10], "a measure is a string, got 10"),
        (b"nDCG", "measures must be a measure string or a list of them, got b'nDCG'"),
    ],
)
def test_measures_that_are_no_strings_are_a_type_error(measures: Any, problem: str) -> None:
    with pytest.raises(TypeError) as caught:
        ndcgspec.score(QRELS, RUN, measures)
    assert str(caught.value) == problem


NO_JUDGMENT_MEASURES = ["nDCG", "nDCG(empty=nan)", "nDCG(empty=skip)", "nDCG(aggregate=run)"]


def test_a_query_with_no_judgment_is_scored_as_a_files_query_with_nothing_relevant(
    tmp_path: Path,
) -> None:
    # q1 is given with no judgment: as in a file where q1 judges only a document it never
    # retrieves, at 0, its IDCG is 0 and the empty axis scores it (0 under the default
    # empty=zero: the mean is (0 + 1) / 2). It was left out, the mean 1.
    qrels, run = {"q1": {}, "q2": {"d1": 1}}, {"q1": {"d1": 1.0}, "q2": {"d1": 2.0}}
    (tmp_path / "qrels").write_text("q1 0 never-retrieved 0\nq2 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1.0 t\nq2 Q0 d1 1 2.0 t\n")
    given = ndcgspec.score(qrels, run, NO_JUDGMENT_MEASURES)
    files = ndcgspec.score(str(tmp_path / "qrels"), str(tmp_path / "run"), NO_JUDGMENT_MEASURES)
    assert {m: r.to_json() for m, r in given.items()} == {m: r.to_json() for m, r in files.items()}
    assert given["nDCG"].aggregate == Decimal("0.5")
    assert _refused(qrels, run, measure="nDCG(empty=error)") == (
        "query 'q1' has nothing relevant to find: IDCG is 0 (empty=error)"
    )


@pytest.mark.parametrize("argument", ["qrels_columns", "run_columns"])
@pytest.mark.parametrize(
    "names", [("query_id", "doc_id"), "abc", ("a", "b", "c", "d"), ("a", "a", "b"), (1, 2, 3)]
)
def test_column_names_but_three_distinct_strings_are_a_type_error(
    argument: str, names: Any
) -> None:
    # Two names were an IndexError of the table reader; a string of three letters three columns.
    with pytest.raises(TypeError) as caught:
        ndcgspec.score(QRELS, RUN, **{argument: names})
    value = "relevance" if argument == "qrels_columns" else "score"
    assert str(caught.value) == (
        f"{argument} must be three distinct column names (query, document, {value}), got {names!r}"
    )


def test_a_table_path_beside_a_dict_is_read_as_a_table(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow (the 'tables' extra) is not installed")
    table = tmp_path / "run.csv"
    table.write_text("query_id,doc_id,score\nq1,d1,0.2\nq1,d2,0.9\nq1,d3,0.5\n")
    assert ndcgspec.score(QRELS, str(table))["nDCG"].aggregate == (
        ndcgspec.score(QRELS, RUN)["nDCG"].aggregate
    )
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("query_id,doc_id,relevance\nq1,d1,2\nq1,d2,0\nq1,d3,1\n")
    assert ndcgspec.score(str(qrels), RUN)["nDCG"].aggregate == (
        ndcgspec.score(QRELS, RUN)["nDCG"].aggregate
    )


# The property: dicts and DataFrames with ids and numbers of every kind.
_SAFE_ID = st.text("abcxyz019", min_size=1, max_size=3)
VALID_IDS = st.one_of(_SAFE_ID, st.integers(-20, 20), st.integers(0, 9).map(np.int64))
INVALID_IDS = st.one_of(
    st.none(),
    st.just(float("nan")),
    st.floats(-5, 5).filter(lambda f: f == f),
    st.booleans(),
    st.just(""),
)
_FLOAT_WIDTHS = st.sampled_from([(16, np.float16), (32, np.float32), (64, float)])
VALID_NUMBERS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["0", "1", "2.5", "-1", "1e2", "0.3", "3E-1"]),
    st.decimals(-5, 5, places=3, allow_nan=False),
    _FLOAT_WIDTHS.flatmap(
        lambda w: st.floats(
            width=w[0], allow_nan=False, allow_infinity=False, min_value=-4, max_value=4
        ).map(w[1])
    ),
)
INVALID_NUMBERS = st.one_of(
    st.none(),
    st.just(float("nan")),
    st.just(np.float32("inf")),
    st.just(Decimal("NaN")),
    st.just(Decimal("-Infinity")),
    st.just("nan"),
    st.booleans(),
)


def _text_id(value: Any) -> str | None:
    """The id as a file writes it, or None when the table readers' rule refuses it."""
    if isinstance(value, bool) or not isinstance(value, (str, int, np.integer)):
        return None
    return str(int(value)) if not isinstance(value, str) else value or None


def _text_number(value: Any) -> str | None:
    """The number as a file writes it (a float's exact binary value), or None if refused."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (float, np.floating)):
        return str(Decimal(float(value))) if np.isfinite(value) else None
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else None
    if isinstance(value, str):
        return None if value == "nan" else value
    return str(value)


def _entries(ids: st.SearchStrategy, numbers: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(st.tuples(ids, ids, numbers), min_size=1, max_size=6)


def _outcome(call: Any) -> Any:
    try:
        results = call()
    except (ndcgspec.ScoreError, TypeError):
        return "refused"
    return {name: result.to_json() for name, result in results.items()}


MEASURES = ["nDCG", "nDCG(duplicates=first)@3"]


# Most inputs hold only ids and numbers the rule accepts (collisions as strings among them),
# the others any kind at all.
ENTRIES = st.one_of(
    *[_entries(VALID_IDS, VALID_NUMBERS)] * 3,
    _entries(st.one_of(VALID_IDS, INVALID_IDS), st.one_of(VALID_NUMBERS, INVALID_NUMBERS)),
)


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(qrels=ENTRIES, run=ENTRIES, as_frame=st.booleans())
def test_in_memory_input_scores_as_its_files_or_is_refused(
    tmp_path_factory: pytest.TempPathFactory, qrels: list, run: list, as_frame: bool
) -> None:
    """Entries (query, document, value) given as dicts or DataFrames are scored exactly as the
    same entries written to TREC files, or refused as the file readers refuse them."""
    if as_frame:
        pandas = pytest.importorskip("pandas")
        given_qrels: Any = pandas.DataFrame(
            qrels, columns=["query_id", "doc_id", "relevance"], dtype=object
        )
        given_run: Any = pandas.DataFrame(
            run, columns=["query_id", "doc_id", "score"], dtype=object
        )
    else:
        given_qrels, given_run = {}, {}
        for q, d, v in qrels:
            given_qrels.setdefault(q, {})[d] = v
        for q, d, v in run:
            given_run.setdefault(q, {})[d] = v
        # A dict holds one value per key: the entries are what it kept.
        qrels = [(q, d, v) for q, docs in given_qrels.items() for d, v in docs.items()]
        run = [(q, d, v) for q, docs in given_run.items() for d, v in docs.items()]
    api = _outcome(lambda: ndcgspec.score(given_qrels, given_run, MEASURES))
    lines = {
        "qrels": [(_text_id(q), "0", _text_id(d), _text_number(v)) for q, d, v in qrels],
        "run": [(_text_id(q), "Q0", _text_id(d), "1", _text_number(v), "t") for q, d, v in run],
    }
    if any(None in line for rows in lines.values() for line in rows):
        event("an id or number the rule refuses")
        assert api == "refused"
        return
    folder = tmp_path_factory.mktemp("files")
    for name, rows in lines.items():
        (folder / name).write_text("".join(" ".join(row) + "\n" for row in rows))
    files = _outcome(lambda: ndcgspec.score(str(folder / "qrels"), str(folder / "run"), MEASURES))
    event("refused as its files" if files == "refused" else "scored as its files")
    assert api == files
