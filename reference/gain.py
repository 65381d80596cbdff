"""The ``gain`` axis: a label's gain (``ndcg.gain``)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from ndcgspec.reference.arithmetic import Number, number, numbers
from ndcgspec.reference.config import LIMITS, Config
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.location import Location


def linear(label: Decimal, config: Config) -> Number:
    """``ndcg.gain.linear``: g(l) = l."""
    return number(label)


def exponential(label: Decimal, config: Config) -> Number:
    """``ndcg.gain.exponential``: g(l) = 2^l − 1."""
    return numbers().power(2, number(label)) - 1


def mapped(label: Decimal, config: Config) -> Number:
    """``ndcg.gain.map``: the gain the table lists for `label`, else g(l) = l."""
    table = dict(config.param("gain_map"))
    return number(table.get(label, label))


def binary(label: Decimal, config: Config) -> Number:
    """``ndcg.gain.binary``: g(l) = 1 if l > 0 else 0 (binary relevance)."""
    return number(1 if label > 0 else 0)


def judged(label: Decimal, config: Config) -> Number:
    """``ndcg.gain.judged``: g(l) = 1 for every judged document, whatever its label."""
    return number(1)


CHOICES: dict[str, Callable[[Decimal, Config], Number]] = {
    "linear": linear,
    "exponential": exponential,
    "map": mapped,
    "binary": binary,
    "judged": judged,
}


def check_label(label: Decimal, config: Config, where: Location | None) -> None:
    """``ndcg.limits``: under gain=exponential |l| <= exponential_label, checked before 2^l is
    computed (a label of 1e20 has no gain any implementation can hold)."""
    if config.choice("gain") == "exponential" and abs(label) > LIMITS["exponential_label"]:
        raise InputError(
            f"label {label} is beyond ±{LIMITS['exponential_label']}, the largest "
            "gain=exponential takes (ndcg.limits)",
            where,
        )


def gain(label: Decimal, config: Config) -> Number:
    """The gain of `label` under the configuration's gain choice (``ndcg.gain``)."""
    return CHOICES[config.choice("gain")](label, config)
