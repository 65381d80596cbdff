"""The parent side of the protocol: one adapter process, treated as untrusted.

A `Worker` starts the adapter command in a process group of its own, sends protocol lines and
reads the replies with a deadline and a size cap. Anything the process does wrong (dies,
including by SIGSEGV or SIGABRT; exits while a process it started holds its output open; hangs
past the deadline; writes a line that is too long, not JSON, or out of sequence; breaks the
schema in validation mode) raises `WorkerFailure` with one line saying what happened, after the
whole process group has been killed. The caller then starts a fresh worker. A result object
that breaks the protocol's schema becomes that case's error, with or without validation mode.

The group is led by a watchdog that waits for end of input on a pipe only the harness holds:
when the harness dies, even by SIGKILL, the kernel closes that pipe and the watchdog kills the
group, so no adapter (nor anything it started, nor the shell of an --exec command line)
outlives the harness.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import IO, Any, NoReturn

from jsonschema.exceptions import best_match

import ndcgspec
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.protocol import (
    ProtocolCase,
    ProtocolError,
    StartReply,
    decode,
    encode,
    protocol_version,
    result_validator,
    run_line,
    schema_violation,
    start_line,
    stop_line,
)
from ndcgspec.harness.registry import BUILTIN_PROGRAMS

_CHUNK = 1 << 20
_STDERR_TAIL = 2000
# Of the adapter's stderr only the last bytes are kept: it may write without end.
STDERR_KEPT_BYTES = 64 * 1024
# How often a wait for a reply looks whether the adapter itself is still running.
_LIVENESS_SECONDS = 0.25
# The watchdog leading each adapter's process group: on end of input, kill the group.
_WATCHDOG = "import os, sys; sys.stdin.buffer.read(); os.killpg(0, 9)"


class WorkerFailure(Exception):
    """The adapter process failed as a whole; `detail` holds the tail of its stderr."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail

    def summary(self) -> str:
        """The message, with the last line of stderr when the message lacks it."""
        last = self.detail.splitlines()[-1][:200] if self.detail else ""
        return f"{self} ({last})" if last and last not in str(self) else str(self)


class WorkerTimeout(WorkerFailure):
    """The adapter did not answer within its time: it may be hung."""


def python_host_command(target: str) -> list[str]:
    """The command that serves the Python adapter `target` over the protocol."""
    return [sys.executable, "-m", "ndcgspec.harness.host", target]


def example_program(name: str) -> Path:
    """A protocol adapter shipped with the harness, such as ``ndcg_adapter.mjs``."""
    return Path(str(files("ndcgspec.harness.adapters").joinpath(name)))


def adapter_command(target: str | None, exec_line: str | None) -> list[str] | str:
    """The command of an adapter: a shell command line given with --exec, a built-in
    program, or the host serving a Python adapter (built-in name or ``module:object``)."""
    if exec_line or target is None:
        return exec_line or ""
    if target in BUILTIN_PROGRAMS:
        interpreter, program = BUILTIN_PROGRAMS[target]
        return [interpreter, str(example_program(program))]
    return python_host_command(target)


def _signal_name(status: int) -> str:
    try:
        return signal.Signals(-status).name
    except ValueError:
        return f"signal {-status}"


def checked_result(result: Mapping[str, Any]) -> tuple[str, CaseAnswer]:
    """The case id and answer of `result` when it is a result object of the protocol;
    otherwise an error answer of the same case (values as strings, missing fields: bad output
    is an error, not a fail)."""
    error = best_match(result_validator().iter_errors(result))
    if error is None:
        return result["id"], CaseAnswer.from_json(result)
    where = "/".join(str(p) for p in error.absolute_path)
    text = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    case_id = result.get("id")
    malformed = {
        "id": case_id if isinstance(case_id, str) else "",
        "error": f"malformed result{' at ' + where if where else ''}: {text}",
        "detail": encode(result)[:_STDERR_TAIL].decode("utf-8", "replace"),
    }
    return malformed["id"], CaseAnswer.from_json(malformed)


def _piped(stream: IO[bytes] | None) -> IO[bytes]:
    """A stream a process was given as ``subprocess.PIPE``, which Popen always opens (its
    attribute is optional only for the streams that are not piped)."""
    assert stream is not None
    return stream


