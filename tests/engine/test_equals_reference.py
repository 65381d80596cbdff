"""The engine equals the plain reference, digit for digit (spec anchor ``ndcg``): every
differential test of the project, one section per path the engine computes by.

The expected values are `ndcgspec.reference.evaluate`'s (or ``engine.scoring.score_files_plain``,
the reference on TREC files), the definition; each section draws inputs that exercise every
axis, and compares all the digits of every value, and every error's message (and where it
says, anchor and axis):

- files: TREC text through the fast engine (`engine.stream.score_files_fast`) and
  `engine.scoring.score_files`, read in pieces of a few bytes and scored in blocks of a few
  rows, on random and adversarial files and on values near a rounding boundary;
- streams: a run scored block by block, grouped by query or not;
- in-memory inputs (`engine.memory`): the golden inputs and random ones, irrational gains;
- the sweep (`engine.sweep`): many configurations on one sweep, in random order, so that a
  shared step that leaks from one configuration into another shows;
- Spark (`ndcgspec.spark`): partitions scored by the engine on executors give the
  single-machine result objects (skipped, saying why, without pyspark or Java).
"""

from __future__ import annotations

import gzip
import json
import random
import tempfile
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import pytest
from conftest import choice_axes, config_mappings, examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from spark_session import spark_fixture  # noqa: F401 (the fixture `spark`)
from test_fast_engine import write
from test_memory_engine import counted_reference_calls

from ndcgspec.engine import read as fast_read
from ndcgspec.engine import stream
from ndcgspec.engine.fallback import reference_share
from ndcgspec.engine.memory import Inputs, evaluate_inputs
from ndcgspec.engine.read import Unsupported
from ndcgspec.engine.result_digits import ResultDigits
from ndcgspec.engine.scoring import score_files, score_files_plain
from ndcgspec.engine.stream import score_files_fast
from ndcgspec.engine.support import COMPUTED
from ndcgspec.engine.sweep import Sweep
from ndcgspec.engine.table import TableColumns
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import (
    Config,
    InputError,
    Location,
    NdcgSpecError,
    qrels_from_labels,
    run_from_scores,
)
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import Judgment, Posting
from ndcgspec.reference.trec_io import Source, read_qrels, read_run
from ndcgspec.spark import partition, score_frames, score_paths
from ndcgspec.suite import load as suite_load
from ndcgspec.suite.load import case_files, cases_root, inline_inputs
from ndcgspec.suite.loaded import iter_cases

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# The engine alone scores only the choices it declares; every path sends the others to the
# reference (`tests/engine/test_route.py`).
UNDECLARED = {
    a["id"]: {c["id"] for c in a["choices"] if c["anchor"] not in COMPUTED} for a in choice_axes()
}


def engine_alone(
    configs: list[Config], qrels: Any, run: Any, per_query: bool = True
) -> list[dict[str, Any]]:
    """The result objects of the fast engine alone on TREC files, no reference behind it."""
    return score_files_fast(configs, qrels, run, per_query).results


