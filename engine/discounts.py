"""Each rank's discount (``ndcg.discount``), kept across configurations, blocks of queries and
threads: the engine's in fixed point (`Discounts`, `discounts_of`) and the reference's own
(`kept_weights`), for the queries the engine hands to it.

A discount is the reference's `discount`, enclosed at DISCOUNT_DPS digits and held between two
integers at the scale 2^FIXED_BITS (`fixed_point`), computed once per rank; sums over a run of
ranks are read from prefix sums (``ndcg.definition.dcg``, ``ndcg.definition.idcg``). The kept
discounts are read and replaced under a lock, and every value kept is immutable (a `Discounts`
is never lengthened in place; `covering` makes a longer one). The arithmetic is the
reference's, in each thread's own mpmath contexts (``reference.contexts``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

import numpy as np

from ndcgspec.engine.choice_keys import ChoiceKey, discount_key
from ndcgspec.engine.fixed_point import Bounds
from ndcgspec.engine.rank_discounts import fixed_discounts
from ndcgspec.reference.config import Config
from ndcgspec.reference.discount import RankWeights


@lru_cache(maxsize=256)
def kept_weights(config: Config) -> RankWeights:
    """The reference's discounts of `config`, kept across evaluations: the engine hands the
    reference many small ones (a query whose bound straddles a rounding boundary, a
    configuration it does not declare, each probe of the survey), and each would compute
    every rank's discount again. A `RankWeights` serves each thread only the weights its own
    numbers made, under a lock (``reference/discount.py``)."""
    return RankWeights(config)


@dataclass(frozen=True, eq=False)
class Discounts:
    """Each rank's discount (the reference's `discount`, enclosed) as fixed-point integers at
    the scale 2^FIXED_BITS, low and high, for ranks 1 .. `ranks`; and their sums over runs of
    ranks, the low and high ends of the true sum (every discount is positive). Immutable, so
    that every thread may read one while another makes a longer one (`covering`)."""

    config: Config
    low: tuple[int, ...] = (0,)
    high: tuple[int, ...] = (0,)
    low_prefix: tuple[int, ...] = (0,)
    high_prefix: tuple[int, ...] = (0,)
    width: np.ndarray = field(default_factory=lambda: _frozen(np.zeros(1, np.int64)))
    low_limbs: np.ndarray = field(default_factory=lambda: _frozen(np.zeros((1, 1), np.int64)))

    @property
    def ranks(self) -> int:
        """The last rank covered."""
        return len(self.low) - 1

    def covering(self, ranks: int) -> Discounts:
        """These discounts, or longer ones that cover ranks up to `ranks`."""
        if ranks <= self.ranks:
            return self
        low, high = list(self.low), list(self.high)
        # A table is made again whole when it grows: ranks in blocks, so that a ranking a few
        # documents longer than the last does not make it again.
        last = -(-ranks // RANKS_BLOCK) * RANKS_BLOCK
        for rank_low, rank_high in fixed_discounts(self.config, len(low), last):
            low.append(rank_low)
            high.append(rank_high)
        width = np.array([h - lo for lo, h in zip(low, high, strict=True)], np.int64)
        return Discounts(
            self.config,
            tuple(low),
            tuple(high),
            tuple(accumulate(low)),
            tuple(accumulate(high)),
            _frozen(width),
            _frozen(limbs(low)),
        )

    def low_sums(self, ranks: np.ndarray, starts: np.ndarray) -> list[int]:
        """The exact sum of the low ends of the discounts of `ranks` from each of `starts` to
        the next, each run of at most 2^31 ranks: numpy sums each limb (`limbs`) of every run
        with no carry lost and carries each limb's excess into the next; each run's limbs are
        then the bytes of one integer."""
        sums = np.add.reduceat(self.low_limbs[ranks], starts, axis=0)
        for i in range(sums.shape[1] - 1):
            # An arithmetic shift: the limb left is in [0, 2^LIMB_BITS) whatever the sign.
            sums[:, i + 1] += sums[:, i] >> LIMB_BITS
            sums[:, i] &= (1 << LIMB_BITS) - 1
        raw = np.concatenate(
            [sums[:, :-1].astype("<u4").view(np.uint8), sums[:, -1:].astype("<i8").view(np.uint8)],
            axis=1,
        )
        width, data = raw.shape[1], raw.tobytes()
        return [
            int.from_bytes(data[at : at + width], "little", signed=True)
            for at in range(0, len(data), width)
        ]

    def between(self, first: int, last: int) -> Bounds:
        """The sum of the discounts of ranks first .. last (covered)."""
        return (
            self.low_prefix[last] - self.low_prefix[first - 1],
            self.high_prefix[last] - self.high_prefix[first - 1],
        )


RANKS_BLOCK = 256
"""Tables cover a multiple of this many ranks."""

# Bits per limb: a sum of up to 2^31 limbs fits an int64.
LIMB_BITS = 32


def limbs(values: list[int]) -> np.ndarray:
    """Integers as rows of limbs, least significant first, so that value = sum of limb i ×
    2^(LIMB_BITS i): every limb but the last is LIMB_BITS bits, the last (a floor shift)
    carries the sign and is below 2^LIMB_BITS in magnitude."""
    count = -(-(max(v.bit_length() for v in values) + 1) // LIMB_BITS)
    mask = (1 << LIMB_BITS) - 1
    top = LIMB_BITS * (count - 1)
    return np.array(
        [[(v >> (LIMB_BITS * i)) & mask for i in range(count - 1)] + [v >> top] for v in values],
        np.int64,
    )


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


# The longest discounts made of the last configurations used, by what they depend on
# (`discount_key`); read and replaced under the lock, each value immutable.
_DISCOUNTS: dict[ChoiceKey, Discounts] = {}
_DISCOUNTS_KEPT = 64
_DISCOUNTS_LOCK = threading.Lock()


def discounts_of(config: Config, ranks: int) -> Discounts:
    """The discounts of `config` for ranks 1 .. `ranks` (or more), shared by every block of
    queries (`stream`), every configuration with the same discount and every thread, so that
    each rank's is computed once (twice at most, by two threads at once)."""
    key = discount_key(config)
    with _DISCOUNTS_LOCK:
        found = _DISCOUNTS.pop(key, None) or Discounts(config)
        _DISCOUNTS[key] = found
        if len(_DISCOUNTS) > _DISCOUNTS_KEPT:
            del _DISCOUNTS[next(iter(_DISCOUNTS))]
    if ranks <= found.ranks:
        return found
    longer = found.covering(ranks)
    with _DISCOUNTS_LOCK:
        if longer.ranks > _DISCOUNTS.get(key, found).ranks:
            _DISCOUNTS[key] = longer
    return longer
