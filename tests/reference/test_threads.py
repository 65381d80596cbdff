"""Threads share nothing mutable (``reference.contexts``, ``engine.discounts.discounts_of``):
expected values computed on several threads at once are, every digit, those of one thread.

The harness computes expected values on its pool's threads, and a user may call the API from
several; a precision or a cache one thread changes must never reach another's numbers. Each
test first computes every answer on one thread, then again on several threads released
together, with Python's thread switch interval made tiny so that their steps interleave.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from ndcgspec.engine import discounts, label_gains
from ndcgspec.engine.memory import evaluate_inputs
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.contexts import FixedPrecision, holding
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import qrels_from_labels, run_from_scores
from ndcgspec.reference.precision import working_precision

# Configurations whose discounts differ, so that every one has discounts of its own.
DISCOUNTS = [
    "nDCG",
    "nDCG(discount=jarvelin2002)",
    "nDCG(log_offset=2)",
    "nDCG(log_base=e)",
    "nDCG(discount=reciprocal)",
    "nDCG(gain=exponential,log_base=10)",
]
ROUNDS = 3


@pytest.fixture(autouse=True)
def interleaved() -> Iterator[None]:
    """Threads switch every microsecond instead of every 5 ms."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _cold() -> None:
    """The engine's shared discounts and label gains empty, as in a fresh process."""
    discounts._DISCOUNTS.clear()
    label_gains._LABEL_GAINS.clear()


def _inputs(seed: int, documents: int) -> tuple[Any, Any]:
    """One query of `documents` ranked documents with graded and fractional labels."""
    rng = random.Random(seed)
    labels = {f"d{i}": rng.choice(["0", "1", "2", "3", "0.5"]) for i in range(documents)}
    scores = {f"d{i}": str(rng.randrange(10**6)) for i in range(documents)}
    return qrels_from_labels({"q": labels}), run_from_scores({"q": scores})


# Rankings of growing length, so that threads lengthen the same discounts at once.
INPUTS = [_inputs(seed, 20 + 15 * seed) for seed in range(8)]


def _all_at_once(tasks: list[Callable[[], Any]], threads: int) -> list[Any]:
    """Each task's answer, the tasks run on `threads` threads, none starting before all are
    queued."""
    start = threading.Event()

    def released(task: Callable[[], Any]) -> Any:
        start.wait()
        return task()

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(released, task) for task in tasks]
        start.set()
        return [future.result() for future in futures]


def _tasks(score: Callable[[str, Any, Any], Any]) -> list[Callable[[], Any]]:
    return [
        lambda m=measure, i=inputs: score(m, *i)
        for _ in range(ROUNDS)
        for measure in DISCOUNTS
        for inputs in INPUTS
    ]


def _engine(measure: str, qrels: Any, run: Any) -> Any:
    return evaluate_inputs(parse_measure(measure), qrels, run).to_json()


def _reference(measure: str, qrels: Any, run: Any) -> Any:
    return evaluate(parse_measure(measure), qrels, run).to_json()


@pytest.mark.parametrize("score", [_engine, _reference], ids=["engine", "reference"])
def test_several_threads_at_once_give_one_threads_digits(
    score: Callable[[str, Any, Any], Any],
) -> None:
    _cold()
    together = _all_at_once(_tasks(score), threads=4)
    _cold()
    assert together == [task() for task in _tasks(score)]


def test_a_threads_working_precision_is_its_own() -> None:
    # One thread evaluates at the spec's precision while others enter and leave far lower
    # working precisions, from the moment it starts until its last evaluation ends: its
    # values keep every digit.
    measure, (qrels, run) = "nDCG(log_base=e)", INPUTS[3]
    alone = _reference(measure, qrels, run)
    started = threading.Barrier(3)
    done = threading.Event()

    def low_precision() -> None:
        started.wait()
        while not done.is_set():
            with working_precision(5):
                evaluate(parse_measure(measure), qrels, run, dps=8)

    def at_spec_precision() -> list[Any]:
        started.wait()
        try:
            return [_reference(measure, qrels, run) for _ in range(6)]
        finally:
            done.set()

    answers = _all_at_once([low_precision, low_precision, at_spec_precision], threads=3)
    assert answers[2] == [alone] * 6


def test_a_holding_context_keeps_its_precision() -> None:
    context = holding(50)
    with pytest.raises(FixedPrecision):
        context.prec = 10
    with pytest.raises(FixedPrecision), context.workdps(80):
        pass
    assert context.dps == 50
