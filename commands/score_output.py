"""The lines ``score`` prints of its results: the text format (``<measure>\\t<qid or
all>\\t<value>``) and JSON Lines (``commands/score.py`` gives both formats' contract)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

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


def json_lines(
    results: Sequence[Result], extra: Sequence[dict[str, Any]] | None = None
) -> list[str]:
    """The JSON Lines format: one result object per line, each with its `extra` keys."""
    extra = extra or [{} for _ in results]
    return [
        json.dumps({**result.to_json(), **more})
        for result, more in zip(results, extra, strict=True)
    ]
