"""The outcome of one case from an adapter's answer: pass or fail, and why it fails.

An answer is what the protocol's run reply carries for the case: values, a rejection, or an
error. Values are compared with the golden ones by the rule of ``suite/tolerance.py``; a
case whose configuration makes the input an error passes only when the adapter rejects it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.reference import Config, InputError, aggregate, empty
from ndcgspec.reference.precision import working_precision
from ndcgspec.suite.case_record import Case
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.tolerance import Mismatch, Tolerance, compare_value, is_undefined

OUTCOMES = ("pass", "fail", "error", "unsupported", "skip")


@dataclass(frozen=True)
class Verdict:
    """The outcome of a case, with the mismatches of a fail or the message of an error."""

    outcome: str
    message: str | None = None
    mismatches: tuple[Mismatch, ...] = field(default_factory=tuple)
    detail: str | None = None


def summed_terms(
    qrels: Sequence[Sequence[str]], run: Sequence[Sequence[str]], config: Config
) -> dict[str, int]:
    """n_q of ``ndcg.comparison.float`` for every query of the input: the terms behind DCG,
    IDCG and, under tie averaging, the group means."""
    cutoff = config.cutoff
    averaged = config.choice("ties") == "average"
    retrieved: dict[str, int] = {}
    judged: dict[str, int] = {}
    for qid, *_ in run:
        retrieved[qid] = retrieved.get(qid, 0) + 1
    for qid, *_ in qrels:
        judged[qid] = judged.get(qid, 0) + 1
    terms = {}
    for qid in {**judged, **retrieved}:
        r, j = retrieved.get(qid, 0), judged.get(qid, 0)
        k = max(r, j) if cutoff is None else cutoff
        terms[qid] = max(1, min(k, r) + min(k, j) + (r if averaged else 0))
    return terms


def implied_aggregate(per_query: Mapping[str, float | None], empty_choice: str) -> float | None:
    """The mean an adapter implies when it gives only per-query values, by the reference's one
    definition of the mean (``ndcg.aggregate``): an undefined value enters it or not as the
    configuration's choice `empty_choice` says (``ndcg.empty``); under ``empty=error`` an empty
    query leaves no mean. Rounded once to the nearest double."""
    if not all(is_undefined(v) or _is_number(v) for v in per_query.values()):
        return None
    return _implied_mean(tuple(per_query.items()), empty_choice)


# identify judges one answer against each candidate configuration of an axis: the same mean,
# asked several times. lru_cache serialises its own bookkeeping; floats are immutable.
@lru_cache(maxsize=1 << 14)
def _implied_mean(per_query: tuple[tuple[str, Any], ...], chosen: str) -> float | None:
    empty_choice = empty.CHOICES[chosen]
    scores: dict[str, tuple[Any, bool]] = {}
    for qid, value in per_query:
        if not is_undefined(value):
            scores[qid] = (value, True)
            continue
        try:
            # Whether a query enters the mean never depends on n, the ranking's length.
            scores[qid] = (None, empty_choice(qid, None)[1])
        except InputError:
            return None
    with working_precision():
        mean = aggregate.mean(scores)
    return None if mean is None else float(mean)


def _is_number(value: Any) -> bool:
    """A finite number: an infinity implies no mean (it is a mismatch of its own query, "result
    is infinite"), where the exact mean would fail on it and stop the run."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Expectation:
    """What an answer is judged against: the expected values it may meet (several where a case
    leaves an axis open, ``ndcg.precision``), the configuration it was asked under, and the
    decimal places a published value is printed to."""

    allowed: tuple[ExpectedValues, ...]
    config: Config
    decimal_places: int | None = None

    @classmethod
    def of_case(cls, case: Case) -> Expectation:
        """A golden case's: its ``expected_any``, else its ``expected``."""
        alone = () if case.expected is None else (case.expected,)
        return cls(case.expected_any or alone, case.config, case.decimal_places)

    @property
    def rejected_by(self) -> str | None:
        """The anchor of the choice that rejects the input, when the input must be rejected."""
        return next((e.error for e in self.allowed if e.error is not None), None)


def value_mismatches(
    expected: ExpectedValues,
    answer: CaseAnswer,
    empty_choice: str,
    terms: Mapping[str, int],
    width: int,
    decimal_places: int | None,
    partial: bool,
) -> list[Mismatch]:
    """Every value of `answer` that misses its golden value, a mean it leaves out implied under
    the configuration's `empty_choice`; `partial` when the golden per-query values list only
    some queries (published cases).

    A query the answer leaves out meets an undefined golden value, and an undefined value of
    a query the configuration does not score meets its absence: either way the query is given
    no value, which is what null says (``ndcg.empty.skip``, ``ndcg.aggregate``); the mean,
    stated or implied, still tells a dropped query from one that makes it null."""
    actual = answer.per_query or {}
    golden = expected.per_query or {}
    found: list[Mismatch] = []
    for qid, entry in golden.items():
        if qid not in actual and entry.ndcg is None:
            continue
        if qid not in actual:
            found.append(Mismatch(qid, entry.ndcg, None, note="query missing from the result"))
            continue
        rule = Tolerance(width, terms.get(qid, 1), decimal_places)
        miss = compare_value(qid, entry.ndcg, actual[qid], rule)
        if miss:
            found.append(miss)
    # A query given no value is no query of the mean it implies.
    valued = {q: v for q, v in actual.items() if q in golden or not is_undefined(v)}
    if not partial:
        for qid in valued:
            if qid not in golden:
                note = "query not scored under this configuration"
                found.append(Mismatch(qid, None, valued[qid], note=note))
    if expected.states_aggregate:
        value = (
            answer.aggregate if answer.has_aggregate else implied_aggregate(valued, empty_choice)
        )
        queries = list(golden) or list(terms)
        largest = max((terms.get(q, 1) for q in queries), default=1)
        rule = Tolerance(width, largest + len(queries), decimal_places)
        miss = compare_value("aggregate", expected.aggregate, value, rule)
        if miss:
            found.append(miss)
    return found


def partial_comparison(case: Case) -> bool:
    """Whether a golden case's expected values list only some of its queries: a published
    case gives the values its source printed, for the queries the source printed
    (``cases/README.md``), and an answer's other queries are not compared with anything."""
    return case.origin == "published"


def judge(
    expectation: Expectation,
    answer: CaseAnswer,
    terms: Mapping[str, int],
    width: int,
    places: int | None = None,
    partial: bool = False,
) -> Verdict:
    """The verdict on `expectation` (`Expectation.of_case` of a golden case) given the answer of
    an adapter of float width `width` that rounds its values to `places` decimals, if it says so;
    `partial` when the expected values list only some of the queries, so that the answer's
    other queries are not compared (`partial_comparison` of a golden case)."""
    if answer.error is not None:
        said = answer.error if answer.process_failed else f"adapter error: {answer.error}"
        return Verdict("error", said, detail=answer.detail)
    expected_error = expectation.rejected_by
    if expected_error is not None:
        if answer.rejected is not None:
            return Verdict("pass")
        miss = Mismatch("result", None, None, note=f"the input must be rejected ({expected_error})")
        return Verdict("fail", miss.note, (miss,))
    if answer.rejected is not None:
        note = f"adapter rejected a valid input: {answer.rejected}"
        return Verdict("fail", note, (Mismatch("result", None, None, note=note),))
    places = min(
        (p for p in (expectation.decimal_places, places) if p is not None),
        default=None,
    )
    alternatives = expectation.allowed
    empty_choice = expectation.config.choice("empty")
    attempts = [
        value_mismatches(alt, answer, empty_choice, terms, width, places, partial)
        for alt in alternatives
    ]
    closest = min(attempts, key=len)
    if not closest:
        return Verdict("pass")
    return Verdict("fail", _summary(closest, len(alternatives)), tuple(closest))


def _summary(mismatches: Sequence[Mismatch], alternatives: int) -> str:
    first = mismatches[0]
    if first.note is None:
        text = f"{first.what}: expected {first.expected}, got {first.actual!r}"
    else:
        text = first.note if first.what == "result" else f"{first.what}: {first.note}"
    more = f" (and {len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
    among = f" against the closest of {alternatives} allowed answers" if alternatives > 1 else ""
    return text + more + among
