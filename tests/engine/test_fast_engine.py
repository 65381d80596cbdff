"""The fast engine (spec anchor ``ndcg``): every expected value of the golden suite, all
digits; what it declares (`support`) and dispatches on; hashing and ordering document ids;
discounts in fixed point. Its agreement with the plain reference is tested in
`test_equals_reference`."""

from __future__ import annotations

import copy
import ctypes
import logging
import math
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any
from unittest import mock

import mpmath
import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.engine import discounts, fixed_point, rank, scoring, stream, support, sweep
from ndcgspec.engine import ideal as engine_ideal
from ndcgspec.engine import read as fast_read
from ndcgspec.engine.route import LOG
from ndcgspec.engine.scoring import score_files
from ndcgspec.engine.stream import score_files_fast
from ndcgspec.measures import parse_measure
from ndcgspec.reference import Config, InputError, NdcgSpecError, arithmetic, ties
from ndcgspec.reference import config as config_module
from ndcgspec.reference import discount as discount_axis
from ndcgspec.reference.trec_io import opened
from ndcgspec.spec import load_spec
from ndcgspec.suite.check import within
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.loaded import iter_cases


def write(folder: Path, qrels: str, run: str) -> tuple[Path, Path]:
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    qrels_path.write_text(qrels, encoding="utf-8")
    run_path.write_text(run or "q0 Q0 x 1 1 tag\n", encoding="utf-8")
    return qrels_path, run_path


def test_tied_decimals_that_one_double_cannot_tell_apart(tmp_path: Path) -> None:
    # 0.1000000000000000001 > 0.1 = 0.10: the relevant document ranks first, alone.
    qrels = "q 0 r 1\nq 0 s 0\n"
    run = "q Q0 s 1 0.1 t\nq Q0 r 2 0.1000000000000000001 t\nq Q0 z 3 0.10 t\n"
    qrels_path, run_path = write(tmp_path, qrels, run)
    [result] = score_files_fast([Config.default()], qrels_path, run_path).results
    assert result["per_query"]["q"]["ndcg"] == "1.000000000000000000000000000000000000000"


def _trec_text(rows: list[list[str]], middle: str) -> str | None:
    """TREC lines for a case's inline rows, or None when a field cannot be one TREC token."""
    if any(
        not field or len(field.split()) != 1 or field.split()[0] != field
        for r in rows
        for field in r
    ):
        return None
    return "".join(
        f"{r[0]} {middle} {r[1]} {r[2] if middle == '0' else f'1 {r[2]} t'}\n" for r in rows
    )


def _fast_outcomes(configs: list[Config], qrels_path: Path, run_path: Path) -> list[dict[str, Any]]:
    """Each configuration's outcome from the fast engine, shaped as a case's expected object;
    an error is kept as the error itself, which carries the anchor of the rejecting choice."""
    try:
        results = score_files_fast(configs, qrels_path, run_path).results
    except NdcgSpecError as error:
        return [{"error": error}] * len(configs)
    return [{"per_query": r["per_query"], "aggregate": r["aggregate"]} for r in results]


