"""The ``ideal`` axis: the documents the ideal list is built from and the depth it is cut at
(``ndcg.ideal``).

Each choice returns the candidate gains and the depth; `ideal_gains` keeps the candidates > 0
(all of them under ``ndcg.negative.keep-in-ideal``), sorts them in non-increasing order and
cuts them at that depth (``ndcg.definition.idcg``): k, or None for no cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ndcgspec.reference.arithmetic import Ordered, positive
from ndcgspec.reference.config import Config


@dataclass(frozen=True)
class IdealSources:
    """What an ideal list may be built from, for one query: the gain of every judged document,
    the gains of the ranking (after the duplicates and unjudged axes), and the gains the
    ranking credits at ranks 1 .. min(k, n) after the ties axis."""

    judged: Sequence[Any]
    retrieved: Sequence[Any]
    top_k: Sequence[Any]


Candidates = tuple[list[Any], int | None]


def judged(sources: IdealSources, config: Config) -> Candidates:
    """``ndcg.ideal.judged``: every judged document of the query, retrieved or not, cut at k."""
    return list(sources.judged), config.cutoff


def retrieved(sources: IdealSources, config: Config) -> Candidates:
    """``ndcg.ideal.retrieved``: only the documents of the ranking, cut at k."""
    return list(sources.retrieved), config.cutoff


def uncut(sources: IdealSources, config: Config) -> Candidates:
    """``ndcg.ideal.uncut``: every judged document, not cut at all."""
    return list(sources.judged), None


def cut_at_n(sources: IdealSources, config: Config) -> Candidates:
    """``ndcg.ideal.cut-at-n``: every judged document, cut at min(k, n)."""
    return list(sources.judged), _ranked_depth(sources, config)


def assumed_k(sources: IdealSources, config: Config) -> Candidates:
    """``ndcg.ideal.assumed-k``: k copies (n when the cutoff is null) of the top judged gain."""
    if not sources.judged:
        return [], None
    depth = len(sources.retrieved) if config.cutoff is None else config.cutoff
    return [max(sources.judged, key=Ordered)] * depth, None


def top_k(sources: IdealSources, config: Config) -> Candidates:
    """``ndcg.ideal.top-k``: the gains credited at ranks 1 .. min(k, n), sorted."""
    return list(sources.top_k), None


def _ranked_depth(sources: IdealSources, config: Config) -> int:
    """min(k, n), n the length of the ranking (n when the cutoff is null)."""
    n = len(sources.retrieved)
    return n if config.cutoff is None else min(config.cutoff, n)


LONG_AS_THE_CUTOFF = frozenset({"assumed-k"})
"""The choices whose ideal list is k long whatever the input (k copies of the top gain): only
under them does a cutoff past every ranking and judgment change a value."""

CHOICES: dict[str, Callable[[IdealSources, Config], Candidates]] = {
    "judged": judged,
    "retrieved": retrieved,
    "uncut": uncut,
    "cut-at-n": cut_at_n,
    "assumed-k": assumed_k,
    "top-k": top_k,
}


def every_gain_enters(config: Config) -> bool:
    """Whether zero and negative gains enter the ideal list too
    (``ndcg.negative.keep-in-ideal``), not only the positive ones."""
    return config.choice("negative") == "keep-in-ideal"


def ideal_gains(sources: IdealSources, config: Config) -> list[Any]:
    """The ideal list's gains at ranks 1, 2, ...: positive (every gain under
    ``ndcg.negative.keep-in-ideal``), non-increasing, cut at the depth of the ideal choice."""
    candidates, depth = CHOICES[config.choice("ideal")](sources, config)
    if not every_gain_enters(config):
        candidates = [g for g in candidates if positive(g)]
    ordered = sorted(candidates, key=Ordered, reverse=True)
    return ordered if depth is None else ordered[:depth]
