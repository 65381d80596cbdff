"""The engine on in-memory inputs (`ndcgspec.engine.memory`) gives exactly what the plain
reference gives: the same JSON result object, digit for digit, or the same InputError
(message, ``file:line``, anchor and axis).

The expected values are `ndcgspec.reference.evaluate`'s, the definition: on the inputs of
every golden case (under the case's configuration and every open choice), and on random
inputs over every axis. A last test makes sure the comparisons compare the engine: the
engine path is taken, without the reference, on inputs it declares.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import mpmath
import pytest
from conftest import config_mappings
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.engine import evaluate as engine_evaluate
from ndcgspec.engine import memory
from ndcgspec.engine.memory import Inputs, evaluate_inputs
from ndcgspec.engine.support import not_computed
from ndcgspec.reference import Config, InputError, Location, evaluate
from ndcgspec.reference.inputs import Judgment, Posting
from ndcgspec.suite.load import case_files, case_inputs, cases_root, iter_cases


def result_or_error(compute: Callable[..., dict[str, Any]], *args: Any) -> Any:
    """The JSON result object `compute(*args)` returns, or everything an InputError says."""
    try:
        return compute(*args)
    except InputError as error:
        return ("error", str(error), error.file, error.line, error.anchor, error.axis)


def reference(config: Config, qrels: Any, run: Any) -> dict[str, Any]:
    return evaluate(config, qrels, run).to_json()


def configs_of(case: dict[str, Any]) -> list[Config]:
    """The case's configuration, or one per allowed choice of its open axis."""
    config = Config.from_mapping(case["config"])
    if "open" not in case:
        return [config]
    axis = case["open"]["axis"]
    return [config.replace(**{axis: choice}) for choice in case["open"]["choices"]]


CASE_FILES = case_files()


def test_every_case_file_is_compared() -> None:
    """The files compared are the suite's, as its manifest lists them."""
    manifest = (cases_root() / "MANIFEST").read_text(encoding="utf-8").splitlines()[1:]
    listed = {line.split("  ", 1)[1] for line in manifest if line.endswith(".json")}
    assert {p.relative_to(cases_root()).as_posix() for p in CASE_FILES} == listed


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_golden_inputs_give_the_reference_result(path: Path) -> None:
    """Every inline case of the file (the published ones are read from files, which
    `test_fast_engine` covers), scored on one `Inputs` for all its configurations."""
    glob = path.relative_to(cases_root()).as_posix()
    cases = [c.case for c in iter_cases(glob) if "input" in c.case]
    assert cases or all("input_files" in c.case for c in iter_cases(glob))
    for case in cases:
        qrels, run = case_inputs(case)
        inputs = Inputs(qrels, run)
        # Every golden input with a judgment fits the columns: the comparison is the
        # engine's, not the reference's with itself.
        assert inputs.prepared is not None or not any(qrels.values()), case["id"]
        for config in configs_of(case):
            expected = result_or_error(reference, config, qrels, run)
            assert result_or_error(inputs.result, config) == expected, (case["id"], config)


labels = st.one_of(
    st.integers(-2, 4).map(str), st.sampled_from(["1.5", "2.7", "-0.5", "1E+1", "0.0", "-0"])
)
docids = st.sampled_from(["d1", "d2", "d3", "d4", "d5", "http://x.org/a|7", "é", "d 1", ""])
scores = st.one_of(
    st.integers(0, 3).map(str),
    st.sampled_from(
        ["0.5", "0.50", "2.25", "1e400", "0.1000000000000000000001", "0.1", "5E-330", "-0"]
    ),
)
queries = st.sampled_from(["q1", "q2", "q3", "q 4"])


