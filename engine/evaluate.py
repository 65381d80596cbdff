"""The fast engine: the reference's numbers for large TREC files (spec anchor ``ndcg``).

The files are read once into columns (`read`) and ranked once (`rank`). The gain of each
distinct label, the discount of each rank and the error a query raises all come from the plain
reference's own functions, so the definitions live in one place; the arithmetic is exact
integer arithmetic with a stated error bound, one rounding per output (``ndcg.precision``):

- each distinct gain is exact (a fraction, from `judged_gain` computed with rationals) or,
  when irrational (2^l − 1 for a fractional label l), enclosed by the reference's interval
  arithmetic at DISCOUNT_DPS digits; either is held between two integers at the scale
  2^FIXED_BITS, as is each tie group's mean gain (``ndcg.ties.average``); each rank's discount
  is enclosed the same way and held the same way, computed once per rank;
- DCG (``ndcg.definition.dcg``) is, per credited gain, the exact integer sum of its ranks'
  discounts, times the gain: one product per distinct gain of the query, giving two integers
  at the scale 2^(2 FIXED_BITS) between which the true DCG lies. IDCG
  (``ndcg.definition.idcg``) is the same over the ideal list, known from the count of each
  gain, the discounts of a run of ranks read from prefix sums. nDCG lies between the
  quotients of those ends;
- each output is the correctly rounded value when both ends of its bounds round alike (one
  exact decimal division each); otherwise, and when the sign of IDCG is not settled, the
  reference evaluates the query, recomputing at higher precision as it needs;
- the mean is a `MeanPart`: per query, integers at the scale 2^MEAN_BITS below and above its
  true nDCG, a count and an any-undefined flag. Parts add exactly, so blocks of queries
  (streamed, or scored on other machines) combine in any order into one part, and
  `MeanPart.rounded_mean` rounds once; `to_json`/`from_json` carry a part as plain JSON. When
  the bounds of the mean still straddle a rounding boundary it raises NeedsMoreDigits, and
  here the reference computes the mean from every query's true value;
- the gains are ordered by their enclosures; a configuration in which the enclosures of two
  distinct gains overlap or touch (no order is known) is scored by the reference query by
  query;
- the first query that is an error under a configuration is evaluated by the reference itself,
  which raises the error with its message and ``file:line``.

Shared between threads: the discounts and label gains kept for later configurations
(`discounts_of`, `shared_label_gain`) are read and replaced under their locks, and every value
kept is immutable (a `Discounts` is never lengthened in place; `covering` makes a longer one).
The arithmetic is the reference's, in each thread's own mpmath contexts (`reference.contexts`).

`stream` feeds it one block of queries at a time; input the columnar reader does not handle
(or input errors) is scored by the plain reference, with the reason logged on the ``ndcgspec``
logger (set ``NDCGSPEC_LOG=INFO`` to see it).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache, partial
from itertools import accumulate, pairwise
from typing import Any

import numpy as np
from mpmath.libmp import finf, fnan, fninf, mpf_neg

from ndcgspec.engine.ideal import CHOICES as IDEAL_LISTS
from ndcgspec.engine.ideal import Enclosure, IdealInputs, Runs, cut_runs
from ndcgspec.engine.rank import (
    ConfigRanking,
    KeyTable,
    Ranked,
    exact_score,
    rank_config,
    rank_rows,
    widen,
)
from ndcgspec.engine.read import QrelsColumns, RunColumns, token_texts
from ndcgspec.reference import aggregate, empty
from ndcgspec.reference.arithmetic import (
    EXACT,
    NotRational,
    Real,
    computing_with,
    enclose,
    enclosing,
    enclosure,
)
from ndcgspec.reference.config import Config, axis
from ndcgspec.reference.decimals import (
    parse_decimal,
    plain_digits,
    round_quotient,
    working_precision,
)
from ndcgspec.reference.discount import RankWeights, discount
from ndcgspec.reference.errors import InputError, Location
from ndcgspec.reference.evaluate import Evaluation, query_object, result_object
from ndcgspec.reference.ideal import every_gain_enters
from ndcgspec.reference.inputs import Judgment, Posting, Qrels, Run, add_judgment
from ndcgspec.reference.query import QueryResult, evaluate_query, judged_gain

LOG = logging.getLogger("ndcgspec.fast")


@lru_cache(maxsize=256)
def kept_weights(config: Config) -> RankWeights:
    """The reference's discounts of `config`, kept across evaluations: the engine hands the
    reference many small ones (a query whose bound straddles a rounding boundary, a
    configuration it does not declare, each probe of the survey), and each would compute
    every rank's discount again. A `RankWeights` serves each thread only the weights its own
    numbers made, under a lock (``reference/discount.py``)."""
    return RankWeights(config)


UNJUDGED, LABEL_ERROR = -1, -2
# Fixed-point scales: gains, credits and discounts at 2^FIXED_BITS (77 digits, 37 past the
# output's), discounts enclosed at DISCOUNT_DPS digits first; a mean part at 2^MEAN_BITS.
FIXED_BITS = 256
DISCOUNT_DPS = 90
MEAN_BITS = 256
MEAN_DPS = 90


class NeedsMoreDigits(ArithmeticError):
    """A mean's bounds straddle a rounding boundary: its digits need more guard bits."""


