"""The cyclic garbage collector paused while the expected values are computed and judged: a
run of the cases (``harness/runner.py``), ``identify``, and each adapter's examination for the
conformance page (``matrix``).

These keep millions of long-lived values: the cases, each probe's sweep, the reference's
expected values, the joint search's verdicts. Every full pass of the collector walks all of
them, and the passes come faster the more they allocate: identify of trectools spent 8.6 of its
26.9 s of CPU in the collector, of rank-validation 8.5 of 39.9 s, a run of the numpy snippet
over the whole suite 7.2 of 24.7 s. What they drop is freed by reference counting: the peak
memory of either identify was the same without the collector, and a full pass after
trectools' found 35 unreachable objects among 3 million.

When the last paused block ends, in whatever thread, what is alive then is moved to the
collector's permanent generation (`gc.freeze`) and the collector runs again. The values kept
(the cases read, the expected values, the sweeps) stay alive until the process ends, and the
first pass over them would have cost 2.3 s after trectools' identify, to free nothing.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
# How many blocks are paused now (threads and nested blocks), and whether the collector ran
# before the first of them: it is enabled again only if it was.
_paused = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Within the block the cyclic collector does not run; when the last block open in the
    process ends, if the collector was enabled when the first began, what is alive is frozen
    and the collector enabled again."""
    global _paused, _was_enabled
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.freeze()
                gc.enable()
