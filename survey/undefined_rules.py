"""When an implementation leaves a query undefined that its configuration scores: the rules
``identify`` recognises (`UNDEFINED_RULES`), each with its words and its test of one query, and
the test of one answer against a rule (`undefined_rule`), which the prediction check's model of
that departure applies too (``survey/prediction.py``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ndcgspec.reference import Config
from ndcgspec.suite.tolerance import is_undefined
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.probes import ProbeInput, expected_of

UNDEFINED_RULES: dict[str, tuple[str, Any]] = {
    "nothing-relevant-retrieved": (
        "no document of positive gain is retrieved within the cutoff (its DCG is 0)",
        lambda entry, retrieved: entry.dcg is not None and Decimal(entry.dcg) == 0,
    ),
    "nothing-retrieved": (
        "the run retrieves no document for the query",
        lambda entry, retrieved: not retrieved,
    ),
}
"""When an implementation may leave a query undefined that its configuration scores, each
rule with its words and its test of one query (the reference's entry for it, and whether the
run retrieves a document for it): the rule of an `UNDEFINED_WHERE_SCORED` observation is the
first that holds of exactly the queries left undefined, on every probe that shows it."""


def undefined_rule(probe: ProbeInput, config: Config, answer: Answer, rule: str) -> bool | None:
    """Whether `rule` of `UNDEFINED_RULES` says which queries of `probe` the answer leaves
    undefined where `config` scores them (None when the answer has no per-query values)."""
    given = answer.result.get("per_query")
    if given is None:
        return None
    retrieved = {q for q, _, _ in probe.run}
    test = UNDEFINED_RULES[rule][1]
    for qid, entry in (expected_of(probe, config).per_query or {}).items():
        if entry.ndcg is None:
            continue
        if is_undefined(given.get(qid)) != bool(test(entry, qid in retrieved)):
            return False
    return True
