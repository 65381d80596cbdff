"""The parent side of the protocol: one adapter process, treated as untrusted.

A `Worker` starts the adapter command in its own process group, sends protocol lines and reads
the replies with a deadline and a size cap. Anything the process does wrong (dies, including by
SIGSEGV or SIGABRT; hangs past the deadline; writes a line that is too long, not JSON, or out
of sequence; breaks the schema in validation mode) raises `WorkerFailure` with one line saying
what happened, after the process group has been killed. The caller then starts a fresh worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from ndcgspec.harness.running.protocol import (
    ProtocolError,
    decode,
    encode,
    protocol_version,
    run_message,
    schema_violation,
    start_message,
    stop_message,
)
from ndcgspec.harness.versions import harness_version

_CHUNK = 1 << 20
_STDERR_TAIL = 2000


class WorkerFailure(Exception):
    """The adapter process failed as a whole; `detail` holds the tail of its stderr."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail

    def summary(self) -> str:
        """The message, with the last line of stderr when the message lacks it."""
        last = self.detail.splitlines()[-1][:200] if self.detail else ""
        return f"{self} ({last})" if last and last not in str(self) else str(self)


def python_host_command(target: str) -> list[str]:
    """The command that serves the Python adapter `target` over the protocol."""
    return [sys.executable, "-m", "ndcgspec.harness.running.host", target]


def example_program(name: str) -> Path:
    """A protocol adapter shipped with the harness, such as ``ndcg_adapter.mjs``."""
    return Path(str(files("ndcgspec.harness.adapters").joinpath(name)))


BUILTIN_PROGRAMS: dict[str, Callable[[], list[str]]] = {
    "node-example": lambda: ["node", str(example_program("ndcg_adapter.mjs"))],
}


def adapter_command(target: str | None, exec_line: str | None) -> list[str] | str:
    """The command of an adapter: a shell command line given with --exec, a built-in
    program, or the host serving a Python adapter (built-in name or ``module:object``)."""
    if exec_line or target is None:
        return exec_line or ""
    if target in BUILTIN_PROGRAMS:
        return BUILTIN_PROGRAMS[target]()
    return python_host_command(target)


def _signal_name(status: int) -> str:
    try:
        return signal.Signals(-status).name
    except ValueError:
        return f"signal {-status}"


PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _die_with_the_harness() -> None:
    """Run in the adapter's process before it execs: on Linux, have the kernel SIGKILL it when
    the harness dies, so that even a harness killed by SIGKILL leaves no adapter running."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


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
        # Closed by `kill`, which every path out of a worker goes through.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self.process = subprocess.Popen(
                command,
                shell=isinstance(command, str),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=True,
                preexec_fn=_die_with_the_harness,
                env=None if env is None else dict(env),
            )
        except OSError as error:
            self._stderr.close()
            raise WorkerFailure(f"cannot start adapter: {error.strerror or error}") from None
        self._buffer = bytearray()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)

    def start(self, timeout: float) -> dict[str, Any]:
        """Send ``start``; the adapter's start reply."""
        reply = self._exchange(start_message(harness_version()), "start-reply", timeout)
        if reply.get("protocol") != protocol_version():
            self._fail(
                f"adapter speaks protocol {reply.get('protocol')!r}, not {protocol_version()}"
            )
        if not isinstance(reply.get("adapter"), dict):
            self._fail("start reply has no adapter object")
        return reply

    def run(self, cases: Sequence[Mapping[str, Any]], timeout: float) -> list[dict[str, Any]]:
        """Send one batch; the results of the reply, checked for the batch's sequence number."""
        self.seq += 1
        reply = self._exchange(run_message(self.seq, cases), "run-reply", timeout)
        if reply.get("seq") != self.seq:
            self._fail(f"reply carries seq {reply.get('seq')!r}, the request had seq {self.seq}")
        results = reply.get("results")
        if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
            self._fail("run reply has no list of result objects")
        return results

    def stop(self, grace: float = 2.0) -> None:
        """Send ``stop`` and let the process exit; kill it if it does not."""
        try:
            if self.process.poll() is None:
                self.process.stdin.write(encode(stop_message()))
                self.process.stdin.flush()
                self.process.stdin.close()
                self.process.wait(timeout=grace)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def kill(self) -> None:
        """Kill the adapter's process group and release its pipes."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self._selector.close()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        self._stderr.close()

    def _exchange(self, message: Mapping[str, Any], reply_kind: str, timeout: float) -> dict:
        try:
            self.process.stdin.write(encode(message))
            self.process.stdin.flush()
        except OSError:
            self._fail_dead()
        try:
            reply = decode(self._read_line(time.monotonic() + timeout, timeout))
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
            if remaining <= 0 or not self._selector.select(remaining):
                self._fail(f"adapter timed out after {timeout:g} s")
            chunk = os.read(self.process.stdout.fileno(), _CHUNK)
            if not chunk:
                self._fail_dead()
            newline = chunk.find(b"\n")
            end = -1 if newline < 0 else len(self._buffer) + newline
            self._buffer += chunk
        if end > self.max_output_bytes:
            self._fail(f"adapter output exceeds the {self.max_output_bytes / 2**20:g} MB cap")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_TAIL))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def _fail_dead(self) -> None:
        try:
            status = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._fail("adapter closed its output but did not exit")
        if status < 0:
            self._fail(f"adapter crashed: killed by {_signal_name(status)}")
        last = self._stderr_tail().splitlines()
        said = f": {last[-1][:200]}" if last else ""
        self._fail(f"adapter exited with status {status}{said}")

    def _fail(self, message: str) -> None:
        detail = self._stderr_tail()
        self.kill()
        raise WorkerFailure(message, detail)
