"""Ctrl-C and SIGTERM at any time: one line and the status of the signal (130, 143), never a
traceback, and nothing left behind by a command interrupted while it writes its folder. Each
command runs in a child process: a signal there cannot end the test session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from install_hints import needing

# Ctrl-C while the module `argv[1]` loads: a KeyboardInterrupt raised there, where SIGINT
# would raise it. `ndcgspec.reference` loads first, `ndcgspec.commands.score` as its parser is
# built.
INTERRUPTED_IMPORT = """
import sys

class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name == sys.argv[1]:
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupting())
from ndcgspec.commands.cli import main
sys.exit(main(sys.argv[2:]))
"""

# SIGTERM while compare writes its files into the private folder of `staged`.
TERMINATED_WRITE = """
import os, signal, sys
from ndcgspec.commands import compare_page
from ndcgspec.commands.cli import main

def terminated(report, folder, title):
    (folder / "compare.json").write_text("newer")
    os.kill(os.getpid(), signal.SIGTERM)

compare_page.write_page = terminated
sys.exit(main(sys.argv[1:]))
"""

# A process forked inside `main` (a worker of a process pool) that gets SIGTERM: it must end
# by the signal, as before, not raise in the parent's place.
FORKED = """
import os, signal, time
from ndcgspec.commands.cli import _Terminable

with _Terminable():
    child = os.fork()
    if child == 0:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)
        os._exit(0)
    _, status = os.waitpid(child, 0)
print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)
"""


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("module", ["ndcgspec.reference", "ndcgspec.commands.score"])
def test_ctrl_c_while_starting_is_one_line(module: str, tmp_path: Path) -> None:
    # Both loaded outside main's try before: a KeyboardInterrupt traceback.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 x 1\n")
    run.write_text("q Q0 x 1 1 r\n")
    done = _python(INTERRUPTED_IMPORT, module, "score", str(qrels), str(run))
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "ndcgspec: interrupted\n")


@needing("matplotlib", "figures")
def test_sigterm_while_compare_writes_its_folder_leaves_the_older_files(tmp_path: Path) -> None:
    # SIGTERM ended the process at once: the private folder .ndcgspec-*/ stayed in out/.
    (tmp_path / "qrels").write_text("q 0 x 2\nq 0 y 1\n")
    (tmp_path / "A").write_text("q Q0 x 1 2 A\nq Q0 y 2 1 A\n")
    (tmp_path / "B").write_text("q Q0 y 1 2 B\nq Q0 x 2 1 B\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "compare.json").write_text("older")
    runs = [str(tmp_path / "A"), str(tmp_path / "B")]
    done = _python(
        TERMINATED_WRITE, "compare", "--qrels", str(tmp_path / "qrels"), *runs, "--out", str(out)
    )
    assert (done.returncode, done.stderr) == (143, "ndcgspec: terminated\n")
    assert {p.name: p.read_text() for p in out.iterdir()} == {"compare.json": "older"}


def test_a_forked_process_ends_by_sigterm_as_before() -> None:
    done = _python(FORKED)
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")


def test_a_defect_is_one_line_and_status_2_not_a_traceback(monkeypatch, capsys) -> None:
    from ndcgspec.commands import cli, score

    def broken(args: object) -> int:
        raise ZeroDivisionError("a defect")

    monkeypatch.setattr(score, "run_score", broken)
    monkeypatch.delenv(cli.TRACEBACK, raising=False)
    # A status 1 would read as a failed check (diff's "fail") to a CI gate.
    assert cli.main(["score", "q", "r"]) == 2
    assert capsys.readouterr().err == (
        "ndcgspec: internal error: ZeroDivisionError: a defect (a defect of ndcgspec; "
        "NDCGSPEC_TRACEBACK=1 shows the traceback)\n"
    )
    monkeypatch.setenv(cli.TRACEBACK, "1")
    with pytest.raises(ZeroDivisionError):
        cli.main(["score", "q", "r"])


def test_a_reader_that_goes_away_stops_the_command_quietly() -> None:
    # `ndcgspec explain ... | head -1`: the read end closes before the command writes, so
    # its first write meets a broken pipe, which is the reader's choice, not a defect.
    child = subprocess.Popen(
        [sys.executable, "-m", "ndcgspec.commands.cli", "explain", "nDCG@10", "--cite", "--long"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    error = child.stderr.read().decode()
    assert child.wait(timeout=60) == 141, error
    assert error == ""


def test_main_in_another_thread_runs_and_leaves_sigterm_alone(capsys) -> None:
    # Python sets a signal's handler in the main thread only: elsewhere `main` runs the
    # command with SIGTERM's action as it was.
    import signal
    import threading

    from ndcgspec.commands.cli import main

    before = signal.getsignal(signal.SIGTERM)
    statuses: list[int] = []
    thread = threading.Thread(target=lambda: statuses.append(main(["explain", "nDCG@10"])))
    thread.start()
    thread.join(timeout=60)
    assert statuses == [0]
    assert capsys.readouterr().out.startswith("measure      nDCG@10\n")
    assert signal.getsignal(signal.SIGTERM) is before
