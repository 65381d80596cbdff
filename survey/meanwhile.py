"""Expected values computed while an adapter answers (``ndcgspec identify``).

The adapter's processes take seconds to minutes over the probes (a library compiling its
kernels, a JVM starting), and the reference's answers that the joint search reads first do
not depend on theirs: each probe under the configuration it is asked, and under every
candidate of every axis (`probes.distinguishing`'s). They are computed on a thread of their
own while the adapter answers, into the caches the search reads (`probes.outcome_key`), and
the thread stops as soon as the answers are in. The reference's arithmetic keeps its
precision per thread (``reference/contexts.py``), and a probe's sweep is extended under its
own lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_ids
from ndcgspec.survey.probes import ProbeInput, outcome_key, with_choice


def first_candidates(
    questions: Sequence[tuple[ProbeInput, Config]], axes: Sequence[str]
) -> Iterator[tuple[ProbeInput, Config]]:
    """Each probe under the configuration it is asked, then under each choice of every one of
    `axes` with the rest as asked: the candidates the joint search compares first."""
    yield from questions
    for probe, asked in questions:
        for axis_id in axes:
            for choice in choice_ids(axis_id):
                config = with_choice(asked, axis_id, choice, probe.config)
                if config is not None and config != asked:
                    yield probe, config


@contextmanager
def expected_meanwhile(
    questions: Sequence[tuple[ProbeInput, Config]], axes: Sequence[str]
) -> Iterator[None]:
    """Within the block, the reference's answers to `first_candidates` are computed on another
    thread, which stops when the block ends (after the value it is computing)."""
    stop = threading.Event()

    def compute() -> None:
        try:
            for probe, config in first_candidates(questions, axes):
                if stop.is_set():
                    return
                outcome_key(probe, config)
        except Exception:
            # The search computes the same value again on its own thread, and reports what
            # stops it there.
            return

    thread = threading.Thread(target=compute, name="expected values", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