def _rejected_by(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    """Whether `got` is the error of the choice the expected anchor names."""
    error = got.get("error")
    return isinstance(error, InputError) and error.anchor == expected["error"]["anchor"]


def _published_agree(case: dict[str, Any], got: dict[str, Any]) -> bool:
    """Every published value reproduced to the case's stated decimal places (the aggregate of a
    case with a recorded discrepancy: the recorded reference value)."""
    if "error" in got:
        return False
    places = case["precision"]["decimal_places"]
    expected = case["expected"]
    wanted = [
        (got["per_query"].get(q, {}).get("ndcg"), row["ndcg"])
        for q, row in expected.get("per_query", {}).items()
    ]
    if "aggregate" in expected:
        known = case.get("discrepancy")
        aggregate = known["reference_value"] if known else expected["aggregate"]
        wanted.append((got["aggregate"], aggregate))
    return all(within(actual, value, places) for actual, value in wanted)


@pytest.mark.slow
def test_golden_suite_through_the_fast_engine(tmp_path: Path) -> None:
    """Every case's expected object from the fast engine: all digits of hand and generated
    cases (``ndcgspec cases check`` proves the plain reference gives exactly these), the
    published figures to their stated places; the same error for cases that are errors."""
    cases = list(iter_cases())
    if not cases:
        pytest.skip("cases/ holds no case files yet")
    checked, skipped = 0, defaultdict(int)
    published: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    inline: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for loaded in cases:
        # The case as its file writes it: the engine is held to the file's digits.
        case = loaded.case.to_json()
        expected = case.get("expected")
        if expected is None:
            skipped["open axis (expected_any)"] += 1
            continue
        if "input_files" in case:
            if loaded.unavailable or case["input_files"]["run"].get("extra_fields"):
                skipped["published input absent or not a six-field run"] += 1
                continue
            paths = case["input_files"]["qrels"]["path"], case["input_files"]["run"]["path"]
            published[paths].append(case)
            continue
        qrels = _trec_text(case["input"]["qrels"], "0")
        run = _trec_text(case["input"]["run"], "Q0")
        if qrels is None or run is None or not case["input"]["run"] or not case["input"]["qrels"]:
            skipped["input not writable as TREC files"] += 1
            continue
        inline[qrels, run].append(case)
    for index, ((qrels, run), group) in enumerate(inline.items()):
        folder = tmp_path / str(index)
        folder.mkdir()
        files = write(folder, qrels, run)
        # The cases of one input that score it are scored together, as several measures of
        # one command are; an error case alone, since an error stops the whole command.
        scored = [c for c in group if "error" not in c["expected"]]
        configs = [Config.from_mapping(c["config"]) for c in scored]
        for case, got in zip(scored, _fast_outcomes(configs, *files), strict=True):
            assert got == case["expected"], case["id"]
        for case in (c for c in group if "error" in c["expected"]):
            [got] = _fast_outcomes([Config.from_mapping(case["config"])], *files)
            assert _rejected_by(case["expected"], got), (case["id"], got)
        checked += len(group)
    data = data_root()
    for (qrels_name, run_name), group in published.items():
        # Each published input is read once for all the configurations of its cases.
        configs = [Config.from_mapping(case["config"]) for case in group]
        outcomes = _fast_outcomes(configs, data / qrels_name, data / run_name)
        for case, got in zip(group, outcomes, strict=True):
            assert _published_agree(case, got), (case["id"], got)
            checked += 1
    assert checked > 0, dict(skipped)


def _spec_anchors(node: Any) -> set[str]:
    """Every anchor written anywhere in the spec."""
    if isinstance(node, dict):
        found = {node["anchor"]} if isinstance(node.get("anchor"), str) else set()
        return found.union(*(_spec_anchors(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_spec_anchors(v) for v in node))
    return set()


def test_every_declared_anchor_is_in_the_spec() -> None:
    assert support.COMPUTED - _spec_anchors(load_spec()) == set()
    assert support.not_computed(Config.default()) == []


@pytest.mark.parametrize(
    ("axis", "table"),
    [
        ("ties", rank.TIE_KEYS),
        ("duplicates", rank.KEEPS_FIRST_COPY),
        ("unjudged", rank.UNJUDGED_RULES),
        ("ideal", engine_ideal.CHOICES),
        ("ideal", sweep.IDEAL_READS),
    ],
)
def test_the_engine_dispatches_on_exactly_the_declared_choices(axis: str, table: dict) -> None:
    spec_axis = next(a for a in load_spec()["axes"] if a["id"] == axis)
    declared = {c["id"] for c in spec_axis["choices"] if c["anchor"] in support.COMPUTED}
    assert set(table) == declared


def test_a_choice_the_engine_does_not_declare_goes_to_the_plain_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A ties choice added to the spec (and to the reference) but not to the engine: the engine
    declines it, and the value is the reference's. The tie group r (1), s (0) in reversed run
    order ranks s first: nDCG = 1/log2(3) by hand, where the old silent fallback to
    ``optimistic`` gave 1."""
    spec = copy.deepcopy(load_spec())
    ties_axis = next(a for a in spec["axes"] if a["id"] == "ties")
    ties_axis["choices"].append(
        {"id": "reversed", "anchor": "ndcg.ties.reversed", "definition": "run order reversed"}
    )
    monkeypatch.setattr(config_module, "load_spec", lambda: spec)
    monkeypatch.setitem(ties.CHOICES, "reversed", lambda group: ties.input_order(group[::-1]))
    config = Config.from_mapping({"ties": "reversed"})
    assert support.not_computed(config) == ["ndcg.ties.reversed"]
    qrels_path, run_path = write(tmp_path, "q 0 r 1\nq 0 s 0\n", "q Q0 r 1 1 t\nq Q0 s 2 1 t\n")
    monkeypatch.setattr(scoring, "score_trec_run", lambda *args: pytest.fail("engine asked"))
    with caplog.at_level(logging.INFO, logger=LOG.name):
        [result] = score_files([config], qrels_path, run_path)
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "plain reference used" in caplog.text and "ndcg.ties.reversed" in caplog.text
    # One log2 and one division in binary floating point: within 2 ulp.
    assert math.isclose(float(result["aggregate"]), 1 / math.log2(3), rel_tol=4 * 2.0**-52)


@pytest.mark.parametrize(
    "docid", ["msmarco_passage_00_{:08d}", "http://example.org/collection/docs/{:08d}"]
)
def test_long_ids_with_a_shared_prefix_spread_over_the_hash_slots(docid: str) -> None:
    """Keys hashed into m slots as by a random function fill m(1 − (1 − 1/m)^n) of them on
    average (balls into bins). Without a final mix the bytes of an id's last word that lie in
    its high bits never reach the slot bits: these ids, differing in their last digits, then
    share a few hundred slots."""
    ids = [docid.format(i).encode() for i in range(1 << 16)]
    width = -(-max(map(len, ids)) // 8)
    padded = b"".join(i.ljust(8 * width, b"\0") for i in ids)
    words = np.frombuffer(padded, ">u8").reshape(len(ids), width).astype(np.uint64)
    slots = 1 << 17
    used = np.unique(rank.key_hashes(np.zeros(len(ids), np.int32), words) % np.uint64(slots))
    expected = slots * (1 - (1 - 1 / slots) ** len(ids))
    assert len(used) >= 0.97 * expected


# Document ids as users write them: no separator, no forbidden character (``ndcg.input``).
_ID_CHARACTERS = st.characters(
    blacklist_categories=["Cs", "Cc", "Zs", "Zl", "Zp"], blacklist_characters="\x85"
)


@settings(max_examples=examples(100), deadline=None)
@given(ids=st.lists(st.text(_ID_CHARACTERS, min_size=1, max_size=30), min_size=1, max_size=40))
def test_the_engine_orders_document_ids_by_the_reference_docid_key(ids: list[str]) -> None:
    """``ndcg.ties.docid-asc`` and ``docid-desc``: the engine's keys of the ids read from a
    file sort them as the reference's `ties.docid_key` does, and its reverse; equal ids keep
    their order, as in the reference's stable sorted()."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "qrels"
        path.write_text("".join(f"q{i} 0 {d} 1\n" for i, d in enumerate(ids)), encoding="utf-8")
        with opened(path) as source:
            words = fast_read.read_qrels_columns(source).words
    rows = list(range(len(ids)))
    ascending = sorted(rows, key=lambda i: ties.docid_key(ids[i]))
    descending = sorted(rows, key=lambda i: ties.docid_key(ids[i]), reverse=True)
    # sorted(reverse=True) keeps equal ids in their order too.
    assert np.lexsort(rank.docid_keys(words)).tolist() == ascending
    assert np.lexsort(rank.docid_keys(words, descending=True)).tolist() == descending


@settings(max_examples=examples(300), deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.lists(
                st.sampled_from([0, 1, 0xFF, 1 << 40, 1 << 63, 2**64 - 1]), min_size=3, max_size=3
            ),
            st.integers(-3, 3),
        ),
        min_size=1,
        max_size=40,
    ),
    width=st.integers(1, 3),
    first_group=st.integers(0, 2**30),
    spread=st.sampled_from([1, 1 << 20, 1 << 29]),
)
def test_one_sort_of_packed_keys_orders_tie_groups_as_lexsort(
    rows: list[tuple[int, list[int], int]], width: int, first_group: int, spread: int
) -> None:
    """``ndcg.ties``: `rank.grouped_order` orders rows by group (a tie group, a query), then by
    document id (either way) or gain, stably, exactly as numpy's lexsort of all the keys,
    whatever bits the keys share or leave out of the packed integer (ids drawn from few
    words, so that they share prefixes and repeat)."""
    groups = first_group + spread * np.array([group for group, _, _ in rows], np.int64)
    words = np.array([w[:width] for _, w, _ in rows], np.uint64)
    gains = np.array([g for _, _, g in rows], np.int64)
    for keys in (
        rank.docid_keys(words),
        rank.docid_keys(words, descending=True),
        (gains,),
        (-gains,),
    ):
        expected = np.lexsort((*keys, groups))
        assert rank.grouped_order(groups, keys).tolist() == expected.tolist()


