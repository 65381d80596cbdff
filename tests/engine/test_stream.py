"""Scoring a run block by block (``engine/stream.py``) gives the plain reference's results,
every digit: blocks of one, two and many queries, a run not grouped by query, a query split
across the file, queries on one side only, and the reference's own first error."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ndcgspec.engine import read as fast_read
from ndcgspec.engine import stream
from ndcgspec.engine.scoring import score_files_plain
from ndcgspec.reference import Config, InputError

DOCS_PER_QUERY = 8
CONFIGS = [
    Config.default(),
    Config.default().replace(cutoff=5),
    Config.default().replace(aggregate="run", ties="average"),
    Config.default().replace(unjudged="condense", empty="skip"),
]


def rows_of(queries: int, seed: int = 7) -> list[tuple[str, str, str]]:
    """Run rows grouped by query, URL-like ids, scores with ties."""
    rng = random.Random(seed)
    return [
        (f"q{q}", f"http://example.org/doc/{q:03d}/{d:05d}", f"{rng.randint(0, 4)}.{q % 3}")
        for q in range(queries)
        for d in rng.sample(range(40), DOCS_PER_QUERY)
    ]


def write_files(folder: Path, rows: list[tuple[str, str, str]], queries: int) -> tuple[Path, Path]:
    """Qrels judging every other document id in 0..39 of each query and one query the run
    lacks; the run's rows as given, with a query the qrels lack in the middle."""
    qrels = "".join(
        f"q{q} 0 http://example.org/doc/{q:03d}/{d:05d} {(q + d) % 4}\n"
        for q in range(queries + 1)
        for d in range(0, 40, 2)
    )
    lines = [f"{q} Q0 {d} 0 {s} run\n" for q, d, s in rows]
    lines.insert(len(lines) // 2, "unjudged Q0 x 0 1 run\n")
    (folder / "qrels").write_text(qrels)
    (folder / "run").write_text("".join(lines))
    return folder / "qrels", folder / "run"


def as_printed(results: list[dict[str, Any]]) -> str:
    """The results as ``score --format json`` prints them: the order of queries counts."""
    return json.dumps(results)


class Recorder:
    """The query ids of every block `run_blocks` yields (in the second reading when the run is
    read twice), and whether it was."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.blocks: list[list[int]] = []
        self.read_twice = False
        blocks, last_pieces = stream.run_blocks, stream._last_pieces

        def recorded(*args: Any) -> Iterator[fast_read.RunPiece]:
            for block in blocks(*args):
                self.blocks.append(block.qidx.tolist())
                yield block

        def twice(*args: Any) -> Any:
            self.read_twice = True
            self.blocks.clear()
            return last_pieces(*args)

        monkeypatch.setattr(stream, "run_blocks", recorded)
        monkeypatch.setattr(stream, "_last_pieces", twice)


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of about two run lines."""
    monkeypatch.setattr(fast_read, "CHUNK_BYTES", 100)


@pytest.mark.parametrize(
    ("block_rows", "largest"),
    [(1, {1}), (2 * DOCS_PER_QUERY, {2, 3}), (10**6, {12})],
    ids=["one query", "two queries", "every query"],
)
def test_blocks_of_one_two_and_many_queries_give_every_digit_of_the_reference(
    block_rows: int,
    largest: set[int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_pieces: None,
) -> None:
    """A block holds whole queries and at least `block_rows` rows: one query each, two or
    three (a piece may end inside the third), or the whole run."""
    monkeypatch.setattr(stream, "BLOCK_ROWS", block_rows)
    qrels, run = write_files(tmp_path, rows_of(12), 12)
    recorder = Recorder(monkeypatch)
    assert as_printed(stream.score_files_fast(CONFIGS, qrels, run)) == as_printed(
        score_files_plain(CONFIGS, qrels, run)
    )
    queries = [sorted(set(block)) for block in recorder.blocks]
    assert sorted(q for block in queries for q in block) == list(range(12))
    assert max(len(block) for block in queries) in largest
    assert not recorder.read_twice


def test_a_run_not_grouped_by_query_is_read_twice_and_scored_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_pieces: None
) -> None:
    monkeypatch.setattr(stream, "BLOCK_ROWS", 4)
    rows = rows_of(12)
    random.Random(1).shuffle(rows)
    qrels, run = write_files(tmp_path, rows, 12)
    recorder = Recorder(monkeypatch)
    assert as_printed(stream.score_files_fast(CONFIGS, qrels, run)) == as_printed(
        score_files_plain(CONFIGS, qrels, run)
    )
    assert recorder.read_twice
    every = [q for block in recorder.blocks for q in sorted(set(block))]
    assert sorted(every) == list(range(12))


def test_a_query_split_across_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_pieces: None
) -> None:
    """q0's first rows open the run and its last rows close it, after blocks of the other
    queries were scored."""
    monkeypatch.setattr(stream, "BLOCK_ROWS", 3)
    rows = rows_of(6)
    rows = rows[:3] + rows[DOCS_PER_QUERY:] + rows[3:DOCS_PER_QUERY]
    qrels, run = write_files(tmp_path, rows, 6)
    recorder = Recorder(monkeypatch)
    assert as_printed(stream.score_files_fast(CONFIGS, qrels, run)) == as_printed(
        score_files_plain(CONFIGS, qrels, run)
    )
    assert recorder.read_twice
    assert len(recorder.blocks) > 2


def test_the_first_error_is_the_reference_first_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_pieces: None
) -> None:
    """q5 repeats a document in an early block and q1 in a later one: the reference raises
    q1's error, first in qrels order."""
    monkeypatch.setattr(stream, "BLOCK_ROWS", 1)
    rows = rows_of(6)
    by_query = [rows[q * DOCS_PER_QUERY : (q + 1) * DOCS_PER_QUERY] for q in range(6)]
    by_query[5].append(by_query[5][0])
    by_query[1].append(by_query[1][0])
    order = [5, 0, 2, 3, 4, 1]
    qrels, run = write_files(tmp_path, [r for q in order for r in by_query[q]], 6)
    with pytest.raises(InputError) as plain:
        score_files_plain([Config.default()], qrels, run)
    with pytest.raises(InputError) as fast:
        stream.score_files_fast([Config.default()], qrels, run)
    assert str(fast.value) == str(plain.value)
    assert "q1" in str(plain.value)


@pytest.mark.parametrize("block_rows", [1, 2 * DOCS_PER_QUERY])
def test_scores_kept_as_text_stay_with_their_rows_across_blocks(
    block_rows: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_pieces: None
) -> None:
    """``ndcg.precision``: scores of 20 digits, equal as doubles and different as decimals,
    every other row, in a run cut into blocks: each block orders its rows by the decimals
    written on them, as the reference does."""
    monkeypatch.setattr(stream, "BLOCK_ROWS", block_rows)
    rows = [
        (q, d, f"{s}0000000000000000{i % 3}" if i % 2 else s)
        for i, (q, d, s) in enumerate(rows_of(12))
    ]
    qrels, run = write_files(tmp_path, rows, 12)
    assert as_printed(stream.score_files_fast(CONFIGS, qrels, run)) == as_printed(
        score_files_plain(CONFIGS, qrels, run)
    )
