"""Published real-data cases: numbers that others computed on files of the shared data root.

The runs may not be redistributed, so a case names its files by relative path and checksum.
Expected values are read from the published outputs themselves (trec_eval's test outputs,
NIST's DL19 table, the Pyserini/Anserini regression files) at their printed precision.

trec_eval's conventions are the preset ``trec_eval`` of ``spec/presets.yaml``, where their
evidence is; each case states its mean (``aggregate``: the queries of both files, or every
qrels query with ``-c``) and its cutoff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ndcgspec.reference import Config
from ndcgspec.reference.config import preset
from ndcgspec.reference.rejection import choice_anchor
from ndcgspec.suite.case import case_file, cite
from ndcgspec.suite.case_record import Case, CaseFile, Source
from ndcgspec.suite.expected_values import ExpectedValues, QueryValues
from ndcgspec.suite.load import DataFile, PublishedFiles, sha256_of

ORIGIN = "published"
SOURCE = "ndcgspec.suite.published"
PLACES = 4
TREC_EVAL: dict[str, Any] = dict(preset("trec_eval").config)
# The axes on which trec_eval's published numbers turn, besides the mean each case states: how
# it reads labels, negative levels and equal scores.
CITED_AXES = ("fractional", "negative", "ties")
TREC_EVAL_SPEC = tuple(
    cite(choice_anchor(axis, Config.from_mapping(TREC_EVAL).choice(axis))) for axis in CITED_AXES
)
DL19_RUNS = (
    "bm25base_p",
    "bm25tuned_ax_p",
    "TUA1-1",
    "idst_bert_p1",
    "ICT-CKNRM_B",
    "ms_duet_passage",
    "runid2",
)
TREC_EVAL_OUTPUTS = {
    # output file: (qrels, run, aggregate, gain map, command as QUICKTEST.make gives it)
    "out.test.aql": (
        "qrels.rel_level",
        "results.test",
        "run",
        None,
        "trec_eval -m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test",
    ),
    "out.test.aqc": (
        "qrels.test",
        "results.trunc",
        "qrels",
        None,
        "trec_eval -m all_trec -q -c test/qrels.test test/results.trunc",
    ),
    "out.test.meas_params": (
        "qrels.test",
        "results.test",
        "run",
        {"1": "3", "2": "9", "4": "4.5"},
        "trec_eval -q ... -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 test/qrels.test "
        "test/results.test",
    ),
}


def file_ref(data: Path, relative: str, extra_fields: bool = False) -> DataFile:
    """A reference to a data file: its path below the data root and its checksum."""
    return DataFile(relative, sha256_of(data / relative), extra_fields)


def published_case(
    case_id: str,
    description: str,
    config: Config,
    sources: list[Source],
    input_files: PublishedFiles,
    expected: ExpectedValues,
) -> Case:
    """A published case: values printed to `PLACES` decimals."""
    return Case(
        id=case_id,
        description=description,
        config=config,
        spec=TREC_EVAL_SPEC,
        sources=tuple(sources),
        origin=ORIGIN,
        input_files=input_files,
        expected=expected,
        decimal_places=PLACES,
    )


def _measure_cutoff(measure: str) -> int | None:
    """The cutoff of a trec_eval nDCG measure name: ``ndcg`` has none, ``ndcg_cut_10`` is 10."""
    return int(measure.rsplit("_", 1)[1]) if measure.startswith("ndcg_cut_") else None


def _trec_eval_values(path: Path) -> dict[str, dict[str, str]]:
    """measure -> {qid or "all": value} for the nDCG measures of a trec_eval output file."""
    values: dict[str, dict[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        measure, qid, value = line.split()
        if measure == "ndcg" or measure.startswith(("ndcg_cut_", "ndcg_1=")):
            values.setdefault(measure, {})[qid] = value
    return values


def trec_eval_test_file(data: Path, output: str) -> CaseFile:
    """One of trec_eval's own test outputs: per-query and overall nDCG values."""
    qrels, run, aggregate, gain_map, command = TREC_EVAL_OUTPUTS[output]
    base = "trec_eval-test"
    files = PublishedFiles(
        file_ref(data, f"{base}/{qrels}"),
        file_ref(data, f"{base}/{run}", extra_fields=run == "results.trunc"),
    )
    cases = []
    for measure, by_query in _trec_eval_values(data / base / output).items():
        values: dict[str, Any] = {"aggregate": aggregate, "cutoff": _measure_cutoff(measure)}
        if measure.startswith("ndcg_1="):
            values |= {"gain": "map", "gain_map": gain_map}
        config = Config.from_mapping(TREC_EVAL | values)
        name = measure.split("=")[0].replace("ndcg_1", "ndcg-gain-map")
        source = Source(
            kind="source",
            ref="usnistgov/trec_eval test/" + output,
            locator=f"lines '{measure}' (QUICKTEST.make: {command})",
            note="printed to 4 decimals"
            + ("; -mndcg_cut.23.4 is read as cutoff 23" if measure == "ndcg_cut_23" else ""),
        )
        per_query = {q: QueryValues.printed(v) for q, v in by_query.items() if q != "all"}
        cases.append(
            published_case(
                f"published.trec_eval-test/{output.removeprefix('out.test.')}-{name}",
                f"trec_eval test output {output}, {measure}",
                config,
                [source],
                files,
                ExpectedValues(per_query, by_query["all"]),
            )
        )
    return case_file(
        f"published/trec_eval-{output.removeprefix('out.').replace('.', '-')}",
        f"trec_eval's own expected output {output}: per-query and overall nDCG, 4 decimals.",
        ORIGIN,
        SOURCE,
        cases,
    )


