"""A retrieved document once its judgment is resolved: what the ranking axes work on."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ndcgspec.reference.location import Location


@dataclass(frozen=True)
class ScoredDocument:
    """A retrieved document with its score, its label and its gain.

    `label` and `gain` are None while the document counts as unjudged (``ndcg.unjudged``); the
    unjudged axis either gives it gain 0 or removes it.
    """

    docid: str
    score: Decimal
    label: Decimal | None
    gain: Any | None
    where: Location | None = None
