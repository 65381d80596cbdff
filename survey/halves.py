"""Independent computations over a list, split between this process and a forked copy of it
where the machine has a second core (``identify``'s search: the pairs of changes it weighs where
no single change lowers its cost, `joint_search._descend`).

The copy starts with everything this process has computed and kept, so it computes no more than
this process would. It only computes: it asks no adapter and writes no file (its lines for the
expected-values cache leave with it, unwritten, through `os._exit`), and hands back its results
pickled through a pipe. Where no copy can be made, or it fails or dies, this process computes
its half too: the results are the same either way, in the order of the items.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 16
"""Fewer items are computed here alone: forking a process of hundreds of MiB costs more."""


def _second_core() -> bool:
    """Whether a forked copy can run beside this process: fork as Linux makes it, and a
    second core this process may use."""
    return sys.platform == "linux" and len(os.sched_getaffinity(0)) > 1


def in_halves(work: Callable[[Sequence[T]], list[R]], items: Sequence[T]) -> list[R]:
    """`work(items)`, one result per item in order: the odd items computed by a forked copy of
    this process while this one computes the even ones. `work` reads nothing but its items
    and what both processes hold, and its results pickle."""
    if len(items) < MIN_ITEMS or not _second_core():
        return work(items)
    mine, theirs = items[0::2], items[1::2]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        _compute_and_exit(work, theirs, read_end, write_end)
    os.close(write_end)
    exited = False
    try:
        done = work(mine)
        with os.fdopen(read_end, "rb") as incoming:
            read_end = -1
            try:
                handed: list[R] | None = pickle.load(incoming)
            except (EOFError, pickle.UnpicklingError):
                handed = None
        os.waitpid(pid, 0)
        exited = True
        if handed is None or len(handed) != len(theirs):
            handed = work(theirs)
    finally:
        if read_end >= 0:
            os.close(read_end)
        if not exited:
            # Stopped before the copy was waited for (the budget's alarm, Ctrl-C): it ends too.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    merged: list[R] = []
    for index in range(len(items)):
        merged.append(done[index // 2] if index % 2 == 0 else handed[index // 2])
    return merged


def _compute_and_exit(
    work: Callable[[Sequence[T]], list[R]], items: Sequence[T], read_end: int, write_end: int
) -> None:
    """In the copy: compute, hand the results over, and leave without running anything this
    process registered to run at its exit (no cache line is written twice)."""
    status = 1
    try:
        os.close(read_end)
        with os.fdopen(write_end, "wb") as out:
            pickle.dump(work(items), out)
        status = 0
    finally:
        os._exit(status)
