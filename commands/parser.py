"""The command line's argument parser: argparse's own, its help as wide as argparse makes it
(the terminal's columns less 2, ``COLUMNS`` when set), the width found without importing
shutil, which argparse imports for it and which imports the compression modules: a few
milliseconds of every start, help or not, since argparse formats each argument as it is
added (issue 41)."""

from __future__ import annotations

import argparse
import os
import sys

# The typing module costs a few milliseconds of every start; type checkers read the name
# TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# shutil.get_terminal_size's fallback.
FALLBACK_COLUMNS = 80


def terminal_columns() -> int:
    """The columns `shutil.get_terminal_size` gives: ``COLUMNS`` when it is a positive
    integer, else those of the terminal of standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    if stdout is None:
        return FALLBACK_COLUMNS
    try:
        return os.get_terminal_size(stdout.fileno()).columns or FALLBACK_COLUMNS
    except (AttributeError, ValueError, OSError):
        return FALLBACK_COLUMNS


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, given the width it would read from shutil."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """An argument parser whose help formatter is `HelpFormatter` unless another is given;
    argparse makes a subcommand's parser of its parent's class."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("formatter_class", HelpFormatter)
        super().__init__(**options)