@st.composite
def inputs(
    draw: st.DrawFn,
    documents: st.SearchStrategy[str] = docids,
    label_texts: st.SearchStrategy[str] = labels,
    score_texts: st.SearchStrategy[str] = scores,
) -> tuple[dict, dict]:
    """Qrels and a run with origins, as the readers give them: ties, duplicates, unjudged,
    negative and fractional labels, empty queries, queries on one side only, scores a double
    cannot tell apart."""
    qrels = draw(
        st.dictionaries(queries, st.dictionaries(documents, label_texts, max_size=6), max_size=3)
    )
    run = draw(
        st.dictionaries(
            queries, st.lists(st.tuples(documents, score_texts), max_size=8), max_size=3
        )
    )
    return (
        {
            q: {d: Judgment(Decimal(label), Location(f"qrels:{q}", d)) for d, label in docs.items()}
            for q, docs in qrels.items()
        },
        {
            q: [
                Posting(d, Decimal(s), Location(f"run:{q}", i)) for i, (d, s) in enumerate(postings)
            ]
            for q, postings in run.items()
        },
    )


def assert_the_reference_result(given_inputs: tuple[dict, dict], mappings: list[dict]) -> None:
    """Under each configuration, the engine on one `Inputs` and `evaluate_inputs` give the
    reference's result object or error."""
    qrels, run = given_inputs
    prepared = Inputs(qrels, run)
    for config in map(Config.from_mapping, mappings):
        expected = result_or_error(reference, config, qrels, run)
        assert result_or_error(prepared.result, config) == expected, config
        assert result_or_error(evaluate_inputs, config, qrels, run) == expected, config


@settings(max_examples=200, deadline=None)
@given(inputs(), st.lists(config_mappings(), min_size=1, max_size=4))
def test_random_inputs_give_the_reference_result(given_inputs, mappings) -> None:
    assert_the_reference_result(given_inputs, mappings)


def test_the_engine_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the reference out of reach, the engine still answers a configuration it
    declares: rel 0 then 1 under the reciprocal discount, DCG 1/2 and IDCG 1 (hand
    arithmetic); a document id holding NUL is left to the reference."""
    qrels = {"q": {"a": Judgment(Decimal(0)), "b": Judgment(Decimal(1))}}
    run = {"q": [Posting("a", Decimal(2)), Posting("b", Decimal(1))]}
    config = Config.from_mapping({"discount": "reciprocal"})
    assert not not_computed(config)

    def unreachable(*args: Any) -> Any:
        raise AssertionError("the reference was asked")

    monkeypatch.setattr(memory, "evaluate", unreachable)
    result = Inputs(qrels, run).result(config)
    assert Decimal(result["aggregate"]) == Decimal("0.5")
    assert [Decimal(v) for v in result["per_query"]["q"].values()] == [
        Decimal("0.5"),
        Decimal("0.5"),
        Decimal(1),
    ]
    with pytest.raises(AssertionError, match="reference was asked"):
        Inputs({"q": {"a\0": Judgment(Decimal(1))}}, run).result(config)


# Irrational gains: 2^l − 1 for fractional labels l under gain=exponential, enclosed by the
# engine (`evaluate.label_gain`) instead of handed to the reference.
ONLY_EXPONENTIAL_KEPT = {
    "gain": {"linear", "map", "binary"},
    "fractional": {"truncate", "error"},
}
fractional_labels = st.one_of(
    st.decimals(-3, 5, places=2).map(str),
    st.sampled_from(["0.5", "1.5", "-0.5", "2.25", "0.001", "-1.75", "3", "0", "7.3E-1"]),
)


# Few documents and scores, so that tie groups mix the fractional labels.
fractional_inputs = inputs(
    st.sampled_from(["d1", "d2", "d3", "d4", "d5", "d6"]),
    fractional_labels,
    st.sampled_from(["0", "1", "2", "0.5"]),
)


@settings(max_examples=150, deadline=None)
@given(
    fractional_inputs,
    st.lists(
        config_mappings(ONLY_EXPONENTIAL_KEPT, st.one_of(st.none(), st.integers(1, 6))),
        min_size=1,
        max_size=4,
    ),
)
def test_irrational_gains_give_the_reference_result(given_inputs, mappings) -> None:
    """gain=exponential on fractional labels under every other axis (ties average, negative
    labels kept, cutoffs, every discount): the engine's result is the reference's."""
    assert_the_reference_result(given_inputs, mappings)


def counted_reference_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queries the engine hands to the reference (`evaluate._by_reference`) from now on;
    a single query's fallback (`evaluate.evaluate_query`) and the whole reference
    (`memory.evaluate`) are out of reach."""
    calls: list[str] = []
    by_reference, evaluate_query = engine_evaluate._by_reference, engine_evaluate.evaluate_query

    def counting(prep: Any, config: Config, queries: list[int]) -> Any:
        calls.extend(prep.qrels.qids[q] for q in queries)
        with monkeypatch.context() as inside:
            inside.setattr(engine_evaluate, "evaluate_query", evaluate_query)
            return by_reference(prep, config, queries)

    def unreachable(*args: Any) -> Any:
        raise AssertionError("the reference was asked")

    monkeypatch.setattr(engine_evaluate, "_by_reference", counting)
    monkeypatch.setattr(engine_evaluate, "evaluate_query", unreachable)
    monkeypatch.setattr(memory, "evaluate", unreachable)
    return calls


