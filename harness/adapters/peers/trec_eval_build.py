"""The trec_eval program, built from the shared source tarball by its own ``make`` into the
user's cache, for the ``trec_eval`` adapter and for the tests that compare ``ndcgspec
trec_eval`` with it byte for byte.

The tarball is ``tools/trec_eval-src.tar.gz`` of the shared folder (``NDCGSPEC_SHARED``, or
``../shared`` beside a source checkout: ``suite/folders.py``); it is never copied into
the project. The program is built once per tarball (keyed by its SHA-256) into
``NDCGSPEC_CACHE_DIR`` (``~/.cache/ndcgspec``), under a lock, since several adapter processes
may start at the same time; a program built earlier is used when the tarball is gone.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.suite.folders import SHARED_ENV, UNKNOWN, trec_eval_source

BUILD_SECONDS = 600
PROGRAM = "trec_eval"
SOURCE_STAMP = "source.sha256"


def build_folder() -> Path:
    """Where the program is built: ``trec_eval`` in the cache of computed values
    (``harness/plan.py``), or in the system's temporary folder when that cache is
    turned off."""
    from ndcgspec.suite.folders import cache_root

    return (cache_root() or Path(tempfile.gettempdir()) / "ndcgspec") / PROGRAM


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _make(tarball: Path, target: Path) -> None:
    """Unpack `tarball` and run its Makefile with the system's C compiler; the program lands
    at `target`. Any failure is an AdapterError of one line."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None or shutil.which("make") is None:
        raise AdapterError(f"cannot build trec_eval from {tarball}: no C compiler or make on PATH")
    with tempfile.TemporaryDirectory(prefix="build-", dir=target.parent) as folder:
        try:
            with tarfile.open(tarball) as archive:
                archive.extractall(folder, filter="data")
        except (OSError, tarfile.TarError) as error:
            raise AdapterError(f"cannot unpack {tarball}: {error}") from None
        sources = [p for p in Path(folder).iterdir() if (p / "Makefile").is_file()]
        if len(sources) != 1:
            raise AdapterError(f"{tarball} holds no single folder with a Makefile")
        try:
            built = subprocess.run(
                ["make", f"CC={compiler}"],
                cwd=sources[0],
                capture_output=True,
                text=True,
                check=False,
                timeout=BUILD_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise AdapterError(f"building trec_eval took over {BUILD_SECONDS} s") from None
        program = sources[0] / PROGRAM
        if built.returncode != 0 or not program.is_file():
            last = (built.stderr.strip().splitlines() or ["no output"])[-1]
            raise AdapterError(f"make of {tarball} failed (exit {built.returncode}): {last}")
        os.replace(program, target)


def trec_eval_program() -> Path:
    """The trec_eval program built from the shared tarball, building it on first use (or when
    the tarball changed); without the tarball, the one built before. Neither: an AdapterError
    saying where the tarball was looked for."""
    folder = build_folder()
    folder.mkdir(parents=True, exist_ok=True)
    program, stamp = folder / PROGRAM, folder / SOURCE_STAMP
    tarball = trec_eval_source()
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if tarball is None or not tarball.is_file():
            if program.is_file():
                return program
            absent = (
                f"trec_eval source: {UNKNOWN}"
                if tarball is None
                else f"trec_eval source {tarball} is absent (set {SHARED_ENV} to the shared folder)"
            )
            raise AdapterError(f"{absent}, and no program was built before in {folder}")
        digest = _digest(tarball)
        built_from = stamp.read_text().strip() if stamp.is_file() else None
        if not program.is_file() or built_from != digest:
            _make(tarball, program)
            stamp.write_text(digest + "\n")
    return program