class Worker:
    """One running adapter process speaking the protocol."""

    def __init__(
        self,
        command: Sequence[str] | str,
        *,
        max_output_bytes: int,
        validate: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.command = command
        self.max_output_bytes = max_output_bytes
        self.validate = validate
        self.seq = 0
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._watchdog = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,
        )
        try:
            self.process = subprocess.Popen(
                command,
                shell=isinstance(command, str),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                process_group=self._watchdog.pid,
                env=None if env is None else dict(env),
            )
        except OSError as error:
            self._release_watchdog()
            raise WorkerFailure(f"cannot start adapter: {error.strerror or error}") from None
        self._stdin = _piped(self.process.stdin)
        self._stdout = _piped(self.process.stdout)
        self._stderr_pipe = _piped(self.process.stderr)
        # stderr is drained by a thread of its own, so an adapter writing there never blocks
        # while the harness writes to its input.
        self._stderr_reader = threading.Thread(target=self._keep_stderr, daemon=True)
        self._stderr_reader.start()
        self._buffer = bytearray()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        os.set_blocking(self._stdin.fileno(), False)
        self._writable = selectors.DefaultSelector()
        self._writable.register(self._stdin, selectors.EVENT_WRITE)

    def start(self, timeout: float) -> StartReply:
        """Send ``start``; the adapter's start reply."""
        reply = self._exchange(start_line(ndcgspec.__version__), "start-reply", timeout)
        if reply.get("protocol") != protocol_version():
            self._fail(
                f"adapter speaks protocol {reply.get('protocol')!r}, not {protocol_version()}"
            )
        if not isinstance(reply.get("adapter"), dict):
            self._fail("start reply has no adapter object")
        # Checked whether or not every message is: the whole run is planned from this reply.
        violation = schema_violation("start-reply", reply)
        if violation:
            self._fail(violation)
        return StartReply(reply["adapter"])

    def run(self, cases: Sequence[ProtocolCase], timeout: float) -> dict[str, CaseAnswer]:
        """Send one batch; the answers of the reply by case id, checked for the batch's
        sequence number, each result checked against the protocol's schema
        (`checked_result`)."""
        self.seq += 1
        reply = self._exchange(run_line(self.seq, cases), "run-reply", timeout)
        if reply.get("seq") != self.seq:
            self._fail(f"reply carries seq {reply.get('seq')!r}, the request had seq {self.seq}")
        results = reply.get("results")
        if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
            self._fail("run reply has no list of result objects")
        return dict(checked_result(r) for r in results)

    def stop(self, grace: float = 2.0) -> None:
        """Send ``stop`` and let the process exit; kill its group if it does not."""
        with contextlib.suppress(WorkerFailure, OSError, subprocess.TimeoutExpired):
            if self.process.poll() is None:
                self._write(stop_line(), time.monotonic() + grace)
                self._stdin.close()
                self.process.wait(timeout=grace)
        self.kill()

    def kill(self) -> None:
        """Kill the adapter's whole process group, whether or not the adapter itself still
        runs (what it started may), and release its pipes."""
        # Once the watchdog is reaped its pid may be reused: kill the group only before that.
        if self._watchdog.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._watchdog.pid, signal.SIGKILL)
        self.process.wait()
        self._stderr_reader.join(timeout=1)
        for selector in (self._selector, self._writable):
            selector.close()
        for stream in (self._stdin, self._stdout):
            with contextlib.suppress(OSError):
                stream.close()
        self._release_watchdog()

    def _release_watchdog(self) -> None:
        with contextlib.suppress(OSError):
            _piped(self._watchdog.stdin).close()
        self._watchdog.wait()

    def _write(self, data: bytes, deadline: float) -> None:
        """Write all of `data` to the adapter's input by `deadline`: an adapter that stops
        reading cannot block the harness."""
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fail("adapter stopped reading its input")
            if not self._writable.select(remaining):
                continue
            try:
                view = view[os.write(self._stdin.fileno(), view) :]
            except BlockingIOError:
                continue
            except OSError:
                self._fail_dead("input")

    def _exchange(self, line: bytes, reply_kind: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        self._write(line, deadline)
        try:
            reply = decode(self._read_line(deadline, timeout))
        except ProtocolError as error:
            self._fail(str(error))
        if self.validate:
            violation = schema_violation(reply_kind, reply)
            if violation:
                self._fail(violation)
        return reply

    def _read_line(self, deadline: float, timeout: float) -> bytes:
        end = self._buffer.find(b"\n")
        while end < 0:
            if len(self._buffer) > self.max_output_bytes:
                self._fail(
                    f"adapter output exceeds the {self.max_output_bytes / 2**20:g} MB cap "
                    "without ending its line"
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fail(f"adapter timed out after {timeout:g} s", WorkerTimeout)
            if not self._selector.select(min(remaining, _LIVENESS_SECONDS)):
                if self.process.poll() is not None:
                    self._fail(
                        f"adapter exited with status {self.process.returncode} while a process "
                        "it started still holds its output open"
                    )
                continue
            chunk = os.read(self._stdout.fileno(), _CHUNK)
            if not chunk:
                self._fail_dead("output")
            newline = chunk.find(b"\n")
            end = -1 if newline < 0 else len(self._buffer) + newline
            self._buffer += chunk
        if end > self.max_output_bytes:
            self._fail(f"adapter output exceeds the {self.max_output_bytes / 2**20:g} MB cap")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    def _keep_stderr(self) -> None:
        """Read the adapter's stderr to its end, keeping only the last STDERR_KEPT_BYTES."""
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(self._stderr_pipe.fileno(), _CHUNK):
                with self._stderr_lock:
                    self._stderr += chunk
                    del self._stderr[:-STDERR_KEPT_BYTES]
        with contextlib.suppress(OSError):
            self._stderr_pipe.close()

    def _stderr_tail(self) -> str:
        # A moment for the reader to take what a dying adapter wrote last.
        self._stderr_reader.join(timeout=0.2)
        with self._stderr_lock:
            return self._stderr[-_STDERR_TAIL:].decode("utf-8", "replace").strip()

    def _fail_dead(self, closed: str) -> NoReturn:
        try:
            status = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._fail(f"adapter closed its {closed} but did not exit")
        if status < 0:
            self._fail(f"adapter crashed: killed by {_signal_name(status)}")
        last = self._stderr_tail().splitlines()
        said = f": {last[-1][:200]}" if last else ""
        self._fail(f"adapter exited with status {status}{said}")

    def _fail(self, message: str, kind: type[WorkerFailure] = WorkerFailure) -> NoReturn:
        detail = self._stderr_tail()
        self.kill()
        raise kind(message, detail)
