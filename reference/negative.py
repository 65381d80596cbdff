"""The ``negative`` axis: what a negative label means (``ndcg.negative``).

Each choice returns the document's gain, or None when the document is to be treated as
unjudged.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ndcgspec.reference.arithmetic import number
from ndcgspec.reference.config import Config
from ndcgspec.reference.gain import gain
from ndcgspec.reference.location import Location
from ndcgspec.reference.rejection import rejection


def zero(label: Decimal, config: Config, where: Location | None) -> Any | None:
    """``ndcg.negative.zero``: judged, with gain 0."""
    return number(0)


def unjudged(label: Decimal, config: Config, where: Location | None) -> Any | None:
    """``ndcg.negative.unjudged``: the judgment is dropped; the unjudged axis decides."""
    return None


def keep(label: Decimal, config: Config, where: Location | None) -> Any | None:
    """``ndcg.negative.keep``: the gain function applied to the negative label as is."""
    return gain(label, config)


def keep_in_ideal(label: Decimal, config: Config, where: Location | None) -> Any | None:
    """``ndcg.negative.keep-in-ideal``: the gain as `keep` gives it; the ideal list takes it
    too (``ideal.ideal_gains``)."""
    return keep(label, config, where)


def error(label: Decimal, config: Config, where: Location | None) -> Any | None:
    """``ndcg.negative.error``: a negative label is rejected."""
    raise rejection("negative", f"negative label {label} is not allowed", where)


CHOICES: dict[str, Callable[[Decimal, Config, Location | None], Any | None]] = {
    "zero": zero,
    "unjudged": unjudged,
    "keep": keep,
    "keep-in-ideal": keep_in_ideal,
    "error": error,
}
