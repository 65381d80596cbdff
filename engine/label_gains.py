"""Each label's gain (``ndcg.gain``, ``ndcg.fractional``, ``ndcg.negative``), resolved once per
label and kept across configurations and threads, and a configuration's classes of gains.

A label's gain is the reference's `judged_gain`: exact (a fraction, computed with rationals)
or, when irrational (2^l − 1 for a fractional label l, ``ndcg.gain.exponential``), enclosed by
the reference's interval arithmetic at DISCOUNT_DPS digits. The distinct gains are ordered by
their enclosures; a configuration in which the enclosures of two distinct gains overlap or
touch (no order is known) is scored by the reference query by query. The kept gains are read
and written under a lock, and every value kept is immutable.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

import numpy as np

from ndcgspec.engine.choice_keys import ChoiceKey, label_key
from ndcgspec.engine.fixed_point import DISCOUNT_DPS, Bounds, fixed_gain
from ndcgspec.engine.ideal import Enclosure
from ndcgspec.reference.arithmetic import EXACT, NotRational, computing_with, enclosing, enclosure
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.inputs import Judgment
from ndcgspec.reference.query import judged_gain

UNJUDGED, LABEL_ERROR = -1, -2


@dataclass(frozen=True)
class GainClasses:
    """The distinct gains of a configuration, ascending, each an `Enclosure` (the enclosures
    of distinct gains are apart, so they are ordered as the gains are), and each label's
    class: an index into `gains`, UNJUDGED (``ndcg.negative.unjudged``) or LABEL_ERROR.
    `gains` is None when the enclosures of two distinct gains overlap or touch: no order is
    known, and the reference then scores every query."""

    gains: list[Enclosure] | None
    of_label: np.ndarray
    zero: int
    fixed: tuple[Bounds, ...] = ()
    """Each gain in fixed point (`fixed_point.fixed_gain`): made with the classes, so that
    the configurations scoring them do not hash their fractions again (an irrational gain's
    ends have hundreds of digits)."""


def label_gain(text: str, config: Config) -> tuple[Hashable, Enclosure] | None:
    """The gain of a label (the reference's `judged_gain`; None when the label leaves the
    document unjudged) and a key equal for equal gains: an exact gain is its own key and
    enclosure; an irrational one (2^l − 1 for a fractional l, ``ndcg.gain.exponential``) is
    enclosed at DISCOUNT_DPS digits, as `discounts.Discounts.covering` encloses a discount,
    and keyed by the label after the fractional and negative axes, on which alone it depends.
    Raises the InputError the reference raises for the label."""
    judgment = Judgment(parse_decimal(text))
    try:
        with computing_with(EXACT):
            value = judged_gain(judgment, config)[1]
    except NotRational:
        with computing_with(enclosing(DISCOUNT_DPS)):
            label, value = judged_gain(judgment, config)
            return ("irrational", label), enclosure(value)
    return None if value is None else (Fraction(value), (Fraction(value),) * 2)


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
    axes_key = label_key(config)
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
    fixed = tuple(fixed_gain(value) for value in values)
    return GainClasses(values, np.array(classes, np.int64), index[Fraction(0)], fixed)