@dataclass(frozen=True)
class MeanPart:
    """The mean over queries of any share of them, exactly: ``ndcg.aggregate`` and
    ``ndcg.precision``.

    `low` and `high` are integers at the scale 2^MEAN_BITS whose sums bound the sum of the
    true nDCG values of the `count` queries that enter the mean; `undefined` says one of them
    is undefined (``ndcg.empty.nan``). `combine` adds two parts, so parts of blocks of queries
    combine in any order and grouping into the same part; `rounded_mean` rounds once.
    """

    low: int = 0
    high: int = 0
    count: int = 0
    undefined: bool = False

    @classmethod
    def between(cls, low: Bounds, high: Bounds) -> MeanPart:
        """One query whose nDCG lies between the quotients `low` and `high` (numerator,
        positive denominator)."""
        return cls((low[0] << MEAN_BITS) // low[1], -((-high[0] << MEAN_BITS) // high[1]), 1)

    @classmethod
    def of(cls, value: int | Fraction | None, in_mean: bool) -> MeanPart:
        """One query whose nDCG is exactly `value` (None: undefined)."""
        if not in_mean:
            return cls()
        if value is None:
            return cls(count=1, undefined=True)
        exact = Fraction(value)
        return cls.between(*[(exact.numerator, exact.denominator)] * 2)

    @classmethod
    def of_real(cls, value: Real | None, in_mean: bool) -> MeanPart:
        """One query whose true nDCG the reference gives as a `Real`."""
        if not in_mean or value is None:
            return cls.of(None, in_mean)
        low, high = enclose(value, MEAN_DPS)
        return cls.between((low.numerator, low.denominator), (high.numerator, high.denominator))

    def combine(self, other: MeanPart) -> MeanPart:
        """The part of both shares of queries."""
        return MeanPart(
            self.low + other.low,
            self.high + other.high,
            self.count + other.count,
            self.undefined or other.undefined,
        )

    def rounded_mean(self) -> Decimal | None:
        """The mean correctly rounded to the output digits; None when undefined or no query
        enters it. Raises NeedsMoreDigits when the bounds round differently."""
        if self.undefined or not self.count:
            return None
        scale = self.count << MEAN_BITS
        low = round_quotient(self.low, scale)
        if low != round_quotient(self.high, scale):
            raise NeedsMoreDigits(f"the mean of {self.count} queries")
        return low

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the big integers as decimal strings, and the scale they are at."""
        return {
            "low": str(self.low),
            "high": str(self.high),
            "count": self.count,
            "undefined": self.undefined,
            "bits": MEAN_BITS,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MeanPart:
        """The part `to_json` wrote; a part at another scale is refused."""
        if data.get("bits") != MEAN_BITS:
            raise ValueError(f"a mean part at scale 2^{data.get('bits')}, not 2^{MEAN_BITS}")
        return cls(int(data["low"]), int(data["high"]), int(data["count"]), bool(data["undefined"]))


@dataclass
class GainClasses:
    """The distinct gains of a configuration, ascending, each an `Enclosure` (the enclosures
    of distinct gains are apart, so they are ordered as the gains are), and each label's
    class: an index into `gains`, UNJUDGED (``ndcg.negative.unjudged``) or LABEL_ERROR.
    `gains` is None when the enclosures of two distinct gains overlap or touch: no order is
    known, and the reference then scores every query."""

    gains: list[Enclosure] | None
    of_label: np.ndarray
    zero: int


def label_gain(text: str, config: Config) -> tuple[Hashable, Enclosure] | None:
    """The gain of a label (the reference's `judged_gain`; None when the label leaves the
    document unjudged) and a key equal for equal gains: an exact gain is its own key and
    enclosure; an irrational one (2^l − 1 for a fractional l, ``ndcg.gain.exponential``) is
    enclosed at DISCOUNT_DPS digits, as `Discounts.cover` encloses a discount, and keyed by
    the label after the fractional and negative axes, on which alone it depends. Raises the
    InputError the reference raises for the label."""
    judgment = Judgment(parse_decimal(text))
    try:
        with computing_with(EXACT):
            value = judged_gain(judgment, config)[1]
    except NotRational:
        with computing_with(enclosing(DISCOUNT_DPS)):
            label, value = judged_gain(judgment, config)
            return ("irrational", label), enclosure(value)
    return None if value is None else (Fraction(value), (Fraction(value),) * 2)


ChoiceKey = tuple[Hashable, ...]


def choice_key(config: Config, axis_id: str) -> ChoiceKey:
    """The choice `config` makes on `axis_id`, with that choice's parameters."""
    chosen = config.choice(axis_id)
    params = next(c for c in axis(axis_id)["choices"] if c["id"] == chosen).get("params", [])
    return (chosen, *(config.param(name) for name in params))


# The axes a label's gain depends on (`reference.query.judged_gain`).
LABEL_AXES = ("gain", "fractional", "negative")
# Each label's `label_gain` ("error": an InputError) by label text and LABEL_AXES choices, as
# `discounts_of` keeps discounts: a label is resolved once however many configurations
# score it.
_LABEL_GAINS: dict[tuple[str, ChoiceKey], tuple[Hashable, Enclosure] | str | None] = {}
_LABEL_GAINS_KEPT = 4096
_LABEL_GAINS_LOCK = threading.Lock()


def shared_label_gain(
    text: str, config: Config, axes_key: ChoiceKey
) -> tuple[Hashable, Enclosure] | str | None:
    """`label_gain`, or "error" where it raises an InputError, computed once per label and
    `axes_key` (the LABEL_AXES choices of `config`); the kept values are immutable, and read
    and written under a lock, so threads share them."""
    key = (text, axes_key)
    with _LABEL_GAINS_LOCK:
        if key in _LABEL_GAINS:
            return _LABEL_GAINS[key]
    gain: tuple[Hashable, Enclosure] | str | None
    try:
        gain = label_gain(text, config)
    except InputError:
        gain = "error"
    with _LABEL_GAINS_LOCK:
        _LABEL_GAINS[key] = gain
        if len(_LABEL_GAINS) > _LABEL_GAINS_KEPT:
            del _LABEL_GAINS[next(iter(_LABEL_GAINS))]
    return gain


def gain_classes(label_texts: Sequence[str], config: Config) -> GainClasses:
    """Resolve each distinct label once (`shared_label_gain`) and order the distinct gains,
    with 0 among them, by their enclosures."""
    axes_key = tuple(choice_key(config, a) for a in LABEL_AXES)
    resolved: list[Hashable | str | None] = []
    enclosures: dict[Hashable, Enclosure] = {Fraction(0): (Fraction(0), Fraction(0))}
    for text in label_texts:
        gain = shared_label_gain(text, config, axes_key)
        if isinstance(gain, tuple):
            enclosures[gain[0]] = gain[1]
            resolved.append(gain[0])
        else:
            resolved.append(gain)
    keys = sorted(enclosures, key=enclosures.__getitem__)
    values = [enclosures[key] for key in keys]
    if any(below[1] >= above[0] for below, above in pairwise(values)):
        return GainClasses(None, np.zeros(len(label_texts), np.int64), 0)
    index = {key: i for i, key in enumerate(keys)}
    classes = [
        LABEL_ERROR if g == "error" else UNJUDGED if g is None else index[g] for g in resolved
    ]
    return GainClasses(values, np.array(classes, np.int64), index[Fraction(0)])


Bounds = tuple[int, int]


def fixed_point(value: Fraction | int) -> Bounds:
    """`value` between two integers at the scale 2^FIXED_BITS: floor and ceiling."""
    scaled = value * (1 << FIXED_BITS)
    return math.floor(scaled), math.ceil(scaled)


def fixed_enclosure(value: Any) -> Bounds:
    """The ends of an enclosure (or an exact number) floored and ceiled at the scale
    2^FIXED_BITS: an interval's binary ends are shifted, exactly, with no fraction built."""
    ends = getattr(value, "_mpi_", None)
    if ends is None or any(end in (finf, fninf, fnan) for end in ends):
        return fixed_gain(enclosure(value))
    return _scaled_floor(ends[0]), -_scaled_floor(mpf_neg(ends[1]))


def _scaled_floor(end: tuple[int, int, int, int]) -> int:
    """floor(x × 2^FIXED_BITS) of a finite binary number x = ±mantissa × 2^exponent."""
    sign, mantissa, exponent, _ = end
    value, shift = (-int(mantissa) if sign else int(mantissa)), exponent + FIXED_BITS
    return value << shift if shift >= 0 else value >> -shift


def fixed_gain(gain: Enclosure) -> Bounds:
    """A gain (or any enclosure given by its exact ends) between two integers at the scale
    2^FIXED_BITS: the floor of its low end, the ceiling of its high end."""
    return fixed_point(gain[0])[0], fixed_point(gain[1])[1]


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

    @property
    def ranks(self) -> int:
        """The last rank covered."""
        return len(self.low) - 1

    def covering(self, ranks: int) -> Discounts:
        """These discounts, or longer ones that cover ranks up to `ranks`."""
        if ranks <= self.ranks:
            return self
        low, high = list(self.low), list(self.high)
        with computing_with(enclosing(DISCOUNT_DPS)):
            for rank in range(len(low), ranks + 1):
                rank_low, rank_high = fixed_enclosure(discount(rank, self.config))
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
        )

    def between(self, first: int, last: int) -> Bounds:
        """The sum of the discounts of ranks first .. last (covered)."""
        return (
            self.low_prefix[last] - self.low_prefix[first - 1],
            self.high_prefix[last] - self.high_prefix[first - 1],
        )


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


