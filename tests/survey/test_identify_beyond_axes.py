"""The probes of ``identify`` beyond the axes (``survey/extra_probes.py``,
``survey/answer_observations.py``): close scores, number reading, per-query values left
undefined, and the tie order over ranking lengths. The adapters are the reference and fakes of
``tests/fakes.py`` whose single flaw is known."""

from __future__ import annotations

import math

from ndcgspec.harness.adapters.base import ApiView
from ndcgspec.harness.worker import adapter_command
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config
from ndcgspec.survey.answer_observations import negative_ideal, out_of_range, undefined_values
from ndcgspec.survey.extra_probes import (
    chosen_cutoff,
    close_scores,
    numeric_ids,
    tie_order_by_length,
)
from ndcgspec.survey.identification import (
    CHOSEN_CUTOFF,
    DIVIDES_NEGATIVE_IDEAL,
    NUMBER_READING,
    OUTSIDE_UNIT,
    RANKS_CLOSE_SCORES,
    READS_IDS_AS_NUMBERS,
    READS_IDS_AS_TEXT,
    READS_NEIGHBOURS_APART,
    READS_NEIGHBOURS_EQUAL,
    SCORE_RESOLUTION,
    TIE_RULE_BREAKS,
    TIE_RULE_HOLDS,
    TIES_CLOSE_SCORES,
    UNDEFINED_WHERE_SCORED,
)
from ndcgspec.survey.probes import (
    TIE_LENGTHS,
    Answer,
    ProbeInput,
    ask,
    meets,
    number_reading_inputs,
    probe_inputs,
    replaced,
)

FLOAT64 = (64, None)


def _ties_probes() -> list[ProbeInput]:
    return [p for p in probe_inputs() if p.case_id.startswith("ties.")]


def _outcomes(adapter: str, config: Config) -> dict[str, tuple[str, list[str]]]:
    found = close_scores(adapter_command(adapter, None), config, config, _ties_probes(), FLOAT64)
    return {o.topic: (o.outcome, o.gaps) for o in found}


def test_float32_scores_tie_at_both_relative_gaps_under_average_ties() -> None:
    # Under tie averaging too: torchmetrics' [1.0, 1.0 + 1e-9] is one float32.
    config = parse_measure("nDCG(ties=average)")
    assert _outcomes("fakes:scores_in_float32", config) == {
        SCORE_RESOLUTION: (TIES_CLOSE_SCORES, ["1e-9 relative", "1e-12 relative"])
    }


def test_exact_scores_are_ranked_at_every_gap() -> None:
    assert _outcomes("reference", parse_measure("nDCG(ties=pessimistic)")) == {
        SCORE_RESOLUTION: (RANKS_CLOSE_SCORES, ["1e-9 relative", "1e-12 relative"]),
        NUMBER_READING: (READS_NEIGHBOURS_APART, ["one float64 ulp"]),
    }


def test_a_reader_of_15_digits_takes_adjacent_doubles_for_one_score() -> None:
    outcomes = _outcomes("fakes:scores_to_15_digits", parse_measure("nDCG(ties=docid-asc)"))
    assert outcomes[SCORE_RESOLUTION][0] == RANKS_CLOSE_SCORES
    assert outcomes[NUMBER_READING][0] == READS_NEIGHBOURS_EQUAL


def test_number_reading_inputs_are_adjacent_doubles_written_shortest() -> None:
    for probe in number_reading_inputs():
        low, high = sorted({float(s) for _, _, s in probe.run})
        assert math.nextafter(low, math.inf) == high
        assert {repr(low), repr(high)} == {s for _, _, s in probe.run}


def test_values_left_undefined_are_observed_with_the_mean_they_keep() -> None:
    # d1 (relevant) below the cutoff of 1: nDCG@1 is 0 by the configuration.
    probe = ProbeInput(
        "cut",
        (("q1", "d1", "1"), ("q1", "d2", "0")),
        (("q1", "d2", "2"), ("q1", "d1", "1")),
        Config.default().replace(cutoff=1),
    )
    own = Config.default()
    answers = {
        ("cut", own.replace(cutoff=1).full()): Answer({"per_query": {"q1": None}, "aggregate": 0.0})
    }
    found = undefined_values(own, own, [probe], answers, FLOAT64)
    assert found is not None
    assert (found.outcome, found.evidence, found.mean_meets) == (
        UNDEFINED_WHERE_SCORED,
        ["cut"],
        ["cut"],
    )
    assert found.departs
    # The relevant document is below the cutoff: the query's DCG is 0, which the rule says.
    assert found.when == "nothing-relevant-retrieved"
    assert "exactly when no document of positive gain is retrieved" in found.verdict()
    answers = {("cut", own.replace(cutoff=1).full()): Answer({"per_query": {"q1": 0.0}})}
    assert undefined_values(own, own, [probe], answers, FLOAT64) is None


