"""The command line as a user runs it: a child process, its output captured; or, for a test of
what a command says rather than of its process, `main` in this one."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout

from ndcgspec.commands.cli import main


def ndcgspec(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``ndcgspec ARGS`` in a child process and return what it printed and its status."""
    return subprocess.run(
        [sys.executable, "-m", "ndcgspec.commands.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def ndcgspec_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """What `ndcgspec` returns, with `main` run in this process: standard output and error
    are pipes as a child's are (UTF-8, strict on standard output, backslash escapes on
    standard error; newlines read as `subprocess` reads them), and an exception that escapes
    `main` is printed with status 1, as the interpreter does. The SIGTERM handler that `run`
    installs is put back."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    on_sigterm = signal.getsignal(signal.SIGTERM)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exit:
                status = _exit_status(exit.code)
            except Exception:
                traceback.print_exc()
                status = 1
    finally:
        signal.signal(signal.SIGTERM, on_sigterm)
    return subprocess.CompletedProcess(["ndcgspec", *args], status, _read(out), _read(err))


def _exit_status(code: object) -> int:
    """The status of ``sys.exit(code)``: a message is printed and exits 1."""
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


def _read(stream: io.TextIOWrapper) -> str:
    stream.flush()
    text = stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
    return text.replace("\r\n", "\n").replace("\r", "\n")
