"""The conformance matrix (``ndcgspec matrix``): every installed built-in adapter, identified
and checked, written as ``docs/conformance.md`` and a self-contained ``docs/conformance.html``.

For each implementation it records the fingerprint of ``identify``, the presets naming it
checked by running it (``survey/preset_check.py``), the sharp edges found (refused inputs,
crashes, a cutoff it chose, float32 scores, axes matching no spec choice), the error of its
values in ulps on generated probes, and whether it reproduces NIST's official DL19 numbers
from the published real-data cases. Nothing in the output depends on the time or the
machine's speed, so the same versions write the same markdown.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from fractions import Fraction
from importlib import import_module
from pathlib import Path
from typing import Any

from ndcgspec.harness.adapters.base import (
    AdapterError,
    NumberFormat,
    distribution_version,
)
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.outcome import Expectation, judge, partial_comparison, summed_terms
from ndcgspec.harness.outputs import staged
from ndcgspec.harness.pool import shared_pools
from ndcgspec.harness.registry import PEER_ADAPTERS, preset_adapters
from ndcgspec.harness.versions import versions
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.reference.errors import NdcgSpecError, install_hint
from ndcgspec.suite.collector import collector_paused
from ndcgspec.suite.loaded import iter_cases
from ndcgspec.suite.tolerance import exact, ulp
from ndcgspec.survey import figures, page_html
from ndcgspec.survey.evidence_files import (
    PREDICTIONS_SCHEMA,
    PRESETS_EVIDENCE_SCHEMA,
    checked_document,
)
from ndcgspec.survey.grid import (
    case_ids,
    closest_preset_text,
    column_choices,
    contrasts,
    grid_row,
    prediction_rate,
    range_and_misreadings,
    reproduction,
    sharp_edges,
)
from ndcgspec.survey.identification import NONE_SHARE
from ndcgspec.survey.identify import identify
from ndcgspec.survey.implementation import Implementation
from ndcgspec.survey.prediction import (
    PAGE_QUERIES,
    PAGE_SEED,
    PREDICTIONS_FILE,
    declared_departures,
    predict,
    predictions_text,
)
from ndcgspec.survey.preset_check import verify_preset
from ndcgspec.survey.preset_evidence import (
    EVIDENCE_FILE,
    PresetRecord,
    check_record,
    evidence_text,
)
from ndcgspec.survey.probes import ProbeInput, adapter_processes, ask, expected_of, probe_inputs
from ndcgspec.survey.reasons import first_line, without_temporary_paths

PUBLISHED_GROUP = "published/dl19-official"
# Adapters that read TREC qrels and runs with document ids; the others see label arrays.
TREC_READERS = (
    "pytrec_eval",
    "ir_measures",
    "ir_measures-pytrec_eval",
    "ir_measures-ranx",
    "ir_measures-trectools",
    "ir_measures-gdeval",
    "ranx",
    "trectools",
    "trec_eval",
    "toolkit-rag-quality",
)
VERSIONED = (
    "numpy",
    "pytrec-eval-terrier",
    "ir-measures",
    "ranx",
    "trectools",
    "scikit-learn",
    "torch",
    "torchmetrics",
    "lightgbm",
    "xgboost",
    "catboost",
    "rank-validation",
    "rankkit",
    "evret",
    "szl-retrieval-bench",
    "rankerEval",
    "toolkit-rag-quality",
    "rag-eval-lite",
    "pyltr",
    "pandas",
    "numba",
    "matplotlib",
)


# When several adapters are examined at once: these go one after the other, in this order, in
# one lane, since ranx compiles its numba kernels on first use (minutes on a fresh machine) into
# a cache that ir_measures' ranx provider, also behind its default pipeline, then loads.
IN_TURN = (("ranx", "ir_measures-ranx", "ir_measures"),)
# Started next: Spark's adapters run one Spark job per question and take longest, so none is
# left to run alone at the end.
STARTED_EARLY = ("spark-ml", "spark-mllib-relevance", "spark-mllib")


def ulp_errors(
    name: str, configuration: Config, width: int, probes: Sequence[ProbeInput]
) -> list[float]:
    """The error in ulps of every per-query value the adapter returns on the generated probes
    under its identified configuration, where its answer meets the reference's."""
    generated = [p for p in probes if p.case_id.startswith("generated.")]
    questions = [(p, configuration.replace(cutoff=p.config.cutoff)) for p in generated]
    answers = ask(adapter_command(name, None), questions)
    errors = []
    for probe, asked in questions:
        answer = answers[(probe.case_id, asked.full())].result
        expected = expected_of(probe, asked)
        if "per_query" not in answer or expected.per_query is None:
            continue
        for qid, entry in expected.per_query.items():
            value = answer["per_query"].get(qid)
            if entry.ndcg is None or not isinstance(value, float):
                continue
            want = exact(entry.ndcg)
            gap = abs(exact(value) - want) / ulp(want if want else Fraction(1), width)
            if gap < 2**20:
                errors.append(float(gap))
    return sorted(errors)