def test_an_undefined_value_no_rule_describes_gets_none() -> None:
    # Undefined where the relevant document is first (DCG 1): neither rule says so.
    probe = ProbeInput("top", (("q1", "d1", "1"),), (("q1", "d1", "2"),), Config.default())
    own = Config.default()
    answers = {("top", own.full()): Answer({"per_query": {"q1": None}, "aggregate": None})}
    found = undefined_values(own, own, [probe], answers, FLOAT64)
    assert found is not None and found.when is None


def _id_probes() -> list[ProbeInput]:
    return [p for p in probe_inputs() if p.case_id.startswith("ids.")]


def test_ids_read_as_text_meet_every_numeric_looking_id() -> None:
    probes = _id_probes()
    assert {p.case_id for p in probes} >= {"ids.numeric/leading-zeros", "ids.numeric/exponent-twin"}
    found = numeric_ids(
        adapter_command("reference", None), Config.default(), Config.default(), probes, FLOAT64
    )
    assert found is not None
    assert (found.outcome, found.departs) == (READS_IDS_AS_TEXT, False)
    assert sorted(found.evidence) == sorted(p.case_id for p in probes)


def test_a_run_read_as_numbers_misreads_ids() -> None:
    command = adapter_command("fakes:run_ids_as_numbers", None)
    found = numeric_ids(command, Config.default(), Config.default(), _id_probes(), FLOAT64)
    assert found is not None
    assert (found.outcome, found.departs) == (READS_IDS_AS_NUMBERS, True)
    # 0010 becomes 10, which the qrels do not judge: the relevant document is lost; 1e5 becomes
    # 100000.0. Only 1.0 and its twin 1 come back as they were written.
    assert "ids.numeric/leading-zeros" in found.evidence
    assert "ids.numeric/exponent-twin" in found.evidence
    assert found.disagreeing == ["ids.numeric/decimal-point-twin"]


def test_ids_read_as_text_under_a_cutoff_that_changes_with_the_input() -> None:
    # Under an ideal that assumes k relevant documents, the whole-ranking value depends on the
    # k the fake takes (its input's rows), so no answer meets the reference at the null cutoff;
    # the same probe with its ids spelled as text is answered the same, and that says the ids
    # were read as text.
    command = adapter_command("fakes:depth_of_rows", None)
    identified = replaced(Config.default(), ideal="assumed-k")
    probes = _id_probes()
    asked = ask(command, [(p, identified) for p in probes])
    assert not any(
        meets(p, identified, asked[(p.case_id, identified.full())], identified, *FLOAT64)
        for p in probes
    )
    found = numeric_ids(command, identified, identified, probes, FLOAT64)
    assert found is not None
    assert (found.outcome, found.departs) == (READS_IDS_AS_TEXT, False)


def test_probes_beyond_the_axes_are_asked_under_the_adapters_own_names() -> None:
    # The fake's "binary" computes the spec's judged gain and it knows no "judged": identify
    # finds judged, and the probes beyond the axes must still be asked as "binary" (asked as
    # "judged", every answer is an error, and every id would read as misread).
    command = adapter_command("fakes:judged_named_binary", None)
    own = replaced(Config.default(), gain="binary")
    identified = replaced(Config.default(), gain="judged")
    ids = numeric_ids(command, own, identified, _id_probes(), FLOAT64)
    assert ids is not None and ids.outcome == READS_IDS_AS_TEXT
    ties = tie_order_by_length(command, own, identified, FLOAT64, ApiView())
    assert ties is not None and ties.outcome == TIE_RULE_HOLDS


def test_values_outside_the_unit_interval_are_observed_most_extreme_first() -> None:
    own = Config.default()
    probes = [
        ProbeInput(name, (("q1", "d1", "1"),), (("q1", "d1", "1"),), own)
        for name in ("a", "b", "c")
    ]
    answers = {
        ("a", own.full()): Answer({"per_query": {"q1": 1.25}}),
        ("b", own.full()): Answer({"per_query": {"q1": 7.0}}),
        ("c", own.full()): Answer({"per_query": {"q1": 1.0 + 1e-12}}),
    }
    found = out_of_range(own, probes, answers)
    assert found is not None
    assert (found.outcome, found.evidence, found.values) == (
        OUTSIDE_UNIT,
        ["b", "a"],
        ["7", "1.25"],
    )
    assert "(the farthest 7)" in found.verdict()
    within = {("a", own.full()): Answer({"per_query": {"q1": 0.5}})}
    assert out_of_range(own, probes[:1], within) is None
    # 1 rounded to float32 and back is 1 exactly; 1 + 2^-23, the next float32, is rounding.
    rounded = {("a", own.full()): Answer({"per_query": {"q1": 1 + 2**-23}})}
    assert out_of_range(own, probes[:1], rounded, 32) is None
    assert out_of_range(own, probes[:1], rounded, 64) is not None


def test_a_tie_rule_kept_on_every_length_holds() -> None:
    default = Config.default()
    found = tie_order_by_length(
        adapter_command("reference", None), default, default, FLOAT64, ApiView()
    )
    assert found is not None
    assert (found.outcome, found.lengths, found.departs) == (
        TIE_RULE_HOLDS,
        list(TIE_LENGTHS),
        False,
    )


