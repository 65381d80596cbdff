"""The paired randomization (sign-flip) test on exact per-query differences (Fisher 1935;
Smucker, Allan and Carterette, CIKM 2007).

Under the null hypothesis each difference d_q = a_q − b_q is as likely to have the other sign,
so the statistic T = Σ s_q d_q is compared over sign vectors s. With n ≤ `EXACT_LIMIT`
differences every one of the 2^n vectors is enumerated and p = c / 2^n, the observed vector
among them; otherwise `draws` vectors are drawn from a seeded generator and
p = (c + 1) / (draws + 1) (Phipson and Smyth 2010), the observed vector counted once. c counts
the vectors whose statistic is at least as extreme as the observed one: |T| ≥ |t| (two-sided),
T ≥ t (greater: a better) or T ≤ t (less). The d_q are exact decimals and every T is an exact
integer sum (`exact.Limbs`), so a difference cancelled by another is a tie, never a rounding
accident, and no tolerance is needed.

The draws: for each vector, the pair (0, 1) is shuffled per query by numpy's
``Generator.permuted`` and the sign is −1 where it came out (1, 0); this is exactly the draw of
scipy.stats.permutation_test with ``permutation_type="samples"`` on one sample, so the same
seed gives the same vectors there (the tests use it as an oracle)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from ndcgspec.inference.exact import Limbs, compared, scaled
from ndcgspec.inference.monte_carlo import Estimate
from ndcgspec.reference.errors import NdcgSpecError

EXACT_LIMIT = 20
DRAWS = 10_000
ROWS_AT_ONCE = 1 << 16
SIGNS_AT_ONCE = 1 << 20
MAX_SIGNS = 1 << 30
"""The most signs a draw holds (one byte each): a bound on memory, whatever --draws asks."""
ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class Randomization:
    """A sign-flip test's outcome: `p` exactly, from `count` of `total` sign vectors (the
    observed one included: +1 when drawn), enumerated exhaustively when `exact`."""

    p: Fraction
    count: int
    total: int
    exact: bool

    def estimate(self) -> Estimate:
        """The p-value with its uncertainty: none when enumerated; drawn, the Monte-Carlo
        interval of the `count` − 1 drawn vectors at least as extreme among `total` − 1."""
        if self.exact:
            return Estimate.exact(self.p)
        return Estimate.drawn(self.count - 1, self.total - 1)


def _enumerated(n: int) -> Iterator[np.ndarray]:
    """Every sign vector of length n, in blocks: bit q of the vector's number flips d_q."""
    bits = np.arange(n, dtype=np.int64)
    for start in range(0, 1 << n, ROWS_AT_ONCE):
        numbers = np.arange(start, min(start + ROWS_AT_ONCE, 1 << n), dtype=np.int64)
        yield 1 - 2 * ((numbers[:, None] >> bits) & 1)


def drawn_signs(n: int, draws: int, seed: int) -> np.ndarray:
    """`draws` sign vectors of length n from the generator seeded with `seed` (the draw of
    scipy's permutation_test, see above)."""
    if draws * n > MAX_SIGNS:
        raise NdcgSpecError(
            f"{draws} sign-flip draws of {n} queries would hold {draws * n} signs, more than "
            f"{MAX_SIGNS}: ask for fewer draws (--draws, --max-draws)"
        )
    rng = np.random.default_rng(seed)
    signs = np.empty((draws, n), np.int8)
    # In blocks of rows: permuted shuffles the rows one after another from one generator, so
    # the blocks are the rows of one draw, without its pairs of int64 per sign held at once.
    rows = max(1, SIGNS_AT_ONCE // max(n, 1))
    for start in range(0, draws, rows):
        count = min(rows, draws - start)
        shuffled = rng.permuted(np.tile(np.arange(2), (count, n, 1)), axis=-1)
        signs[start : start + count] = np.where(shuffled[..., 0] == 0, 1, -1)
    return signs


class DrawnSigns:
    """The drawn sign vectors of one seed, per number of queries: drawn once for the most
    draws asked so far, so that every test of a comparison with the same number of queries is
    run on the same vectors. numpy's ``permuted`` shuffles the rows one after the other, so
    the first N rows of a larger draw are the draw of N (a test holds it), and drawing on keeps
    every earlier draw. One per computation: it is not shared between threads."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._drawn: dict[int, np.ndarray] = {}

    def first(self, n: int, draws: int) -> np.ndarray:
        """The first `draws` sign vectors of length n."""
        have = self._drawn.get(n)
        if have is None or len(have) < draws:
            have = drawn_signs(n, draws, self.seed)
            self._drawn[n] = have
        return have[:draws]


def _extreme(limbs: Limbs, signs: np.ndarray, observed: int, alternative: str) -> int:
    """How many rows of `signs` give a statistic at least as extreme as `observed`."""
    sums = limbs.combined(signs)
    if alternative == "greater":
        return int(np.count_nonzero(compared(sums, limbs.row_of(observed)) >= 0))
    if alternative == "less":
        return int(np.count_nonzero(compared(sums, limbs.row_of(observed)) <= 0))
    high = compared(sums, limbs.row_of(abs(observed))) >= 0
    low = compared(sums, limbs.row_of(-abs(observed))) <= 0
    return int(np.count_nonzero(high | low))


def sign_flip(
    differences: Sequence[Decimal],
    alternative: str = "two-sided",
    seed: int = 0,
    draws: int = DRAWS,
    signs: np.ndarray | None = None,
) -> Randomization:
    """The paired randomization test of `differences` (a_q − b_q); `signs`, when given, are
    the drawn vectors to use (the same for every pair of a comparison, drawn once)."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative {alternative!r}: one of {', '.join(ALTERNATIVES)}")
    integers, _ = scaled(differences)
    n = len(integers)
    limbs = Limbs.of(integers)
    observed = sum(integers)
    if n <= EXACT_LIMIT:
        count = sum(_extreme(limbs, block, observed, alternative) for block in _enumerated(n))
        return Randomization(Fraction(count, 1 << n), count, 1 << n, True)
    if signs is None:
        signs = drawn_signs(n, draws, seed)
    count = 0
    for start in range(0, len(signs), ROWS_AT_ONCE):
        count += _extreme(limbs, signs[start : start + ROWS_AT_ONCE], observed, alternative)
    return Randomization(Fraction(count + 1, len(signs) + 1), count + 1, len(signs) + 1, False)