# The longest discounts made of the last configurations used, by what they depend on
# (`discount_key`); read and replaced under the lock, each value immutable.
_DISCOUNTS: dict[ChoiceKey, Discounts] = {}
_DISCOUNTS_KEPT = 64
_DISCOUNTS_LOCK = threading.Lock()


def discount_key(config: Config) -> ChoiceKey:
    """The discount choice with its parameters: all a rank's discount depends on
    (``ndcg.discount``)."""
    return choice_key(config, "discount")


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


def product_bounds(value: Bounds, weights: Bounds) -> Bounds:
    """Bounds of v × w for v in `value` and w in `weights`, 0 <= w."""
    (a, b), (s, t) = value, weights
    return (a * s if a >= 0 else a * t), (b * t if b >= 0 else b * s)


def ideal_sum(runs: Runs, values: list[Bounds], discounts: Discounts) -> Bounds:
    """``ndcg.definition.idcg`` between two integers at the scale 2^(2 FIXED_BITS): the ideal
    list given as runs of one value (`engine.ideal`), each run's value times the sum of its
    ranks' discounts."""
    low = high = filled = 0
    for value, count in runs:
        term = product_bounds(values[value], discounts.between(filled + 1, filled + count))
        low, high, filled = low + term[0], high + term[1], filled + count
    return low, high


