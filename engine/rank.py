"""Vectorised ranking for the fast engine: joining the run to the qrels, duplicates, the sort
by score with exact ties, and each configuration's ranking (``ndcg.definition.order``).

Document ids are compared as exact byte strings through hash tables with linear probing whose
probes compare every word of the key, so a hash collision costs a probe, never a wrong match.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from ndcgspec.engine.read import RunColumns

_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_GROUP_SEED = np.uint64(0x9E3779B97F4A7C15)
# Rows hashed per table when finding duplicates, and per lookup: tables and their
# temporaries stay small (a few MiB).
BLOCK_ROWS = 1 << 18
# The most slots a table is made sparser than twice its keys for: past it, filling the table
# (and the cache misses of probing it) cost more than the probes a sparser table saves; with
# 1,000 judgments per query, 5,000 queries asked for 2^27 slots, 512 MiB (issue 41).
SPARSE_SLOTS = 1 << 23


def key_hashes(groups: np.ndarray, words: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each (group, document id) key. The final shift carries the high bits
    into the low ones that pick a slot: multiplication moves bits only upwards, and the first
    bytes of a word are its high bits."""
    h = groups.astype(np.uint64) * _GROUP_SEED
    for j in range(words.shape[1]):
        h ^= words[:, j]
        h *= _MIX_1
        h ^= h >> np.uint64(29)
        h *= _MIX_2
    h ^= h >> np.uint64(32)
    return h


class EmptySlots:
    """Slots for one `KeyTable` at a time, every one -1 between tables, so that a table of
    each block of queries fills only the slots it uses: with 1,000 judgments per query a
    block's table is 2^22 slots, and filling a fresh one took 8 ms (0.15 s at 5,000
    queries). Not for tables of several threads at once."""

    def __init__(self) -> None:
        self._slots = np.zeros(0, np.int32)

    def take(self, size: int, dtype: type) -> np.ndarray:
        """`size` slots of `dtype`, each -1; `KeyTable.release` empties them again."""
        if len(self._slots) < size or self._slots.dtype != dtype:
            self._slots = np.full(max(size, len(self._slots)), -1, dtype)
        return self._slots[:size]


