"""Questions asked ahead (``survey/asked_ahead.py``): on a thread, behind the caller's own
questions, and never sent again when the caller asks them. Counted as each is built to be
sent."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from ndcgspec.harness.adapters.base import ApiView
from ndcgspec.harness.pool import shared_pools
from ndcgspec.harness.protocol import ProtocolCase
from ndcgspec.harness.worker import WorkerFailure
from ndcgspec.reference import Config
from ndcgspec.survey import probes
from ndcgspec.survey.asked_ahead import AskedAhead
from ndcgspec.survey.extra_probes import numeric_ids, questions_ahead, tie_order_by_length
from ndcgspec.survey.kept_answers import declaration
from ndcgspec.survey.probes import (
    ProbeInput,
    analysis_pool,
    ask,
    number_reading_inputs,
    probe_inputs,
)

EVERY_VIEW = ApiView({}, True)

# The reference adapter as a protocol command line: no answer of it is kept between runs.
REFERENCE = shlex.join([sys.executable, "-m", "ndcgspec.harness.host", "reference"])


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The case id of each question built to be sent to the adapter, as it is built."""
    built: list[str] = []
    payload = probes._payload

    def counted(case_id: str, probe: ProbeInput, asked: Config) -> ProtocolCase:
        built.append(probe.case_id)
        return payload(case_id, probe, asked)

    monkeypatch.setattr(probes, "_payload", counted)
    return built


def test_the_extra_probes_ask_nothing_again_that_was_asked_ahead(sent: list[str]) -> None:
    own = Config.default()
    with shared_pools():
        numbers = declaration(REFERENCE, analysis_pool()).number_format
        ahead = questions_ahead(own, probe_inputs(), EVERY_VIEW)
        AskedAhead(REFERENCE, ahead).wait()
        asked_ahead = len(sent)
        assert tie_order_by_length(REFERENCE, own, own, numbers, EVERY_VIEW) is not None
        assert numeric_ids(REFERENCE, own, own, probe_inputs(), numbers) is not None
        ask(REFERENCE, [(p, own) for p in number_reading_inputs()])
    assert asked_ahead == len(ahead)
    assert len(sent) == asked_ahead


def test_an_adapter_that_does_not_start_is_left_to_the_caller(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-program"
    questions = questions_ahead(Config.default(), [], EVERY_VIEW)[:2]
    with shared_pools():
        AskedAhead(str(missing), questions).wait()
        # Its failure is the caller's, reported when the caller asks.
        with pytest.raises(WorkerFailure):
            ask(str(missing), questions)