def _judgment(qrels: QrelsColumns, row: int) -> Judgment:
    label = parse_decimal(qrels.label_texts[qrels.label_id[row]])
    return Judgment(label, Location(qrels.path, qrels.lines[row]))


def _reject_judged_twice(qrels: QrelsColumns, table: KeyTable) -> None:
    """Raise the reference's error (``ndcg.input.duplicate-judgment``) when a document is
    judged twice: the rows of the queries concerned go, in file order, through the
    reference's `add_judgment`, which raises at the first repeated line."""
    copies = np.flatnonzero(table.first != np.arange(len(qrels.qidx)))
    if copies.size == 0:
        return
    rows = np.flatnonzero(np.isin(qrels.qidx, qrels.qidx[copies]))
    judged: dict[str, dict[str, Judgment]] = {}
    for docid, row in zip(token_texts(qrels.words[rows]), rows.tolist(), strict=True):
        add_judgment(judged, qrels.qids[qrels.qidx[row]], docid, _judgment(qrels, row))


def reference_inputs(
    qrels: QrelsColumns, run: RunColumns, q: int
) -> tuple[dict[str, Judgment], list[Posting]]:
    """One query's judgments and postings as the plain readers build them."""
    judged = np.flatnonzero(qrels.qidx == q)
    judgments = {
        docid: _judgment(qrels, row)
        for docid, row in zip(token_texts(qrels.words[judged]), judged.tolist(), strict=True)
    }
    inexact = dict(zip(run.inexact_rows.tolist(), run.inexact_texts, strict=True))
    rows = np.flatnonzero(run.qidx == q)
    if run.file_row is not None:
        rows = rows[np.argsort(run.file_row[rows])]
    postings = [
        Posting(
            docid,
            exact_score(run, row, inexact),
            Location(run.path, run.lines[run.file_index(row)]),
        )
        for docid, row in zip(token_texts(run.words[rows]), rows.tolist(), strict=True)
    ]
    return judgments, postings


