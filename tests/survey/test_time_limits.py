"""``predict`` and ``identify`` of an adapter that hangs: ``--timeout`` bounds each case and
``--budget`` the whole command, which then stops in one line with the adapter's processes
killed; limits that bound nothing, and ``predict --queries`` below 1, are refused up front."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest
from hostile.adapters import SENT_LOG
from hostile.cli import ndcgspec, ndcgspec_in_process

from ndcgspec.reference import arithmetic
from ndcgspec.survey.probes import OverBudget, time_limits

HANGING = """
import json, sys, time
from ndcgspec.harness.adapters.reference import ReferenceAdapter


class Hangs(ReferenceAdapter):
    def compute(self, case_input, config):
        time.sleep(3600)


adapter = Hangs()

if __name__ == "__main__":
    for line in sys.stdin:
        if json.loads(line).get("cmd") == "start":
            reply = {"name": "hangs", "version": "1", "float_width": 64, "capabilities": {}}
            print(json.dumps({"protocol": 1, "adapter": reply}), flush=True)
        else:
            time.sleep(3600)
"""


@pytest.fixture
def hanging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "hanging_adapter.py").write_text(HANGING)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ["PYTHONPATH"]]))
    return tmp_path / "hanging_adapter.py"


def test_identify_stops_at_its_budget(hanging: Path) -> None:
    done = ndcgspec(
        "identify", "--exec", f"{sys.executable} {hanging}", "--timeout", "60", "--budget", "3"
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith("ndcgspec: error: stopped after the --budget of 3 seconds\n")


def test_predict_stops_at_its_budget(hanging: Path) -> None:
    done = ndcgspec(
        "predict", "hanging_adapter:adapter", "nDCG", "--queries", "4", "--timeout", "60",
        "--budget", "3",
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "ndcgspec: error: stopped after the --budget of 3 seconds\n",
    )


def test_predict_gives_each_case_its_timeout(hanging: Path) -> None:
    # Within the budget, each case times out after a second: an error, not an hour's wait.
    done = ndcgspec(
        "predict", "hanging_adapter:adapter", "nDCG", "--queries", "2", "--timeout", "1",
        "--budget", "250",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "unexplained" in done.stdout


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        (["--queries", "-1"], "--queries must be at least 1: with none, nothing is checked"),
        (["--queries", "0"], "--queries must be at least 1: with none, nothing is checked"),
        (["--timeout", "nan"], "--timeout and --budget must be positive and finite"),
        (["--budget", "inf"], "--timeout and --budget must be positive and finite"),
        (["--timeout", "0"], "--timeout and --budget must be positive and finite"),
    ],
)
def test_predict_refuses_limits_that_check_nothing(extra: list[str], error: str) -> None:
    done = ndcgspec_in_process("predict", "reference", "nDCG", *extra)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"ndcgspec: error: {error}\n")


def test_identify_refuses_a_nan_timeout() -> None:
    done = ndcgspec_in_process("identify", "reference", "--timeout", "nan")
    assert (done.returncode, done.stderr) == (
        2,
        "ndcgspec: error: --timeout and --budget must be positive and finite\n",
    )


@pytest.mark.parametrize(
    "command",
    [
        # identify goes on through every axis, each question skipped at once: 5 s of CPU.
        pytest.param(["identify"], marks=pytest.mark.slow, id="identify"),
        pytest.param(["predict", "nDCG", "--queries", "8"], id="predict"),
    ],
)
def test_a_hung_adapter_is_sent_no_case_after_its_first_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    # The default budget (half an hour) and a one-second timeout. With every case sent anyway
    # a first batch that times out is sent again case by case, and every later batch too; under
    # the rule each of the two processes is sent at most its first batch, every other case is
    # skipped, and the command ends after about one timeout, the budget unused.
    log = tmp_path / "sent"
    monkeypatch.setenv(SENT_LOG, str(log))
    name, *rest = command
    done = ndcgspec(name, "hostile.adapters:hangs", *rest, "--timeout", "1")
    assert done.returncode in (0, 1), done.stderr
    sent = log.read_text().splitlines()
    assert 1 <= len(sent) <= 2, sent
    assert "--budget" not in done.stderr


class _SlowToCompare:
    """A number whose comparison takes longer than the budget under test."""

    def __lt__(self, other: object) -> bool:
        time.sleep(5)
        return False


def test_the_budget_stops_a_comparison_of_enclosures_as_it_stops_anything() -> None:
    """The alarm lands inside `arithmetic.less`, whose ``except ValueError`` reads mpmath's
    answer to overlapping enclosures: the command still stops with the budget's one line, not
    an internal error (``Undecided``)."""
    stopped = re.escape("stopped after the --budget of 0.2 seconds")
    with pytest.raises(OverBudget, match=stopped), time_limits(60, 0.2):
        arithmetic.less(_SlowToCompare(), _SlowToCompare())  # type: ignore[arg-type]
