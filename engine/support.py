"""What the fast engine computes, by spec anchor (``ndcg``): it fails closed.

A configuration is scored by the engine only when the anchor of every choice it makes, of
every parameter of those choices, and of the cutoff is declared here; any other configuration
(a choice added to the spec later, say) goes to the plain reference, which defines them all.
The decision is `route.routed`'s, for every path: files, in-memory inputs, Spark partitions
and the sweep (`sweep`), which computes these anchors too (its ideal table,
`sweep.IDEAL_READS_RANKING`, holds the declared ideal choices).
"""

from __future__ import annotations

from functools import lru_cache

from ndcgspec.reference.config import ChoiceAxis, Config, axes

COMPUTED: frozenset[str] = frozenset(
    {
        # Gains and discounts come from the reference's own functions, per distinct label
        # and per rank.
        "ndcg.gain.linear",
        "ndcg.gain.exponential",
        "ndcg.gain.map",
        "ndcg.gain.map.gain_map",
        "ndcg.gain.binary",
        "ndcg.gain.judged",
        "ndcg.discount.log",
        "ndcg.discount.jarvelin2002",
        "ndcg.discount.reciprocal",
        "ndcg.discount.geometric",
        "ndcg.discount.none",
        "ndcg.discount.log_base",
        "ndcg.discount.log_offset",
        "ndcg.discount.persistence",
        "ndcg.cutoff",
        # rank.KEEPS_FIRST_COPY, rank.UNJUDGED_RULES, rank.TIE_KEYS, ideal.CHOICES,
        # sweep.IDEAL_READS.
        "ndcg.ideal.judged",
        "ndcg.ideal.retrieved",
        "ndcg.ideal.uncut",
        "ndcg.ideal.cut-at-n",
        "ndcg.ideal.assumed-k",
        "ndcg.ideal.top-k",
        "ndcg.unjudged.zero",
        "ndcg.unjudged.condense",
        "ndcg.unjudged.error",
        # Labels resolve through the reference's `judged_gain`; the ideal list takes zero and
        # negative gains as `reference.ideal.every_gain_enters` says.
        "ndcg.negative.zero",
        "ndcg.negative.unjudged",
        "ndcg.negative.keep",
        "ndcg.negative.keep-in-ideal",
        "ndcg.negative.error",
        "ndcg.fractional.keep",
        "ndcg.fractional.truncate",
        "ndcg.fractional.error",
        "ndcg.ties.input",
        "ndcg.ties.docid-desc",
        "ndcg.ties.docid-asc",
        "ndcg.ties.average",
        "ndcg.ties.pessimistic",
        "ndcg.ties.optimistic",
        "ndcg.duplicates.error",
        "ndcg.duplicates.first",
        "ndcg.duplicates.keep",
        # The reference's `empty.CHOICES` and `aggregate.CHOICES`, per query and per run.
        "ndcg.empty.zero",
        "ndcg.empty.one",
        "ndcg.empty.nan",
        "ndcg.empty.skip",
        "ndcg.empty.error",
        "ndcg.empty.agree",
        "ndcg.aggregate.qrels",
        "ndcg.aggregate.run",
    }
)


def anchors_of(config: Config) -> list[str]:
    """The spec anchors `config` uses: each chosen choice, its parameters, the cutoff axis."""
    return list(_anchors(_chosen(config)))


def _chosen(config: Config) -> tuple[str | None, ...]:
    """The choice `config` makes on each axis, in spec order (None for the cutoff)."""
    return tuple(config.choice(e.id) if isinstance(e, ChoiceAxis) else None for e in axes())


@lru_cache(maxsize=4096)
def _anchors(chosen: tuple[str | None, ...]) -> tuple[str, ...]:
    # Asked once per configuration and cutoff by a sweep of the whole space (`which`): kept
    # by the choices made (lru_cache locks), which a spec loaded once per process maps to
    # anchors.
    used = []
    for entry, choice in zip(axes(), chosen, strict=True):
        if not isinstance(entry, ChoiceAxis) or choice is None:
            used.append(entry.anchor)
            continue
        made = entry.by_id[choice]
        used.append(made.anchor)
        params = {p.id: p.anchor for p in entry.params}
        used += [params[name] for name in made.params]
    return tuple(used)


def not_computed(config: Config) -> list[str]:
    """The anchors `config` uses that the engine does not declare (empty: the engine scores
    it)."""
    return [anchor for anchor in _anchors(_chosen(config)) if anchor not in COMPUTED]
