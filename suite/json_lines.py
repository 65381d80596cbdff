"""Files of one JSON value a line, kept between runs and shared by processes: the expected
values of the reference (``suite/expected_cache.py``) and the answers of built-in adapters
(``survey/kept_answers.py``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def json_lines(path: Path | None) -> Iterator[Any]:
    """Each line of the file at `path` parsed; none when there is no such file, and a line cut
    short by a killed run is passed over."""
    if path is None or not path.is_file():
        return
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
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
    line = (json.dumps(value) + "\n").encode("utf-8")
    for attempt in range(2):
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except FileNotFoundError:
            if attempt:
                return
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                return
            continue
        except OSError:
            return
        try:
            os.write(descriptor, line)
        except OSError:
            pass
        finally:
            os.close(descriptor)
        return