# Rankings a Prepared keeps: the configurations of one call rank alike in a few ways at most,
# while a sweep of thousands over one Prepared would otherwise hold them all.
RANKINGS_KEPT = 8


@dataclass
class Prepared:
    """What every configuration shares: the columns and the run's ranking order; `inputs`
    are the reference's own qrels and run when the columns were built from them
    (`memory`)."""

    qrels: QrelsColumns
    run: RunColumns
    ranked: Ranked
    inputs: tuple[Qrels, Run] | None = None
    _rankings: dict[tuple[bytes, int, tuple[tuple[str, str], ...]], ConfigRanking] = field(
        default_factory=dict, repr=False
    )
    _rankings_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def ranking(self, classes: GainClasses, choices: dict[str, str]) -> ConfigRanking:
        """`rank.rank_config` of these rows: made once for every configuration that ranks
        them alike, i.e. with the same gain classes and the same duplicates, unjudged, ties
        and empty choices (nDCG and nDCG@10 do), the last `RANKINGS_KEPT` of them kept.
        Read-only once made, and kept under a lock, so threads may share a Prepared."""
        key = (classes.of_label.tobytes(), classes.zero, tuple(sorted(choices.items())))
        with self._rankings_lock:
            found = self._rankings.get(key)
        if found is not None:
            return found
        made = rank_config(self.ranked, classes.of_label, classes.zero, choices)
        for array in vars(made).values():
            array.flags.writeable = False
        with self._rankings_lock:
            self._rankings[key] = made
            if len(self._rankings) > RANKINGS_KEPT:
                del self._rankings[next(iter(self._rankings))]
        return made

    def query_inputs(self, q: int) -> tuple[Mapping[str, Judgment], Sequence[Posting]]:
        """Query `q`'s judgments and postings as the reference takes them: the very objects
        given, or as the plain readers build them from the columns."""
        if self.inputs is None:
            return reference_inputs(self.qrels, self.run, q)
        qrels, run = self.inputs
        qid = self.qrels.qids[q]
        return qrels[qid], run.get(qid, ())


def prepare(
    qrels: QrelsColumns, run: RunColumns, inputs: tuple[Qrels, Run] | None = None
) -> Prepared:
    """Join the run to the qrels by exact document id, and rank it once."""
    width = max(qrels.words.shape[1], run.words.shape[1])
    qrels.words, run.words = widen(qrels.words, width), widen(run.words, width)
    table = KeyTable(qrels.qidx, qrels.words, load=16)
    _reject_judged_twice(qrels, table)
    ranked = rank_rows(run, table.find(run.qidx, run.words, qrels.label_id))
    return Prepared(qrels, run, ranked, inputs)


