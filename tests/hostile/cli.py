"""The command line as a user runs it: a child process, its output captured."""

from __future__ import annotations

import subprocess
import sys


def ndcgspec(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``ndcgspec ARGS`` in a child process and return what it printed and its status."""
    return subprocess.run(
        [sys.executable, "-m", "ndcgspec.commands.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
