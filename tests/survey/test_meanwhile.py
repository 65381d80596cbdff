"""The reference's answers computed on another thread while an adapter answers
(``survey/meanwhile.py``) are those the main thread computes, the thread ends with the block,
and the candidates are each probe as asked, then under each choice of each axis named."""

from __future__ import annotations

import threading
import time

import pytest

import ndcgspec.survey.probes as probes
from ndcgspec.engine.sweep import Sweep
from ndcgspec.reference import Config
from ndcgspec.suite.expect import swept_outcome
from ndcgspec.suite.expected_cache import ExpectedCache
from ndcgspec.suite.load import inline_inputs
from ndcgspec.survey.meanwhile import expected_meanwhile, first_candidates
from ndcgspec.survey.probes import ProbeInput

# Grades 2, 0, 1 ranked in that order, with ties at the top: the gain, discount and ties
# choices answer it differently.
PROBE = ProbeInput(
    "meanwhile/one",
    (("q1", "a", "2"), ("q1", "b", "0"), ("q1", "c", "1")),
    (("q1", "a", "3"), ("q1", "b", "3"), ("q1", "c", "1")),
    Config.default(),
)
QUESTIONS = [(PROBE, Config.default()), (PROBE, Config.default().replace(cutoff=2))]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No value known beforehand, in memory or on disk: the thread computes every one."""
    monkeypatch.setattr(probes, "_expected_values", lambda: ExpectedCache(None))
    probes._outcome.cache_clear()
    probes._sweep.cache_clear()


def test_the_candidates_are_the_questions_then_one_axis_changed() -> None:
    found = list(first_candidates(QUESTIONS, ["gain", "ties"]))
    assert found[:2] == QUESTIONS
    for probe, config in found[2:]:
        asked = next(a for p, a in QUESTIONS if a.cutoff == config.cutoff)
        changed = [axis for axis in ("gain", "ties") if config.choice(axis) != asked.choice(axis)]
        assert probe is PROBE and len(changed) == 1
        assert config.replace(**{changed[0]: asked.choice(changed[0])}) == asked
    # Two questions, each under every other gain and ties choice of the spec.
    gains = {c.choice("gain") for _, c in found}
    assert {"linear", "exponential"} <= gains
    assert len({c for _, c in found}) == len(found)


def test_values_computed_meanwhile_are_the_main_threads(fresh: None) -> None:
    candidates = list(first_candidates(QUESTIONS, ["gain", "discount", "ties"]))
    with expected_meanwhile(QUESTIONS, ["gain", "discount", "ties"]):
        deadline = time.monotonic() + 60
        while probes._outcome.cache_info().currsize < len(candidates):
            assert time.monotonic() < deadline, "the thread computed too few values"
            time.sleep(0.01)
    qrels, run = inline_inputs(PROBE.qrels, PROBE.run)
    for probe, config in candidates:
        alone = swept_outcome(Sweep(qrels, run, [config.cutoff]), config)
        assert probes.expected_of(probe, config) == alone, config


def test_the_thread_ends_with_the_block(fresh: None) -> None:
    with expected_meanwhile(QUESTIONS, ["gain", "discount", "ties"]):
        pass
    assert not [t for t in threading.enumerate() if t.name == "expected values"]
