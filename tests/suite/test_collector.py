"""The collector paused while the survey computes (``survey/collector.py``)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from ndcgspec.suite.collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def test_the_collector_is_paused_within_the_block_and_runs_after_it() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_the_block_leaves_alive_is_not_walked_again() -> None:
    """Read off the objects themselves, not off the count of frozen ones: a collection that
    frees a cycle may free frozen objects it held (the count fell by 2 in CI once)."""
    gc.enable()
    gc.unfreeze()
    with collector_paused():
        kept = [[index] for index in range(1000)]
    assert gc.get_freeze_count() >= len(kept)
    gc.collect()
    # The collector's generations list every object it walks; frozen ones are in none.
    walked = {id(found) for found in gc.get_objects()}
    assert not any(id(item) in walked for item in kept)


def test_an_inner_block_ending_leaves_the_outer_one_paused() -> None:
    gc.enable()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_error_in_the_block_still_restores_the_collector() -> None:
    gc.enable()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("inside")
    assert gc.isenabled()


def test_a_thread_ending_its_block_first_leaves_the_other_paused() -> None:
    gc.enable()
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    with collector_paused():
        thread.start()
        assert entered.wait(10)
    # This thread's block has ended, the other's has not.
    assert not gc.isenabled()
    release.set()
    thread.join(10)
    assert gc.isenabled()