@settings(max_examples=examples(200), deadline=None)
@given(
    low=st.lists(
        st.one_of(st.sampled_from([0, 1, -1, 2**256, 2**32 - 1]), st.integers(-(2**300), 2**300)),
        min_size=1,
        max_size=30,
    ),
    data=st.data(),
)
def test_sums_of_discounts_by_limbs_are_the_integer_sums(low: list[int], data: Any) -> None:
    """``ndcg.definition.dcg``: `Discounts.low_sums`, numpy's sums of 32-bit limbs carried
    into whole integers, equals Python's exact sum of the low ends of every run of ranks."""
    ranks = data.draw(st.lists(st.integers(0, len(low) - 1), min_size=1, max_size=100))
    cuts = data.draw(st.sets(st.integers(1, len(ranks) - 1))) if len(ranks) > 1 else set()
    starts = [0, *sorted(cuts)]
    config = parse_measure("nDCG")
    held = discounts.Discounts(config, low=tuple(low), low_limbs=discounts.limbs(low))
    ends = [*starts[1:], len(ranks)]
    expected = [sum(low[r] for r in ranks[a:b]) for a, b in zip(starts, ends, strict=True)]
    assert held.low_sums(np.array(ranks), np.array(starts)) == expected


@settings(max_examples=examples(200), deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 3000), st.integers(0, 5), st.booleans()), min_size=0, max_size=60
    )
)
def test_runs_of_equal_values_are_counted_per_query(rows: list[tuple[int, int, bool]]) -> None:
    """``ndcg.definition.idcg``: `counted_runs` gives each query's kept values with their
    counts, values descending, whether the keys are dense enough to be counted in place or
    sparse (queries far apart) and sorted."""
    qidx = np.array([q for q, _, _ in rows], np.int32)
    values = np.array([v for _, v, _ in rows], np.int64)
    kept = np.array([k for _, _, k in rows], bool)
    counted: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for q, value, keep in rows:
        if keep:
            counted[q][value] += 1
    expected = {q: sorted(runs.items(), reverse=True) for q, runs in sorted(counted.items())}
    found = engine_ideal.counted_runs(qidx, values, kept, 6)
    assert list(found.items()) == list(expected.items())