def test_ties_broken_the_other_way_break_from_two_documents() -> None:
    # The fake breaks every tie by docid ascending where docid descending is asked.
    command = adapter_command("fakes:ties_reversed", None)
    found = tie_order_by_length(command, Config.default(), Config.default(), FLOAT64, ApiView())
    assert found is not None
    assert (found.outcome, found.lengths[0], found.departs) == (TIE_RULE_BREAKS, 2, True)


def test_a_default_depth_beyond_the_searched_lengths_is_found() -> None:
    # 1200 documents, relevant at ranks 700 and 1100: nDCG@k is 0 for k < 700 (every cutoff
    # searched up to 200, and the defaults 256, 500 and 512), takes the rank-700 document
    # alone for 700 <= k < 1100 (1000 is the first default there), both for the whole ranking.
    run = tuple(("q1", f"d{i:04d}", str(2000 - i)) for i in range(1200))
    qrels = (("q1", "d0699", "1"), ("q1", "d1099", "1"))
    probe = ProbeInput("long", qrels, run, Config.default())
    command = adapter_command("fakes:depth_1000", None)
    found = chosen_cutoff(command, Config.default(), Config.default(), [probe], FLOAT64)
    assert found is not None
    assert (found.outcome, found.cutoffs) == (CHOSEN_CUTOFF, [1000])


def test_a_default_depth_is_found_where_a_smaller_cutoff_also_meets_one_probe() -> None:
    # Twelve documents each, three relevant; the fake answers nDCG@10 for the whole ranking.
    # First probe, relevant at ranks 1, 2 and 12: DCG@k = 1 + 1/log2(3) from k = 2 and the
    # ideal DCG is whole from k = 3, so cutoffs 3 to 11 meet the answer, 3 first. Second probe,
    # relevant at ranks 1, 5 and 12: DCG@k is whole but for rank 12 from k = 5, so 5 to 11 meet
    # it, and 3 does not. Each probe's smallest cutoff differs (3, 5); 5 meets both.
    run = tuple(("q1", f"d{i:02d}", str(100 - i)) for i in range(12))
    first = ProbeInput(
        "first", tuple(("q1", f"d{i:02d}", "1") for i in (0, 1, 11)), run, Config.default()
    )
    second = ProbeInput(
        "second", tuple(("q1", f"d{i:02d}", "1") for i in (0, 4, 11)), run, Config.default()
    )
    command = adapter_command("fakes:depth_10", None)
    default = Config.default()
    found = chosen_cutoff(command, default, default, [first, second], FLOAT64)
    assert found is not None
    assert (found.outcome, found.cutoffs) == (CHOSEN_CUTOFF, [5])


def test_a_division_by_a_negative_ideal_dcg_is_observed() -> None:
    # Under negative=keep-in-ideal, ideal=retrieved: b (-2) ranked above a (1). By hand,
    # DCG = -2 + 1 / log2(3), IDCG = 1 - 2 / log2(3) < 0: the spec scores the query as empty
    # (0), a library that divides anyway gives DCG / IDCG.
    config = parse_measure("nDCG(ideal=retrieved,negative=keep-in-ideal)")
    probe = ProbeInput(
        "neg", (("q1", "a", "1"), ("q1", "b", "-2")), (("q1", "a", "1"), ("q1", "b", "2")), config
    )
    quotient = (-2 + 1 / math.log2(3)) / (1 - 2 / math.log2(3))
    key = ("neg", config.full())
    divided = {key: Answer({"per_query": {"q1": quotient}, "aggregate": quotient})}
    found = negative_ideal(config, config, [probe], divided, FLOAT64)
    assert found is not None
    assert (found.outcome, found.evidence, found.departs) == (DIVIDES_NEGATIVE_IDEAL, ["neg"], True)
    empty = {key: Answer({"per_query": {"q1": 0.0}, "aggregate": 0.0})}
    assert negative_ideal(config, config, [probe], empty, FLOAT64) is None


def test_an_axis_is_read_at_the_cutoff_the_implementation_chose() -> None:
    # Twelve documents, relevant at ranks 1, 5 and 12; the fake answers nDCG@10 when asked for
    # the whole ranking. Cut at 10, the log discount gives DCG 1 + 1/log2(6) over an ideal of
    # 1 + 1/log2(3) + 1/2: log alone meets it. Read uncut (rank 12 counted), no discount does.
    from ndcgspec.survey.axis_identification import identify_axis
    from ndcgspec.survey.identification import MET, NONE

    run = tuple(("q1", f"d{i:02d}", str(100 - i)) for i in range(12))
    qrels = tuple(("q1", f"d{i:02d}", "1") for i in (0, 4, 11))
    probe = ProbeInput("rank-12", qrels, run, Config.default())
    command = adapter_command("fakes:depth_10", None)
    default = Config.default()
    cut = identify_axis("discount", default, default, [probe], command, FLOAT64, whole=10)
    assert (cut.status, cut.choices) == (MET, ["log"])
    uncut = identify_axis("discount", default, default, [probe], command, FLOAT64)
    assert uncut.status == NONE
