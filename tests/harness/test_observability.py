"""What an adapter's API cannot be shown travels in the protocol's start reply
(``observability``), so an adapter in any language can declare it and the harness reads it
from there, never from the adapter's objects (``spec/schema/protocol/start-reply.json``)."""

from __future__ import annotations

import shutil
import sys

import pytest

from ndcgspec.harness.adapters.base import (
    ARRAYS_NOT_OBSERVABLE,
    AdapterError,
    ApiView,
    arrays_adapter,
    trec_adapter,
)
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.harness.host import answer
from ndcgspec.harness.pool import declared_adapter
from ndcgspec.harness.protocol import decode, schema_violation, start_line
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.suite.case_record import Case, InlineInput

# A protocol adapter that is no Python adapter: it answers `start` with a fixed reply.
BLIND_PROGRAM = """
import json, sys
sys.stdin.readline()
print(json.dumps({"protocol": 1, "adapter": {
    "name": "blind", "version": "1", "float_width": 64, "capabilities": {},
    "observability": {"not_observable": {"ties": "scores are rounded to integers"},
                      "sees_unretrieved_labels": False}}}), flush=True)
sys.stdin.readline()
"""


def start_reply(adapter: object) -> dict:
    reply = decode(answer(adapter, start_line("0.1.0")))
    assert schema_violation("start-reply", reply) is None
    return reply["adapter"]


def test_an_adapter_that_sees_everything_declares_nothing() -> None:
    described = start_reply(ReferenceAdapter())
    assert "observability" not in described
    assert Declaration.from_json(described).view == ApiView({}, True)


def test_the_function_helpers_declare_what_their_input_shape_hides() -> None:
    arrays = start_reply(arrays_adapter(lambda t, s, k: 1.0, name="a", version="1"))
    assert Declaration.from_json(arrays).view == ApiView(ARRAYS_NOT_OBSERVABLE, False)
    # A {docid: score} dict keeps the last score of a repeated document.
    trec = start_reply(trec_adapter(lambda q, r, k: {}, name="t", version="1"))
    assert set(Declaration.from_json(trec).view.hidden) == {"duplicates"}
    assert Declaration.from_json(trec).view.unretrieved_labels is True


def test_a_program_in_any_language_declares_its_view_in_the_start_reply() -> None:
    command = f"{sys.executable} -c '{BLIND_PROGRAM}'"
    described = declared_adapter(command)
    assert described.view == ApiView({"ties": "scores are rounded to integers"}, False)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_example_declares_that_it_sees_everything() -> None:
    described = declared_adapter(adapter_command("node-example", None))
    assert described.to_json()["observability"] == {
        "not_observable": {},
        "sees_unretrieved_labels": True,
    }
    assert described.view == ApiView()


@pytest.mark.parametrize(
    ("observability", "message"),
    [
        ({"not_observable": {"colour": "no"}}, "unknown axis 'colour' in observability"),
        ({"not_observable": {"ties": ""}}, "no reason why 'ties' is not observable"),
        ({"not_observable": ["ties"]}, "must be an object"),
        ({"sees_unretrieved_labels": "no"}, "must be an object"),
        ("blind", "must be an object"),
    ],
)
def test_a_malformed_declaration_is_one_line(observability: object, message: str) -> None:
    described = {"name": "x", "version": "1", "float_width": 64, "capabilities": {}}
    described["observability"] = observability
    with pytest.raises(AdapterError, match=message):
        Declaration.from_json(described)


def inline_case(qrels: list[list[str]], run: list[list[str]], config: dict | None = None) -> Case:
    """A hand case of these rows under `config` (the defaults elsewhere)."""
    return Case("c", "", Config.from_mapping(config or {}), (), (), "hand", InlineInput(qrels, run))


def test_a_repeated_document_is_unsupported_where_duplicates_cannot_be_shown():
    # Label and score arrays hold a repeated document as two entries: whatever the case
    # expects of the repetition (a rejection, under the default) is no evidence about the API.
    arrays = {"float_width": 64, "observability": {"not_observable": ARRAYS_NOT_OBSERVABLE}}
    repeated = inline_case([], [["q1", "a", "1"], ["q1", "a", "2"]])
    distinct = inline_case([], [["q1", "a", "1"], ["q1", "b", "2"]])
    assert "repeats a document" in Declaration.from_json(arrays).unseen_reason(repeated)
    assert Declaration.from_json(arrays).unseen_reason(distinct) is None
    assert Declaration.from_json({"float_width": 64}).unseen_reason(repeated) is None


def test_the_function_helpers_take_what_the_api_cannot_be_shown():
    hidden = {"ties": "scores are rounded to integers"}
    arrays = arrays_adapter(lambda t, s, k: 1.0, name="a", version="1", not_observable=hidden)
    trec = trec_adapter(lambda q, r, k: {}, name="t", version="1", sees_unretrieved_labels=False)
    assert arrays.not_observable == {**ARRAYS_NOT_OBSERVABLE, **hidden}
    assert not arrays.sees_unretrieved_labels
    assert not trec.sees_unretrieved_labels and "duplicates" in trec.not_observable


def test_a_negative_label_it_is_never_given_is_unsupported_where_negative_error_rejects_it():
    # Under negative=error a negative label of a scored query makes the input an error; an API
    # given only the retrieved documents' labels cannot be shown one on an unretrieved document.
    arrays = {"float_width": 64, "observability": {"sees_unretrieved_labels": False}}
    config = {"negative": "error", "aggregate": "run"}
    run = [["q1", "a", "2"], ["q1", "b", "1"]]
    unretrieved = inline_case([["q1", "u", "-1"]], run, config)
    retrieved = inline_case([["q1", "a", "-1"]], run, config)
    # q2 is not in the run: under aggregate=run it is not scored, and its label decides nothing.
    unscored = inline_case([["q2", "u", "-1"]], run, config)
    # -0 is no negative label.
    zero = inline_case([["q1", "u", "-0"]], run, config)
    assert "negative label" in Declaration.from_json(arrays).unseen_reason(unretrieved)
    assert Declaration.from_json(arrays).unseen_reason(retrieved) is None
    assert Declaration.from_json(arrays).unseen_reason(unscored) is None
    assert Declaration.from_json(arrays).unseen_reason(zero) is None
    assert Declaration.from_json({"float_width": 64}).unseen_reason(unretrieved) is None
    zero_rule = inline_case([["q1", "u", "-1"]], run, {**config, "negative": "zero"})
    assert Declaration.from_json(arrays).unseen_reason(zero_rule) is None
