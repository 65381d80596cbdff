"""Reading a TREC run: the engine's numpy tokeniser (`engine/read.run_pieces`) against pyarrow's
CSV reader, in the same process, alternating (issue "Exact and faster than the C binary", item
"a fast reader").

Both produce what the engine needs of each line: the query's index in the qrels, the document
id as 64-bit words and the score as a double. pyarrow is given the easy case: one space between
fields, no validation. The engine's reader also splits at runs of any TREC separator (tabs, CR
before LF), rejects control characters and text that is not UTF-8, and keeps each score exact;
pyarrow splits at one character only, so it could replace the tokeniser only behind a check
that the file is in its subset.

    python benchmarks/score.py --sizes 5000 --ids msmarco --rounds 1   # writes the files
    python benchmarks/read.py /tmp/ndcgspec-bench/qrels-5000x1000-msmarco.txt \\
        /tmp/ndcgspec-bench/run-5000x1000-msmarco.txt
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from ndcgspec.engine.read import read_qrels_columns, run_pieces
from ndcgspec.engine.table import id_words
from ndcgspec.reference.trec_io import opened

RUN_FIELDS = ["query_id", "q0", "doc_id", "rank", "score", "tag"]


def numpy_reader(run: str, qids: list[str]) -> int:
    """Rows read by the engine's reader."""
    with opened(run) as source:
        return sum(len(piece.qidx) for piece in run_pieces(source, qids))


def pyarrow_reader(run: str, qids: list[str]) -> int:
    """Rows read by pyarrow's CSV reader, turned into the engine's columns."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    known = pa.array(qids, pa.large_string())
    rows = 0
    batches = pcsv.open_csv(
        run,
        read_options=pcsv.ReadOptions(column_names=RUN_FIELDS, block_size=1 << 24),
        parse_options=pcsv.ParseOptions(delimiter=" "),
        convert_options=pcsv.ConvertOptions(
            column_types=dict.fromkeys(RUN_FIELDS, pa.string()),
            include_columns=["query_id", "doc_id", "score"],
        ),
    )
    for batch in batches:
        qidx = pc.index_in(batch.column(0), value_set=known).fill_null(-1).to_numpy()
        id_words(batch.column(1).cast(pa.large_string()))
        pc.cast(batch.column(2), pa.float64()).to_numpy()
        rows += len(qidx)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with opened(args.qrels) as source:
        qids = read_qrels_columns(source).qids
    readers: dict[str, Callable[[str, list[str]], int]] = {
        "numpy (engine)": numpy_reader,
        "pyarrow csv": pyarrow_reader,
    }
    wall: dict[str, list[float]] = {name: [] for name in readers}
    cpu: dict[str, list[float]] = {name: [] for name in readers}
    print("load average " + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    for _ in range(args.rounds):
        for name, reader in readers.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            rows = reader(args.run, qids)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    for name in readers:
        print(
            f"{name:15} {rows:,} rows: median {statistics.median(wall[name]):.2f} s wall, "
            f"{statistics.median(cpu[name]):.2f} s CPU (all threads)"
        )


if __name__ == "__main__":
    main()
