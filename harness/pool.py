"""A pool of adapter processes: batches go to N workers; a failed worker is replaced.

When a process fails on a batch of several cases, each case of the batch is retried alone on
a fresh process, so the failure lands only on the cases that cause it, and the run goes on.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass

from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.protocol import ProtocolCase, StartReply
from ndcgspec.harness.worker import Worker, WorkerFailure, WorkerTimeout


@dataclass(frozen=True)
class Job:
    """One case to send: `build` returns it as the adapter receives it, or None to drop it."""

    key: str
    build: Callable[[], ProtocolCase | None]


Deliver = Callable[[str, CaseAnswer], None]


def _built(payload: ProtocolCase) -> Callable[[], ProtocolCase]:
    """The build of a job whose case is already made (one sent again alone)."""
    return lambda: payload


@dataclass(frozen=True)
class PoolOptions:
    """How the adapter processes are run."""

    jobs: int = 1
    timeout: float = 60.0
    start_timeout: float = 60.0
    max_output_bytes: int = 16 * 2**20
    validate: bool = False
    # Once a batch or a case has timed out the adapter is taken as hung, and no case is sent
    # after it (`skipped_answer`): what a hung adapter costs is one timeout, not one a case.
    stop_after_timeout: bool = False


def failure_answer(failure: WorkerFailure) -> CaseAnswer:
    """The answer recorded for a case whose process failed."""
    return CaseAnswer.from_json(
        {"error": str(failure), "detail": failure.detail, "process_failed": True}
    )


def skipped_answer(timeout: WorkerFailure) -> CaseAnswer:
    """The answer recorded for a case not sent because the adapter had timed out before."""
    return CaseAnswer.from_json(
        {
            "error": f"not sent: the adapter hung on an earlier case ({timeout})",
            "detail": timeout.detail,
            "process_failed": True,
        }
    )


class WorkerPool:
    """Adapter processes running one command; `open` first, then `run`, then `close`."""

    def __init__(self, command: Sequence[str] | str, options: PoolOptions) -> None:
        self.command = command
        self.options = options
        self._spare: list[Worker] = []
        self._live: set[Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._hung: WorkerFailure | None = None
        self.start_reply = StartReply({})
        # `run` and `run_behind` take turns on the processes: a batch behind is sent only
        # while no run is waiting or running, and a run waits for at most that one batch.
        self._turns = threading.Condition()
        self._running = 0
        self._behind_busy = False

    def _spawn(self) -> Worker:
        worker = Worker(
            self.command,
            max_output_bytes=self.options.max_output_bytes,
            validate=self.options.validate,
        )
        with self._lock:
            if not self._closed:
                self._live.add(worker)
                return worker
        worker.kill()
        raise WorkerFailure("the run was stopped")

    def _retire(self, worker: Worker, graceful: bool) -> None:
        with self._lock:
            self._live.discard(worker)
        if graceful:
            worker.stop()
        else:
            worker.kill()

    def open(self) -> StartReply:
        """Start the first process; its start reply (WorkerFailure if it does not start)."""
        worker = self._spawn()
        try:
            reply = worker.start(self.options.start_timeout)
        except WorkerFailure:
            self._retire(worker, graceful=False)
            raise
        self._spare.append(worker)
        self.start_reply = reply
        return reply

    def _keep_spare(self, worker: Worker) -> None:
        """A worker whose batches are done waits for the next `run`; `close` stops it."""
        with self._lock:
            if not self._closed:
                self._spare.append(worker)
                return
        self._retire(worker, graceful=True)

    def _started(self) -> Worker:
        with self._lock:
            if self._spare:
                return self._spare.pop()
        worker = self._spawn()
        try:
            worker.start(self.options.start_timeout)
        except WorkerFailure:
            self._retire(worker, graceful=False)
            raise
        return worker

    def _send(self, worker: Worker | None, jobs: Sequence[Job], deliver: Deliver) -> Worker | None:
        """Send one batch; the worker to go on with (None when it had to be killed)."""
        payloads = {}
        for job in jobs:
            payload = job.build()
            if payload is not None:
                payloads[job.key] = payload
        if not payloads:
            return worker
        if self._hung is not None:
            for key in payloads:
                deliver(key, skipped_answer(self._hung))
            return worker
        try:
            worker = worker or self._started()
            # The batch as a whole gets the per-case timeout: a hung case then costs it once
            # here and once alone, never the timeout times the batch's size.
            results = worker.run(list(payloads.values()), self.options.timeout)
        except WorkerFailure as failure:
            if worker is not None:
                self._retire(worker, graceful=False)
            if self.options.stop_after_timeout and isinstance(failure, WorkerTimeout):
                self._hung = failure
            if len(payloads) == 1 or self._hung is not None:
                for key in payloads:
                    deliver(key, failure_answer(failure))
                return None
            retry = None
            for key, payload in payloads.items():
                retry = self._send(retry, [Job(key, _built(payload))], deliver)
            if retry is not None:
                self._retire(retry, graceful=True)
            return None
        for key in payloads:
            answer = results.get(key) or CaseAnswer.from_json(
                {"error": "the adapter's reply has no result for this case"}
            )
            deliver(key, answer)
        return worker

    def _drive(
        self, batches: queue.Queue[Sequence[Job]], deliver: Deliver, problems: list[BaseException]
    ) -> None:
        worker: Worker | None = None
        try:
            while not problems:
                try:
                    batch = batches.get_nowait()
                except queue.Empty:
                    return
                worker = self._send(worker, batch, deliver)
        except BaseException as problem:
            # Re-raised by `run` in the calling thread, which reports it as one line.
            problems.append(problem)
        finally:
            if worker is not None:
                self._keep_spare(worker)

    def run(self, batches: Sequence[Sequence[Job]], deliver: Deliver) -> None:
        """Send every batch, `jobs` processes at a time; `deliver(key, answer)` is called once
        per case as its answer arrives, from the pool's threads but never concurrently. A batch
        of `run_behind` being answered is waited for first."""
        with self._turns:
            self._running += 1
            self._turns.wait_for(lambda: not self._behind_busy)
        try:
            self._run(batches, deliver)
        finally:
            with self._turns:
                self._running -= 1
                self._turns.notify_all()

    def run_behind(self, batches: Sequence[Sequence[Job]], deliver: Deliver) -> None:
        """Send every batch on one process, each only while no `run` is waiting or running:
        questions asked before they are needed use the adapter while its caller computes,
        and delay what the caller asks meanwhile by one batch at most. An adapter of one
        process (`Adapter.processes`) is never started twice for it. `deliver` is called in
        the calling thread."""
        for batch in batches:
            with self._turns:
                self._turns.wait_for(lambda: not self._running)
                if self._closed:
                    return
                self._behind_busy = True
            try:
                worker = self._send(None, batch, self._open_only(deliver))
                if worker is not None:
                    self._keep_spare(worker)
            finally:
                with self._turns:
                    self._behind_busy = False
                    self._turns.notify_all()

    def _open_only(self, deliver: Deliver) -> Deliver:
        """`deliver`, called only while the pool is open."""

        def delivered(key: str, answer: CaseAnswer) -> None:
            if not self._closed:
                deliver(key, answer)

        return delivered

    def _run(self, batches: Sequence[Sequence[Job]], deliver: Deliver) -> None:
        pending: queue.Queue[Sequence[Job]] = queue.Queue()
        for batch in batches:
            pending.put(batch)
        lock = threading.Lock()
        delivered = self._open_only(deliver)

        def serialised(key: str, answer: CaseAnswer) -> None:
            with lock:
                delivered(key, answer)

        problems: list[BaseException] = []
        # The adapter may say that more of its processes would not help (`Adapter.processes`).
        jobs = min(self.options.jobs, self.start_reply.adapter.get("processes", self.options.jobs))
        threads = [
            threading.Thread(target=self._drive, args=(pending, serialised, problems), daemon=True)
            for _ in range(max(1, min(jobs, len(batches))))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
        if problems:
            raise problems[0]

    def close(self) -> None:
        """Stop every process still running (spare ones and, after an interrupt, busy ones)."""
        with self._lock:
            self._closed = True
            workers = list(self._live)
        for worker in workers:
            self._retire(worker, graceful=worker in self._spare)
        self._spare.clear()


_SHARED: ContextVar[dict[str, WorkerPool] | None] = ContextVar("shared_pools", default=None)
_OPENING = threading.Lock()
"""Held while a shared pool is looked up, and opened when it is not there yet."""


@contextmanager
def shared_pools() -> Iterator[None]:
    """Within it, `pooled` keeps each pool open for the next call with the same command and
    options, and `declared_adapter` remembers each start reply, so that identify, the preset
    checks and the page start an adapter's processes once, not once per set of questions: a
    library that compiles on first use (ranx's numba kernels) then pays that once per
    process. Every pool is closed on leaving the outermost one."""
    if _SHARED.get() is not None:
        yield
        return
    shared: dict[str, WorkerPool] = {}
    token = _SHARED.set(shared)
    try:
        yield
    finally:
        _SHARED.reset(token)
        for kept in shared.values():
            kept.close()


def _shared_key(command: Sequence[str] | str, options: PoolOptions) -> str:
    return json.dumps([command, asdict(options)])


@contextmanager
def pooled(command: Sequence[str] | str, options: PoolOptions) -> Iterator[WorkerPool]:
    """An open pool running `command`: inside `shared_pools` the one kept for this command and
    options, otherwise a new one, closed on leaving. WorkerFailure if it does not start."""
    shared = _SHARED.get()
    if shared is not None:
        key = _shared_key(command, options)
        # Threads of one command (identify's questions asked ahead) share its pools: the
        # first opens it, the others wait and use it, never a second set of processes.
        with _OPENING:
            found = shared.get(key)
            if found is None:
                found = WorkerPool(command, options)
                found.open()
                shared[key] = found
        yield found
        return
    pool = WorkerPool(command, options)
    try:
        pool.open()
        yield pool
    finally:
        pool.close()


def declared_adapter(
    command: Sequence[str] | str, options: PoolOptions | None = None
) -> Declaration:
    """The declaration of the adapter's start reply: all the harness learns about an adapter
    it does not run (name, version, capabilities, number format, observability), from a worker
    process, so that no adapter module or library is imported by the harness. Inside
    `shared_pools` the process that answers it is kept for the questions asked with the same
    options. A DeclarationError when it declares what the spec does not know."""
    options = options or PoolOptions()
    try:
        with pooled(command, options) as pool:
            reply = pool.start_reply
    except WorkerFailure as failure:
        raise AdapterError(f"the adapter did not start: {failure.summary()}") from None
    return Declaration.from_json(reply.adapter)
