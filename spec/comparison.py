"""The constants of ``comparison.yaml``'s float rule (``ndcg.comparison.float``) as records:
the constant c, and the binary formats of the float widths an adapter may declare."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class BinaryFormat:
    """An IEEE 754 binary format: p significand bits (the hidden bit included) and e_min, the
    smallest normal exponent."""

    significand_bits: int
    min_exponent: int


@dataclass(frozen=True)
class FloatRule:
    """The constant c of the rule and the binary format of each float width, in file order."""

    c: int
    float_widths: Mapping[int, BinaryFormat]
