"""`ask_adapter` (``harness/runner.py``): the one way to ask an adapter cases that are not
golden cases. Values by hand: a query whose one relevant document is ranked first scores 1;
ranked second of two, 1/log2(3)."""

from __future__ import annotations

import contextvars
import math
import threading
from functools import partial
from typing import Any

import pytest

from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.pool import Job, PoolOptions, WorkerPool, declared_adapter, shared_pools
from ndcgspec.harness.protocol import ProtocolCase
from ndcgspec.harness.runner import MAX_BATCH, Question, ask_adapter
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config

QRELS = [["q1", "a", "1"], ["q1", "b", "0"]]


def _case(first: str) -> Question:
    second = "b" if first == "a" else "a"
    config = Config.default()

    def build(case_id: str) -> ProtocolCase:
        run = [["q1", first, "2"], ["q1", second, "1"]]
        return ProtocolCase(case_id, config.canonical(), config.to_mapping(), QRELS, run)

    return Question(("first", first), build)


def _asked(questions: list[Question], target: str = "reference") -> list[tuple[Any, CaseAnswer]]:
    answers: list[tuple[Any, CaseAnswer]] = []
    ask_adapter(
        adapter_command(target, None),
        questions,
        PoolOptions(jobs=2),
        lambda question, answer: answers.append((question.key, answer)),
    )
    return answers


def test_every_question_is_answered_once_by_its_key() -> None:
    # More questions than one batch holds, so that both processes may answer.
    questions = [_case("a"), _case("b")] * (MAX_BATCH // 2 + 1)
    keyed = [Question((i, q.key), q.build) for i, q in enumerate(questions)]
    answers = dict(_asked(keyed))
    assert sorted(answers) == sorted(q.key for q in keyed)
    for (_, (_, first)), answer in answers.items():
        expected = 1.0 if first == "a" else 1 / math.log2(3)
        assert math.isclose(answer.per_query["q1"], expected, rel_tol=1e-12)


def test_inside_shared_pools_a_key_answered_before_is_answered_from_memory() -> None:
    sent: list[str] = []

    def counted(question: Question) -> Question:
        def build(case_id: str) -> ProtocolCase:
            sent.append(case_id)
            return question.build(case_id)

        return Question(question.key, build)

    with shared_pools():
        first = dict(_asked([counted(_case("a"))]))
        again = dict(_asked([counted(_case("a")), counted(_case("b"))]))
    assert len(sent) == 2
    assert again[("first", "a")] == first[("first", "a")]
    assert math.isclose(again[("first", "b")].per_query["q1"], 1 / math.log2(3))


@pytest.mark.parametrize(
    ("target", "processes"), [("fakes:process_ids", 2), ("fakes:process_ids_one_process", 1)]
)
def test_an_adapter_that_declares_one_process_is_run_in_one(target: str, processes: int) -> None:
    """Two batches or more, asked with two jobs: each job's first batch goes to a process of
    its own, unless the adapter's start reply says `processes: 1` (`Adapter.processes`)."""
    questions = [Question(i, _case("a").build) for i in range(3 * MAX_BATCH)]
    answers = _asked(questions, target)
    assert len(answers) == len(questions)
    assert len({answer.per_query["q1"] for _, answer in answers}) == processes


def test_questions_asked_behind_wait_while_a_caller_asks_and_share_its_process() -> None:
    """`behind`: the caller's question is answered after the one question behind in flight,
    before the others, by the same process (the adapter declares one)."""
    command = adapter_command("fakes:process_ids_slow", None)
    options = PoolOptions(jobs=2)
    delivered: list[tuple[Any, float]] = []
    sending = threading.Event()

    def record(question: Question, answer: CaseAnswer) -> None:
        delivered.append((question.key, answer.per_query["q1"]))

    def signalled(question: Question) -> Question:
        def build(case_id: str) -> ProtocolCase:
            sending.set()
            return question.build(case_id)

        return Question(question.key, build)

    behind = [signalled(Question(("behind", i), _case("a").build)) for i in range(3)]
    with shared_pools():
        declared_adapter(command, options)
        thread = threading.Thread(
            target=contextvars.copy_context().run,
            args=(ask_adapter, command, behind, options, record, True),
        )
        thread.start()
        sending.wait()
        ask_adapter(command, [Question("front", _case("b").build)], options, record)
        thread.join()
    assert [key for key, _ in delivered] == [("behind", 0), "front", ("behind", 1), ("behind", 2)]
    assert len({process for _, process in delivered}) == 1


def test_nothing_is_sent_behind_once_the_pool_is_closed() -> None:
    sent: list[str] = []

    def build(case_id: str) -> ProtocolCase:
        sent.append(case_id)
        return _case("a").build(case_id)

    pool = WorkerPool(adapter_command("reference", None), PoolOptions())
    pool.open()
    pool.close()
    pool.run_behind([[Job("0", partial(build, "0"))]], lambda key, answer: None)
    assert sent == []


def test_a_failure_behind_is_asked_again_by_the_caller() -> None:
    """An error asked behind is neither given nor remembered: the caller's question is sent
    again, and its answer is the caller's."""
    command = adapter_command("fakes:raises", None)
    options = PoolOptions(jobs=2)
    built: list[str] = []
    behind: list[CaseAnswer] = []
    front: list[CaseAnswer] = []

    def counted(case_id: str) -> ProtocolCase:
        # The fake raises on a case whose run is empty.
        built.append(case_id)
        config = Config.default()
        return ProtocolCase(case_id, config.canonical(), config.to_mapping(), QRELS, [])

    with shared_pools():
        ask_adapter(command, [Question("a", counted)], options, lambda q, a: behind.append(a), True)
        ask_adapter(command, [Question("a", counted)], options, lambda q, a: front.append(a))
    assert len(built) == 2
    assert behind == []
    assert [answer.error is not None for answer in front] == [True]
