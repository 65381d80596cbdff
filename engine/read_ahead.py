"""Reading a run's next pieces on a thread of their own while the blocks already read are
scored: a piece is the same whichever thread reads it (``ndcg.definition.inputs``).

Tokenising a piece and ranking a block are numpy work on large arrays, most of it done
without the interpreter's lock, so on two cores the two overlap. Issue 41's shapes, 5,000
queries of 1,000 documents, medians of 4 alternating runs: 1,000 judged per query 3.02 ->
2.33 s of wall time (3.11 -> 3.20 s of CPU), heavy ties 1.89 -> 1.51 s (1.97 -> 2.32 s).

The reader shares nothing mutable with the scorer: each piece it hands over is arrays and
strings of its own (`read.RunPiece`), through a queue of at most `DEPTH` of them, so memory
stays that of a few pieces.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

# Pieces read ahead of the scorer: enough to keep the reader busy while a block is scored,
# few enough that a pass given up has little to throw away.
DEPTH = 4


@dataclass(frozen=True)
class _Failed:
    """What the reader raised, handed over in place of the next piece."""

    error: BaseException


_END = object()

# How often a thread waiting for the interpreter's lock gets it from a thread running Python:
# the reader needs it between numpy calls, and at the default 5 ms it waited that long each
# time the scorer ran Python code in between (issue 41, heavy ties: 1.48 -> 1.29 s of wall
# time, 2.30 -> 2.05 s of CPU).
SWITCH_SECONDS = 0.0005


def hand_over_often() -> None:
    """Have the interpreter hand its lock between threads every `SWITCH_SECONDS`; called by
    the commands that score files (``ndcgspec score``), never by the engine itself: a program
    that imports ndcgspec keeps its own interval."""
    sys.setswitchinterval(SWITCH_SECONDS)


class _Pass(Generic[T]):
    """One pass of `pieces()`, read on its own thread into a queue."""

    def __init__(self, pieces: Callable[[], Iterator[T]]) -> None:
        self._queue: queue.Queue[object] = queue.Queue(DEPTH)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._read, args=(pieces,), name="ndcgspec-read-ahead", daemon=True
        )
        self._thread.start()

    def _put(self, item: object) -> bool:
        """Hand `item` over; False once the pass is stopped."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _read(self, pieces: Callable[[], Iterator[T]]) -> None:
        try:
            stream = pieces()
            try:
                for piece in stream:
                    if not self._put(piece):
                        return
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
        except BaseException as error:
            self._put(_Failed(error))
            return
        self._put(_END)

    def items(self) -> Iterator[T]:
        """The pieces in order; what the reader raised, raised where it stopped."""
        try:
            while True:
                item = self._queue.get()
                if item is _END:
                    return
                if isinstance(item, _Failed):
                    raise item.error
                yield item  # type: ignore[misc]
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop the reader and wait for it: the source is then nobody else's."""
        self._stop.set()
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._thread.join()


class ReadAhead(Generic[T]):
    """`pieces`, each pass read ahead of its caller on a thread of its own. Starting a pass,
    and `close`, stop the pass before: a scorer that gives up a pass (a query whose rows
    resume, an input error) reads the source again alone."""

    def __init__(self, pieces: Callable[[], Iterator[T]]) -> None:
        self._pieces = pieces
        self._running: _Pass[T] | None = None

    def __call__(self) -> Iterator[T]:
        self.close()
        self._running = _Pass(self._pieces)
        return self._running.items()

    def close(self) -> None:
        if self._running is not None:
            self._running.stop()
            self._running = None