@settings(max_examples=examples(100), deadline=None)
@given(
    size=st.sampled_from([0, 1, 4095, 4096, 4097, 70_000, 1 << 20]),
    ends=st.lists(st.integers(0, (1 << 20) - 1), max_size=3),
)
def test_the_last_line_end_of_a_piece(size: int, ends: list[int]) -> None:
    """``ndcg.input``: `read._last_line_end` finds the last "\\n" of a piece as bytes.rfind
    does, however far before the end it lies (a line may hold up to 1 MiB)."""
    data = bytearray(b"x" * size)
    for at in ends:
        if at < size:
            data[at] = 10
    found = fast_read._last_line_end(np.frombuffer(bytes(data), np.uint8))
    assert found == bytes(data).rfind(b"\n")


@settings(max_examples=examples(200), deadline=None)
@given(
    labels=st.lists(
        st.sampled_from(["0", "1", "3", "-1", "10", "99", "1.0", "0.00", "-0.5", "100", "2.7"]),
        min_size=1,
        max_size=40,
    ),
    chunk_bytes=st.sampled_from([16, 64, fast_read.CHUNK_BYTES]),
)
def test_each_qrels_row_keeps_its_label_text(labels: list[str], chunk_bytes: int) -> None:
    """``ndcg.input``: the label text the columnar reader gives each qrels row is the one
    written on its line, in pieces whose labels are all of one or two bytes (counted by
    their bytes) or not (sorted)."""
    text = "".join(f"q{i % 3} 0 d{i} {label}\n" for i, label in enumerate(labels))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "qrels"
        path.write_text(text, encoding="utf-8")
        with mock.patch.object(fast_read, "CHUNK_BYTES", chunk_bytes), opened(path) as source:
            columns = fast_read.read_qrels_columns(source)
    assert [columns.label_texts[i] for i in columns.label_id.tolist()] == labels


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(0, 4), max_size=30))
def test_a_blocks_queries_in_order_of_first_appearance(qidx: list[int]) -> None:
    """``ndcg.definition.inputs``: the queries of a block, numbered by their first row, as
    dict.fromkeys lists them."""
    assert stream.first_appearances(np.array(qidx, np.int32)).tolist() == list(dict.fromkeys(qidx))


