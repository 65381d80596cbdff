"""The process that appends the lines of ``suite/json_lines.py`` `write_behind`, on a core of
its own: creating thousands of small files took a quarter of a search's time, and a thread of
the searching process would wait on the interpreter's lock between every two of them.

It is run as a file, not imported (``python -I -S line_writer.py``): it needs nothing but the
standard library's built-in modules, and starts in milliseconds. It reads batches from stdin
until its end, each a `marshal`-ed mapping of file path to the text to append; it appends
each file's text in one write, making its folder where missing, and answers each batch with
one line on stdout once every file of it is written. A file that cannot be written is passed
over: what it keeps is a cache.
"""

from __future__ import annotations

import marshal
import os
import sys

FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND


def append(path: str, text: str) -> None:
    """Append `text` to the file at `path` in one write; nothing raised."""
    data = text.encode("utf-8", "surrogateescape")
    try:
        try:
            descriptor = os.open(path, FLAGS, 0o644)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            descriptor = os.open(path, FLAGS, 0o644)
    except OSError:
        return
    try:
        os.write(descriptor, data)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def main() -> None:
    source, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            batch = marshal.load(source)
        except (EOFError, ValueError):
            return
        for path, text in batch.items():
            append(path, text)
        answers.write(b"\n")
        answers.flush()


if __name__ == "__main__":
    main()