def published_results(name: str, configuration: Config, numbers: NumberFormat) -> dict[str, str]:
    """Per DL19 official case: "yes" when the adapter, asked for its own configuration at the
    case's cutoff, meets NIST's number to its printed precision; else what it returned."""
    cases = list(iter_cases(f"{PUBLISHED_GROUP}.json"))
    if not cases or cases[0].unavailable:
        return {}
    probes, questions = [], []
    for loaded in cases:
        qrels, run = loaded.case.inputs(None)
        probe = ProbeInput(
            loaded.case.id,
            tuple((q, d, str(j.label)) for q, docs in qrels.items() for d, j in docs.items()),
            tuple((q, p.docid, str(p.score)) for q, ps in run.items() for p in ps),
            loaded.case.config,
        )
        probes.append((loaded, probe))
        questions.append((probe, configuration.replace(cutoff=probe.config.cutoff)))
    answers = ask(adapter_command(name, None), questions)
    found = {}
    for (loaded, probe), (_, asked) in zip(probes, questions, strict=True):
        answer = answers[(probe.case_id, asked.full())].result
        case = replace(loaded.case, config=asked)
        terms = summed_terms(probe.qrels, probe.run, asked)
        verdict = judge(
            Expectation.of_case(case),
            CaseAnswer.from_json(answer),
            terms,
            *numbers,
            partial=partial_comparison(case),
        )
        if verdict.outcome == "pass":
            found[probe.case_id] = "yes"
        else:
            got = answer.get("aggregate", answer.get("rejected", answer.get("error")))
            found[probe.case_id] = f"no ({_short(got)})"
    return found


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    if value is None:
        return "no aggregate"
    return without_temporary_paths(first_line(value)[:60])


