"""The check of a preset against its library (``survey/preset_check.py``): which
probes an API can be shown, the cutoff a preset's library applies when none is asked, and
declared departures.

Expected outcomes are reasoned from the hand-written inputs below, not read from a run:

- A judged document the run does not retrieve reaches the reference but not an API of label
  arrays. Its fractional label makes ``fractional: error`` reject the input (the spec rejects
  every fractional label of an evaluated query); without it the one retrieved, relevant
  document scores 1. Under ``ideal: retrieved`` an unretrieved label of 2 changes nothing
  (IDCG is that of the retrieved labels 1 and 0), under ``ideal: judged`` it enters the IDCG.
- A run row listed twice is rejected under ``duplicates: error`` and scored under ``first``.
- In a ranking of 33 documents whose only relevant one is last, nDCG@32 is 0 (IDCG@32 = 1,
  DCG@32 = 0) while the whole ranking scores 1/log2(34) ≈ 0.197.
- ``fakes:raises`` is the reference except that it raises on a run with no row.
"""

from __future__ import annotations

import inspect
from importlib import import_module

from ndcgspec.harness.adapters.base import ApiView
from ndcgspec.harness.adapters.peers.common import ArraysPeerAdapter, PeerAdapter
from ndcgspec.harness.registry import PEER_ADAPTERS
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config
from ndcgspec.reference.config import presets
from ndcgspec.spec import load_schema
from ndcgspec.spec.presets import Departure
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.preset_check import (
    CRASHES,
    DEPARTURE_OUTCOMES,
    DIFFERS,
    REFUSES,
    asked_and_expected,
    check_preset,
    departure,
)
from ndcgspec.survey.probes import ProbeInput, beyond_view, compared_answer, probe_inputs

ARRAYS = ApiView({}, unretrieved_labels=False)
RETRIEVED = Config.from_mapping({"ideal": "retrieved", "aggregate": "run"})

UNRETRIEVED_FRACTION = ProbeInput(
    "unretrieved-fraction",
    (("q1", "d1", "1"), ("q1", "d2", "0.5")),
    (("q1", "d1", "1"),),
    Config.default(),
)
UNRETRIEVED_TWO = ProbeInput(
    "unretrieved-two",
    (("q1", "d1", "1"), ("q1", "d2", "2")),
    (("q1", "d1", "1"), ("q1", "d3", "0.5")),
    Config.default(),
)
ONE_DOCUMENT = ProbeInput(
    "one-document", (("q1", "d1", "1"),), (("q1", "d1", "1"),), Config.default()
)
EMPTY_RUN = ProbeInput("empty-run", (("q1", "d1", "1"),), (), Config.default())
TWICE = ProbeInput(
    "twice", (("q1", "d1", "1"),), (("q1", "d1", "2"), ("q1", "d1", "1")), Config.default()
)


def last_relevant_of(documents: int, cutoff: int | None) -> ProbeInput:
    """A ranking of `documents` whose only relevant document is ranked last."""
    run = tuple(("q1", f"d{i:02d}", str(documents - i)) for i in range(1, documents + 1))
    return ProbeInput(
        f"last-of-{documents}-at-{cutoff}",
        ((run[-1][0], run[-1][1], "1"),),
        run,
        Config.default().replace(cutoff=cutoff),
    )


def test_an_unretrieved_fractional_label_is_beyond_an_array_api() -> None:
    config = RETRIEVED.replace(fractional="error")
    assert compared_answer(UNRETRIEVED_FRACTION, config) == {"anchor": "ndcg.fractional.error"}
    assert beyond_view(UNRETRIEVED_FRACTION, config, ARRAYS)
    assert not beyond_view(UNRETRIEVED_FRACTION, config, ApiView())


def test_an_unretrieved_label_stays_where_it_changes_nothing() -> None:
    assert not beyond_view(UNRETRIEVED_TWO, RETRIEVED, ARRAYS)
    assert beyond_view(UNRETRIEVED_TWO, RETRIEVED.replace(ideal="judged"), ARRAYS)


