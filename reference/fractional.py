"""The ``fractional`` axis: what a label with a fractional part means (``ndcg.fractional``)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_DOWN, Decimal

from ndcgspec.reference.location import Location
from ndcgspec.reference.rejection import rejection


def keep(label: Decimal, where: Location | None) -> Decimal:
    """``ndcg.fractional.keep``: the label as written."""
    return label


def truncate(label: Decimal, where: Location | None) -> Decimal:
    """``ndcg.fractional.truncate``: the label truncated toward zero, as C's atol reads a label
    written without an exponent (atol reads the text: "1e3" is 1, where this is 1000)."""
    return label.to_integral_value(rounding=ROUND_DOWN)


def error(label: Decimal, where: Location | None) -> Decimal:
    """``ndcg.fractional.error``: a fractional label is rejected."""
    if label != label.to_integral_value():
        raise rejection("fractional", f"fractional label {label} is not allowed", where)
    return label


CHOICES: dict[str, Callable[[Decimal, Location | None], Decimal]] = {
    "keep": keep,
    "truncate": truncate,
    "error": error,
}
