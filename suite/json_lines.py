"""Files of one JSON value a line, kept between runs and shared by processes: the expected
values of the reference (``suite/expected_cache.py``) and the answers of built-in adapters
(``survey/kept_answers.py``); and the digest of the code a kept value depends on, which names
its file."""

from __future__ import annotations

import contextlib
import json
import os
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    if path is None:
        return
    descriptor = _opened(path)
    if descriptor is None:
        return
    try:
        _write_line(descriptor, value)
    finally:
        os.close(descriptor)


OPEN_FILES = 16
"""How many files a `LineAppender` keeps open."""


class LineAppender:
    """`append_line` to many files, with the descriptors of the last `OPEN_FILES` files written
    kept open: a search appends tens of thousands of lines to a few files at a time, and
    opening and closing a file for each line cost two thirds of writing it. The descriptors
    are closed when the appender is collected or the process exits. Not for threads at once:
    its owner holds a lock around `append`."""

    def __init__(self, open_files: int = OPEN_FILES) -> None:
        self._open_files = open_files
        self._descriptors: OrderedDict[Path, int] = OrderedDict()
        weakref.finalize(self, _close_all, self._descriptors)

    def append(self, path: Path | None, value: Any) -> None:
        """Append `value` to the file at `path` as `append_line` does."""
        if path is None:
            return
        descriptor = self._descriptors.get(path)
        if descriptor is None:
            descriptor = _opened(path)
            if descriptor is None:
                return
            self._descriptors[path] = descriptor
            if len(self._descriptors) > self._open_files:
                os.close(self._descriptors.popitem(last=False)[1])
        else:
            self._descriptors.move_to_end(path)
        _write_line(descriptor, value)


def _opened(path: Path) -> int | None:
    """A descriptor appending to the file at `path`, its folder made if it lacks one; None
    when it cannot be opened."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    try:
        try:
            return os.open(path, flags, 0o644)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(path, flags, 0o644)
    except OSError:
        return None


def _write_line(descriptor: int, value: Any) -> None:
    with contextlib.suppress(OSError):
        os.write(descriptor, (json.dumps(value) + "\n").encode("utf-8"))


def _close_all(descriptors: OrderedDict[Path, int]) -> None:
    for descriptor in descriptors.values():
        with contextlib.suppress(OSError):
            os.close(descriptor)
    descriptors.clear()


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
