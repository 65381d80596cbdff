"""What the values the engine keeps across configurations depend on: a configuration's
choices on the axes that make them (``ndcg.gain``, ``ndcg.fractional``, ``ndcg.negative`` for
a label's gain; ``ndcg.discount`` for a rank's discount), each with its parameters. The label
gains (`label_gains`), the discounts (`discounts`) and the sweep's shared parts (`sweep`) are
kept by these keys, so that configurations differing only on other axes share them.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

from ndcgspec.reference.config import Config, spec_choice

ChoiceKey = tuple[Hashable, ...]

# The axes a label's gain depends on (`reference.query.judged_gain`).
LABEL_AXES = ("gain", "fractional", "negative")


def choice_key(config: Config, axis_id: str) -> ChoiceKey:
    """The choice `config` makes on `axis_id`, with that choice's parameters."""
    chosen = config.choice(axis_id)
    return (chosen, *(config.param(name) for name in spec_choice(axis_id, chosen).params))


# A survey asks it of a few thousand configurations hundreds of thousands of times (every
# sweep, every prepared input). lru_cache serialises its own bookkeeping, and what it keeps
# never changes.
@lru_cache(maxsize=1 << 14)
def label_key(config: Config) -> tuple[ChoiceKey, ...]:
    """The choices `config` makes on LABEL_AXES, each with its parameters: all a label's gain
    depends on."""
    return tuple(choice_key(config, a) for a in LABEL_AXES)


def discount_key(config: Config) -> ChoiceKey:
    """The discount choice with its parameters: all a rank's discount depends on
    (``ndcg.discount``)."""
    return choice_key(config, "discount")