def test_an_axis_the_api_cannot_express_leaves_out_the_probes_it_decides() -> None:
    hidden = ApiView({"duplicates": "no document ids"})
    assert beyond_view(TWICE, Config.default(), hidden)
    assert not beyond_view(TWICE, Config.default(), ApiView())
    assert not beyond_view(ONE_DOCUMENT, Config.default(), hidden)


# q2 has nothing relevant (the empty rule decides its value); q3 is judged but not run, so the
# aggregate axis decides only whether it enters the mean as an empty ranking.
NOTHING_RELEVANT_BESIDE_UNRUN = ProbeInput(
    "nothing-relevant-beside-unrun",
    (("q1", "d1", "1"), ("q2", "d2", "0"), ("q3", "d3", "1")),
    (("q1", "d1", "1"), ("q2", "d2", "1")),
    Config.default(),
)


def test_a_per_query_answer_needs_no_aggregate() -> None:
    # An API that cannot be asked about the aggregate is given the queries its configuration
    # scores: q1 and q2 under aggregate=run, whose values (1 and the empty rule's) no choice
    # of the aggregate changes, so the probe still shows the empty rule.
    hidden = ApiView({"aggregate": "the caller picks the queries"})
    run_only = Config.from_mapping({"aggregate": "run"})
    assert compared_answer(NOTHING_RELEVANT_BESIDE_UNRUN, run_only) != compared_answer(
        NOTHING_RELEVANT_BESIDE_UNRUN, run_only.replace(aggregate="qrels")
    )
    assert not beyond_view(NOTHING_RELEVANT_BESIDE_UNRUN, run_only, hidden)
    # Where another choice of the aggregate rejects the input, the probe stays out: a rejection
    # names no query. Here empty=error rejects q3, unrun with nothing relevant, under qrels.
    unrun_nothing_relevant = ProbeInput(
        "unrun-nothing-relevant",
        (("q1", "d1", "1"), ("q3", "d3", "0")),
        (("q1", "d1", "1"),),
        Config.default(),
    )
    refusing = run_only.replace(empty="error")
    assert compared_answer(unrun_nothing_relevant, refusing.replace(aggregate="qrels")) == {
        "anchor": "ndcg.empty.error"
    }
    assert beyond_view(unrun_nothing_relevant, refusing, hidden)
    # Any other hidden axis that decides the answer still leaves the probe out.
    assert beyond_view(NOTHING_RELEVANT_BESIDE_UNRUN, run_only, ApiView({"empty": "hidden"}))


def test_peers_of_label_arrays_declare_what_they_never_see() -> None:
    for module_name in sorted({target.split(":")[0] for target in PEER_ADAPTERS.values()}):
        module = import_module(module_name)
        peers = [
            c
            for c in vars(module).values()
            if inspect.isclass(c) and issubclass(c, PeerAdapter) and c.__module__ == module_name
        ]
        takes_arrays = "query_arrays(" in inspect.getsource(module)
        assert peers, module_name
        for peer in peers:
            assert issubclass(peer, ArraysPeerAdapter) == takes_arrays, peer.__name__
    declared = ArraysPeerAdapter.__dataclass_fields__
    assert declared["sees_unretrieved_labels"].default is False


def test_how_an_answer_departs() -> None:
    config = Config.default()
    expected = {"per_query": {"q1": 1.0}, "aggregate": 1.0}
    assert departure(ONE_DOCUMENT, config, Answer(expected), config, 64) is None
    assert departure(ONE_DOCUMENT, config, Answer({"rejected": "no"}), config, 64) == REFUSES
    assert departure(ONE_DOCUMENT, config, Answer({"error": "boom"}), config, 64) == CRASHES
    wrong = {"per_query": {"q1": 0.5}, "aggregate": 0.5}
    assert departure(ONE_DOCUMENT, config, Answer(wrong), config, 64) == DIFFERS
    assert departure(TWICE, config, Answer(expected), config, 64) == DIFFERS
    assert departure(TWICE, config, Answer({"rejected": "duplicate"}), config, 64) is None