class KeyTable:
    """An open-addressing table of (group, words) keys; `first[i]` is the row that holds the
    key of row i (i itself unless an earlier-placed row has the same key). Its slots are
    new, or taken from `empty` and given back by `release`."""

    def __init__(
        self,
        groups: np.ndarray,
        words: np.ndarray,
        load: int = 2,
        empty: EmptySlots | None = None,
    ) -> None:
        self.groups, self.words = groups, words
        count = len(groups)
        slots = max(2 * count, min(load * count, SPARSE_SLOTS))
        self.mask = (1 << max(1, (slots - 1).bit_length())) - 1
        dtype = np.int64 if count >= 2**31 else np.int32
        self.table: np.ndarray = (
            np.full(self.mask + 1, -1, dtype) if empty is None else empty.take(self.mask + 1, dtype)
        )
        self.first = np.arange(count)
        pending = np.arange(count)
        slot = (key_hashes(groups, words) & np.uint64(self.mask)).astype(np.int64)
        # Rows are taken by index, not by boolean mask: numpy takes the rows of a mask of
        # rows kept at random several times slower than np.flatnonzero and a gather.
        while pending.size:
            at = slot[pending]
            free = np.flatnonzero(self.table[at] < 0)
            self.table[at[free]] = pending[free]
            holder = self.table[at]
            # A row holding its slot is placed; one whose slot another holds may share its key.
            other = np.flatnonzero(holder != pending)
            pending, holder = pending[other], holder[other]
            same = self._equal(groups, words, pending, holder)
            self.first[pending[same]] = holder[same]
            pending = pending[np.flatnonzero(~same)]
            slot[pending] = (slot[pending] + 1) & self.mask
        # Each row ends at the slot that holds its key: together, every slot filled.
        self._filled = slot

    def release(self) -> None:
        """Empty the slots this table filled, for the next table that takes them."""
        self.table[self._filled] = -1

    def _equal(
        self, groups: np.ndarray, words: np.ndarray, keys: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """Whether the key of row `keys[i]` of (`groups`, `words`) is that of the table's row
        `rows[i]`. Compared one word column at a time: comparing whole rows of words and
        reducing each row took 5 times as long (262,144 keys of two words: 9 ms, 2 ms)."""
        same: np.ndarray = self.groups[rows] == groups[keys]
        for j in range(words.shape[1]):
            same &= self.words[rows, j] == words[keys, j]
        return same

    def find(self, groups: np.ndarray, words: np.ndarray, values: np.ndarray) -> np.ndarray:
        """For each key, `values` at the table row holding it, or -1 when the key is absent."""
        found = np.full(len(groups), -1, values.dtype)
        for low in range(0, len(groups), BLOCK_ROWS):
            high = min(low + BLOCK_ROWS, len(groups))
            rows = self._find(groups[low:high], words[low:high])
            hit = np.flatnonzero(rows >= 0)
            found[low + hit] = values[rows[hit]]
        return found

    def _find(self, groups: np.ndarray, words: np.ndarray) -> np.ndarray:
        found = np.full(len(groups), -1, np.int64)
        pending = np.arange(len(groups))
        slot = (key_hashes(groups, words) & np.uint64(self.mask)).astype(np.int64)
        while pending.size:
            holder = self.table[slot[pending]]
            filled = np.flatnonzero(holder >= 0)
            pending, holder = pending[filled], holder[filled]
            same = self._equal(groups, words, pending, holder)
            hit = np.flatnonzero(same)
            found[pending[hit]] = holder[hit]
            pending = pending[np.flatnonzero(~same)]
            slot[pending] = (slot[pending] + 1) & self.mask
        return found


def widen(words: np.ndarray, width: int) -> np.ndarray:
    """`words` with zero words appended up to `width` columns."""
    if words.shape[1] == width:
        return words
    out = np.zeros((len(words), width), np.uint64)
    out[:, : words.shape[1]] = words
    return out


def exact_score(run: RunColumns, row: int, inexact: dict[int, str]) -> Decimal:
    """The exact decimal of a row's score: its text when the double may not be exact, else
    the double's shortest repr, which is then the decimal written (at most 15 digits)."""
    text = inexact.get(run.file_index(row))
    return Decimal(text) if text is not None else Decimal(repr(float(run.score[row])))


@dataclass
class Ranked:
    """The run's rows in ranking order: grouped by query, score descending, run order among
    equal scores; ties decided on exact decimals (``ndcg.ties``).

    `notable` lists the rows a configuration can credit or reorder: the judged ones and the
    members of tie groups of two or more; every other row only takes up a rank. `tie_group`
    numbers the tie group of each notable row.
    """

    qidx: np.ndarray
    label: np.ndarray
    words: np.ndarray
    tie_group: np.ndarray
    query_starts: np.ndarray
    notable: np.ndarray
    first_copy: np.ndarray | None
    has_duplicates: np.ndarray


def _order(run: RunColumns) -> np.ndarray | None:
    """The ranking order of the run's rows, None when the run is already in it."""
    qidx, score = run.qidx, run.score
    new_query = np.ones(len(qidx), bool)
    new_query[1:] = qidx[1:] != qidx[:-1]
    seen = np.zeros(len(run.present), bool)
    seen[qidx] = True
    grouped = np.count_nonzero(new_query) == np.count_nonzero(seen)
    if grouped and np.all((score[1:] <= score[:-1]) | new_query[1:]):
        return None
    return _row_indices(np.lexsort((-score, qidx)))


def _row_indices(rows: np.ndarray) -> np.ndarray:
    """`rows` in the smallest integer type that holds them."""
    return rows.astype(np.int32) if len(rows) < 2**31 else rows


def _tie_starts(qidx: np.ndarray, score: np.ndarray) -> np.ndarray:
    starts = np.ones(len(qidx), bool)
    starts[1:] = (qidx[1:] != qidx[:-1]) | (score[1:] != score[:-1])
    return starts


def _exact_ties(run: RunColumns, rows: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Queries whose order by double is not the order by exact decimal: float-equal rows of
    which one may be inexact but whose decimals differ."""
    if not len(run.inexact_rows):
        return np.zeros(0, np.int64)
    group = np.cumsum(starts) - 1
    position = np.empty(len(rows), np.int64)
    position[rows] = np.arange(len(rows))
    first = np.flatnonzero(starts)
    bounds = [*first.tolist(), len(rows)]
    suspect = np.unique(group[position[run.inexact_rows]])
    # A row alone under its double has nothing to tie with.
    suspect = suspect[np.diff(bounds)[suspect] > 1]
    inexact = dict(zip(run.inexact_rows.tolist(), run.inexact_texts, strict=True))
    bad = []
    for g in suspect.tolist():
        members = rows[bounds[g] : bounds[g + 1]].tolist()
        if len({exact_score(run, r, inexact) for r in members}) > 1:
            bad.append(int(run.qidx[members[0]]))
    return np.array(sorted(set(bad)), np.int64)


def _resort_exactly(run: RunColumns, rows: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Score-descending tie groups by exact decimals for the rows of `queries`; the returned
    tie keys are the dense ranks of the exact scores (equal decimals, equal keys)."""
    inexact = dict(zip(run.inexact_rows.tolist(), run.inexact_texts, strict=True))
    keys: np.ndarray = run.score[rows].astype(np.float64)
    qidx = run.qidx[rows]
    for q in queries.tolist():
        at = np.flatnonzero(qidx == q)
        exact = [exact_score(run, r, inexact) for r in rows[at].tolist()]
        order = sorted(range(len(at)), key=lambda i: exact[i], reverse=True)
        rows[at] = rows[at][order]
        distinct = sorted(set(exact), reverse=True)
        dense = {value: i for i, value in enumerate(distinct)}
        keys[at] = [-float(dense[exact[i]]) for i in order]
    return keys


def _in_ranking_order(run: RunColumns, order: np.ndarray, label_of_row: np.ndarray) -> np.ndarray:
    """Put the run's columns in ranking order, one column at a time so that only one is ever
    held twice, and return the labels in that order."""
    run.file_row = order
    run.qidx = run.qidx[run.file_row]
    run.score = run.score[run.file_row]
    run.words = run.words[run.file_row]
    ordered: np.ndarray = label_of_row[run.file_row]
    return ordered


def rank_rows(run: RunColumns, label_of_row: np.ndarray) -> Ranked:
    """Put the run in ranking order (`RunColumns.file_row`) and find everything about the
    ranking that no configuration changes; `label_of_row` is in file order."""
    order = _order(run)
    if order is None:
        starts = _tie_starts(run.qidx, run.score)
    else:
        starts = _tie_starts(run.qidx[order], run.score[order])
    if run.inexact_rows.size:
        rows = _row_indices(np.arange(len(run.qidx))) if order is None else order
        redo = _exact_ties(run, rows, starts)
        if redo.size:
            keys = _resort_exactly(run, rows, redo)
            order = rows
            starts = _tie_starts(run.qidx[order], keys)
    if order is not None:
        label_of_row = _in_ranking_order(run, order, label_of_row)
    qidx, words, label = run.qidx, run.words, label_of_row
    in_group = ~starts
    in_group[:-1] |= ~starts[1:]
    notable = np.flatnonzero((label >= 0) | in_group)
    tie_group = (np.cumsum(starts, dtype=np.int32) - 1)[notable]
    copies = _duplicates(qidx, words)
    has = np.zeros(len(run.present), bool)
    has[qidx[copies]] = True
    first_copy = None
    if copies.size:
        first_copy = np.ones(len(qidx), bool)
        first_copy[copies] = False
    return Ranked(
        qidx=qidx,
        label=label,
        words=words,
        tie_group=tie_group,
        query_starts=np.flatnonzero(np.r_[True, qidx[1:] != qidx[:-1]]) if len(qidx) else qidx,
        notable=notable,
        first_copy=first_copy,
        has_duplicates=has,
    )


def _duplicates(qidx: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The ranked rows whose query and document id an earlier ranked row already has: under
    ``ndcg.duplicates.first`` the earliest copy (highest score, earliest in the run) stays.
    Copies have equal hashes, so only rows whose hash repeats (`repeated_hashes`; in most
    runs none) are compared exactly."""
    suspects = repeated_hashes(key_hashes(qidx, words))
    if not suspects.size:
        return np.zeros(0, np.int64)
    copies: np.ndarray = suspects[_exact_duplicates(qidx[suspects], words[suspects])]
    return copies


# The windows of hash bits, counted from the lowest, that `repeated_hashes` buckets rows by.
BUCKET_SHIFTS = (0, 21, 42)


def repeated_hashes(hashes: np.ndarray) -> np.ndarray:
    """The rows whose hash another row shares, in order. A row alone in its bucket of some
    bits of the hash shares its hash with no row: a count per bucket (twice as many buckets
    as rows, one pass each) leaves about a third of the rows, each window of bits a third of
    those left; then the few left are sorted. Sorting all 262,144 hashes of a block took
    11.5 ms, this 2.4 ms."""
    rows = np.arange(len(hashes))
    for shift in BUCKET_SHIFTS:
        bits = len(rows).bit_length() + 1
        window = np.uint64((1 << bits) - 1)
        bucket = ((hashes >> np.uint64(min(shift, 64 - bits))) & window).astype(np.intp)
        shared = np.flatnonzero(np.bincount(bucket, minlength=1 << bits)[bucket] > 1)
        rows, hashes = rows[shared], hashes[shared]
    ordered = np.sort(hashes)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    return rows[np.isin(hashes, repeated)] if repeated.size else rows[:0]


def _exact_duplicates(qidx: np.ndarray, words: np.ndarray) -> np.ndarray:
    """`_duplicates` found by comparing every word of the keys (`KeyTable`), a table per
    block of whole queries."""
    query_starts = np.flatnonzero(np.r_[True, qidx[1:] != qidx[:-1]]) if len(qidx) else qidx
    cuts = [0]
    for start in np.asarray(query_starts).tolist():
        if start - cuts[-1] >= BLOCK_ROWS:
            cuts.append(start)
    cuts.append(len(qidx))
    copy_parts: list[np.ndarray] = []
    holder_parts: list[np.ndarray] = []
    for low, high in itertools.pairwise(cuts):
        first = KeyTable(qidx[low:high], words[low:high]).first
        at = np.flatnonzero(first != np.arange(high - low))
        copy_parts.append(low + at)
        holder_parts.append(low + first[at])
    copies, holders = np.concatenate(copy_parts), np.concatenate(holder_parts)
    # The table's holder is whichever row was placed first; the kept copy is the earliest.
    members = np.unique(np.concatenate([copies, holders]))
    holder_of = dict(zip(copies.tolist(), holders.tolist(), strict=True))
    earliest: dict[int, int] = {}
    for row in members.tolist():
        group = holder_of.get(row, row)
        earliest[group] = min(earliest.get(group, row), row)
    later = [r for r in members.tolist() if earliest[holder_of.get(r, r)] != r]
    return np.array(later, np.int64)


def docid_keys(words: np.ndarray, descending: bool = False) -> tuple[np.ndarray, ...]:
    """The `np.lexsort` keys that order rows as the reference's `ties.docid_key`, the UTF-8
    bytes of the id (``ndcg.ties.docid-asc``), or its reverse (``docid-desc``); equal ids
    keep their order (lexsort is stable). The words hold exactly those bytes, big-endian and
    zero-padded, and no id holds a NUL (``ndcg.input``), so ordering rows by their words as
    unsigned integers is ordering them by `docid_key`; a word's bitwise complement reverses
    that order."""
    keys = ~words if descending else words
    return tuple(keys.T[::-1])


def _unsigned(key: np.ndarray) -> np.ndarray:
    """`key` as unsigned 64-bit integers in the same order (a signed one's sign bit flipped)."""
    if key.dtype.kind == "i":
        return key.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)
    return key.astype(np.uint64, copy=False)


def grouped_order(groups: np.ndarray, keys: tuple[np.ndarray, ...]) -> np.ndarray:
    """The stable order of rows by `groups` and then by `keys`, least significant first:
    ``np.lexsort((*keys, groups))``, as one sort of 64-bit integers instead of one per key.
    Each row's integer is its group above the leading bits of its keys, once the bits equal
    on every row are dropped, so a larger integer means a later row; only rows whose integers
    are equal while bits were left out (rarely many) are then ordered by the whole keys."""
    if not len(groups):
        return np.zeros(0, np.int64)
    local = (groups.astype(np.int64) - int(groups.min())).astype(np.uint64)
    group_bits = int(local.max()).bit_length()
    packed, exact = local, True
    varying = [c for c in (_unsigned(k) for k in reversed(keys)) if np.any(c != c[0])]
    if varying:
        top = varying[0]
        spread = int(np.bitwise_or.reduce(top ^ top[0])).bit_length()
        # The bits of `top` above `spread` are equal on every row; the next column's follow.
        lead = top << np.uint64(64 - spread) if spread < 64 else top.copy()
        if spread < 64 and len(varying) > 1:
            lead |= varying[1] >> np.uint64(spread)
        packed = lead >> np.uint64(group_bits) if group_bits else lead
        if group_bits:
            packed |= local << np.uint64(64 - group_bits)
        # Every varying bit in the integer: equal integers are equal keys.
        exact = spread + 64 * (len(varying) - 1) <= 64 - group_bits
    order = np.argsort(packed, kind="stable")
    if exact:
        return order
    ordered = packed[order]
    equal = ordered[1:] == ordered[:-1]
    if not equal.any():
        return order
    members = np.flatnonzero(np.r_[equal, False] | np.r_[False, equal])
    run = np.cumsum(np.r_[True, ~equal])[members]
    rows = order[members]
    # lexsort is stable, and `rows` are in file order within a run: equal keys keep it.
    order[members] = rows[np.lexsort((*(k[rows] for k in keys), run))]
    return order


# The `np.lexsort` keys (least significant first) of the rows of tie groups whose gains
# differ, by ``ndcg.ties`` choice; None where the order within a group changes nothing
# computed here (``input`` keeps run order, ``average`` credits every member with the
# group's mean gain).
TIE_KEYS: dict[str, Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]] | None] = {
    "input": None,
    "average": None,
    "docid-desc": lambda words, gains: docid_keys(words, descending=True),
    "docid-asc": lambda words, gains: docid_keys(words),
    "pessimistic": lambda words, gains: (gains,),
    "optimistic": lambda words, gains: (-gains,),
}


# The ties whose keys are document ids, of many distinct values: one sort of packed integers
# (`grouped_order`) orders them in half a lexsort's time; a gain's few values lexsort sorts
# faster (5 M rows: 0.23-0.28 s of CPU against 0.58-1.2 s).
DOCID_TIES = frozenset({"docid-desc", "docid-asc"})


@dataclass
class ConfigRanking:
    """The credited rows of one configuration's ranking (duplicates and unjudged axes
    applied), in ranking order, with 1-based ranks, tie groups, and gain classes after the
    ties axis reordered them; `unjudged_queries` have a ranked unjudged document. Query
    `queries[i]` ranks `lengths[i]` documents, credited or not."""

    qidx: np.ndarray
    rank: np.ndarray
    gain_class: np.ndarray
    tie_group: np.ndarray
    tie_size: np.ndarray
    unjudged_queries: np.ndarray
    queries: np.ndarray
    lengths: np.ndarray


def _starts(values: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if len(values) else values


# By ``ndcg.duplicates`` choice: whether only the first copy of a document stays ranked.
# Under ``error`` every copy stays; the query is an error, which the reference raises. Under
# ``keep`` every copy stays, ranked and credited.
KEEPS_FIRST_COPY = {"error": False, "first": True, "keep": False}
# By ``ndcg.unjudged`` choice: (whether unjudged documents leave the ranking, whether their
# queries are errors); under ``zero`` they stay with gain 0.
UNJUDGED_RULES = {"zero": (False, False), "condense": (True, False), "error": (False, True)}


def rank_config(
    ranked: Ranked, label_class: np.ndarray, zero_class: int, choices: dict[str, str]
) -> ConfigRanking:
    """Apply ``ndcg.duplicates``, ``ndcg.unjudged`` and ``ndcg.ties`` to the notable rows.

    `label_class` maps each label to its gain class (classes ascend with the gain) or to a
    negative number when the label leaves the document unjudged. Only tie groups whose gains
    differ are reordered: in the others every order gives the same gains at the same ranks.
    """
    label = ranked.label
    keep = ranked.first_copy if KEEPS_FIRST_COPY[choices["duplicates"]] else None
    condense, flag = UNJUDGED_RULES[choices["unjudged"]]
    unjudged_queries = np.zeros(0, np.int64)
    if condense or flag:
        judged_all = (label >= 0) & (label_class[np.maximum(label, 0)] >= 0)
        if flag:
            loose = ~judged_all if keep is None else keep & ~judged_all
            flags = np.zeros(len(ranked.has_duplicates), bool)
            flags[ranked.qidx[loose]] = True
            unjudged_queries = np.flatnonzero(flags)
        if condense:
            keep = judged_all if keep is None else keep & judged_all
    chosen = slice(None) if keep is None else keep[ranked.notable]
    rows = ranked.notable[chosen]
    query_start = ranked.query_starts[np.searchsorted(ranked.query_starts, rows, "right") - 1]
    if keep is None:
        rank = rows - query_start + 1
    else:
        kept_before = np.cumsum(keep, dtype=np.int64) - keep
        rank = kept_before[rows] - kept_before[query_start] + 1
    row_label = label[rows]
    gain_class = np.where(row_label >= 0, label_class[np.maximum(row_label, 0)], -1)
    gain_class = np.where(gain_class >= 0, gain_class, zero_class)
    group = ranked.tie_group[chosen]
    count = len(rows)
    group_starts = _starts(group)
    sizes = np.diff(group_starts, append=count)
    tie_size = np.repeat(sizes, sizes)
    tie_key = TIE_KEYS[choices["ties"]]
    if count and tie_key is not None:
        lowest = np.minimum.reduceat(gain_class, group_starts)
        highest = np.maximum.reduceat(gain_class, group_starts)
        reorder = np.flatnonzero(np.repeat(lowest != highest, sizes))
        keys = tie_key(ranked.words[rows[reorder]], gain_class[reorder])
        # Both sorts are stable: equal keys keep run order, as the reference's sorted().
        order = (
            grouped_order(group[reorder], keys)
            if choices["ties"] in DOCID_TIES
            else np.lexsort((*keys, group[reorder]))
        )
        gain_class[reorder] = gain_class[reorder][order]
    starts = ranked.query_starts
    if keep is None:
        lengths = np.diff(np.r_[starts, len(label)]).astype(np.int64)
    else:
        lengths = np.add.reduceat(keep.astype(np.int64), starts) if len(starts) else starts
    return ConfigRanking(
        qidx=ranked.qidx[rows],
        rank=rank,
        gain_class=gain_class,
        tie_group=group,
        tie_size=tie_size,
        unjudged_queries=unjudged_queries,
        queries=ranked.qidx[starts],
        lengths=np.asarray(lengths, np.int64),
    )
