"""Exact values of Spark columns as the TREC text the executors' readers take
(``ndcg.input.number``, ``ndcg.input.table``)."""

from __future__ import annotations

from decimal import Decimal

from ndcgspec.reference.decimals import canonical_decimal, exact_decimal
from ndcgspec.reference.errors import NdcgSpecError


def exact_decimal_text(value: object) -> str | None:
    """A label or score of a numeric column as the exact decimal it holds
    (``ndcg.input.number``): a float64 is the exact decimal of the double, never its shortest
    repr; a decimal keeps every digit. None (SQL NULL) stays None; NaN and infinities are
    written as such, and the reader rejects them with its own message."""
    if value is None:
        return None
    try:
        return canonical_decimal(exact_decimal(value))
    except NdcgSpecError:
        # Written as it is, for the reader to refuse with its own message and line.
        return str(Decimal(str(value)))