@settings(max_examples=examples(200), deadline=None)
@given(
    qidx=st.lists(st.integers(0, 4), min_size=1, max_size=30),
    data=st.data(),
)
def test_the_qrels_of_a_block_are_each_querys_rows_in_file_order(
    qidx: list[int], data: Any
) -> None:
    """``ndcg.definition.inputs``: the qrels rows `stream.QrelsByQuery` hands a block of
    queries are, query by query in the order asked, that query's rows in file order, whether
    the file is grouped by query or not; listed here row by row."""
    queries = data.draw(st.permutations(sorted(set(qidx))))
    queries = queries[: data.draw(st.integers(1, len(queries)))]
    lines = fast_read.LineNumbers()
    lines.extend(np.arange(1, len(qidx) + 1))
    columns = fast_read.QrelsColumns(
        "qrels",
        [f"q{q}" for q in range(5)],
        np.array(qidx, np.int32),
        np.arange(len(qidx), dtype=np.uint64).reshape(-1, 1),
        np.zeros(len(qidx), np.int32),
        ["1"],
        lines,
    )
    rows = [r for q in queries for r, of in enumerate(qidx) if of == q]
    block = stream.QrelsByQuery(columns).of(np.array(queries))
    assert block.qids == [f"q{q}" for q in queries]
    assert block.words.ravel().tolist() == rows
    assert block.qidx.tolist() == [queries.index(qidx[r]) for r in rows]
    assert np.asarray(block.lines).tolist() == [r + 1 for r in rows]


@settings(max_examples=examples(200), deadline=None)
@given(
    hashes=st.lists(
        st.one_of(st.integers(0, 7), st.integers(0, 2**64 - 1), st.sampled_from([2**63, 2**42])),
        max_size=200,
    )
)
def test_the_rows_whose_hash_repeats_are_found(hashes: list[int]) -> None:
    """``ndcg.duplicates``: `rank.repeated_hashes` names exactly the rows whose hash another
    row has, counted here one by one; equal low bits, equal high bits, both."""
    counts = Counter(hashes)
    expected = [row for row, h in enumerate(hashes) if counts[h] > 1]
    assert rank.repeated_hashes(np.array(hashes, np.uint64)).tolist() == expected


