"""The conditions under which a peer departs (``harness/departure_conditions.py``), held to the
spec that lists them, to the probe cases the presets list, and to the trec_eval 10.0 program.

The hand inputs below are worked from trec_eval 10.0's source (trec_eval.c main's loop over the
qrels queries, form_res_rels.c, utility_pool.c te_chk_and_malloc); the last test asks the
program itself on every distinct inline input of the suite.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from ndcgspec.harness.adapters.base import (
    AdapterError,
    ApiView,
    CaseInput,
    Rejected,
    load_adapter,
)
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.adapters.peers.trec_eval import TrecEvalCrash
from ndcgspec.harness.departure_conditions import (
    CONDITIONS,
    DUPLICATE,
    NO_LEVEL_AFTER,
    NO_LEVEL_FIRST,
    QRELS_EMPTY,
    QUERY_MISSING,
    RUN_EMPTY,
    SKLEARN_ONE_DOCUMENT,
    trec_eval_10_stop,
)
from ndcgspec.harness.departures import declared_departures
from ndcgspec.harness.registry import BUILTIN_ADAPTERS
from ndcgspec.harness.runner import load_cases
from ndcgspec.measures.trec_eval_names import atol
from ndcgspec.reference import Config
from ndcgspec.reference.config import preset, presets
from ndcgspec.spec import load_presets
from ndcgspec.spec.presets import Departure
from ndcgspec.suite.result import CaseResult
from ndcgspec.survey.preset_check import asked_and_expected, preset_config
from ndcgspec.survey.probes import beyond_view, expected_of, probe_inputs


def rows(qrels: list[tuple[str, str, str]], run: list[tuple[str, str, str]]) -> dict:
    return {"qrels": [list(r) for r in qrels], "run": [list(r) for r in run]}


ATOL_READS = [("2", 2), ("2.7", 2), ("-2.5", -2), ("-0.5", 0), ("1e3", 1), ("1.5e1", 1)]
ATOL_READS += [("+3", 3), (".5", 0), ("-", 0), ("abc", 0), ("  7", 7), ("007", 7)]


@pytest.mark.parametrize(("text", "value"), ATOL_READS)
def test_labels_are_levels_as_atol_reads_them(text: str, value: int) -> None:
    # The conditions read labels with the drop-in's atol (measures/trec_eval_names.py).
    assert atol(text) == value


A_RUN = [("a", "x", "1")]


@pytest.mark.parametrize(
    ("qrels", "run", "complete", "stop"),
    [
        ([], A_RUN, False, QRELS_EMPTY),
        ([("a", "x", "1")], [], True, RUN_EMPTY),
        # b is judged and not retrieved: without -c the loop over the qrels queries stops there.
        ([("a", "x", "1"), ("b", "y", "1")], A_RUN, False, QUERY_MISSING),
        ([("a", "x", "1"), ("b", "y", "1")], A_RUN, True, None),
        # Queries go in strcmp order: "B" < "a", so the missing B stops it before a duplicate.
        (
            [("a", "x", "1"), ("B", "y", "1")],
            [("a", "x", "1"), ("a", "x", "2")],
            False,
            QUERY_MISSING,
        ),
        ([("a", "x", "1"), ("b", "y", "1")], [("a", "x", "1"), ("a", "x", "2")], False, DUPLICATE),
        # A first query judged only below 0: rel_levels is never allocated.
        ([("a", "x", "-1")], A_RUN, False, NO_LEVEL_FIRST),
        # -0.5 is level 0 to atol: the query allocates a one-level buffer.
        ([("a", "x", "-0.5")], A_RUN, False, None),
        # After a query with a level >= 0, max_rel + 1 = 0 clears nothing ...
        ([("a", "x", "1"), ("b", "y", "-1")], [*A_RUN, ("b", "y", "1")], False, None),
        # ... and max_rel + 1 = -1 is a negative memset.
        ([("a", "x", "1"), ("b", "y", "-2")], [*A_RUN, ("b", "y", "1")], False, NO_LEVEL_AFTER),
        # Under -c the missing a is evaluated on its bogus ranking, and allocates.
        ([("a", "x", "1"), ("b", "y", "-2")], [("b", "y", "1")], True, NO_LEVEL_AFTER),
    ],
)
def test_where_trec_eval_10_stops(qrels, run, complete, stop) -> None:  # type: ignore[no-untyped-def]
    assert trec_eval_10_stop(rows(qrels, run), complete) == stop


def test_a_label_beyond_a_c_long_meets_no_condition() -> None:
    # atol is undefined there, and so is what trec_eval does: no departure is declared.
    config = Config.from_mapping(preset("trec_eval").config)
    beyond = rows([("a", "x", "1"), ("b", "y", str(2**63))], A_RUN)
    trec_eval = [c for name, c in CONDITIONS.items() if name.startswith("trec_eval")]
    assert not any(condition(beyond, config) for condition in trec_eval)


def test_the_spec_lists_exactly_the_implemented_conditions() -> None:
    listed = [c.id for c in load_presets().conditions]
    assert sorted(listed) == sorted(CONDITIONS)
    named = {d.when for p in presets() for d in p.departures if d.when is not None}
    assert named <= set(CONDITIONS)


def conditional_departures() -> list[tuple[str, Departure]]:
    return [(p.id, d) for p in presets() for d in p.departures if d.when is not None]


def view_of(adapter: str) -> ApiView:
    """What the built-in `adapter` declares its API is shown; skips when its library is absent."""
    try:
        return Declaration.from_json(load_adapter(BUILTIN_ADAPTERS[adapter]).describe()).view
    except AdapterError as error:
        pytest.skip(str(error))


@pytest.mark.parametrize(
    ("preset_id", "departure"),
    conditional_departures(),
    ids=[f"{p}:{d.when}" for p, d in conditional_departures()],
)
def test_a_condition_holds_on_exactly_the_listed_probe_cases_it_departs_on(
    preset_id: str, departure: Departure
) -> None:
    """The listed probe cases are those the library was seen to depart on (``matrix``); the
    condition must hold there, and on no other probe case whose value the preset gives."""
    config = preset_config(preset_id)
    assert departure.when is not None
    condition = CONDITIONS[departure.when]
    adapter = preset(preset_id).adapter
    assert adapter is not None
    view = view_of(adapter)
    holds = set()
    for probe in probe_inputs():
        asked, expected = asked_and_expected(config, probe)
        # The preset check, like the page, leaves out what the library's API cannot be shown.
        if expected_of(probe, expected).error is not None or beyond_view(probe, expected, view):
            continue
        if condition(rows(list(probe.qrels), list(probe.run)), asked):
            holds.add(probe.case_id)
    assert holds == set(departure.cases)


def test_a_failure_where_a_condition_holds_is_the_declared_departure_at_any_case() -> None:
    config = Config.from_mapping(preset("trec_eval").config).replace(cutoff=5).to_mapping()
    refusal = CaseResult(
        "generated.seed-0001/023@0123abcd",
        "fail",
        message="adapter rejected a valid input: exit 4: trec_eval: result qid 'b' not found",
        config=config,
    )
    departures = declared_departures("trec_eval")
    missing = rows([("a", "x", "1"), ("b", "y", "1")], A_RUN)
    found = departures.of(refusal, lambda: missing)
    assert found is not None and found.preset == "trec_eval"
    assert "result qid" in found.behaviour
    # The same refusal where trec_eval would have evaluated every query is no departure.
    assert departures.of(refusal, lambda: rows([("a", "x", "1")], A_RUN)) is None
    # Nor a crash where the condition of a refusal holds.
    crash = replace(refusal, outcome="error", message="adapter error: killed by SIGSEGV")
    assert departures.of(crash, lambda: missing) is None
    # Under -c (trec_eval_complete) a missing query is evaluated: no condition for it.
    complete = replace(
        refusal, config=Config.from_mapping(preset("trec_eval_complete").config).to_mapping()
    )
    assert departures.of(complete, lambda: missing) is None


def stop_said(error: Exception) -> str:
    """Where the program stopped, from how it stopped (exit status and message)."""
    said = str(error)
    if isinstance(error, TrecEvalCrash):
        return NO_LEVEL_AFTER if "SIGSEGV" in said else f"crash: {said}"
    for marker, stop in [
        ("Cannot read qrels file", QRELS_EMPTY),
        ("Cannot read results file", RUN_EMPTY),
        ("not found in qrels", QUERY_MISSING),
        ("duplicate docs", DUPLICATE),
        ("Can't calculate measure", NO_LEVEL_FIRST),
    ]:
        if marker in said:
            return stop
    return f"refusal: {said}"


@pytest.mark.slow
def test_the_conditions_say_where_the_trec_eval_program_stops(trec_eval_tarball: Path) -> None:
    if shutil.which("make") is None or not any(map(shutil.which, ("cc", "gcc", "clang"))):
        pytest.skip("no C compiler or make on PATH: trec_eval cannot be built")
    adapter = load_adapter(BUILTIN_ADAPTERS["trec_eval"])
    inputs = {}
    for loaded in load_cases():
        given = None if loaded.case.input is None else loaded.case.input.to_json()
        if given and not any(
            c.isspace() or not c for r in given["qrels"] + given["run"] for c in r[:2]
        ):
            inputs.setdefault(json.dumps([given["qrels"], given["run"]]), given)
    assert len(inputs) > 2000
    disagree = []
    for given in inputs.values():
        for aggregate in ("run", "qrels"):
            config = Config.from_mapping(
                {"negative": "unjudged", "fractional": "truncate", "aggregate": aggregate}
            ).to_mapping()
            try:
                adapter.compute(CaseInput(given["qrels"], given["run"]), config)
                said = None
            except (Rejected, TrecEvalCrash) as error:
                said = stop_said(error)
            modelled = trec_eval_10_stop(given, aggregate == "qrels")
            if said != modelled:
                disagree.append((aggregate, modelled, said, given))
    assert not disagree, disagree[:3]


def distinct_inline_inputs() -> list[dict]:
    """Every distinct inline input of the bundled suite."""
    inputs: dict[str, dict] = {}
    for loaded in load_cases():
        given = None if loaded.case.input is None else loaded.case.input.to_json()
        if given:
            inputs.setdefault(json.dumps([given["qrels"], given["run"]]), given)
    return list(inputs.values())


@pytest.mark.slow
def test_the_sklearn_condition_says_where_ndcg_score_refuses() -> None:
    # Asked of scikit-learn itself under its preset: ndcg_score refuses a row of one document
    # exactly where the condition holds (a negative label, refused before, is left out).
    pytest.importorskip("sklearn", reason="scikit-learn (ndcgspec's extra sklearn) is absent")
    adapter = load_adapter(BUILTIN_ADAPTERS["sklearn"])
    config = preset_config("sklearn")
    asked = config.to_mapping()
    disagree = []
    for given in distinct_inline_inputs():
        if any(r[2].startswith("-") for r in given["qrels"]) or not given["run"]:
            continue
        try:
            adapter.compute(CaseInput(given["qrels"], given["run"]), asked)
            refused = False
        except Rejected as error:
            refused = "more than 1 document" in str(error)
        if refused != CONDITIONS[SKLEARN_ONE_DOCUMENT](given, config):
            disagree.append((refused, given))
    assert not disagree, disagree[:3]
