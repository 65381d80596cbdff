"""On a terminal, the commands that work for seconds before they can count anything show their
bar from the start, saying what they are doing: `run` before it loads the cases, `which`
before it reads the inputs (issue: progress appeared only after 4 s of silence). The work is
stopped where it would begin, and what the terminal shows by then is read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ndcgspec.analysis import convention_search
from ndcgspec.commands import run
from ndcgspec.commands.cli import main
from ndcgspec.reference import NdcgSpecError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _stopped_here(capsys: pytest.CaptureFixture[str], shown: list[str]):
    def stop(*args: object, **kwargs: object) -> None:
        shown.append(capsys.readouterr().err)
        raise NdcgSpecError("stopped where the work begins")

    return stop


def test_run_shows_its_bar_before_it_loads_the_cases(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(run, "show_progress", lambda quiet: True)
    monkeypatch.setattr(run, "load_cases", _stopped_here(capsys, shown))
    assert main(["run", "reference"]) == 2
    assert "loading the cases" in shown[0]
    # The bar is gone before the error's line.
    assert capsys.readouterr().err.endswith("ndcgspec: error: stopped where the work begins\n")


def test_which_shows_its_bar_before_it_reads_the_inputs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(convention_search, "read_qrels", _stopped_here(capsys, shown))
    qrels, run_file = str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt")
    assert main(["which", qrels, run_file, "0.5"]) == 2
    assert "which: reading the inputs" in shown[0]
