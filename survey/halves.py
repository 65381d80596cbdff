"""Independent computations over a list, split between this process and a forked copy of it
where the machine has a second core (``identify``: the single changes and the pairs of changes
its search weighs, `joint_search._descend`, and what each probe tells apart when it chooses
what to ask, `probe_choice.probes_to_ask`).

The copy starts with everything this process has computed and kept, so it computes no more than
this process would. It only computes: it asks no adapter and writes no file (its lines for the
expected-values cache leave with it, unwritten, through `os._exit`), and hands back its results,
with what it learned (the search's: the expected values it computed, which this process keeps
and writes), pickled through a pipe. Where no copy can be made, or it fails, dies or is stuck,
this process computes its half too: the results are the same either way, in the order of the
items.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")
C = TypeVar("C")

MIN_ITEMS = 16
"""Fewer items are computed here alone: forking a process of hundreds of MiB costs more."""

PATIENCE = 3.0
MIN_PATIENCE = 10.0
"""How long, after this process has done its half, the copy's half is waited for: PATIENCE
times what this process's half took, at least MIN_PATIENCE seconds."""


def _second_core() -> bool:
    """Whether a forked copy can run beside this process: fork as Linux makes it, a second
    core this process may use, and no siblings started with it to use the cores (``matrix``
    examines adapters in processes of a pool, one a core)."""
    return (
        sys.platform == "linux"
        and len(os.sched_getaffinity(0)) > 1
        and multiprocessing.parent_process() is None
    )


def in_halves(
    work: Callable[[Sequence[T]], list[R]],
    items: Sequence[T],
    learned: Callable[[], C] | None = None,
    learn: Callable[[C], None] | None = None,
) -> list[R]:
    """`work(items)`, one result per item in order: the odd items computed by a forked copy of
    this process while this one computes the even ones. `work` reads nothing but its items
    and what both processes hold, and its results pickle. What `learned()` gives in the copy
    once its work is done (what it computed and kept, which this process would otherwise
    compute again) is handed to `learn` here."""
    if len(items) < MIN_ITEMS or not _second_core():
        return work(items)
    mine, theirs = items[0::2], items[1::2]
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        # No process to spare (a limit on processes, or on memory): all of it here.
        os.close(read_end)
        os.close(write_end)
        return work(items)
    if pid == 0:
        _compute_and_exit(partial(_work_and_learned, work, learned), theirs, read_end, write_end)
    os.close(write_end)
    try:
        began = time.monotonic()
        done = work(mine)
        # The copy does what this process did, in about the time: one that takes far longer
        # is stuck (a lock another thread held when it was made), and is not waited for.
        patience = max(MIN_PATIENCE, PATIENCE * (time.monotonic() - began))
        answer = _handed(read_end, time.monotonic() + patience)
        if answer is None or len(answer[0]) != len(theirs):
            os.kill(pid, signal.SIGKILL)
            handed = work(theirs)
        else:
            handed, taught = answer
            if learn is not None and taught is not None:
                learn(taught)
    finally:
        os.close(read_end)
        # Ended, or stopped by what stopped this process (the budget's alarm, Ctrl-C).
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return [done[i // 2] if i % 2 == 0 else handed[i // 2] for i in range(len(items))]


def _handed(read_end: int, deadline: float) -> tuple[list[Any], Any] | None:
    """What the copy pickled into the pipe, read to its end by `deadline`; None where it
    wrote nothing whole (it failed or died) or is not done by then."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_end], [], [], left)[0]:
            return None
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    try:
        found = pickle.loads(b"".join(chunks))
    except (EOFError, pickle.UnpicklingError, ValueError, TypeError):
        return None
    ok = isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], list)
    return found if ok else None


def _work_and_learned(
    work: Callable[[Sequence[T]], list[R]], learned: Callable[[], C] | None, items: Sequence[T]
) -> tuple[list[R], C | None]:
    return work(items), None if learned is None else learned()


def _compute_and_exit(
    work: Callable[[Sequence[T]], object], items: Sequence[T], read_end: int, write_end: int
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
