"""A built-in adapter's answers to probes are kept between runs (``survey/kept_answers.py``):
asked again, nothing is sent to the adapter, which is not even started, and the answers are the
same; a user's adapter is always asked, an exception the library raised is kept, and a crash
its own code causes, but no other failure of its process; a changed declaration reads none of
the old answers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import ndcgspec.survey.kept_answers as kept_answers
import ndcgspec.survey.probes as probes
from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.pool import WorkerPool, declared_adapter
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.kept_answers import KeptAnswers, adapter_key, builtin_name
from ndcgspec.survey.probes import ProbeInput, ask

PROBE = ProbeInput(
    "kept/one",
    (("q1", "a", "1"), ("q1", "b", "0")),
    (("q1", "a", "1"), ("q1", "b", "2")),
    Config.default(),
)
# The run ranks b (label 0) above a (label 1): DCG 1/log2 3, IDCG 1.
ASKED = [(PROBE, Config.default()), (PROBE, Config.default().replace(cutoff=1))]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NDCGSPEC_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many questions each call of the harness sent to the adapter."""
    counts: list[int] = []
    send = probes.ask_adapter

    def counting(command, questions, *rest):  # type: ignore[no-untyped-def]
        counts.append(len(questions))
        return send(command, questions, *rest)

    monkeypatch.setattr(probes, "ask_adapter", counting)
    return counts


def test_a_builtin_adapters_answers_are_not_asked_again(cache: Path, sent: list[int]) -> None:
    command = adapter_command("reference", None)
    first = ask(command, ASKED)
    again = ask(command, ASKED)
    assert sent == [2]
    assert again == first
    # A float64 adapter's 1/log2 3, within a few units in the last place of the true value.
    aggregate = first[("kept/one", Config.default().full())].result["aggregate"]
    assert math.isclose(aggregate, 1 / math.log2(3), rel_tol=4 * 2**-52)
    assert len(list((cache / "answers").glob("*.jsonl"))) == 1


def test_a_builtin_adapter_whose_answers_are_all_kept_is_not_started(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = adapter_command("reference", None)
    first = ask(command, ASKED)

    def no_start(pool: WorkerPool) -> None:
        raise AssertionError(f"{pool} started")

    monkeypatch.setattr(WorkerPool, "open", no_start)
    assert ask(command, ASKED) == first
    assert kept_answers.declaration(command, probes.analysis_pool()).name == "ndcgspec-reference"
    assert len(list((cache / "declarations").iterdir())) == 1


def test_a_users_adapter_is_always_asked(cache: Path, sent: list[int]) -> None:
    command = adapter_command("ndcgspec.harness.adapters.reference:adapter", None)
    assert builtin_name(command) is None
    ask(command, ASKED)
    ask(command, ASKED)
    assert sent == [2, 2]
    assert not (cache / "answers").exists()


def test_a_process_failure_is_never_kept(cache: Path) -> None:
    kept = KeptAnswers("k", cache)
    question = ("c", "rows-digest", "nDCG")
    timed_out = {"id": "c", "error": "adapter timed out after 120 s", "process_failed": True}
    kept.keep(question, Answer(timed_out))
    assert kept.answer(question) is None
    kept.keep(question, Answer({"id": "c", "aggregate": "1"}))
    assert KeptAnswers("k", cache).answer(question) == Answer({"id": "c", "aggregate": "1"})


def test_a_crash_the_librarys_code_causes_is_kept_and_a_kill_from_outside_is_not(
    cache: Path,
) -> None:
    # The words are the harness's for a process that died of a signal; a SIGKILL comes from
    # outside (the machine's memory, a stopped run), a SIGSEGV from the library's own code.
    question = ("c", "rows-digest", "nDCG")
    killed = {"id": "c", "error": "adapter crashed: killed by SIGKILL", "process_failed": True}
    KeptAnswers("k", cache).keep(question, Answer(killed))
    assert KeptAnswers("k", cache).answer(question) is None
    crashed = Answer(
        {"id": "c", "error": "adapter crashed: killed by SIGSEGV", "process_failed": True}
    )
    KeptAnswers("k", cache).keep(question, crashed)
    assert KeptAnswers("k", cache).answer(question) == crashed


def test_an_exception_the_library_raised_is_kept_as_its_answer(cache: Path) -> None:
    question = ("c", "rows-digest", "nDCG")
    raised = Answer({"id": "c", "error": "ValueError: max() arg is an empty sequence"})
    KeptAnswers("k", cache).keep(question, raised)
    assert KeptAnswers("k", cache).answer(question) == raised


def test_a_line_cut_short_is_passed_over(cache: Path) -> None:
    question = ("c", "rows-digest", "nDCG")
    KeptAnswers("k", cache).keep(question, Answer({"id": "c", "aggregate": "1"}))
    with (cache / "answers" / "k.jsonl").open("a", encoding="utf-8") as file:
        file.write('{"question": "trunc')
    assert KeptAnswers("k", cache).answer(question) == Answer({"id": "c", "aggregate": "1"})


def test_another_library_version_reads_none_of_the_old_answers() -> None:
    declaration = declared_adapter(adapter_command("reference", None))
    sent = declaration.to_json()
    newer = Declaration.from_json({**sent, "version": f"{sent['version']}.1"})
    assert adapter_key("reference", newer) != adapter_key("reference", declaration)
    assert adapter_key("reference", declaration) == adapter_key("reference", declaration)


def test_a_builtin_that_cannot_declare_itself_is_asked_as_before(
    cache: Path, sent: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A library that is not installed: its start reply fails, and each question's failure is
    # the answer, as for any adapter, rather than an error before any question is asked.
    def no_start(command, options):  # type: ignore[no-untyped-def]
        raise AdapterError("the adapter did not start: no module named 'ranx'")

    monkeypatch.setattr(kept_answers, "declared_adapter", no_start)
    answers = ask(adapter_command("reference", None), ASKED)
    assert sent == [2] and len(answers) == 2
    assert not (cache / "answers").exists() and not (cache / "declarations").exists()
