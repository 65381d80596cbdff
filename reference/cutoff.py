"""The ``cutoff`` axis: how many ranks count (``ndcg.cutoff``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from ndcgspec.reference.config import Config

T = TypeVar("T")


def cut(items: Sequence[T], config: Config) -> list[T]:
    """The first min(k, n) items, or all n when the cutoff is null (``ndcg.cutoff``)."""
    k = config.cutoff
    return list(items if k is None else items[:k])
