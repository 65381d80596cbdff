"""Passes over a run read ahead on a thread of their own (`engine/read_ahead.py`): the same
pieces in the same order, the reader's error where it happened, and never two readers of one
source at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import closing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndcgspec.engine import read_ahead


class Source:
    """Pieces 0 .. count - 1, raising after `fail_after` of them; counts the passes open at
    once, as a file read by two passes would be read."""

    def __init__(self, count: int, fail_after: int | None = None, delay: float = 0.0) -> None:
        self.count, self.fail_after, self.delay = count, fail_after, delay
        self.lock = threading.Lock()
        self.open = self.most_open = self.closed = 0

    def pieces(self) -> Iterator[int]:
        with self.lock:
            self.open += 1
            self.most_open = max(self.most_open, self.open)
        try:
            for i in range(self.count):
                if i == self.fail_after:
                    raise ValueError(f"line {i}: not a run")
                time.sleep(self.delay)
                yield i
        finally:
            with self.lock:
                self.open -= 1
                self.closed += 1


@given(count=st.integers(0, 3 * read_ahead.DEPTH))
def test_a_pass_gives_every_piece_in_order(count: int) -> None:
    source = Source(count)
    with closing(read_ahead.ReadAhead(source.pieces)) as ahead:
        assert list(ahead()) == list(range(count))
    assert source.open == 0


@given(count=st.integers(1, 3 * read_ahead.DEPTH), data=st.data())
def test_the_readers_error_comes_after_the_pieces_read_before_it(count: int, data) -> None:
    fail_after = data.draw(st.integers(0, count - 1))
    source = Source(count, fail_after)
    taken: list[int] = []
    with (
        closing(read_ahead.ReadAhead(source.pieces)) as ahead,
        pytest.raises(ValueError, match=f"line {fail_after}: not a run"),
    ):
        for piece in ahead():
            taken.append(piece)
    assert taken == list(range(fail_after))


def test_a_new_pass_starts_once_the_pass_given_up_has_stopped() -> None:
    """A scorer gives a pass up (a query's rows resume) and reads from the start again: the
    first reader, still reading ahead, is stopped and its source closed before the second
    opens it."""
    source = Source(10 * read_ahead.DEPTH, delay=0.002)
    with closing(read_ahead.ReadAhead(source.pieces)) as ahead:
        first = ahead()
        assert next(first) == 0
        second = list(ahead())
        del first
    assert second == list(range(10 * read_ahead.DEPTH))
    assert source.most_open == 1
    assert (source.open, source.closed) == (0, 2)


def test_closing_stops_a_pass_not_read_to_its_end() -> None:
    source = Source(10 * read_ahead.DEPTH, delay=0.002)
    with closing(read_ahead.ReadAhead(source.pieces)) as ahead:
        pieces = ahead()
        assert next(pieces) == 0
    assert (source.open, source.closed) == (0, 1)
    assert not any(t.name == "ndcgspec-read-ahead" for t in threading.enumerate())
