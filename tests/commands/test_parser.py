"""The command line's parser prints argparse's help byte for byte: its formatter finds the
terminal's width without shutil (issue 41), as `shutil.get_terminal_size` finds it."""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from ndcgspec.commands.cli import build_parser
from ndcgspec.commands.parser import HelpFormatter
from ndcgspec.commands.subcommands import COMMANDS

# Writes the columns of terminal_columns and of shutil, in the environment it is given, to the
# file argv[1]: standard output may be the terminal under test.
BOTH = """
import shutil, sys
from ndcgspec.commands.parser import terminal_columns
with open(sys.argv[1], "w") as out:
    out.write(f"{terminal_columns()} {shutil.get_terminal_size().columns}")
"""


def _both(columns: str | None, folder: Path, stdout: int) -> tuple[int, int]:
    """Both widths, in a process whose COLUMNS is `columns` (unset when None), LINES unset."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = columns
    out = folder / "columns"
    subprocess.run(
        [sys.executable, "-c", BOTH, str(out)], env=env, stdout=stdout, timeout=60, check=True
    )
    ours, shutils = (int(word) for word in out.read_text().split())
    return ours, shutils


@pytest.mark.parametrize("columns", [None, "120", "0", "-3", "wide", ""])
def test_the_width_is_shutils_without_a_terminal(columns: str | None, tmp_path: Path) -> None:
    ours, shutils = _both(columns, tmp_path, subprocess.DEVNULL)
    assert ours == shutils


@pytest.mark.parametrize("columns", [None, "57"])
def test_the_width_is_shutils_on_a_terminal(columns: str | None, tmp_path: Path) -> None:
    # A terminal of 133 columns as standard output.
    main, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 133, 0, 0))
    try:
        found = _both(columns, tmp_path, secondary)
    finally:
        os.close(secondary)
        os.close(main)
    assert found == ((133, 133) if columns is None else (57, 57))


def _parser_of(name: str | None) -> argparse.ArgumentParser:
    parser = build_parser([] if name is None else [name])
    if name is None:
        return parser
    (subparsers,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = subparsers.choices[name]
    return found


@pytest.mark.parametrize("columns", ["52", "100", "211"])
@pytest.mark.parametrize("name", [None, *COMMANDS])
def test_the_help_and_usage_are_argparses_byte_for_byte(
    name: str | None, columns: str, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    parser = _parser_of(name)
    assert parser.formatter_class is HelpFormatter
    ours = (parser.format_help(), parser.format_usage())
    parser.formatter_class = argparse.HelpFormatter
    assert ours == (parser.format_help(), parser.format_usage())