def test_a_declared_crash_that_still_happens_passes_the_check() -> None:
    dies = Departure(CRASHES, "raises on a run with no row", ("empty-run",))
    check = check_preset("p", Config.default(), [dies], "fakes:raises", [EMPTY_RUN, ONE_DOCUMENT])
    assert (check.passed, check.departed, check.problems()) == (["one-document"], ["empty-run"], [])


def test_an_undeclared_crash_fails_the_check() -> None:
    check = check_preset("p", Config.default(), [], "fakes:raises", [EMPTY_RUN, ONE_DOCUMENT])
    assert [case for case, _ in check.errors] == ["empty-run"]
    assert check.problems()[0].startswith("empty-run: crashes: ")


def test_a_departure_that_no_longer_happens_as_declared_is_stale() -> None:
    declared = [
        Departure(CRASHES, "said to crash", ("one-document",)),
        Departure(REFUSES, "said to refuse", ("empty-run",)),
        Departure(DIFFERS, "said to differ", ("no-such-case",)),
    ]
    check = check_preset("p", Config.default(), declared, "fakes:raises", [EMPTY_RUN, ONE_DOCUMENT])
    stale = dict(check.stale)
    assert (check.passed, check.departed, sorted(stale)) == (
        [],
        [],
        ["empty-run", "no-such-case", "one-document"],
    )
    assert stale["one-document"].endswith("that crashes, but meets the preset's value")
    assert "that refuses, but crashes: " in stale["empty-run"]
    assert stale["no-such-case"].endswith("not among the probe cases")


def test_a_departure_on_a_probe_beyond_the_api_is_stale() -> None:
    config = RETRIEVED.replace(fractional="error", ties="input", negative="keep")
    declared = [Departure(REFUSES, "said to refuse", ("unretrieved-fraction",))]
    check = check_preset(
        "p", config, declared, "numpy-snippet", [UNRETRIEVED_FRACTION, ONE_DOCUMENT]
    )
    assert check.passed == ["one-document"]
    assert dict(check.stale)["unretrieved-fraction"].endswith(
        "left out: its answer depends on what the API cannot be shown"
    )


def test_the_preset_cutoff_is_expected_when_the_probe_asks_for_none() -> None:
    config = Config.default().replace(cutoff=32)
    whole, cut = last_relevant_of(33, None), last_relevant_of(33, 40)
    assert [c.cutoff for c in asked_and_expected(config, whole)] == [None, 32]
    assert [c.cutoff for c in asked_and_expected(config, cut)] == [40, 40]
    # The reference adapter, asked for the whole ranking, scores 1/log2(34), not nDCG@32 = 0.
    check = check_preset("p", config, [], "reference", [whole, cut])
    assert check.passed == [cut.case_id]
    assert [case for case, _ in check.failed] == [whole.case_id]
    assert check.failed[0][1].startswith("differs: expected 0, got 0.196")


def test_a_measure_string_cutoff_overrides_the_preset_cutoff() -> None:
    # XGBoost's plain ndcg is ndcg@32 (ranking_utils.h DefaultK() = 32).
    assert parse_measure("xgboost").cutoff == 32
    assert parse_measure("xgboost@10").cutoff == 10
    assert parse_measure("xgboost_minus@5").cutoff == 5
    assert parse_measure("trec_eval").cutoff is None


def test_departure_outcomes_are_those_of_the_presets_schema() -> None:
    schema = load_schema("presets")["$defs"]["departure"]["properties"]["outcome"]["enum"]
    assert tuple(schema) == DEPARTURE_OUTCOMES


def test_declared_departures_name_probe_cases_once() -> None:
    probe_ids = {p.case_id for p in probe_inputs()}
    for entry in presets():
        listed = [case for d in entry.departures for case in d.cases]
        assert len(listed) == len(set(listed)), entry.id
        assert sorted(set(listed) - probe_ids) == [], entry.id