def _credits(
    classes: GainClasses, ranking: ConfigRanking, average: bool
) -> tuple[list[Enclosure], np.ndarray]:
    """Each kept row's credited gain as an index into a list of enclosures: the class gain,
    or under ``ndcg.ties.average`` the mean gain of its tie group (``ndcg.ties.average``), for
    every group of two or more, between the means of its members' low and high ends."""
    assert classes.gains is not None
    values = list(classes.gains)
    credit = ranking.gain_class.copy()
    if not average:
        return values, credit
    grouped = np.flatnonzero(ranking.tie_size > 1)
    if grouped.size == 0:
        return values, credit
    tie_group = ranking.tie_group[grouped]
    group_of = np.cumsum(np.r_[True, tie_group[1:] != tie_group[:-1]]) - 1
    # A group's mean depends only on how many members each gain class has.
    width = len(values)
    keys = group_of * width + ranking.gain_class[grouped]
    counts = np.bincount(keys, minlength=(int(group_of[-1]) + 1) * width).reshape(-1, width)
    distinct, inverse = _distinct_rows(counts)
    for row in distinct.tolist():
        members = [(n, values[c]) for c, n in enumerate(row) if n]
        low = sum((n * gain[0] for n, gain in members), Fraction(0))
        high = sum((n * gain[1] for n, gain in members), Fraction(0))
        values.append((low / sum(row), high / sum(row)))
    credit[grouped] = width + inverse[group_of]
    return values, credit


