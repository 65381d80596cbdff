"""A deadline for code under test that might hang on hostile input."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


class Hang(Exception):
    """The code under test ran past its time."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after `seconds` (SIGALRM)."""

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
