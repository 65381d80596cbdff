"""Within `shared_pools`, every question set and start-reply read of one adapter is answered by
the same processes; outside it, each call starts its own. Counted by the adapter's start
command, which appends one line to a log per process it starts."""

from __future__ import annotations

import contextvars
import shlex
import sys
import threading
from dataclasses import replace
from pathlib import Path

from ndcgspec.harness.pool import declared_adapter, shared_pools
from ndcgspec.harness.runner import MAX_BATCH
from ndcgspec.reference import Config
from ndcgspec.survey.probes import analysis_pool, ask, probe_inputs


def counting_reference(log: Path) -> str:
    """A protocol command line serving the reference adapter that logs each start."""
    host = shlex.join([sys.executable, "-m", "ndcgspec.harness.host", "reference"])
    return f"echo started >> {shlex.quote(str(log))}; exec {host}"


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def three_calls(command: str, log: Path) -> list[int]:
    """The number of processes started after each of three calls."""
    # Enough questions for two batches, so that each question set may run two processes (it
    # runs one when the first has answered both batches before the second is wanted).
    probes = probe_inputs()[: MAX_BATCH + 1]
    declared_adapter(command, analysis_pool())
    counts = [starts(log)]
    ask(command, [(p, Config.default()) for p in probes])
    counts.append(starts(log))
    ask(command, [(p, Config.default().replace(gain="exponential")) for p in probes])
    return [*counts, starts(log)]


def test_each_call_starts_its_own_processes_outside_shared_pools(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    counts = three_calls(counting_reference(log), log)
    # One start to read the start reply, then one or two processes per question set.
    assert counts[0] == 1
    assert 1 <= counts[1] - counts[0] <= 2
    assert 1 <= counts[2] - counts[1] <= 2


def test_one_set_of_processes_answers_every_call_inside_shared_pools(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    with shared_pools():
        counts = three_calls(counting_reference(log), log)
        with shared_pools():
            ask(counting_reference(log), [(probe_inputs()[0], Config.default())])
    # The process that gave the start reply answers questions too; a second may join it (the
    # pool runs two), and no other process ever starts.
    assert counts[0] == 1
    assert counts[1] <= counts[2] == starts(log) <= 2


def test_a_question_answered_before_is_not_sent_again_inside_shared_pools(tmp_path: Path) -> None:
    log = tmp_path / "sent.log"
    host = shlex.join([sys.executable, "-m", "ndcgspec.harness.host", "reference"])
    command = f"tee -a {shlex.quote(str(log))} | {host}"
    probes = probe_inputs()[:3]
    default, exponential = Config.default(), Config.default().replace(gain="exponential")

    def sent() -> int:
        return log.read_text().count('"measure"') if log.exists() else 0

    with shared_pools():
        first = ask(command, [(p, default) for p in probes])
        after_first = sent()
        again = ask(command, [(probes[0], default), (probes[1], default), (probes[0], exponential)])
    assert after_first == 3
    # Only the new question (the exponential gain) reaches the adapter.
    assert sent() == 4
    assert again[probes[1].case_id, default.full()] == first[probes[1].case_id, default.full()]
    assert set(again) == {
        (probes[0].case_id, default.full()),
        (probes[1].case_id, default.full()),
        (probes[0].case_id, exponential.full()),
    }
    # Outside shared pools each call asks everything it is given.
    ask(command, [(probes[0], default)])
    assert sent() == 5


def test_cases_of_one_input_and_configuration_are_one_question(tmp_path: Path) -> None:
    # The adapter is sent the rows and the configuration, never the case's id: two golden
    # cases of one input asked under one configuration are asked once, and both answered.
    log = tmp_path / "sent.log"
    host = shlex.join([sys.executable, "-m", "ndcgspec.harness.host", "reference"])
    command = f"tee -a {shlex.quote(str(log))} | {host}"
    probe = probe_inputs()[0]
    copy = replace(probe, case_id=f"{probe.case_id}/copy")
    default = Config.default()
    answers = ask(command, [(probe, default), (copy, default)])
    assert log.read_text().count('"measure"') == 1
    assert answers[copy.case_id, default.full()] == answers[probe.case_id, default.full()]
    assert answers[probe.case_id, default.full()].result["per_query"]


def test_threads_of_one_command_share_the_pool_they_open(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    command = counting_reference(log)
    with shared_pools():
        threads = [
            threading.Thread(
                target=contextvars.copy_context().run,
                args=(declared_adapter, command, analysis_pool()),
            )
            for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert starts(log) == 1