def means_alone(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Result objects without their queries' entries: what the engine gives when it is not
    asked for them (`score` without -q)."""
    return [{**result, "per_query": {}} for result in results]


def reference_result(measure: str, labels: dict[str, dict[str, str]], scores: dict) -> dict:
    """The plain reference's result object of `measure` on labels and scores."""
    return evaluate(
        parse_measure(measure), qrels_from_labels(labels), run_from_scores(scores)
    ).to_json()


# --- Files: TREC text through the engine and the plain reference -----------------------------


# Every digit the spec writes: ``ndcg.precision`` has output_digits 40.
DIGITS = 40


QIDS = ["q1", "q2", "10", "q\u00e9"]


# Ids of one to three 64-bit words, sharing prefixes, with bytes above 0x7f: their byte order
# is what ``ndcg.ties.docid-desc`` ranks by.
DOCIDS = [
    "d1",
    "d2",
    "d10",
    "D1",
    "a",
    "ab",
    "abcdefgh",
    "abcdefghi",
    "\u00e9",
    "e\u0301",
    # Non-ASCII spaces are not separators (``ndcg.input``): they belong to the id.
    "a\u2003b",
    "a\u00a0b",
    "z" * 20,
    # 33 bytes and more: five 64-bit words.
    "http://example.org/collection/doc/000001",
    "http://example.org/collection/doc/000002",
]


LABELS = ["0", "1", "2", "3", "1.0", "0.00", "-1", "-0.5", "1.5", "2.7", "10"]


# Decimals that one double cannot tell apart, and equal decimals written differently.
SCORES = [
    "0.1",
    "0.10",
    "0.1000000000000000001",
    "0.30000000000000004",
    "0.3",
    "1",
    "1.0",
    "1e0",
    "-0",
    "0",
    "-1.5",
    "12345678901234567890",
    "12345678901234567891",
    "1e-400",
    "1e400",
    "3.14159265358979323846",
]


def significant(value: str | None) -> tuple[int, int, tuple[int, ...]] | None:
    """Sign, magnitude and first `DIGITS` digits of a decimal string."""
    if value is None:
        return None
    number = Decimal(value)
    if number == 0:
        return (0, 0, ())
    sign, digits, _ = number.as_tuple()
    return sign, number.adjusted(), tuple(digits[:DIGITS])


def comparable(result: dict[str, Any]) -> dict[str, Any]:
    """A JSON result object with every number cut to its significant digits."""
    return {
        **result,
        "aggregate": significant(result["aggregate"]),
        "per_query": {
            q: {k: significant(v) for k, v in values.items()}
            for q, values in result["per_query"].items()
        },
    }


def outcome(compute: Any) -> tuple[str, Any]:
    try:
        return "values", [comparable(r) for r in compute()]
    except NdcgSpecError as error:
        return "error", str(error)


@st.composite
def trec_files(draw: st.DrawFn) -> tuple[str, str]:
    """Qrels and run texts: unjudged, duplicate and tied documents, negative and fractional
    labels, queries missing on either side, interleaved queries, tabs, blank lines, CRLF."""
    judged = draw(
        st.dictionaries(
            st.sampled_from(QIDS),
            st.dictionaries(st.sampled_from(DOCIDS), st.sampled_from(LABELS), min_size=1),
            min_size=1,
        )
    )
    score = st.one_of(st.sampled_from(SCORES), st.decimals(-5, 5, places=2).map(str))
    postings = draw(
        st.lists(st.tuples(st.sampled_from(QIDS), st.sampled_from(DOCIDS), score), max_size=30)
    )
    if draw(st.booleans()):
        postings.sort(key=lambda p: p[0])
    space = draw(st.sampled_from([" ", "\t", "  "]))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    qrels = [
        f"{q}{space}0{space}{d}{space}{label}"
        for q, docs in judged.items()
        for d, label in docs.items()
    ]
    run = [f"{q} Q0 {d}{space}{rank} {s} tag" for rank, (q, d, s) in enumerate(postings, 1)]
    if draw(st.booleans()):
        run.insert(len(run) // 2, "")
    return end.join(qrels) + end, end.join(run) + (end if run else "")


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=trec_files(),
    mappings=st.lists(
        config_mappings(excluded=UNDECLARED, cutoffs=st.one_of(st.none(), st.integers(1, 6))),
        min_size=1,
        max_size=3,
    ),
    block_rows=st.sampled_from([1, 2, 5, stream.BLOCK_ROWS]),
    chunk_bytes=st.sampled_from([16, 64, fast_read.CHUNK_BYTES]),
)
# q2 (first in the qrels, judged 0) is empty under keep-in-ideal although it has an ideal
# list, so its empty=error comes before q1's duplicate, as the reference raises them.
@example(
    files=("q2 0 d1 0\nq1 0 d1 0\n", "q1 Q0 d1 1 0.1 tag\nq1 Q0 d1 2 0.1 tag\n"),
    mappings=[{"negative": "keep-in-ideal", "empty": "error", "cutoff": None}],
    block_rows=stream.BLOCK_ROWS,
    chunk_bytes=fast_read.CHUNK_BYTES,
)
def test_fast_engine_agrees_with_the_reference(
    files: tuple[str, str], mappings: list[dict[str, Any]], block_rows: int, chunk_bytes: int
) -> None:
    """Also when the run is read in pieces of a few lines and scored in blocks of a few rows
    (``stream``), grouped by query or not."""
    configs = [Config.from_mapping(m) for m in mappings]
    with (
        tempfile.TemporaryDirectory() as folder,
        mock.patch.object(stream, "BLOCK_ROWS", block_rows),
        mock.patch.object(fast_read, "CHUNK_BYTES", chunk_bytes),
    ):
        qrels_path, run_path = write(Path(folder), *files)
        plain = outcome(lambda: score_files_plain(configs, qrels_path, run_path))
        try:
            fast = outcome(lambda: engine_alone(configs, qrels_path, run_path))
            means = outcome(lambda: engine_alone(configs, qrels_path, run_path, False))
        except Unsupported:
            # Well-formed files are never declined: only those the plain reader rejects.
            assert plain[0] == "error"
            fast = means = outcome(lambda: score_files(configs, qrels_path, run_path))
    assert fast == plain
    # The means alone, no query's digits made: the same digits of every mean.
    assert means == (plain if plain[0] == "error" else ("values", means_alone(plain[1])))


@pytest.mark.parametrize(
    ("qrels", "run"),
    [
        ("q1 0 a 1\n", "q1 Q0 a 1 1\n"),
        ("q1 0 a x\n", "q1 Q0 a 1 1 t\n"),
        ("q1 0 a 1\n", "q1 Q0 a 1 nan t\n"),
        ("q1 0 a 1\n", "q1 Q0 a 1 1 t\nq1 Q0 \u00e9\u0085b 1 1 t\n"),
        ("q1 0 a 1\n", "q1 Q0 a 1 1 t\nq1 Q0 b\x01 1 1 t\n"),
        ("q1 0 a 1\n", "q1 Q0 a 1 1 t\nq1 Q0 b\x1f 1 1 t\n"),
        ("q1 0 a\x7f 1\n", "q1 Q0 a 1 1 t\n"),
        ("q1 0 a 1_0\n", "q1 Q0 a 1 1 t\n"),
        ("q1 0 a 1\n", "q1 Q0 a 1 \uff12 t\n"),
        ("\n\n", "q1 Q0 a 1 1 t\n"),
    ],
)
def test_declined_input_goes_to_the_plain_reference(qrels: str, run: str, tmp_path: Path) -> None:
    qrels_path, run_path = write(tmp_path, qrels, run)
    configs = [Config.default()]
    with pytest.raises(Unsupported):
        engine_alone(configs, qrels_path, run_path)
    assert outcome(lambda: score_files(configs, qrels_path, run_path)) == outcome(
        lambda: score_files_plain(configs, qrels_path, run_path)
    )


@pytest.mark.parametrize("compressed", [False, True])
def test_files_read_in_many_small_pieces(
    compressed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pieces of 64 bytes: document ids that widen from one piece to the next, blank lines and
    a query the qrels lack between pieces, an unsorted run put in ranking order, and for gzip
    columns that outgrow a first reservation guessed too small; the duplicate's error names the
    line the plain reader names."""
    monkeypatch.setattr(fast_read, "CHUNK_BYTES", 64)
    monkeypatch.setattr(fast_read, "_GZIP_GUESS", 1)
    docs = ["d" * width for width in range(1, 20)]
    qrels = "".join(f"q{q} 0 {d} {len(d) % 4}\n" for q in range(3) for d in docs[::2])
    rows = [(q, d, f"{(len(d) * 7 + q) % 5}.5") for q in (2, 0, 1) for d in docs]
    run = "".join(
        f"{q} Q0 {d} 1 {s} t\n" + ("\n\nx Q0 d 1 1 t\n" if d == "ddd" else "")
        for q, d, s in [(f"q{q}", d, s) for q, d, s in rows] + [("q1", "dd", "9.5")]
    )
    qrels_path, run_path = write(tmp_path, qrels, run)
    if compressed:
        run_path = tmp_path / "run.gz"
        run_path.write_bytes(gzip.compress(run.encode(), 9))
    first = Config.default().replace(duplicates="first")
    keep = [first, first.replace(cutoff=5)]
    fast = outcome(lambda: engine_alone(keep, qrels_path, run_path))
    assert fast[0] == "values"
    assert fast == outcome(lambda: score_files_plain(keep, qrels_path, run_path))
    refuse = [Config.default()]
    error = outcome(lambda: engine_alone(refuse, qrels_path, run_path))
    assert error[0] == "error"
    assert error == outcome(lambda: score_files_plain(refuse, qrels_path, run_path))


@pytest.mark.parametrize(
    ("run", "kind"),
    [
        # A line of five fields, then one of seven: the separators add up to two lines' worth.
        ("q Q0 a 1 1\nx q Q0 b 2 1 t\n", "error"),
        # Five fields and one separator more, before the line or doubled within it.
        (" q Q0 a 1 1\nq Q0 b 2 2 t\n", "error"),
        ("q Q0  a 1 1\nq Q0 b 2 2 t\n", "error"),
        # Separators in a row, around and before a line: whitespace, as the plain reader splits.
        ("q Q0 a 1 1 t\nq Q0  b 2 2 t\n", "values"),
        (" q Q0 a 1 1 t\nq Q0 b 2 2 t\n", "values"),
        ("q Q0 a 1 1 t \nq Q0 b 2 2\tt\n", "values"),
    ],
)
def test_lines_however_separated_are_read_as_the_plain_reader_reads_them(
    run: str, kind: str, tmp_path: Path
) -> None:
    """``ndcg.input``: fields are split at whitespace, one line per row; a line of the wrong
    field count is an error even when the separators add up over several lines."""
    qrels_path, run_path = write(tmp_path, "q 0 a 1\nq 0 b 2\n", run)
    configs = [Config.default()]
    plain = outcome(lambda: score_files_plain(configs, qrels_path, run_path))
    assert plain[0] == kind
    assert outcome(lambda: score_files(configs, qrels_path, run_path)) == plain
    if kind == "values":
        assert outcome(lambda: engine_alone(configs, qrels_path, run_path)) == plain


def test_engine_hands_undecided_values_to_the_reference() -> None:
    """The halfway cases above through the fast engine: the same digits as the reference."""
    a = "1.0000000000000000000000000000000000000005"
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = Path(folder, "qrels"), Path(folder, "run")
        qrels.write_text(
            "q 0 x 2\nq 0 y 2\nq 0 d1 " + a + "\nq 0 d2 " + a + "\n"
            "r 0 d1 0.5\nr 0 d3 0.00000000000000000000000000000000000000045\n"
        )
        run.write_text(
            "q Q0 d1 1 2 t\nq Q0 d2 2 1 t\nr Q0 d1 1 3 t\nr Q0 d2 2 2 t\nr Q0 d3 3 1 t\n"
        )
        for measure in ("nDCG@2", "nDCG(discount=reciprocal)"):
            fast = engine_alone([parse_measure(measure)], qrels, run)
            means = engine_alone([parse_measure(measure)], qrels, run, per_query=False)
            labels = {
                "q": {"x": "2", "y": "2", "d1": a, "d2": a},
                "r": {"d1": "0.5", "d3": "0.00000000000000000000000000000000000000045"},
            }
            scores = {"q": {"d1": 2, "d2": 1}, "r": {"d1": 3, "d2": 2, "d3": 1}}
            expected = reference_result(measure, labels, scores)
            assert fast == [expected]
            assert means == means_alone([expected])
    assert fast[0]["per_query"]["r"]["dcg"] == "0.5000000000000000000000000000000000000002"


# --- Streams: a run scored block by block ----------------------------------------------------


DOCS_PER_QUERY = 8


STREAM_CONFIGS = [
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
    assert as_printed(engine_alone(STREAM_CONFIGS, qrels, run)) == as_printed(
        score_files_plain(STREAM_CONFIGS, qrels, run)
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
    assert as_printed(engine_alone(STREAM_CONFIGS, qrels, run)) == as_printed(
        score_files_plain(STREAM_CONFIGS, qrels, run)
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
    assert as_printed(engine_alone(STREAM_CONFIGS, qrels, run)) == as_printed(
        score_files_plain(STREAM_CONFIGS, qrels, run)
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
        engine_alone([Config.default()], qrels, run)
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
    assert as_printed(engine_alone(STREAM_CONFIGS, qrels, run)) == as_printed(
        score_files_plain(STREAM_CONFIGS, qrels, run)
    )


def partition_outcome(shares: Callable[[], list[Any]]) -> tuple[str, Any]:
    """Each configuration's entries and rounded share of the mean, or the error's message."""
    try:
        found = shares()
    except NdcgSpecError as error:
        return "error", str(error)
    return "values", [(entries, part.rounded_mean()) for entries, part in found]


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=trec_files(),
    mappings=st.lists(
        config_mappings(cutoffs=st.one_of(st.none(), st.integers(1, 6))), min_size=1, max_size=3
    ),
)
def test_a_spark_partition_gives_the_reference_shares(
    files: tuple[str, str], mappings: list[dict[str, Any]]
) -> None:
    """A partition's lines scored as an executor scores them (`spark.partition.evaluations`,
    no Spark needed): each query's entries and the share of the mean are the reference's."""
    configs = [Config.from_mapping(m) for m in mappings]

    def sources() -> tuple[Source, Source]:
        qrels, run = files
        return (
            partition.in_memory("qrels", qrels.splitlines()),
            partition.in_memory("run", run.splitlines()),
        )

    def reference() -> list[Any]:
        qrels, run = sources()
        judgments, postings = read_qrels(qrels), read_run(run)
        return [reference_share(evaluate(c, judgments, postings).per_query) for c in configs]

    expected = partition_outcome(reference)
    assert partition_outcome(lambda: partition.evaluations(configs, *sources())) == expected


# --- In-memory inputs (`engine.memory`) ------------------------------------------------------


def result_or_error(compute: Callable[..., ResultDigits | dict[str, Any]], *args: Any) -> Any:
    """The JSON result object `compute(*args)` returns (the engine's result written as one),
    or everything an InputError says."""
    try:
        found = compute(*args)
    except InputError as error:
        return ("error", str(error), error.file, error.line, error.anchor, error.axis)
    return found.to_json() if isinstance(found, ResultDigits) else found


def reference(config: Config, qrels: Any, run: Any) -> dict[str, Any]:
    return evaluate(config, qrels, run).to_json()


def configs_of(case: dict[str, Any]) -> list[Config]:
    """The case's configuration, or one per allowed choice of its open axis."""
    config = Config.from_mapping(case["config"])
    if "open" not in case:
        return [config]
    axis = case["open"]["axis"]
    return [config.replace(**{axis: choice}) for choice in case["open"]["choices"]]


CASE_FILES = case_files()


def test_every_case_file_is_compared() -> None:
    """The files compared are the suite's, as its manifest lists them."""
    manifest = (cases_root() / "MANIFEST").read_text(encoding="utf-8").splitlines()[1:]
    listed = {line.split("  ", 1)[1] for line in manifest if line.endswith(".json")}
    assert {p.relative_to(cases_root()).as_posix() for p in CASE_FILES} == listed


PRESET_FILES = [p for p in CASE_FILES if p.parent.name == "presets"]
GENERATED_FILES = [p for p in CASE_FILES if p.parent.name == "generated"]
GENERATED_STRIDE = 10


def golden_files() -> Iterator[Any]:
    """Each case file. A preset's file holds every bundled input again, under the preset's
    configuration: all of them together are the whole suite once per preset; the generated
    files are thousands of seeded random cases. Both run whole among the slow tests; the
    README's command runs each preset on an input of every group, and every tenth case of each
    generated file."""
    for path in CASE_FILES:
        slow = pytest.mark.slow if path in PRESET_FILES + GENERATED_FILES else ()
        yield pytest.param(path, marks=slow, id=path.stem)


def inline_cases(path: Path) -> list[dict[str, Any]]:
    """Every inline case of the file (the published ones are read from files, which
    `test_fast_engine` covers)."""
    glob = path.relative_to(cases_root()).as_posix()
    cases = [c.case.to_json() for c in iter_cases(glob) if c.case.input is not None]
    assert cases or all(c.case.input_files is not None for c in iter_cases(glob))
    return cases


@pytest.mark.parametrize("path", list(golden_files()))
def test_golden_inputs_give_the_reference_result(path: Path) -> None:
    """Every inline case of the file, scored on one `Inputs` for all its configurations."""
    assert_golden_inputs(inline_cases(path))


@pytest.mark.parametrize("path", PRESET_FILES, ids=[p.stem for p in PRESET_FILES])
def test_a_preset_on_an_input_of_every_group_gives_the_reference_result(path: Path) -> None:
    """The first case of the preset's file from each group of inputs (an axis's choice, a
    generated seed): every preset on the inputs of every axis."""
    first: dict[str, dict[str, Any]] = {}
    for case in inline_cases(path):
        first.setdefault(case["input_of"].split("/")[0], case)
    assert {a["id"] for a in choice_axes()} <= {group.split(".")[0] for group in first}
    assert_golden_inputs(list(first.values()))


@pytest.mark.parametrize("path", GENERATED_FILES, ids=[p.stem for p in GENERATED_FILES])
def test_every_tenth_generated_input_gives_the_reference_result(path: Path) -> None:
    """Cases 0, 10, 20, ... of the generated file: seeded random configurations and inputs."""
    assert_golden_inputs(inline_cases(path)[::GENERATED_STRIDE])


def assert_golden_inputs(cases: list[dict[str, Any]]) -> None:
    """Each case's input on one `Inputs` for all its configurations: the reference's result
    object or error."""
    for case in cases:
        qrels, run = inline_inputs(case["input"]["qrels"], case["input"]["run"])
        inputs = Inputs(qrels, run)
        # Every golden input with a judgment fits the columns: the comparison is the
        # engine's, not the reference's with itself.
        assert inputs.prepared is not None or not any(qrels.values()), case["id"]
        for config in configs_of(case):
            expected = result_or_error(reference, config, qrels, run)
            assert result_or_error(inputs.result, config) == expected, (case["id"], config)


memory_labels = st.one_of(
    st.integers(-2, 4).map(str), st.sampled_from(["1.5", "2.7", "-0.5", "1E+1", "0.0", "-0"])
)


memory_docids = st.sampled_from(["d1", "d2", "d3", "d4", "d5", "http://x.org/a|7", "é", "d 1", ""])


memory_scores = st.one_of(
    st.integers(0, 3).map(str),
    st.sampled_from(
        ["0.5", "0.50", "2.25", "1e400", "0.1000000000000000000001", "0.1", "5E-330", "-0"]
    ),
)


memory_queries = st.sampled_from(["q1", "q2", "q3", "q 4"])


@st.composite
def memory_inputs(
    draw: st.DrawFn,
    documents: st.SearchStrategy[str] = memory_docids,
    label_texts: st.SearchStrategy[str] = memory_labels,
    score_texts: st.SearchStrategy[str] = memory_scores,
) -> tuple[dict, dict]:
    """Qrels and a run with origins, as the readers give them: ties, duplicates, unjudged,
    negative and fractional labels, empty queries, queries on one side only, scores a double
    cannot tell apart."""
    qrels = draw(
        st.dictionaries(
            memory_queries, st.dictionaries(documents, label_texts, max_size=6), max_size=3
        )
    )
    run = draw(
        st.dictionaries(
            memory_queries, st.lists(st.tuples(documents, score_texts), max_size=8), max_size=3
        )
    )
    return (
        {
            q: {d: Judgment(Decimal(label), Location(f"qrels:{q}", d)) for d, label in docs.items()}
            for q, docs in qrels.items()
        },
        {
            q: [
                Posting(d, Decimal(s), Location(f"run:{q}", i)) for i, (d, s) in enumerate(postings)
            ]
            for q, postings in run.items()
        },
    )


def assert_the_reference_result(given_inputs: tuple[dict, dict], mappings: list[dict]) -> None:
    """Under each configuration, the engine on one `Inputs` and `evaluate_inputs` give the
    reference's result object or error."""
    qrels, run = given_inputs
    prepared = Inputs(qrels, run)
    for config in map(Config.from_mapping, mappings):
        expected = result_or_error(reference, config, qrels, run)
        assert result_or_error(prepared.result, config) == expected, config
        assert result_or_error(evaluate_inputs, config, qrels, run) == expected, config


@settings(max_examples=examples(200), deadline=None)
@given(memory_inputs(), st.lists(config_mappings(), min_size=1, max_size=4))
def test_random_inputs_give_the_reference_result(given_inputs, mappings) -> None:
    assert_the_reference_result(given_inputs, mappings)


# Irrational gains: 2^l − 1 for fractional labels l under gain=exponential, enclosed by the
# engine (`label_gains.label_gain`) instead of handed to the reference.
ONLY_EXPONENTIAL_KEPT = {
    "gain": {"linear", "map", "binary"},
    "fractional": {"truncate", "error"},
}


fractional_labels = st.one_of(
    st.decimals(-3, 5, places=2).map(str),
    st.sampled_from(["0.5", "1.5", "-0.5", "2.25", "0.001", "-1.75", "3", "0", "7.3E-1"]),
)


# Few documents and scores, so that tie groups mix the fractional labels.
fractional_inputs = memory_inputs(
    st.sampled_from(["d1", "d2", "d3", "d4", "d5", "d6"]),
    fractional_labels,
    st.sampled_from(["0", "1", "2", "0.5"]),
)


@settings(max_examples=examples(150), deadline=None)
@given(
    fractional_inputs,
    st.lists(
        config_mappings(ONLY_EXPONENTIAL_KEPT, st.one_of(st.none(), st.integers(1, 6))),
        min_size=1,
        max_size=4,
    ),
)
def test_irrational_gains_give_the_reference_result(given_inputs, mappings) -> None:
    """gain=exponential on fractional labels under every other axis (ties average, negative
    labels kept, cutoffs, every discount): the engine's result is the reference's."""
    assert_the_reference_result(given_inputs, mappings)


@pytest.mark.parametrize(
    ("labels", "reason"),
    [
        (["1.5", "1.5" + "0" * 99 + "1"], "two gains 2^-100 apart relative to each other"),
        (["1E-100", "1"], "a gain of about 7e-101, whose enclosure holds 0"),
    ],
)
def test_gains_whose_enclosures_meet_go_to_the_reference(
    monkeypatch: pytest.MonkeyPatch, labels: list[str], reason: str
) -> None:
    """At DISCOUNT_DPS digits the enclosures of these distinct gains overlap (`reason`): no
    order of the gains is known, so every query goes to the reference, whose result is
    the one given."""
    qrels = {
        "q": {d: Judgment(Decimal(label)) for d, label in zip(["a", "b"], labels, strict=True)}
    }
    run = {"q": [Posting("a", Decimal(2)), Posting("b", Decimal(1))]}
    config = Config.from_mapping({"gain": "exponential", "ties": "average"})
    expected = reference(config, qrels, run)
    calls = counted_reference_calls(monkeypatch)
    assert Inputs(qrels, run).result(config).to_json() == expected
    assert calls == ["q"], reason


# --- The sweep (`engine.sweep`) --------------------------------------------------------------


sweep_labels = st.one_of(st.integers(-2, 4).map(str), st.sampled_from(["1.5", "2.7", "-0.5"]))


sweep_docids = st.sampled_from(["d1", "d2", "d3", "d4", "d5", "d6", "http://x.org/a|7"])


sweep_scores = st.one_of(st.integers(0, 3).map(str), st.sampled_from(["0.5", "0.50", "2.25"]))


sweep_queries = st.sampled_from(["q1", "q2", "q3"])


SWEEP_CUTOFFS = st.sampled_from([None, 1, 2, 3, 5])


@st.composite
def sweep_inputs(draw: st.DrawFn) -> tuple[dict, dict]:
    qrels = draw(
        st.dictionaries(
            sweep_queries, st.dictionaries(sweep_docids, sweep_labels, max_size=6), max_size=3
        )
    )
    run = draw(
        st.dictionaries(
            sweep_queries,
            st.lists(st.tuples(sweep_docids, sweep_scores), max_size=8),
            max_size=3,
        )
    )
    return qrels, run


def sweep_outcome(result: Any) -> Any:
    """What both must agree on: the JSON result object, or the error's message (which names
    the query, the document and the rejecting axis), axis and anchor."""
    if isinstance(result, InputError):
        return ("error", str(result), result.axis, result.anchor)
    return result.to_json()


def reference_outcome(config: Config, qrels: Any, run: Any) -> Any:
    try:
        return sweep_outcome(evaluate(config, qrels, run))
    except InputError as error:
        return sweep_outcome(error)


def assert_sweep_agrees(
    labels_by_query: dict, scores_by_query: dict, mappings: list, declared_late: bool = False
) -> None:
    """Every configuration, evaluated in the order given on one sweep, has the reference's
    outcome; `declared_late`, each cutoff declared to the sweep just before it is asked."""
    qrels, run = qrels_from_labels(labels_by_query), run_from_scores(scores_by_query)
    configs = [Config.from_mapping(m) for m in mappings]
    sweep = Sweep(qrels, run, [] if declared_late else [c.cutoff for c in configs])
    for config in configs:
        sweep.declare([config.cutoff])
        assert sweep_outcome(sweep.evaluate(config)) == reference_outcome(config, qrels, run), (
            config
        )


@settings(max_examples=examples(150), deadline=None)
@given(sweep_inputs(), st.lists(config_mappings(cutoffs=SWEEP_CUTOFFS), min_size=1, max_size=6))
def test_sweep_gives_the_reference_digits(given_inputs, mappings) -> None:
    assert_sweep_agrees(*given_inputs, mappings)


@st.composite
def neighbours(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Configuration objects that each take most axes from one base configuration and the
    rest (choice and parameters) from another drawn one; cutoffs drawn freely."""
    base = draw(config_mappings(cutoffs=SWEEP_CUTOFFS))
    out = [base]
    for other in draw(st.lists(config_mappings(cutoffs=SWEEP_CUTOFFS), min_size=1, max_size=8)):
        mixed = dict(base)
        for axis in choice_axes():
            if draw(st.integers(0, 3)) == 0:
                keys = {axis["id"], *(p["id"] for p in axis.get("params", []))}
                mixed = {k: v for k, v in mixed.items() if k not in keys}
                mixed.update({k: v for k, v in other.items() if k in keys})
        mixed["cutoff"] = other["cutoff"] if draw(st.booleans()) else base["cutoff"]
        out.append(mixed)
    return draw(st.permutations(out))


@st.composite
def inputs_with_copies(draw: st.DrawFn) -> tuple[dict, dict]:
    """`inputs`, sometimes with one query copied under another id: equal gain lists in two
    queries, whose results the sweep shares."""
    labels_by_query, scores_by_query = draw(sweep_inputs())
    if labels_by_query and draw(st.booleans()):
        source = draw(st.sampled_from(sorted(labels_by_query)))
        labels_by_query["q0"] = dict(labels_by_query[source])
        if source in scores_by_query:
            scores_by_query["q0"] = list(scores_by_query[source])
    return labels_by_query, scores_by_query


@settings(max_examples=examples(200), deadline=None)
@given(inputs_with_copies(), neighbours(), st.booleans())
def test_neighbouring_configurations_share_steps_and_keep_the_reference_outcome(
    given_inputs, mappings, declared_late
) -> None:
    # Declared late, a cutoff is added after the running sums of others were kept.
    assert_sweep_agrees(*given_inputs, mappings, declared_late)


@settings(max_examples=examples(100), deadline=None)
@given(inputs_with_copies(), config_mappings(cutoffs=SWEEP_CUTOFFS), st.data())
def test_every_ties_choice_on_one_sweep_keeps_the_reference_outcome(
    given_inputs, mapping, data
) -> None:
    # The ties axis alone varies: the score order, the kept documents and the ideal lists are
    # shared among the choices, and only tie groups whose gains differ are reordered.
    ties = next(a for a in choice_axes() if a["id"] == "ties")
    choices = data.draw(st.permutations([c["id"] for c in ties["choices"]]))
    assert_sweep_agrees(*given_inputs, [{**mapping, "ties": choice} for choice in choices])


def test_a_cutoff_declared_after_the_whole_ranking_is_summed_cuts_it() -> None:
    # The running sums of the whole ranking are kept before cutoff 2 is declared: nDCG@2 of
    # gains 3, 0, 1 is 3 / (3 + 1/log2(3)), where the whole ranking's is 3.5 / (3 + 1/log2(3)).
    mappings = [{"gain": "linear"}, {"gain": "linear", "cutoff": 2}]
    assert_sweep_agrees(
        {"q": {"a": "3", "b": "0", "c": "1"}},
        {"q": [("a", "3"), ("b", "2"), ("c", "1")]},
        mappings,
        declared_late=True,
    )


def test_a_label_rejected_by_two_axes_gets_each_axis_error() -> None:
    # Both configurations reject label -0.5, one for its sign and one for its fraction: equal
    # resolutions of the labels, but not the same error.
    assert_sweep_agrees(
        {"q1": {"d1": "-0.5"}},
        {"q1": [("d1", "1")]},
        [{"negative": "error"}, {"fractional": "error"}],
    )


def test_irrational_gains_of_different_label_axes_are_not_shared() -> None:
    # 2^1.5 - 1 is irrational under both: the engine scores each configuration whole, and the
    # negative axis gives b gain 0 in one and 2^-0.5 - 1 in the other.
    assert_sweep_agrees(
        {"q": {"a": "1.5", "b": "-0.5"}},
        {"q": [("a", "1"), ("b", "2")]},
        [
            {"gain": "exponential", "fractional": "keep", "negative": "zero"},
            {"gain": "exponential", "fractional": "keep", "negative": "keep"},
        ],
    )


# --- Spark: partitions scored by the engine on executors -------------------------------------


CASES_PER_AXIS = 1


def spark_outcome(score: Any) -> tuple[str, Any]:
    """("values", result objects) or ("error", the anchor of the rejecting choice)."""
    try:
        return "values", score()
    except InputError as error:
        return "error", error.anchor


def _token(text: str) -> bool:
    return bool(text) and text.split() == [text]


def golden_sample() -> list[dict[str, Any]]:
    """The first cases of each case file of the suite's axes whose inline input TREC files
    can hold, with an expected object."""
    sample = []
    for path in suite_load.case_files():
        group = suite_load.group_of(path, suite_load.cases_root())
        taken = 0
        for loaded in iter_cases(glob=path.relative_to(suite_load.cases_root()).as_posix()):
            case = loaded.case.to_json()
            rows = case.get("input", {})
            if (
                "expected" not in case
                or not rows.get("qrels")
                or not all(_token(f) for r in rows["qrels"] + rows["run"] for f in r)
            ):
                continue
            sample.append(case | {"group": group})
            taken += 1
            if taken == CASES_PER_AXIS:
                break
    return sample


def test_the_golden_sample_covers_every_axis() -> None:
    axes = {case["group"].split("/")[0] for case in golden_sample()}
    assert {"gain", "discount", "cutoff", "ideal", "unjudged", "negative", "ties"} <= axes
    assert {"duplicates", "empty", "aggregate", "fractional"} <= axes


@pytest.mark.slow
def test_golden_sample_on_spark_is_the_single_machine_result(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The sample's inputs in one pair of files (each case's queries renamed apart), scored
    under every configuration of the sample: Spark's result objects are the engine's, and
    each case's queries under its own configuration have the case's expected values."""
    sample = golden_sample()
    qrels, run = [], []
    for n, case in enumerate(sample):
        qrels += [f"c{n}.{q} 0 {d} {label}\n" for q, d, label in case["input"]["qrels"]]
        run += [f"c{n}.{q} Q0 {d} 1 {score} t\n" for q, d, score in case["input"]["run"]]
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "run").write_text("".join(run))
    paths = str(tmp_path / "qrels"), str(tmp_path / "run")
    configs = list(
        {c.canonical(): c for c in (Config.from_mapping(s["config"]) for s in sample)}.values()
    )
    single = {c.canonical(): spark_outcome(lambda c=c: score_files([c], *paths)) for c in configs}
    scored = [c for c in configs if single[c.canonical()][0] == "values"]
    refused = [c for c in configs if single[c.canonical()][0] == "error"]
    assert scored and refused
    results = score_paths(spark, scored, *paths)
    assert results == [single[c.canonical()][1][0] for c in scored]
    by_measure = {r["measure"]: r for r in results}
    checked = 0
    for n, case in enumerate(sample):
        result = by_measure.get(Config.from_mapping(case["config"]).canonical())
        if result is None or "per_query" not in case["expected"]:
            continue
        mine = {q: v for q, v in result["per_query"].items() if q.startswith(f"c{n}.")}
        assert mine == {f"c{n}.{q}": v for q, v in case["expected"]["per_query"].items()}, case[
            "id"
        ]
        checked += 1
    assert checked > 0
    # An error is the same choice's on Spark: a configuration for each of two rejecting
    # anchors (each Spark job costs seconds).
    for anchor in sorted({single[c.canonical()][1] or "" for c in refused})[:2]:
        config = next(c for c in refused if (single[c.canonical()][1] or "") == anchor)
        assert spark_outcome(lambda config=config: score_paths(spark, [config], *paths)) == (
            "error",
            single[config.canonical()][1],
        )


def generated_table(seed: int, queries: int) -> tuple[list[tuple], list[tuple]]:
    """Qrels rows (qid, docid, label) and run rows (qid, docid, score as float64): URL-like
    document ids, tied and unjudged documents, a repeated document now and then, qrels
    queries the run lacks and run queries the qrels lack, queries out of order."""
    rng = random.Random(seed)
    qrels, run = [], []
    order = [f"q{n}" for n in range(queries)]
    rng.shuffle(order)
    for qid in order:
        docs = [f"http://example.org/{qid}/doc-{d}.html" for d in range(rng.randint(1, 12))]
        qrels += [(qid, d, rng.choice([0, 0, 1, 2, 3])) for d in docs if rng.random() < 0.7]
        if rng.random() < 0.1:
            continue
        ranked = docs + [f"http://example.org/other/{rng.randint(0, 50)}" for _ in range(3)]
        rng.shuffle(ranked)
        run += [(qid, d, rng.choice([0.1, 0.25, 1 / 3, 2.0, -1.5, 7.0])) for d in ranked]
    run += [(f"extra{n}", "http://example.org/x", 1.0) for n in range(20)]
    return qrels, run


GENERATED_CONFIGS = [
    Config.default().replace(duplicates="first"),
    Config.default().replace(duplicates="first", cutoff=10, aggregate="run"),
    Config.default().replace(duplicates="first", ties="input", gain="exponential"),
    Config.default().replace(duplicates="first", empty="skip", ideal="retrieved"),
]


@pytest.mark.slow
def test_a_generated_table_on_spark_is_the_single_machine_result(
    spark: SparkSession, tmp_path: Path
) -> None:
    """Thousands of queries: TREC text with the run gzipped, the same table as Parquet
    (float64 scores stand for the exact decimals of the doubles, as the TREC text writes
    them), and as DataFrames with other column names."""
    import pandas as pd

    qrels, run = generated_table(seed=7, queries=2000)
    assert {q for q, *_ in qrels} - {q for q, *_ in run}, "no qrels query the run lacks"
    qrels_text = tmp_path / "qrels.txt"
    qrels_text.write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in qrels))
    run_text = tmp_path / "run.gz"
    lines = "".join(f"{q} Q0 {d} 1 {Decimal(s)} t\n" for q, d, s in run)
    run_text.write_bytes(gzip.compress(lines.encode()))
    expected = score_files(GENERATED_CONFIGS, qrels_text, run_text)
    assert score_paths(spark, GENERATED_CONFIGS, str(qrels_text), str(run_text)) == expected

    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    qrels_frame.to_parquet(tmp_path / "qrels.parquet")
    run_frame.to_parquet(tmp_path / "run.parquet")
    parquet = [str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet")]
    assert score_paths(spark, GENERATED_CONFIGS, *parquet) == expected

    run_frame.set_axis(["topic", "document", "s"], axis=1).to_parquet(tmp_path / "named.parquet")
    named = TableColumns(run=("topic", "document", "s"))
    assert (
        score_paths(
            spark, GENERATED_CONFIGS, parquet[0], str(tmp_path / "named.parquet"), columns=named
        )
        == expected
    )

    renamed = spark.createDataFrame(run_frame.set_axis(["topic", "document", "s"], axis=1))
    assert (
        score_frames(
            GENERATED_CONFIGS,
            spark.createDataFrame(qrels_frame),
            renamed,
            run_columns=("topic", "document", "s"),
            partitions=3,
        )
        == expected
    )