def _distinct_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a matrix of counts and each row's index among them; rows are
    read as numbers in base (largest count + 1) when those fit 63 bits (a fast 1-D sort)."""
    base = int(counts.max()) + 1
    if base ** counts.shape[1] >= 1 << 63:
        distinct, inverse = np.unique(counts, axis=0, return_inverse=True)
        return distinct, inverse.reshape(-1)
    keys = counts @ (base ** np.arange(counts.shape[1], dtype=np.int64))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return counts[first], inverse.reshape(-1)


@dataclass
class QueryBounds:
    """DCG and IDCG of one query between two integers each, at the scale 2^(2 FIXED_BITS)."""

    dcg: Bounds
    idcg: Bounds

    def ndcg(self) -> tuple[Bounds, Bounds]:
        """nDCG between two quotients (numerator, denominator); IDCG is known to be
        positive."""
        (a, b), (c, d) = self.dcg, self.idcg
        if a >= 0:
            return (a, d), (b, c)
        if b <= 0:
            return (a, c), (b, d)
        return (a, c), (b, c)


def _rounded(low: Bounds, high: Bounds) -> Decimal | None:
    """The correctly rounded value (``ndcg.precision``) of a number between the quotients
    `low` and `high`, when both round alike."""
    rounded = round_quotient(*low)
    return rounded if rounded == round_quotient(*high) else None


def _scaled(bounds: Bounds) -> tuple[Bounds, Bounds]:
    scale = 1 << (2 * FIXED_BITS)
    return (bounds[0], scale), (bounds[1], scale)


def _dcg_bounds(
    qidx: np.ndarray,
    credit: np.ndarray,
    rank: np.ndarray,
    values: list[Bounds],
    discounts: Discounts,
) -> dict[int, Bounds]:
    """``ndcg.definition.dcg`` of each query between two integers at the scale
    2^(2 FIXED_BITS): per query and credit, the exact sum of its ranks' discounts (the low
    ends summed, the high ends as the low ones plus the summed widths), then one product."""
    if not len(qidx):
        return {}
    order = np.lexsort((credit, qidx))
    qidx, credit, rank = qidx[order], credit[order], rank[order]
    starts = np.flatnonzero(np.r_[True, (qidx[1:] != qidx[:-1]) | (credit[1:] != credit[:-1])])
    widths = np.add.reduceat(discounts.width[rank], starts)
    ends = np.r_[starts[1:], len(rank)].tolist()
    ranks, dlow = rank.tolist(), discounts.low
    sums: dict[int, Bounds] = {}
    groups = zip(
        starts.tolist(),
        ends,
        widths.tolist(),
        qidx[starts].tolist(),
        credit[starts].tolist(),
        strict=True,
    )
    for start, end, width, q, value in groups:
        low_sum = sum(map(dlow.__getitem__, ranks[start:end]))
        term = product_bounds(values[value], (low_sum, low_sum + width))
        low, high = sums.get(q, (0, 0))
        sums[q] = (low + term[0], high + term[1])
    return sums


def _scored_queries(prep: Prepared, config: Config) -> list[int]:
    """The queries the aggregate axis scores, in qrels order (``ndcg.aggregate``)."""
    return aggregate.CHOICES[config.choice("aggregate")](
        range(len(prep.qrels.qids)), np.flatnonzero(prep.run.present).tolist()
    )


def reference_share(
    results: Mapping[str, QueryResult],
) -> tuple[dict[str, dict[str, str | None]], MeanPart]:
    """`evaluate_queries` of queries the plain reference evaluated: each one's entry of the
    result object and their share of the mean."""
    total = MeanPart()
    for result in results.values():
        total = total.combine(MeanPart.of_real(result.value, result.in_mean))
    return {q: query_object(r) for q, r in results.items()}, total


def evaluate_queries(
    prep: Prepared, config: Config
) -> tuple[dict[str, dict[str, str | None]], MeanPart]:
    """Each scored query's entry of the result object, correctly rounded, and their share of
    the mean: what a block of queries contributes (``ndcg.precision``)."""
    choices = {a: config.choice(a) for a in ("duplicates", "unjudged", "ties", "empty")}
    k = config.cutoff
    classes = gain_classes(prep.qrels.label_texts, config)
    queries = _scored_queries(prep, config)
    if classes.gains is None:
        LOG.info("gains whose enclosures are not apart: the reference scores every query")
        return reference_share(_by_reference(prep, config, queries))
    ranking = prep.ranking(classes, choices)
    values, credit = _credits(classes, ranking, choices["ties"] == "average")
    sources = IdealInputs(
        judged_qidx=prep.qrels.qidx,
        judged_class=classes.of_label[prep.qrels.label_id],
        ranking=ranking,
        zero=classes.zero,
        classes=len(classes.gains),
        values=values,
        credit=credit,
        every_gain=every_gain_enters(config),
        cutoff=k,
    )
    found = IDEAL_LISTS[config.choice("ideal")](sources)
    if found is None:
        LOG.info("credited gains whose enclosures are not apart: the reference scores every query")
        return reference_share(_by_reference(prep, config, queries))
    ideal = cut_runs(found)
    fixed = [fixed_gain(v) for v in values]
    counted = ranking.rank <= k if k is not None else np.ones(len(ranking.rank), bool)
    # A credit of zero adds nothing to the DCG: only credits not exactly 0 meet a discount.
    counted &= np.array([v != (Fraction(0), Fraction(0)) for v in values], np.bool_)[credit]
    rows = np.flatnonzero(counted)
    ideal_depth = max((sum(count for _, count in runs) for runs in ideal.values()), default=0)
    ranked_depth = int(ranking.rank[rows].max()) if len(rows) else 0
    discounts = discounts_of(config, max(ranked_depth, ideal_depth))
    idcg_of = {q: ideal_sum(runs, fixed, discounts) for q, runs in ideal.items()}
    _raise_first_error(prep, config, classes, ranking, idcg_of, queries)
    dcg_of = _dcg_bounds(ranking.qidx[rows], credit[rows], ranking.rank[rows], fixed, discounts)
    lengths = sources.ranked_lengths
    per_query, total = {}, MeanPart()
    for q in queries:
        bounds = QueryBounds(dcg_of.get(q, (0, 0)), idcg_of.get(q, (0, 0)))
        qid = prep.qrels.qids[q]
        inputs = partial(prep.query_inputs, q)
        entry, part = query_result(config, qid, bounds, inputs, lengths.get(q, 0))
        per_query[qid] = entry
        total = total.combine(part)
    return per_query, total


def evaluate_prepared(prep: Prepared, config: Config) -> dict[str, Any]:
    """The JSON result object of `config`, equal to the plain reference's."""
    per_query, total = evaluate_queries(prep, config)
    try:
        mean = total.rounded_mean()
    except NeedsMoreDigits:
        LOG.info("the mean lies too near a rounding boundary: the reference takes it over")
        results = _by_reference(prep, config, _scored_queries(prep, config))
        with working_precision():
            mean = aggregate.mean({q: (r.value, r.in_mean) for q, r in results.items()})
            return Evaluation(config, results, mean).to_json()
    return result_object(config, None if mean is None else plain_digits(mean), per_query)