def test_irrational_gains_are_scored_by_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels 0.5 and 1.5 under gain=exponential and the reciprocal discount, the run
    ranking 0.5 first: with g(0.5) = √2 − 1 and g(1.5) = 2√2 − 1, DCG = g(0.5) + g(1.5)/2
    = 2√2 − 3/2 and IDCG = g(1.5) + g(0.5)/2 = (5√2 − 3)/2 (hand arithmetic, evaluated
    below by mpmath at 60 digits). No query goes to the reference."""
    qrels = {"q": {"a": Judgment(Decimal("1.5")), "b": Judgment(Decimal("0.5"))}}
    run = {"q": [Posting("b", Decimal(2)), Posting("a", Decimal(1))]}
    config = Config.from_mapping({"gain": "exponential", "discount": "reciprocal"})
    calls = counted_reference_calls(monkeypatch)
    result = Inputs(qrels, run).result(config)
    assert calls == []
    with mpmath.workdps(60):
        root = mpmath.sqrt(2)
        dcg, idcg = 2 * root - mpmath.mpf(3) / 2, (5 * root - 3) / 2
        expected = {
            name: mpmath.nstr(value, 40, min_fixed=-5, max_fixed=5)
            for name, value in (("ndcg", dcg / idcg), ("dcg", dcg), ("idcg", idcg))
        }
    assert {n: Decimal(v) for n, v in result["per_query"]["q"].items()} == {
        n: Decimal(v) for n, v in expected.items()
    }
    assert Decimal(result["aggregate"]) == Decimal(expected["ndcg"])


@pytest.mark.parametrize(
    ("labels", "reason"),
    [
        (["1.5", "1.5" + "0" * 99 + "1"], "two gains 2^-100 apart relative to each other"),
        (["1E-100", "1"], "a gain of about 7e-101, whose enclosure holds 0"),
    ],
)
def test_gains_whose_enclosures_meet_go_to_the_reference(
    monkeypatch: pytest.MonkeyPatch, labels: list[str], reason: str
) -> None:
    """At DISCOUNT_DPS digits the enclosures of these distinct gains overlap (`reason`): no
    order of the gains is known, so every query goes to the reference, whose result is
    the one given."""
    qrels = {
        "q": {d: Judgment(Decimal(label)) for d, label in zip(["a", "b"], labels, strict=True)}
    }
    run = {"q": [Posting("a", Decimal(2)), Posting("b", Decimal(1))]}
    config = Config.from_mapping({"gain": "exponential", "ties": "average"})
    expected = reference(config, qrels, run)
    calls = counted_reference_calls(monkeypatch)
    assert Inputs(qrels, run).result(config) == expected
    assert calls == ["q"], reason
