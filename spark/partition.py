"""One partition of the Spark path, scored inside an executor: every qrels and run line of
some queries, scored by ndcgspec's engine exactly as ``ndcgspec score`` scores whole files.

The lines arrive as TREC text (``ndcg.input``) with the row number each had in its input; in
that order they are handed to the engine as in-memory files, so the readers apply their own
grammar and errors, and input order (``ndcg.ties.input``, ``ndcg.duplicates.first``) is the
input's. Each query comes back with the row of its first qrels line, which orders the queries
as the qrels do (``ndcg.aggregate``).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from ndcgspec.engine.evaluate import evaluate_queries
from ndcgspec.engine.fallback import reference_share
from ndcgspec.engine.mean import MeanPart
from ndcgspec.engine.prepared import prepare
from ndcgspec.engine.read import Unsupported, read_qrels_columns, read_run_columns, run_pieces
from ndcgspec.engine.route import routed
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.location import Location
from ndcgspec.reference.trec_io import Source, read_qrels, read_run
from ndcgspec.spark.transport import exact_decimal_text

if TYPE_CHECKING:
    import pandas as pd

QRELS, RUN = 0, 1
LINES_SCHEMA = "kind int, row long, qid string, line string"
"""A line of either input: `kind` QRELS or RUN, `row` its place in that input."""
RESULTS_SCHEMA = (
    "config int, qid string, first long, ndcg string, dcg string, idcg string, part string, "
    "error string, anchor string, axis string, qrels_lines long, run_lines long"
)
"""One query under one configuration (`config` its index, its values correctly rounded); or
the partition's share of one configuration's mean (`part`, an `engine.mean.MeanPart` as JSON,
no `qid`); or one input error (`config` FAILED, `first` the row of the offending line); or a
partition's count of lines (`config` COUNTED), which tells the driver whether an input held
none; or a query of the run that the qrels lack (`config` UNJUDGED, `first` its first row)."""
FAILED, COUNTED, UNJUDGED = -1, -2, -3
UNDECODED = "\ufffd"


def in_memory(name: str, lines: Sequence[str]) -> Source:
    """`lines` as one text file named `name`."""
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    return Source(name, io.BytesIO(data), False, len(data))


Share = tuple[dict[str, dict[str, str | None]], MeanPart]


def evaluations(configs: Sequence[Config], qrels: Source, run: Source | None) -> list[Share]:
    """Each configuration's entries of the result object and share of the mean, as
    ``engine.scoring.score_files`` computes them: the fast engine, or the plain reference
    (`route.routed`). `run` None is a partition whose queries the run does not list: they are
    scored against no postings."""
    return routed(
        configs,
        partial(_engine_shares, configs, qrels, run),
        partial(_reference_shares, configs, qrels, run),
    )


def _engine_shares(configs: Sequence[Config], qrels: Source, run: Source | None) -> list[Share]:
    if run is None:
        raise Unsupported("the run lists none of these queries")
    columns = read_qrels_columns(qrels)
    ranked = read_run_columns(run_pieces(run, columns.qids), run.name, len(columns.qids))
    prep = prepare(columns, ranked)
    return [evaluate_queries(prep, config) for config in configs]


def _reference_shares(configs: Sequence[Config], qrels: Source, run: Source | None) -> list[Share]:
    judgments = read_qrels(qrels)
    postings = read_run(run) if run is not None else {}
    return [reference_share(evaluate(config, judgments, postings).per_query) for config in configs]


def _located(
    error: InputError, names: Sequence[str], frames: Sequence[pd.DataFrame]
) -> tuple[int, str]:
    """The input row of the line `error` names and its message, each ``name:N`` of the
    partition's in-memory files (numbers that would mean nothing to a user) replaced by the
    input's name and the line itself."""
    pattern = "|".join(re.escape(name) for name in names)

    def line(match: re.Match[str]) -> str:
        frame = frames[names.index(match[1])]
        return f"{match[1]}, line {frame['line'].iloc[int(match[2]) - 1]!r}"

    message = re.sub(f"({pattern}):([0-9]+)", line, str(error))
    if error.file not in names or error.line is None:
        return -1, message
    return int(frames[names.index(error.file)]["row"].iloc[error.line - 1]), message


