"""The paths the commands write to (``report -o``, ``run --report``, ``compare --out``,
``matrix --out``, ``cases generate --cases-dir``), checked before any work is done: a path that
cannot be made is one line naming it, never a traceback after the work, nor a result lost.
A command writing several files into a folder builds them elsewhere and swaps them in
(`staged`), so that an interrupted run leaves the older files, never a mix."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ndcgspec.reference.errors import InputError
from ndcgspec.reference.location import Location


def output_path(path: Path, option: str, *, folder: bool = False) -> Path:
    """`path`, once it is clear that a file (with `folder`, a folder) can be made there: it is
    not the other kind already, and the nearest existing path above it is a folder (a regular
    file in the way would fail the write with NotADirectoryError)."""
    wanted, other = ("folder", "file") if folder else ("file", "folder")
    if path.exists() and path.is_dir() != folder:
        raise InputError(
            f"is a {other}, not a {wanted}; {option} names the {wanted} to write",
            Location(str(path)),
        )
    # A relative path's parents end at ".", an absolute one's at "/": both exist.
    above = next(parent for parent in path.parents if parent.exists())
    if not above.is_dir():
        raise InputError(f"cannot be written: {above} is a file, not a folder", Location(str(path)))
    return path


@contextmanager
def staged(folder: Path) -> Iterator[Path]:
    """A private folder inside `folder` for a command to write its files into; when the block
    ends they replace those of `folder` at once, with Ctrl-C and SIGTERM held back while the
    renames take, and when it fails or is interrupted `folder` keeps what it held."""
    folder.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".ndcgspec-", dir=folder))
    try:
        yield stage
        held = {signal.SIGINT, signal.SIGTERM}
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, held)
        try:
            for item in sorted(stage.iterdir()):
                os.replace(item, folder / item.name)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
