"""Questions asked before they are needed, while the caller computes (issue 41: identify in
seconds).

identify alternates between asking the adapter and computing the reference's values for what
it answered: while it computes, the adapter waits; while the adapter answers, it waits. Some
of its questions are the same whatever the answers show (``extra_probes.questions_ahead``);
`AskedAhead` sends those on a thread of its own as soon as the adapter has started, one at a
time and only while identify asks nothing else (`WorkerPool.run_behind`), so that a library's
work on them, and what it does once on its first question (ranx compiling its kernels), falls
in the time identify computes. Their answers are kept where every answer is (the pool's and
``survey/kept_answers.py``): asked again later, they are not sent again.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from functools import partial
from typing import TypeVar

from ndcgspec.reference import Config
from ndcgspec.survey.probes import ProbeInput, ask

T = TypeVar("T")


def in_background(call: Callable[[], T]) -> Future[T]:
    """The future of `call()`, computed on a thread in the caller's context (its shared pools,
    timeouts and number of processes). A daemon thread: an interrupted caller leaves without
    waiting for it."""
    future: Future[T] = Future()

    def settle() -> None:
        try:
            future.set_result(call())
        except BaseException as error:
            # Raised to the caller by `Future.result`, as it is.
            future.set_exception(error)

    threading.Thread(target=contextvars.copy_context().run, args=(settle,), daemon=True).start()
    return future


class AskedAhead:
    """`questions` asked of the adapter `command` on a thread, behind every other question;
    `wait` before asking them again, so that none is sent twice."""

    def __init__(
        self, command: Sequence[str] | str, questions: Sequence[tuple[ProbeInput, Config]]
    ) -> None:
        self._asked = in_background(partial(_asked, command, list(questions)))

    def wait(self) -> None:
        """Return once every question has its answer, or has failed."""
        self._asked.result()


def _asked(command: Sequence[str] | str, questions: list[tuple[ProbeInput, Config]]) -> None:
    try:
        ask(command, questions, behind=True)
    except Exception:
        # Asked again when needed, a question that fails here fails there, where its failure
        # is reported as every other is.
        return
