"""Where an input problem is (`ndcgspec.reference.errors`): a file and, when known, its line."""

from __future__ import annotations

from typing import NamedTuple


class Location(NamedTuple):
    """Where an input problem is: a file (or a named in-memory input) and, when known, its line
    (a table's row, ``ndcg.input.table``). A tuple, since one is made for every input line."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"
