"""Lines of a terminal report held to a page width: prose wrapped, and tables whose columns
beyond the first are cut into blocks that each fit, as R and pandas print a wide data frame."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

WIDTH = 100
"""The widest line of a report: a terminal's, and what a paper's listing holds."""
SHOWN_MOST = 10
"""The most items a summary lists of a list that grows with the pairs of runs (the pairs whose
order flips, or whose verdict changes); the report in full lists every one."""


def wrapped(text: str, indent: str = "", hanging: str = "    ") -> list[str]:
    """`text` on lines of at most `WIDTH` characters, the first indented by `indent`, the
    others by `indent` and `hanging`; a word longer than a line (a long name) is not cut."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + hanging,
        break_long_words=False,
        break_on_hyphens=False,
    )


def paged(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """The table, its first column left-aligned and the others right-aligned, two spaces
    apart: the columns after the first in as few blocks of at most `WIDTH` characters as their
    order allows, each block repeating the first column, a blank line between blocks. A column
    too wide for any block has one of its own."""
    table = [list(header), *map(list, rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    room = WIDTH - len(indent) - widths[0]
    blocks: list[list[int]] = [[]]
    used = 0
    for column in range(1, len(header)):
        if blocks[-1] and used + 2 + widths[column] > room:
            blocks.append([])
            used = 0
        blocks[-1].append(column)
        used += 2 + widths[column]
    lines: list[str] = []
    for block in blocks:
        if lines:
            lines.append("")
        lines += [
            indent
            + "  ".join(
                [row[0].ljust(widths[0]), *(row[i].rjust(widths[i]) for i in block)]
            ).rstrip()
            for row in table
        ]
    return lines
