"""The lines ``score`` prints of its results in the text format (``<measure>\\t<qid or
all>\\t<value>``; JSON Lines, with what each result gains, are
`ndcgspec.commands.score_statistics`'s; ``commands/score.py`` gives both formats' contract)."""

from __future__ import annotations

from collections.abc import Sequence

from ndcgspec.commands.score_notes import rounded
from ndcgspec.reference.result import Result

UNDEFINED = "undefined"


def text_lines(results: Sequence[Result], per_query: bool, digits: int | None = None) -> list[str]:
    """The text format: per measure, as written, the per-query lines (with `per_query`) then
    ``all``; with `digits`, values rounded to that many decimal places."""
    lines = []
    for result in results:
        rows = list(result.per_query.items()) if per_query else []
        rows.append(("all", result.aggregate))
        lines += [f"{result.measure}\t{q}\t{rounded(v, digits) or UNDEFINED}" for q, v in rows]
    return lines