QueryInputs = Callable[[], tuple[Mapping[str, Judgment], Sequence[Posting]]]


def query_result(
    config: Config, qid: str, bounds: QueryBounds, inputs: QueryInputs, ranked: int
) -> tuple[dict[str, str | None], MeanPart]:
    """One query's entry of the result object, correctly rounded, and its share of the mean;
    a query whose bounds cannot round a value goes to the reference, on the judgments and
    postings `inputs` gives (``ndcg.precision``). `ranked` is n, the length of its ranking
    (``ndcg.definition.dcg``), which the empty axis may read."""
    dcg, idcg = _rounded(*_scaled(bounds.dcg)), _rounded(*_scaled(bounds.idcg))
    low, high = bounds.idcg
    if dcg is not None and idcg is not None and (low > 0 or high <= 0):
        entry = {"dcg": plain_digits(dcg), "idcg": plain_digits(idcg)}
        if low > 0:
            ndcg_low, ndcg_high = bounds.ndcg()
            ndcg = _rounded(ndcg_low, ndcg_high)
            if ndcg is not None:
                return {"ndcg": plain_digits(ndcg), **entry}, MeanPart.between(ndcg_low, ndcg_high)
        else:
            value, in_mean = empty.CHOICES[config.choice("empty")](qid, ranked)
            exact = None if value is None else int(value)
            ndcg_text = None if exact is None else plain_digits(Decimal(exact))
            return {"ndcg": ndcg_text, **entry}, MeanPart.of(exact, in_mean)
    judgments, postings = inputs()
    with working_precision():
        result = evaluate_query(qid, judgments, postings, config, kept_weights(config))
    return query_object(result), MeanPart.of_real(result.value, result.in_mean)


def _by_reference(prep: Prepared, config: Config, queries: list[int]) -> dict[str, QueryResult]:
    """The reference's results of the given queries of the columns."""
    per_query = {}
    with working_precision():
        for q in queries:
            judgments, postings = prep.query_inputs(q)
            qid = prep.qrels.qids[q]
            per_query[qid] = evaluate_query(qid, judgments, postings, config, kept_weights(config))
    return per_query


def _spans(qidx: np.ndarray) -> dict[int, tuple[int, int]]:
    if not len(qidx):
        return {}
    starts = np.flatnonzero(np.r_[True, qidx[1:] != qidx[:-1]])
    ends = np.r_[starts[1:], len(qidx)]
    return dict(
        zip(qidx[starts].tolist(), zip(starts.tolist(), ends.tolist(), strict=True), strict=True)
    )


def _raise_first_error(
    prep: Prepared,
    config: Config,
    classes: GainClasses,
    ranking: ConfigRanking,
    idcg_of: dict[int, Bounds],
    queries: list[int],
) -> None:
    """Let the reference evaluate the first query that is an error under `config`, so the
    error it raises is the reference's own."""
    flagged = np.zeros(len(prep.qrels.qids), bool)
    label_class = classes.of_label[prep.qrels.label_id]
    flagged[prep.qrels.qidx[label_class == LABEL_ERROR]] = True
    if config.choice("duplicates") == "error":
        flagged[: len(prep.ranked.has_duplicates)] |= prep.ranked.has_duplicates
    if config.choice("unjudged") == "error":
        flagged[ranking.unjudged_queries] = True
    if config.choice("empty") == "error":
        # Only positive gains make an ideal list unless zero and negative ones enter it too;
        # then a query with an ideal list may still have an IDCG of 0 or below (and one whose
        # bounds straddle 0 is left to the reference).
        has_ideal = np.zeros(len(flagged), bool)
        every_gain = every_gain_enters(config)
        has_ideal[[q for q, (low, _) in idcg_of.items() if not every_gain or low > 0]] = True
        flagged |= ~has_ideal
    for q in queries:
        if flagged[q]:
            judgments, postings = prep.query_inputs(q)
            with working_precision():
                evaluate_query(
                    prep.qrels.qids[q], judgments, postings, config, kept_weights(config)
                )
            LOG.warning("query %s was flagged as an error but the reference accepts it", q)
