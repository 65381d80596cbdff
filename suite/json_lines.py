"""Files of one JSON value a line, kept between runs and shared by processes: the expected
values of the reference (``suite/expected_cache.py``) and the answers of built-in adapters
(``survey/kept_answers.py``); and the digest of the code a kept value depends on, which names
its file."""

from __future__ import annotations

import atexit
import contextlib
import json
import marshal
import multiprocessing.util
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The writer process's own append, run there as a file: one way to append to a kept file.
from ndcgspec.suite.line_writer import append

if TYPE_CHECKING:
    from hashlib import _Hash


def text_lines(path: Path | None) -> list[str]:
    """The lines of the file at `path` as text; none when there is no such file."""
    if path is None or not path.is_file():
        return []
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def json_lines(path: Path | None) -> Iterator[Any]:
    """Each line of the file at `path` parsed; none when there is no such file, and a line cut
    short by a killed run is passed over."""
    for line in text_lines(path):
        try:
            yield json.loads(line)
        except ValueError:
            continue


def append_line(path: Path | None, value: Any) -> None:
    """Append `value` as one line in one write, so that processes sharing the file never
    interleave a line; the folder is made only when the file cannot be opened for want of it.
    A file that cannot be written costs time, never a result: nothing is raised."""
    if path is not None:
        append(str(path), json.dumps(value) + "\n")


PENDING_LINES = 1 << 18
"""How many lines may wait in memory before they are handed to the writer."""

UNANSWERED_BATCHES = 1024
"""How many batches may be handed to the writer before their answers are read."""

WRITER = Path(__file__).with_name("line_writer.py")


class _WriterBehind:
    """Where the lines of `write_behind` wait, by file, until they are handed in one batch to
    the writer process (``suite/line_writer.py``: `write_pending`, `settle`, or
    `PENDING_LINES` waiting), which appends each file's lines in one write on a core of its
    own and answers each batch once written. Where the writer cannot be started or dies, a
    batch is appended here. A forked child starts with nothing pending (its parent writes what
    it queued) and a writer of its own once it writes. Threads share it under its lock."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[Path, list[str]] = {}
        self._count = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._failed = False
        # The files of each batch handed over and not yet answered, oldest first.
        self._unanswered: deque[set[Path]] = deque()

    def forget_inherited(self) -> None:
        """In a forked child: the parent's lines and writer are the parent's."""
        if self._process is not None:
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        os.close(pipe.fileno())
        self._reset()

    def queue(self, path: Path, text: str) -> None:
        with self._lock:
            self._pending.setdefault(path, []).append(text)
            self._count += 1
            if self._count >= PENDING_LINES:
                self._hand_over()

    def write_pending(self) -> None:
        with self._lock:
            self._hand_over()

    def settle(self, path: Path | None = None) -> None:
        with self._lock:
            if path is not None and not (
                path in self._pending or any(path in files for files in self._unanswered)
            ):
                return
            self._hand_over()
            while self._unanswered:
                self._await_answer()

    def close(self) -> None:
        """Write what is pending and let the writer end."""
        self.settle()
        with self._lock:
            process, self._process = self._process, None
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=60)

    def _hand_over(self) -> None:
        """Under the lock: hand every pending line to the writer as one batch."""
        if not self._pending:
            return
        # The writer answers each batch on a pipe read only when waited on: it must not fill.
        while len(self._unanswered) >= UNANSWERED_BATCHES:
            self._await_answer()
        pending, self._pending, self._count = self._pending, {}, 0
        batch = {str(path): "".join(lines) for path, lines in pending.items()}
        process = self._writer()
        if process is not None and process.stdin is not None:
            try:
                marshal.dump(batch, process.stdin)
                process.stdin.flush()
                self._unanswered.append(set(pending))
                return
            except OSError:
                self._lost_writer()
        for path, text in batch.items():
            append(path, text)

    def _writer(self) -> subprocess.Popen[bytes] | None:
        if self._process is None and not self._failed:
            try:
                self._process = subprocess.Popen(
                    [sys.executable, "-I", "-S", str(WRITER)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    # Ctrl-C stops the command, not the writing of what it computed.
                    start_new_session=True,
                )
            except OSError:
                self._failed = True
        return self._process

    def _await_answer(self) -> None:
        process = self._process
        answer = b""
        if process is not None and process.stdout is not None:
            with contextlib.suppress(OSError):
                answer = process.stdout.readline()
        if answer:
            self._unanswered.popleft()
        else:
            # The writer died: what it had not answered may be lost, as in a killed run.
            self._lost_writer()

    def _lost_writer(self) -> None:
        self._process, self._failed = None, True
        self._unanswered.clear()


_BEHIND = _WriterBehind()
os.register_at_fork(after_in_child=_BEHIND.forget_inherited)
# At exit, and at the exit of a multiprocessing child (which runs no atexit handler).
atexit.register(_BEHIND.close)
multiprocessing.util.Finalize(None, _BEHIND.close, exitpriority=0)


def write_behind(path: Path | None, line: str) -> None:
    """Append `line` (one value's JSON text) to the file at `path` as `append_line` does, later:
    a search appends a hundred thousand lines to thousands of new files, and creating them
    while it computed took a quarter of its time. The lines wait in memory until
    `write_pending` or `settle` (or the exit of the process, or `PENDING_LINES` of them), and
    are then written by a process of their own (``suite/line_writer.py``), each file's in
    the order given, whole."""
    if path is not None:
        _BEHIND.queue(path, line + "\n")


def write_pending() -> None:
    """Hand the lines given to `write_behind` to the writer now, which writes them while the
    caller goes on."""
    _BEHIND.write_pending()


def settle(path: Path | None = None) -> None:
    """Wait until every line `write_behind` was given for `path` (for every file, when None) is
    written: before the file is read, or written another way."""
    _BEHIND.settle(path)


def digest_packages(digest: _Hash, packages: Iterable[str], suffixes: Iterable[str]) -> None:
    """Add to `digest` every file of the installed `packages` whose suffix is one of
    `suffixes`, each by its path below the package and its bytes, in path order."""
    kinds = set(suffixes)
    for package in packages:
        root = Path(str(files(package)))
        for path in sorted(root.rglob("*")):
            if path.suffix in kinds:
                digest.update(f"{package}/{path.relative_to(root).as_posix()}\0".encode())
                digest.update(path.read_bytes())
