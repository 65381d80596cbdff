"""The ``cutoff`` axis: how many ranks count (``ndcg.cutoff``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from ndcgspec.reference.config import Config
from ndcgspec.reference.ideal import LONG_AS_THE_CUTOFF

T = TypeVar("T")


def cut(items: Sequence[T], config: Config) -> list[T]:
    """The first min(k, n) items, or all n when the cutoff is null (``ndcg.cutoff``)."""
    k = config.cutoff
    return list(items if k is None else items[:k])


def cuts_nothing(config: Config, longest: int) -> bool:
    """Whether `config`'s cutoff leaves every list whole on an input each of whose queries has
    at most `longest` rows in the run and at most `longest` in the qrels: then k ≥ n cuts no
    ranking (``ndcg.cutoff``) and no ideal list, which holds judged or retrieved documents
    (``ndcg.ideal``), so every value is the null cutoff's. Not under an ideal choice whose
    list is as long as the cutoff whatever the input (`ideal.LONG_AS_THE_CUTOFF`)."""
    k = config.cutoff
    return k is None or (k >= longest and config.choice("ideal") not in LONG_AS_THE_CUTOFF)