@settings(max_examples=examples(100), deadline=None)
@given(
    tables=st.lists(
        st.tuples(
            st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2**64 - 1) | st.integers(0, 9))),
            st.lists(st.tuples(st.integers(0, 3), st.integers(0, 9))),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_tables_that_take_the_same_slots_join_as_new_ones(
    tables: list[tuple[list[tuple[int, int]], list[tuple[int, int]]]],
) -> None:
    """Tables of growing and shrinking sizes built one after another on one `EmptySlots`: in
    each, the rows of one key (a dict of them here) are held by one of them, every lookup
    finds that row or none, and every slot is empty once it is released."""
    empty = rank.EmptySlots()
    for keys, lookups in tables:
        rows_of: dict[tuple[int, int], list[int]] = defaultdict(list)
        for row, key in enumerate(keys):
            rows_of[key].append(row)
        groups = np.array([g for g, _ in keys], np.int32)
        words = np.array([[w] for _, w in keys], np.uint64).reshape(-1, 1)
        table = rank.KeyTable(groups, words, load=16, empty=empty)
        holder = {}
        for key, rows in rows_of.items():
            [holder[key]] = {int(table.first[r]) for r in rows}
            assert holder[key] in rows
        found = table.find(
            np.array([g for g, _ in lookups], np.int32),
            np.array([[w] for _, w in lookups], np.uint64).reshape(-1, 1),
            np.arange(len(keys)),
        )
        assert found.tolist() == [holder.get(key, -1) for key in lookups]
        table.release()
        assert (table.table == -1).all()


@pytest.mark.parametrize(
    ("libc", "expected"),
    # glibc's malloc.h: M_TRIM_THRESHOLD is -1, M_MMAP_THRESHOLD -3; 256 MiB and 32 MiB.
    [("glibc 2.36", [(-3, 32 * 2**20), (-1, 256 * 2**20)]), (None, []), ("musl", [])],
)
def test_the_allocator_keeps_freed_memory_only_under_glibc(
    monkeypatch: pytest.MonkeyPatch, libc: str | None, expected: list[tuple[int, int]]
) -> None:
    """`read.keep_freed_memory` asks glibc, and no other C library, to keep the memory one
    block frees for the next."""
    calls: list[tuple[int, int]] = []

    class FakeLibc:
        def mallopt(self, parameter: int, value: int) -> int:
            calls.append((parameter, value))
            return 1

    monkeypatch.setattr(fast_read.os, "confstr", lambda name: libc)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: FakeLibc())
    fast_read.keep_freed_memory.__wrapped__()
    assert calls == expected


def test_keys_whose_hashes_collide_are_compared_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ndcg.duplicates``: rows whose hashes repeat are only suspects. With every key hashed
    alike, only the later copies of an id within one query are duplicates."""
    ids = [b"a", b"b", b"a", b"c", b"b", b"a", b"a"]
    qidx = np.array([0, 0, 0, 0, 0, 1, 1], np.int32)
    words = np.frombuffer(b"".join(i.ljust(8, b"\0") for i in ids), ">u8").astype(np.uint64)
    monkeypatch.setattr(rank, "key_hashes", lambda groups, _: np.zeros(len(groups), np.uint64))
    assert rank._duplicates(qidx, words.reshape(-1, 1)).tolist() == [2, 4, 6]


# Measures and their discount at rank r, written out independently (``ndcg.discount``).
DISCOUNT_FORMULAS = {
    "nDCG": lambda r: 1 / mpmath.log(r + 1, 2),
    "nDCG(log_base=e,log_offset=0.5)": lambda r: 1 / mpmath.log(r + mpmath.mpf("0.5")),
    "nDCG(discount=reciprocal)": lambda r: mpmath.mpf(1) / r,
}


@pytest.mark.parametrize("measure", DISCOUNT_FORMULAS)
def test_discounts_in_fixed_point_are_the_floor_and_ceiling_of_the_enclosure(
    measure: str,
) -> None:
    """``ndcg.precision``: each rank's discount at the scale 2^FIXED_BITS is the floor of the
    low end and the ceiling of the high end of the reference's enclosure, read as exact
    fractions, and lies between them."""
    config = parse_measure(measure)
    scale = 1 << fixed_point.FIXED_BITS
    for position in [1, 2, 3, 7, 100, 1000]:
        with arithmetic.computing_with(arithmetic.enclosing(fixed_point.DISCOUNT_DPS)):
            interval = discount_axis.discount(position, config)
            low, high = arithmetic.enclosure(interval)
            fixed = fixed_point.fixed_enclosure(interval)
        assert fixed == (math.floor(low * scale), math.ceil(high * scale))
        with mpmath.workdps(150):
            true = DISCOUNT_FORMULAS[measure](position) * scale
            assert fixed[0] <= true <= fixed[1]