def _reject_undecoded(
    names: Sequence[str], frames: Sequence[pd.DataFrame], decoded: Sequence[bool]
) -> None:
    for name, frame, text in zip(names, frames, decoded, strict=True):
        if not text:
            continue
        bad = frame["line"].str.contains(UNDECODED, regex=False).to_numpy().nonzero()[0]
        if len(bad):
            raise InputError("line is not valid UTF-8", Location(name, int(bad[0]) + 1))


def _result_rows(found: Sequence[Share], qrels: pd.DataFrame) -> list[dict[str, int | str | None]]:
    """The RESULTS_SCHEMA rows of the partition's shares: per configuration its share of the
    mean, then each query's entries with the row of its first qrels line."""
    first = qrels.groupby("qid", sort=False)["row"].min().to_dict()
    rows: list[dict[str, int | str | None]] = []
    for index, (entries, part) in enumerate(found):
        rows.append({"config": index, "part": json.dumps(part.to_json())})
        rows += [
            {"config": index, "qid": qid, "first": int(first[qid]), **entry}
            for qid, entry in entries.items()
        ]
    return rows


def trec_lines(kind: int, batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """mapInPandas from columns (row, qid, docid, value) to (row, line): each row as a TREC
    qrels or run line (``ndcg.input``). A label or score is the exact decimal its column
    holds (`exact_decimal_text`: a float64 is the double's exact decimal); a missing field
    (SQL NULL) leaves the line short, which the reader reports."""
    for batch in batches:
        values = batch["value"].map(_value_text, na_action="ignore")
        if kind == QRELS:
            fields = [batch["qid"], "0", batch["docid"], values]
        else:
            fields = [batch["qid"], "Q0", batch["docid"], "0", values, "spark"]
        lines = [
            " ".join(f for f in row if isinstance(f, str))
            for row in zip(*(_column(f, len(batch)) for f in fields), strict=True)
        ]
        yield batch[["row"]].assign(line=lines)


def _column(field: Any, length: int) -> list[Any]:
    return [field] * length if isinstance(field, str) else field.tolist()


def _value_text(value: object) -> str:
    return value if isinstance(value, str) else exact_decimal_text(value) or ""


def score_partition(
    configs: Sequence[Config],
    names: tuple[str, str],
    decoded: tuple[bool, bool],
    batches: Iterator[pd.DataFrame],
) -> Iterator[pd.DataFrame]:
    """mapInPandas over a partition of LINES_SCHEMA rows, to RESULTS_SCHEMA rows. `decoded`
    marks the inputs (qrels, run) whose lines Spark decoded from text files, where U+FFFD
    stands for bytes that were not UTF-8: such a line is an error, as the readers make it."""
    import pandas as pd

    filled = [batch for batch in batches if len(batch)]
    if not filled:
        return
    rows = pd.concat(filled).sort_values(["kind", "row"], kind="stable")
    frames = (rows[rows["kind"] == QRELS], rows[rows["kind"] == RUN])
    columns = dict.fromkeys(field.split()[0] for field in RESULTS_SCHEMA.split(", "))
    counts: dict[str, Any] = {"config": COUNTED}
    counts |= {"qrels_lines": len(frames[QRELS]), "run_lines": len(frames[RUN])}
    yield pd.DataFrame([columns | counts])
    # The run's queries the qrels lack, each with its first row: no aggregate scores them
    # (ndcg.definition.inputs), but the driver names them.
    firsts = frames[RUN].drop_duplicates("qid")
    unjudged = firsts[~firsts["qid"].isin(frozenset(frames[QRELS]["qid"]))]
    if len(unjudged):
        marks = zip(unjudged["qid"].tolist(), unjudged["row"].tolist(), strict=True)
        yield pd.DataFrame([columns | {"config": UNJUDGED, "qid": q, "first": r} for q, r in marks])
    try:
        _reject_undecoded(names, frames, decoded)
        qrels, run = (in_memory(n, f["line"].tolist()) for n, f in zip(names, frames, strict=True))
        if frames[QRELS].empty:
            # These run queries are scored under no choice (ndcg.aggregate), yet their lines
            # obey the run's grammar as everywhere.
            read_run(run)
            return
        found = evaluations(configs, qrels, run if len(frames[RUN]) else None)
        yield pd.DataFrame([columns | row for row in _result_rows(found, frames[QRELS])])
    except InputError as error:
        row, message = _located(error, names, frames)
        failure = {"config": FAILED, "first": row, "error": message}
        failure |= {"anchor": error.anchor, "axis": error.axis}
        yield pd.DataFrame([columns | failure])
