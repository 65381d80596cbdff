"""Work split between this process and a forked copy (`survey/halves.py`): the results of
`work(items)` in order, whoever computed them, and the whole list here where the copy fails."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.survey import halves


def squares_and_process(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(i * i, os.getpid()) for i in items]


needs_second_core = pytest.mark.skipif(
    not halves._second_core(), reason="no second core to fork a copy onto"
)


@settings(max_examples=20, deadline=None)
@given(items=st.lists(st.integers(-1000, 1000), max_size=3 * halves.MIN_ITEMS))
def test_the_results_are_those_of_the_work_in_order(items: list[int]) -> None:
    found = halves.in_halves(squares_and_process, items)
    assert [square for square, _ in found] == [i * i for i in items]


@needs_second_core
def test_the_odd_items_are_computed_by_a_copy_of_this_process() -> None:
    items = list(range(2 * halves.MIN_ITEMS))
    found = halves.in_halves(squares_and_process, items)
    here = os.getpid()
    assert {pid for _, pid in found[0::2]} == {here}
    copies = {pid for _, pid in found[1::2]}
    assert len(copies) == 1 and here not in copies


def fails_in_a_copy(parent: int, items: Sequence[int]) -> list[int]:
    if os.getpid() != parent:
        raise RuntimeError("the copy fails")
    return [-i for i in items]


def dies_in_a_copy(parent: int, items: Sequence[int]) -> list[int]:
    if os.getpid() != parent:
        os._exit(3)
    return [-i for i in items]


@needs_second_core
@pytest.mark.parametrize("work", [fails_in_a_copy, dies_in_a_copy])
def test_what_the_copy_did_not_hand_over_is_computed_here(work) -> None:
    items = list(range(2 * halves.MIN_ITEMS))
    here = os.getpid()
    assert halves.in_halves(lambda part: work(here, part), items) == [-i for i in items]


remembered: list[int] = []


def remembering(items: Sequence[int]) -> list[int]:
    remembered.extend(items)
    return [-i for i in items]


@needs_second_core
def test_what_the_copy_learned_is_handed_here_with_its_results() -> None:
    items = list(range(2 * halves.MIN_ITEMS))
    remembered.clear()
    taught: list[list[int]] = []
    found = halves.in_halves(remembering, items, lambda: list(remembered), taught.append)
    assert found == [-i for i in items]
    # The copy remembered its own items alone; this process, its own.
    assert taught == [items[1::2]]
    assert remembered == items[0::2]


def stuck_in_a_copy(parent: int, items: Sequence[int]) -> list[int]:
    if os.getpid() != parent:
        time.sleep(3600)
    return [-i for i in items]


@needs_second_core
def test_a_copy_stuck_past_its_time_is_ended_and_its_half_computed_here(monkeypatch) -> None:
    monkeypatch.setattr(halves, "MIN_PATIENCE", 0.5)
    here = os.getpid()
    items = list(range(2 * halves.MIN_ITEMS))
    began = time.monotonic()
    assert halves.in_halves(lambda part: stuck_in_a_copy(here, part), items) == [-i for i in items]
    assert time.monotonic() - began < 60


@needs_second_core
def test_an_error_here_ends_the_copy_and_is_raised(tmp_path) -> None:
    """Stopped in this process (the budget's alarm, Ctrl-C), the copy is killed and waited
    for: no process is left behind."""
    here = os.getpid()
    started = tmp_path / "copy"

    def work(items: Sequence[int]) -> list[int]:
        if os.getpid() != here:
            started.write_text(str(os.getpid()))
            while True:
                time.sleep(0.01)
        for _ in range(1000):
            if started.exists() and started.read_text():
                raise KeyboardInterrupt
            time.sleep(0.01)
        raise AssertionError("the copy did not start")

    with pytest.raises(KeyboardInterrupt):
        halves.in_halves(work, list(range(2 * halves.MIN_ITEMS)))
    with pytest.raises(ProcessLookupError):
        os.kill(int(started.read_text()), 0)


def _second_core_there(found) -> None:
    found.put(halves._second_core())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_process_of_a_pool_makes_no_copy_of_itself() -> None:
    """``matrix`` examines adapters in processes of a pool, one a core: a copy of each would
    share the cores with the other lanes."""
    context = multiprocessing.get_context("fork")
    found = context.Queue()
    process = context.Process(target=_second_core_there, args=(found,))
    process.start()
    assert found.get(timeout=60) is False
    process.join(timeout=60)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_where_no_copy_can_be_made_everything_is_computed_here(monkeypatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setattr(halves, "_second_core", lambda: True)
    items = list(range(2 * halves.MIN_ITEMS))
    found = halves.in_halves(squares_and_process, items)
    assert found == [(i * i, os.getpid()) for i in items]
