"""Outputs under hostile use: two runs writing one ``--report``, an interrupted build of a
folder of outputs (``compare --out``, ``matrix --out``) and an adapter's malformed start
reply — each refused or undone in one line, no file a mix of two runs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile.cli import ndcgspec

from ndcgspec.harness.outputs import staged
from ndcgspec.harness.report import ReportWriter, partial_path
from ndcgspec.reference.errors import InputError

HEADER = {"type": "header", "report_format": 1}


def test_a_second_writer_of_one_report_is_refused(tmp_path: Path) -> None:
    final = tmp_path / "r.jsonl"
    with ReportWriter(final) as first:
        first.write({"n": 1})
        with pytest.raises(InputError) as caught:
            ReportWriter(final)
        assert str(caught.value) == (
            f"{final}: another run is writing this report; give each run its own --report"
        )
        first.write({"n": 2})
        first.finish()
    # The refused writer truncated nothing: the first run's lines are whole and alone.
    assert [json.loads(line) for line in final.read_text().splitlines()] == [{"n": 1}, {"n": 2}]


def test_a_report_can_be_written_again_once_the_first_run_ends(tmp_path: Path) -> None:
    final = tmp_path / "r.jsonl"
    for run in (1, 2):
        with ReportWriter(final) as writer:
            writer.write({**HEADER, "run": run})
            writer.finish()
    assert json.loads(final.read_text()) == {**HEADER, "run": 2}


def test_an_interrupted_build_leaves_the_older_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.json").write_text("old a")
    (out / "b.png").write_text("old b")
    (out / "kept.txt").write_text("not ours")
    with pytest.raises(KeyboardInterrupt), staged(out) as stage:
        (stage / "a.json").write_text("new a")
        raise KeyboardInterrupt
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "a.json": "old a",
        "b.png": "old b",
        "kept.txt": "not ours",
    }
    with staged(out) as stage:
        (stage / "a.json").write_text("new a")
        (stage / "b.png").write_text("new b")
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "a.json": "new a",
        "b.png": "new b",
        "kept.txt": "not ours",
    }


ADAPTER = """
import json, sys
for line in sys.stdin:
    if json.loads(line).get("cmd") == "start":
        adapter = {"name": "x", "version": "1", "float_width": 64, "capabilities": "gain"}
        print(json.dumps({"protocol": 1, "adapter": adapter}), flush=True)
    else:
        break
"""


def test_capabilities_as_a_string_is_one_line(tmp_path: Path) -> None:
    script = tmp_path / "adapter.py"
    script.write_text(ADAPTER)
    done = ndcgspec("run", "--exec", f"{sys.executable} {script}", "--cases", "gain/*", "-q")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "ndcgspec: error: the adapter did not start: start-reply message violates its schema "
        "at adapter/capabilities: 'gain' is not of type 'object'\n"
    )


HANGING = """
import json, sys, time
for line in sys.stdin:
    if json.loads(line).get("cmd") == "start":
        adapter = {"name": "x", "version": "1", "float_width": 64, "capabilities": {}}
        print(json.dumps({"protocol": 1, "adapter": adapter}), flush=True)
    else:
        time.sleep(3600)
"""


def test_a_run_stopped_midway_leaves_the_older_report(tmp_path: Path) -> None:
    final, script = tmp_path / "r.jsonl", tmp_path / "adapter.py"
    final.write_text("the older report\n")
    script.write_text(HANGING)
    command = [sys.executable, "-m", "ndcgspec.commands.cli", "run", "--exec"]
    command += [f"{sys.executable} {script}", "--cases", "gain/*", "-q", "--report", str(final)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    partial = partial_path(final)
    while not (partial.exists() and partial.read_text().count("\n") >= 1):
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert (process.returncode, err) == (130, b"ndcgspec: interrupted\n")
    assert final.read_text() == "the older report\n"
    assert json.loads(partial.read_text().splitlines()[0])["type"] == "header"
