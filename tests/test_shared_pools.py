"""Within `shared_pools`, every question set and start-reply read of one adapter is answered by
the same processes; outside it, each call starts its own. Counted by the adapter's start
command, which appends one line to a log per process it starts."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ndcgspec.harness.analysis.probes import BATCH, analysis_pool, ask, probe_inputs
from ndcgspec.harness.running.pool import declared_adapter, shared_pools
from ndcgspec.reference import Config


def counting_reference(log: Path) -> str:
    """A protocol command line serving the reference adapter that logs each start."""
    host = shlex.join([sys.executable, "-m", "ndcgspec.harness.running.host", "reference"])
    return f"echo started >> {shlex.quote(str(log))}; exec {host}"


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def three_calls(command: str) -> None:
    # Enough questions for two batches, so that each question set runs two processes.
    probes = probe_inputs()[: BATCH + 1]
    declared_adapter(command, analysis_pool())
    ask(command, [(p, Config.default()) for p in probes])
    ask(command, [(p, Config.default().replace(gain="exponential")) for p in probes])


def test_each_call_starts_its_own_processes_outside_shared_pools(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    three_calls(counting_reference(log))
    # One start to read the start reply, then a pool of two per question set.
    assert starts(log) == 5


def test_one_set_of_processes_answers_every_call_inside_shared_pools(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    with shared_pools():
        three_calls(counting_reference(log))
        with shared_pools():
            ask(counting_reference(log), [(probe_inputs()[0], Config.default())])
    # The process that gave the start reply answers questions too; the second of the pool's
    # two joins it.
    assert starts(log) == 2
