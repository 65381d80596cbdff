"""Do conclusions about runs survive another nDCG convention? The comparison behind
``ndcgspec compare``.

Every run is scored under every convention with the exact reference's arithmetic, shared
per-query work reused across conventions (`ndcgspec.engine.sweep`). From the scores: each
run's spread over the conventions, the ranking of the runs under each convention, Kendall's
τ-b between every two conventions, every pair of runs whose order flips between two
conventions with the queries that contribute most to the flip, and the queries on which the
conventions disagree most."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import mpmath
from tqdm import tqdm

from ndcgspec.analysis.run_labels import run_label, run_name
from ndcgspec.engine.stream import QueryPresence
from ndcgspec.engine.sweep import Sweep
from ndcgspec.reference.config import Config
from ndcgspec.reference.contexts import held
from ndcgspec.reference.errors import InputError, NdcgSpecError
from ndcgspec.reference.evaluate import Evaluation
from ndcgspec.reference.precision import working_precision
from ndcgspec.reference.trec_io import Source, read_qrels, read_run

CONTRIBUTIONS_SHOWN = 5


@dataclass(frozen=True)
class Convention:
    """A named configuration the runs are scored under."""

    name: str
    config: Config


@dataclass
class Comparison:
    """Every run under every convention; `excluded` holds the conventions that reject the
    input of some run or leave a mean undefined, with the reason."""

    runs: list[str]
    conventions: list[Convention]
    results: dict[str, dict[str, Evaluation]]
    excluded: dict[str, str]
    presence: dict[str, QueryPresence]
    """Per run, which queries it and the qrels share (``ndcg.aggregate``)."""

    def score(self, run: str, convention: str) -> mpmath.mpf:
        return self.results[convention][run].aggregate


def compare(
    qrels_path: str | Source,
    run_paths: Sequence[str | Source],
    conventions: Sequence[Convention],
    names: Sequence[str] = (),
    progress: bool = False,
) -> Comparison:
    """Score every run under every convention; runs are called `names`, by default by
    `run_label`: the run's tag, or its `run_name`."""
    taken: set[str] = set()
    names = list(names) or [
        run_label(p, taken, run_name(getattr(p, "name", str(p)))) for p in run_paths
    ]
    if len(names) != len(run_paths):
        raise NdcgSpecError(
            f"{len(names)} names for {len(run_paths)} runs: give one per run, in order"
        )
    if len(set(names)) < len(names):
        raise NdcgSpecError("two runs have the same name; name them with --name")
    qrels = read_qrels(qrels_path)
    results: dict[str, dict[str, Evaluation]] = {c.name: {} for c in conventions}
    excluded: dict[str, str] = {}
    presence: dict[str, QueryPresence] = {}
    cutoffs = {c.config.cutoff for c in conventions}
    for name, path in tqdm(
        list(zip(names, run_paths, strict=True)), desc="compare", disable=not progress
    ):
        run = read_run(path)
        unjudged = [q for q in run if q not in qrels]
        presence[name] = QueryPresence.of(list(qrels), [q in run for q in qrels], unjudged)
        sweep = Sweep(qrels, run, cutoffs)
        for convention in conventions:
            result = sweep.evaluate(convention.config)
            if isinstance(result, InputError):
                excluded.setdefault(convention.name, f"run {name}: {result}")
            elif result.aggregate is None:
                excluded.setdefault(convention.name, f"run {name}: the mean is undefined")
            else:
                results[convention.name][name] = result
    kept = [c for c in conventions if c.name not in excluded]
    return Comparison(names, kept, {c.name: results[c.name] for c in kept}, excluded, presence)


def ranks(comparison: Comparison, convention: str) -> dict[str, float]:
    """Each run's rank under `convention`, 1 the best; tied runs share their mean rank."""
    order = sorted(comparison.runs, key=lambda r: -comparison.score(r, convention))
    out: dict[str, float] = {}
    at = 0
    while at < len(order):
        end = at
        value = comparison.score(order[at], convention)
        while end + 1 < len(order) and comparison.score(order[end + 1], convention) == value:
            end += 1
        for run in order[at : end + 1]:
            out[run] = (at + end) / 2 + 1
        at = end + 1
    return out


def _sign(value: mpmath.mpf) -> int:
    return int(value > 0) - int(value < 0)


