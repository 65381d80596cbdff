"""Questions asked ahead (``survey/asked_ahead.py``): on a thread, behind the caller's own
questions, and never sent again when the caller asks them. Counted by the adapter's input,
which a protocol command line copies to a log."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from ndcgspec.harness.adapters.base import ApiView
from ndcgspec.harness.pool import shared_pools
from ndcgspec.harness.worker import WorkerFailure
from ndcgspec.reference import Config
from ndcgspec.survey.asked_ahead import AskedAhead
from ndcgspec.survey.extra_probes import numeric_ids, questions_ahead, tie_order_by_length
from ndcgspec.survey.kept_answers import declaration
from ndcgspec.survey.probes import analysis_pool, ask, number_reading_inputs, probe_inputs

EVERY_VIEW = ApiView({}, True)


def logged_reference(log: Path) -> str:
    """A protocol command line serving the reference adapter that copies its input to `log`."""
    host = shlex.join([sys.executable, "-m", "ndcgspec.harness.host", "reference"])
    return f"tee -a {shlex.quote(str(log))} | {host}"


def sent(log: Path) -> int:
    return log.read_text().count('"measure"') if log.exists() else 0


def test_the_extra_probes_ask_nothing_again_that_was_asked_ahead(tmp_path: Path) -> None:
    log = tmp_path / "sent.log"
    command = logged_reference(log)
    own = Config.default()
    with shared_pools():
        numbers = declaration(command, analysis_pool()).number_format
        ahead = questions_ahead(own, probe_inputs(), EVERY_VIEW)
        AskedAhead(command, ahead).wait()
        asked_ahead = sent(log)
        assert tie_order_by_length(command, own, own, numbers, EVERY_VIEW) is not None
        assert numeric_ids(command, own, own, probe_inputs(), numbers) is not None
        ask(command, [(p, own) for p in number_reading_inputs()])
    assert asked_ahead == len(ahead)
    assert sent(log) == asked_ahead


def test_an_adapter_that_does_not_start_is_left_to_the_caller(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-program"
    questions = questions_ahead(Config.default(), [], EVERY_VIEW)[:2]
    with shared_pools():
        AskedAhead(str(missing), questions).wait()
        # Its failure is the caller's, reported when the caller asks.
        with pytest.raises(WorkerFailure):
            ask(str(missing), questions)
