"""Adapters are untrusted processes: whatever they or the processes they start do, the
harness kills their whole process group, says what happened, and goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TESTS_DIR
from hostile.adapters import LAST_WORDS, STDERR_FLOOD_BYTES

from ndcgspec.harness.pool import Job, PoolOptions, WorkerPool
from ndcgspec.harness.protocol import ProtocolCase
from ndcgspec.harness.worker import STDERR_KEPT_BYTES, Worker, WorkerFailure

CAP = 16 * 2**20


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group `pgid`, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def gone_within(pgid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while group_members(pgid):
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True


def hostile(behaviour: str) -> list[str]:
    return [sys.executable, "-m", "hostile.adapters", behaviour]


def test_adapter_exiting_while_its_children_hold_the_output() -> None:
    # It reads the start message first: background jobs of sh get /dev/null as input, so
    # exiting earlier would close the adapter's input before the harness writes to it.
    worker = Worker("read line; sleep 300 & sleep 300 & exit 3", max_output_bytes=CAP)
    pgid = os.getpgid(worker.process.pid)
    with pytest.raises(WorkerFailure) as caught:
        worker.start(timeout=120)
    assert "exited with status 3 while a process it started still holds its output" in str(
        caught.value
    )
    # SIGKILL is delivered at once but a process exits when next scheduled: on a busy machine
    # a sleep may still show in /proc for a moment.
    assert gone_within(pgid, 20), f"still running: {group_members(pgid)}"


HARNESS = """
import os, sys, time
from ndcgspec.harness.worker import Worker
worker = Worker(sys.argv[1], max_output_bytes=2**20)
print(os.getpgid(worker.process.pid), flush=True)
time.sleep(300)
"""


@pytest.mark.parametrize(
    "line",
    # dash forks for a command that is not the shell's last; the last one is a grandchild too.
    ["sleep 300; true", "sh -c 'sleep 300; true'"],
)
def test_exec_adapter_dies_with_a_sigkilled_harness(line: str) -> None:
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, line], stdout=subprocess.PIPE, text=True
    )
    pgid = int(harness.stdout.readline())
    assert len(group_members(pgid)) >= 2  # the shell and its sleep (and the watchdog)
    harness.send_signal(signal.SIGKILL)
    harness.wait()
    assert gone_within(pgid, 20), f"still running: {group_members(pgid)}"


def test_a_batch_gets_the_per_case_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []
    real_run = Worker.run

    def spy(self: Worker, cases: list, timeout: float) -> list:
        seen.append(timeout)
        return real_run(self, cases, timeout)

    monkeypatch.setattr(Worker, "run", spy)
    rows = [["q1", "d1", "1"]]
    jobs = [
        Job(f"c{i}", lambda i=i: ProtocolCase(f"c{i}", "nDCG", {}, rows, rows)) for i in range(8)
    ]
    pool = WorkerPool(
        [sys.executable, "-m", "ndcgspec.harness.host", "reference"],
        PoolOptions(timeout=30.0),
    )
    answers: dict[str, object] = {}
    try:
        pool.open()
        pool.run([jobs], lambda key, answer: answers.__setitem__(key, answer))
    finally:
        pool.close()
    assert len(answers) == 8
    assert seen == [30.0]


@pytest.mark.parametrize("behaviour", ["values_as_strings", "values_missing"])
@pytest.mark.parametrize("validate", [False, True])
def test_a_malformed_result_is_an_error(behaviour: str, validate: bool) -> None:
    from ndcgspec.harness.runner import fixed_cases, run_cases
    from ndcgspec.suite.loaded import iter_cases

    fixtures = TESTS_DIR / "fixtures"
    cases = list(iter_cases("fixtures.json", fixtures / "harness_cases"))[:3]
    records = run_cases(
        fixed_cases(cases),
        hostile(behaviour),
        PoolOptions(timeout=60, validate=validate),
        lambda record, case: record,
    )
    assert [r.outcome for r in records] == ["error"] * 3, records


def test_infinite_values_are_each_cases_mismatch_and_the_run_goes_on() -> None:
    # Infinity was an OverflowError of the exact mean that stopped the whole run (status 2).
    from ndcgspec.harness.runner import fixed_cases, run_cases
    from ndcgspec.suite.loaded import iter_cases

    cases = list(iter_cases("fixtures.json", TESTS_DIR / "fixtures" / "harness_cases"))[:3]
    records = run_cases(
        fixed_cases(cases), hostile("values_infinite"), PoolOptions(timeout=60), lambda r, c: r
    )
    assert [r.outcome for r in records] == ["fail"] * 3, records
    assert all("infinite" in json.dumps(r.to_json()) for r in records), records


def test_closed_input_is_named_as_the_input() -> None:
    worker = Worker(hostile("closes_input"), max_output_bytes=CAP)
    worker.start(timeout=60)
    with pytest.raises(WorkerFailure, match="adapter closed its input but did not exit"):
        worker.run([], timeout=60)


def test_stderr_is_kept_up_to_a_cap() -> None:
    worker = Worker(hostile("floods_stderr"), max_output_bytes=CAP)
    with pytest.raises(WorkerFailure) as caught:
        worker.start(timeout=120)
    assert str(caught.value) == f"adapter exited with status 1: {LAST_WORDS}"
    assert caught.value.detail.endswith(LAST_WORDS)
    assert STDERR_KEPT_BYTES < STDERR_FLOOD_BYTES
    assert len(worker._stderr) <= STDERR_KEPT_BYTES