def _dl19_official(data: Path) -> dict[tuple[str, str], str]:
    table: dict[tuple[str, str], str] = {}
    path = data / "dl19-passage" / "EXPECTED-official-dl19-passage.tsv"
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 8 and fields[2] == "trec_eval" and fields[1] in DL19_RUNS:
            table[(fields[1], fields[3])] = fields[4]
    return table


def dl19_official_file(data: Path) -> CaseFile:
    """NIST's official DL19 passage nDCG, nDCG@10, @100 and @1000 of the seven runs."""
    table = _dl19_official(data)
    qrels = file_ref(data, "dl19-passage/qrels.dl19-passage.txt")
    cases = []
    for run in DL19_RUNS:
        files = PublishedFiles(
            qrels, file_ref(data, f"dl19-passage/official-runs/input.{run}.judged-only.gz")
        )
        for measure in ("ndcg", "ndcg_cut_10", "ndcg_cut_100", "ndcg_cut_1000"):
            config = Config.from_mapping(
                TREC_EVAL | {"aggregate": "run", "cutoff": _measure_cutoff(measure)}
            )
            source = Source(
                kind="document",
                ref="NIST TREC 2019 Deep Learning track, passage task, official evaluation",
                locator=f"run {run}, measure {measure} (EXPECTED-official-dl19-passage.tsv)",
                note="trec_eval qrels.dl19-passage.txt RUN; printed to 4 decimals",
            )
            cases.append(
                published_case(
                    f"published.dl19-official/{run}-{measure}",
                    f"DL19 official run {run}, {measure}",
                    config,
                    [source],
                    files,
                    ExpectedValues(aggregate=table[(run, measure)]),
                )
            )
    return case_file(
        "published/dl19-official",
        "NIST's official nDCG of seven TREC 2019 Deep Learning passage runs.",
        ORIGIN,
        SOURCE,
        cases,
    )


def _published_score(data: Path, name: str, path: list[Any]) -> str:
    node: Any = yaml.safe_load((data / "published" / name).read_text(encoding="utf-8"))
    for key in path:
        node = node[key]
    return f"{node:.4f}"


def bm25_file(data: Path) -> CaseFile:
    """The published BM25 nDCG@10 of DL19 passage and BEIR TREC-COVID (``trec_eval -c``)."""
    config = Config.from_mapping(TREC_EVAL | {"aggregate": "qrels", "cutoff": 10})
    dl19 = _published_score(
        data,
        "pyserini-2cr-msmarco-v1-passage.bm25-default.excerpt.yaml",
        [0, "topics", 1, "scores", 0, "nDCG@10"],
    )
    covid = _published_score(
        data,
        "pyserini-2cr-beir.bm25-flat.trec-covid.excerpt.yaml",
        ["conditions", 0, "datasets", 0, "scores", 0, "nDCG@10"],
    )
    cases = [
        published_case(
            "published.bm25/dl19-passage-ndcg_cut_10",
            "BM25 on DL19 passage, nDCG@10 with -c",
            config,
            [
                Source(
                    kind="document",
                    ref="Pyserini two-click reproduction, msmarco-v1-passage bm25-default",
                    locator="topics dl19-passage, nDCG@10 (also Anserini dl19-passage.yaml)",
                    note="trec_eval -m ndcg_cut.10 -c; printed to 4 decimals",
                )
            ],
            PublishedFiles(
                file_ref(data, "dl19-passage/qrels.dl19-passage.txt"),
                file_ref(data, "dl19-passage/run.msmarco-v1-passage.bm25-default.dl19.txt.gz"),
            ),
            ExpectedValues(aggregate=dl19),
        ),
        published_case(
            "published.bm25/trec-covid-ndcg_cut_10",
            "BM25 flat on BEIR TREC-COVID, nDCG@10 with -c",
            config,
            [
                Source(
                    kind="document",
                    ref="Pyserini two-click reproduction, BEIR bm25-flat",
                    locator="dataset trec-covid, nDCG@10 "
                    "(also Anserini beir-v1.0.0-trec-covid.flat.yaml)",
                    note="trec_eval -c -m ndcg_cut.10; printed to 4 decimals",
                )
            ],
            PublishedFiles(
                file_ref(data, "trec-covid/qrels.beir-v1.0.0-trec-covid.test.txt.gz"),
                file_ref(data, "trec-covid/run.beir.bm25-flat.trec-covid.txt.gz"),
            ),
            ExpectedValues(aggregate=covid),
        ),
    ]
    return case_file(
        "published/bm25",
        "Published BM25 nDCG@10 of the Pyserini and Anserini regressions.",
        ORIGIN,
        SOURCE,
        cases,
    )


def published_files(data: Path) -> list[CaseFile]:
    """Every published case file, built from the data root."""
    return [
        *(trec_eval_test_file(data, output) for output in TREC_EVAL_OUTPUTS),
        dl19_official_file(data),
        bm25_file(data),
    ]