def examine(name: str, probes: Sequence[ProbeInput], processes: int = 2) -> Implementation:
    """Identify one adapter, check the presets naming it, measure its errors and, for a TREC
    reader, its DL19 numbers, and how its configuration predicts fresh queries. One set of
    `processes` adapter processes answers all of it."""
    started = time.monotonic()
    with shared_pools(), adapter_processes(processes), collector_paused():
        # The page records every probe's evidence, not only what identify needs to decide.
        result = identify(name, every_probe=True)
        numbers = result.adapter.number_format
        item = Implementation(name, result)
        for preset_id, library in sorted(preset_adapters().items()):
            if library == name:
                item.presets.append(verify_preset(preset_id, name, probes))
        if numbers[1] is None:
            # Values printed to a few decimals are off by their rounding, not by ulps.
            item.ulps = ulp_errors(name, result.configuration, numbers[0], probes)
        if name in TREC_READERS:
            item.published = published_results(name, result.configuration, numbers)
        item.prediction = predict(name, result.configuration, declared_departures(result, name))
    # On standard error, so that a long run (CI's) shows where its time goes.
    print(f"matrix: examined {name} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return item


def build(
    probes: Sequence[ProbeInput], names: Sequence[str] | None = None, jobs: int = 2
) -> tuple[list[Implementation], dict[str, str]]:
    """Identify and check every built-in adapter (or the named ones) on the `probes`, `jobs`
    adapters at a time (`examination_order`), and say why each adapter that does not start
    (its library is not installed) does not; the results are in name order whatever finishes
    first. Adapters load only in their worker processes."""
    lanes = max(1, jobs)
    # The cores shared out: `lanes` adapters at once, each with its share of processes.
    processes = max(1, (os.cpu_count() or 1) // lanes)
    outcomes: dict[str, Implementation | str] = {}
    with ProcessPoolExecutor(max_workers=lanes) as pool:
        turns = [
            pool.submit(examined_in_turn, turn, probes, processes)
            for turn in examination_order(names or list(PEER_ADAPTERS))
        ]
        for turn in turns:
            outcomes.update(turn.result())
    found = [o for _, o in sorted(outcomes.items()) if isinstance(o, Implementation)]
    missing = {n: o for n, o in sorted(outcomes.items()) if isinstance(o, str)}
    return found, missing


def examined_in_turn(
    names: Sequence[str], probes: Sequence[ProbeInput], processes: int
) -> dict[str, Implementation | str]:
    """Each adapter of `names` examined one after the other, or why it did not start."""
    outcomes: dict[str, Implementation | str] = {}
    for name in names:
        try:
            outcomes[name] = examine(name, probes, processes)
        except AdapterError as error:
            outcomes[name] = str(error)
    return outcomes


def examination_order(names: Sequence[str]) -> list[tuple[str, ...]]:
    """`names` as `build` hands them to its lanes: each group of `IN_TURN` (those of it that
    are named) as one turn, then `STARTED_EARLY`, then the others by name, one per turn."""
    turns = [tuple(n for n in turn if n in names) for turn in IN_TURN]
    turns = [turn for turn in turns if turn]
    grouped = {n for turn in turns for n in turn}
    early = [n for n in STARTED_EARLY if n in names and n not in grouped]
    rest = sorted(set(names) - grouped - set(early))
    return turns + [(n,) for n in early + rest]


def preset_records(items: Sequence[Implementation]) -> list[PresetRecord]:
    """The record of every preset check of the run (``survey/preset_evidence.py``)."""
    return [
        check_record(check, item.identification.adapter.version)
        for item in items
        for check in item.presets
    ]


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A markdown table; a "|" inside a cell is escaped."""
    cells = [[str(c).replace("|", "\\|") for c in row] for row in rows]
    return [
        "| " + " | ".join(header) + " |",
        "|---" * len(header) + "|",
        *("| " + " | ".join(row) + " |" for row in cells),
    ]


def _configurations(items: Sequence[Implementation]) -> list[str]:
    predicted = any(i.prediction is not None for i in items)
    header = ["implementation", "version", "float", "configuration", "closest preset"]
    rows = []
    for item in items:
        result = item.identification
        row = [
            item.name,
            result.adapter.version,
            str(result.adapter.number_format[0]),
            f"`{result.configuration.canonical()}`"
            + (f" (departs on {', '.join(result.departs)})" if result.departs else ""),
            closest_preset_text(item),
        ]
        if predicted:
            row.append("–" if item.prediction is None else prediction_rate(item).text())
        rows.append(row)
    return _table([*header, *(["fresh queries predicted"] if predicted else [])], rows)


def _contrasts(items: Sequence[Implementation], probes: Mapping[str, ProbeInput]) -> list[str]:
    """Where two implementations of the same code differ, row by row of their records."""
    lines = []
    for pair in contrasts(items, probes):
        lines += ["", f"## {pair.names[0]} against {pair.names[1]}", ""]
        header = ["differs on", *pair.names, "reproduce"]
        lines += _table(header, pair.rows) if pair.rows else ["- no difference"]
    return lines


def markdown(
    items: Sequence[Implementation],
    missing: dict[str, str],
    probes: Sequence[ProbeInput] = (),
) -> str:
    """``docs/conformance.md``; `probes` are the probe inputs, for the reproductions."""
    known = {p.case_id: p for p in probes}
    lines = [
        "# Conformance matrix of nDCG implementations",
        "",
        "Generated by `ndcgspec matrix`; do not edit. Each implementation is run through its "
        "built-in adapter in a child process. Choices are found by `ndcgspec identify` from "
        "probes derived from the golden cases; `n/o` is not observable through the API, "
        "`none` matches no choice of the spec (≈ the closest; also when more than "
        f"{NONE_SHARE:.0%} of an axis's probes meet no choice, since a verdict should rest on "
        "most of its evidence; the configuration then names the axis under `departs on`), "
        "`a→b` means asked for a, "
        "computes b, and `–` means no probe could be answered (see the errors below). "
        "`values` is the float width of the values returned (and the decimals printed, if "
        "rounded); `scores` whether scores a relative 1e-9 apart are ranked apart.",
        "",
        "## Versions",
        "",
        *_table(
            ["component", "version"],
            [
                *versions().items(),
                ("python", platform.python_version()),
                *((d, distribution_version(d)) for d in VERSIONED),
            ],
        ),
        "",
        "## Identified choices",
        "",
    ]
    columns = list(column_choices())
    lines += _table(
        ["implementation", *columns],
        [[item.name, *(cell.text for cell in grid_row(item).values())] for item in items],
    )
    lines += ["", "## Configurations and closest presets", "", *_configurations(items)]
    lines += ["", "## Presets verified by running the library", ""]
    rows = []
    for record in sorted(preset_records(items), key=lambda r: (r.adapter, r.preset)):
        first = case_ids([c for c, _ in [*record.failed, *record.errors, *record.stale]])
        outcomes = (record.passed, record.departed, record.failed, record.errors, record.stale)
        rows.append([record.preset, record.adapter, *(str(len(o)) for o in outcomes), first])
    lines += _table(
        [
            "preset",
            "library",
            "pass",
            "declared departures",
            "fail",
            "error",
            "stale departures",
            "first disagreeing cases",
        ],
        rows,
    )
    lines += _contrasts(items, known)
    lines += ["", "## Sharp edges", ""]
    opening = range_and_misreadings(items, known)
    if opening:
        lines += ["### Values outside [0, 1] and silent misreadings, most dangerous first", ""]
        lines += [*opening, ""]
    for item in items:
        lines += [f"### {item.name}", ""]
        for edge in sharp_edges(item):
            shown = reproduction(edge.cases, known)
            lines.append(f"- {edge.text}" + (f"; reproduce: {shown}" if shown else ""))
        if not sharp_edges(item):
            lines.append("- none found")
        lines.append("")
    lines += ["## NIST's official DL19 values (published real-data cases)", ""]
    readers = [i for i in items if i.published]
    if readers:
        published = sorted({c for i in readers for c in i.published})
        lines += _table(
            ["case", *(i.name for i in readers)],
            [[f"`{c}`", *(i.published.get(c, "") for i in readers)] for c in published],
        )
        lines.append("")
        for item in readers:
            hits = sum(v == "yes" for v in item.published.values())
            lines.append(f"- {item.name}: reproduces {hits} of {len(item.published)}")
    else:
        lines.append("The shared data root is absent; no published case ran.")
    lines += ["", "## Not installed", ""]
    lines += [f"- {n}: {why}" for n, why in sorted(missing.items())] or ["- none"]
    return "\n".join(lines) + "\n"


PAGE_LIBRARIES = {"markdown_it": "page", "matplotlib": "figures"}
"""The libraries the HTML page is written with, each with the extra of ndcgspec that installs
it."""


def require_page_libraries() -> None:
    """An NdcgSpecError naming what to install when a library of `PAGE_LIBRARIES` is missing,
    raised before the adapters are examined, which takes minutes."""
    missing = []
    for module, extra in PAGE_LIBRARIES.items():
        try:
            import_module(module)
        except ImportError:
            missing.append(extra)
    if missing:
        raise NdcgSpecError(
            f"matrix writes conformance.html with markdown-it-py and matplotlib: "
            f"{install_hint(*missing)}"
        )


def html_page(
    markdown_text: str, items: Sequence[Implementation], probes: Sequence[ProbeInput] = ()
) -> str:
    """The self-contained HTML page (``survey/page_html.py``), with the figures."""
    charts = [
        ("Discount weight by rank", figures.discount_weights()),
        ("nDCG@k by k of the worked example", figures.worked_example_by_cutoff()),
        (
            "Error in ulps per implementation",
            figures.ulp_errors({i.name: i.ulps for i in items if i.ulps}),
        ),
    ]
    return page_html.page(markdown_text, items, probes, charts)


def write_page(out: Path, adapters: Sequence[str] | None = None, jobs: int = 2) -> list[Path]:
    """Examine every built-in adapter (or the named `adapters`), `jobs` at a time, and write
    the page and its evidence files into the folder `out`, all at once (`staged`); the files
    written. A record that misses its schema is refused before any file is written."""
    require_page_libraries()
    probes = probe_inputs()
    items, missing = build(probes, adapters, jobs)
    text = markdown(items, missing, probes)
    predicted = [i.prediction for i in items if i.prediction is not None]
    evidence = {
        EVIDENCE_FILE: (evidence_text(preset_records(items)), PRESETS_EVIDENCE_SCHEMA),
        PREDICTIONS_FILE: (
            predictions_text(predicted, PAGE_SEED, PAGE_QUERIES),
            PREDICTIONS_SCHEMA,
        ),
    }
    # Refused before any file is written: the page and the tests read them as data.
    for name, (content, schema) in evidence.items():
        checked_document(content, schema, out / name)
    with staged(out) as stage:
        (stage / "conformance.md").write_text(text, encoding="utf-8")
        (stage / "conformance.html").write_text(html_page(text, items, probes), encoding="utf-8")
        for name, (content, _) in evidence.items():
            (stage / name).write_text(content, encoding="utf-8")
    return [out / name for name in ("conformance.md", "conformance.html", *evidence)]