def kendall_tau(comparison: Comparison, first: str, second: str) -> float | None:
    """Kendall's τ-b between the run orders of two conventions (Kendall 1945, ties in
    either order corrected for); None when either order ties every pair."""
    concordant = discordant = tied_first = tied_second = 0
    pairs = list(combinations(comparison.runs, 2))
    for a, b in pairs:
        x = _sign(comparison.score(a, first) - comparison.score(b, first))
        y = _sign(comparison.score(a, second) - comparison.score(b, second))
        tied_first += x == 0
        tied_second += y == 0
        concordant += x * y > 0
        discordant += x * y < 0
    denominator = math.sqrt((len(pairs) - tied_first) * (len(pairs) - tied_second))
    return None if denominator == 0 else (concordant - discordant) / denominator


@dataclass(frozen=True)
class Flip:
    """Runs `a` and `b` in opposite order under conventions `ahead` (a above b) and `behind`
    (a below b), with the queries that move the difference most."""

    a: str
    b: str
    ahead: str
    behind: str
    contributions: list[tuple[str, mpmath.mpf]]


def _contributions(
    comparison: Comparison, flip: tuple[str, str, str, str]
) -> list[tuple[str, mpmath.mpf]]:
    """Per query, how much it moves mean(a) − mean(b) from `ahead` to `behind`: its share
    (a_q − b_q) / |Q| under `behind` minus the same under `ahead`, largest first."""
    a, b, ahead, behind = flip

    def share(convention: str) -> dict[str, mpmath.mpf]:
        ra, rb = comparison.results[convention][a], comparison.results[convention][b]
        entering = [q for q, r in ra.per_query.items() if r.in_mean]
        out = {}
        for q in entering:
            x, y = ra.per_query[q].ndcg, rb.per_query[q].ndcg
            assert x is not None and y is not None, "compare keeps only the defined means"
            out[q] = (x - y) / len(entering)
        return out

    with working_precision():
        before, after = share(ahead), share(behind)
        moved = {q: after.get(q, held(0)) - before.get(q, held(0)) for q in {*before, *after}}
    ordered = sorted(moved.items(), key=lambda item: (-abs(item[1]), item[0]))
    return ordered[:CONTRIBUTIONS_SHOWN]


def flips(comparison: Comparison) -> list[Flip]:
    """Every pair of runs whose order differs between two conventions, once per pair of
    runs: under the first convention (in the given order) that puts one above the other
    against the first that puts it below."""
    found = []
    names = [c.name for c in comparison.conventions]
    for a, b in combinations(comparison.runs, 2):
        signs = {n: _sign(comparison.score(a, n) - comparison.score(b, n)) for n in names}
        above = [n for n in names if signs[n] > 0]
        below = [n for n in names if signs[n] < 0]
        if not above or not below:
            continue
        if names.index(below[0]) < names.index(above[0]):
            a, b, above, below = b, a, below, above
        found.append(
            Flip(a, b, above[0], below[0], _contributions(comparison, (a, b, above[0], below[0])))
        )
    return found


def reversed_pairs(comparison: Comparison, first: str, second: str) -> int:
    """How many pairs of runs the two conventions order oppositely."""
    return sum(
        _sign(comparison.score(a, first) - comparison.score(b, first))
        * _sign(comparison.score(a, second) - comparison.score(b, second))
        < 0
        for a, b in combinations(comparison.runs, 2)
    )


@dataclass(frozen=True)
class Disagreement:
    """How far apart the conventions put one query of one run: the spread of its nDCG, and
    the lowest and highest (value, convention)."""

    query: str
    run: str
    spread: mpmath.mpf
    low: tuple[mpmath.mpf, str]
    high: tuple[mpmath.mpf, str]


def query_disagreement(comparison: Comparison) -> list[Disagreement]:
    """Per query and run, the spread of the query's nDCG over the conventions that score it,
    largest first: where the conventions disagree most."""
    rows = []
    for run in comparison.runs:
        by_query: dict[str, list[tuple[mpmath.mpf, str]]] = {}
        for convention in comparison.conventions:
            for q, r in comparison.results[convention.name][run].per_query.items():
                if r.ndcg is not None:
                    by_query.setdefault(q, []).append((r.ndcg, convention.name))
        for q, values in by_query.items():
            low, high = min(values), max(values)
            rows.append(Disagreement(q, run, high[0] - low[0], low, high))
    rows.sort(key=lambda row: (-row.spread, row.query, row.run))
    return rows


def spread(comparison: Comparison, run: str) -> tuple[mpmath.mpf, str, str]:
    """max − min of the run's score over the conventions, and where each is reached."""
    values = [(comparison.score(run, c.name), c.name) for c in comparison.conventions]
    low, high = min(values), max(values)
    with working_precision():
        return high[0] - low[0], low[1], high[1]
