"""The discounts of a run of ranks at once (``ndcg.discount``), in fixed point, for the tables
of `discounts.Discounts`: a survey's probe of 10,000 documents asks for 10,000 ranks under
every discount its search visits.

Each rank's discount is the reference's `discount`, enclosed and held between two integers at
the scale 2^FIXED_BITS (`fixed_point`), computed the cheapest way that still encloses it:

- a logarithm of an integer in an integer or natural base (``ndcg.discount.log``,
  ``ndcg.discount.jarvelin2002``): from the sieve of `log_discounts`;
- a rational discount (``ndcg.discount.reciprocal``, ``ndcg.discount.none``): the reference's
  own, in exact arithmetic, so each bound is the exact value's floor and ceiling;
- p^(i − 1) (``ndcg.discount.geometric``): one interval product per rank, from p^(first − 1),
  with enough guard digits that the enclosure of the last rank is still narrower than one unit
  at DISCOUNT_DPS digits;
- anything else (a fractional base or offset): the reference's rank by rank.

Every step is interval or exact arithmetic in the caller's thread's own contexts
(``reference.contexts``), so each pair of bounds holds the true discount, as the reference's
enclosure would.
"""

from __future__ import annotations

import math

from ndcgspec.engine.fixed_point import DISCOUNT_DPS, Bounds, fixed_enclosure, fixed_point
from ndcgspec.engine.log_discounts import sieved_discounts
from ndcgspec.reference.arithmetic import EXACT, computing_with, enclosing, number
from ndcgspec.reference.config import Config
from ndcgspec.reference.discount import discount

RATIONAL = ("reciprocal", "none")
"""The discount choices whose weights are rational at every rank."""


def fixed_discounts(config: Config, first: int, last: int) -> list[Bounds]:
    """The fixed-point bounds of the discounts of ranks `first` .. `last` (1 ≤ first)."""
    choice = config.choice("discount")
    if choice in RATIONAL:
        with computing_with(EXACT):
            return [fixed_point(discount(rank, config)) for rank in range(first, last + 1)]
    if choice == "geometric":
        return _geometric(config, first, last)
    with computing_with(enclosing(DISCOUNT_DPS)):
        weights = sieved_discounts(config, first, last)
        if weights is None:
            weights = [discount(rank, config) for rank in range(first, last + 1)]
        return [fixed_enclosure(weight) for weight in weights]


def _geometric(config: Config, first: int, last: int) -> list[Bounds]:
    """p^(i − 1) for i in `first` .. `last`: the reference's at `first`, then each the one
    before times p. Each product widens the enclosure by about two units of its last digit, so
    the products run with log10(ranks) + 2 more digits than DISCOUNT_DPS, and every enclosure
    is narrower than one unit of the last of DISCOUNT_DPS digits, as the reference's own is."""
    guard = math.ceil(math.log10(last - first + 2)) + 2
    found = []
    with computing_with(enclosing(DISCOUNT_DPS + guard)):
        persistence = number(config.param("persistence"))
        weight = discount(first, config)
        for _ in range(first, last + 1):
            found.append(fixed_enclosure(weight))
            weight *= persistence
    return found
