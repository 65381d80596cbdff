"""``ndcgspec which``: the configuration behind each published value is among the top 3
(issue 15), a value nothing reproduces exits 1 with the closest results, and the gain maps
that collapse grades are the ones the search declares.

Expected values come from hand arithmetic and from the published cases (NIST's official DL19
values, the Pyserini/Anserini BM25 figures, trec_eval's own test outputs), never from `which`.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

from ndcgspec.analysis.convention_search import answer, evaluate_space
from ndcgspec.analysis.space import DEFAULT_CUTOFFS, collapsing_maps, search_space
from ndcgspec.commands import which
from ndcgspec.commands.cli import main
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.config import Config, presets

PUBLISHED = sorted((REPO_ROOT / "cases" / "published").glob("*.json"))


@pytest.fixture(scope="module", autouse=True)
def each_space_searched_once() -> Iterator[None]:
    """The commands below search the same two small files for several values: the space of
    each pair of files (by their bytes) and options is evaluated once for the module."""
    searched: dict[tuple[Any, ...], Any] = {}

    def search_once(qrels: str, run: str, *args: Any, **kwargs: Any) -> Any:
        key = (Path(qrels).read_bytes(), Path(run).read_bytes(), repr(args), repr(kwargs))
        if key not in searched:
            searched[key] = evaluate_space(qrels, run, *args, **kwargs)
        return searched[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(which, "evaluate_space", search_once)
        yield


def published_cases() -> list[dict]:
    return [case for path in PUBLISHED for case in json.loads(path.read_text())["cases"]]


def test_collapsing_maps_by_hand() -> None:
    d = Decimal
    maps = collapsing_maps([d("-1"), d("0"), d("1"), d("2.7"), d("3")])
    # Positive integer grades as atol reads them: 1, 2, 3.
    assert maps == [
        {d(1): d(0), d(2): d(2), d(3): d(3)},  # linear, grade 1 as 0
        {d(1): d(0), d(2): d(0), d(3): d(3)},  # linear, grades 1-2 as 0
        {d(1): d(0), d(2): d(3), d(3): d(7)},  # 2^l - 1, grade 1 as 0
        {d(1): d(0), d(2): d(0), d(3): d(7)},  # 2^l - 1, grades 1-2 as 0
        {d(1): d(1), d(2): d(1), d(3): d(1)},  # binary, every positive grade relevant
        {d(1): d(0), d(2): d(1), d(3): d(1)},  # binary at 2
        {d(1): d(0), d(2): d(0), d(3): d(1)},  # binary at 3
    ]


def _files(tmp_path: Path) -> list[str]:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 a 1\nq 0 b 0\n", encoding="utf-8")
    run.write_text("q Q0 b 1 2 t\nq Q0 a 2 1 t\n", encoding="utf-8")
    return [str(qrels), str(run)]


def test_a_value_found_by_hand(tmp_path, capsys) -> None:
    # a (label 1) at rank 2: nDCG = (1 / log2 3) / 1 = 0.63093 (log, linear or 2^l - 1);
    # 1/2 under the reciprocal discount; 1 under jarvelin2002 (ranks 1 and 2 undiscounted).
    status = main(["which", *_files(tmp_path), "0.6309", "--format", "json", "--top", "50"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    measures = {m for g in out["matches"] for m in g["members"]}
    assert "nDCG(negative=unjudged,fractional=truncate,aggregate=run)" in measures
    assert all(not m.startswith("nDCG(discount=reciprocal") for m in measures)
    assert out["matches"][0]["origin"] == {"preset": "trec_eval", "departures": []}
    assert Decimal(out["matches"][0]["aggregate"]).quantize(Decimal("0.00001")) == Decimal(
        "0.63093"
    )
    status = main(["which", *_files(tmp_path), "0.5", "--format", "json", "--top", "50"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    measures = {m for g in out["matches"] for m in g["members"]}
    assert (
        "nDCG(discount=reciprocal,negative=unjudged,fractional=truncate,aggregate=run)" in measures
    )


def test_nothing_reproduces(tmp_path, capsys) -> None:
    # Not 0.123 since spec 2.2.0: ideal=assumed-k under the reciprocal discount at @32 scores a
    # at rank 2 (1/2) / H_32 = 0.1232.
    status = main(["which", *_files(tmp_path), "0.777"])
    out = capsys.readouterr().out
    assert status == 1
    assert "nothing in the space reproduces 0.777; the closest results:" in out


def test_a_percentage_is_refused_at_once(tmp_path, capsys, monkeypatch) -> None:
    # 50.58 is a percentage as papers print it: said before any configuration is evaluated.
    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched")

    monkeypatch.setattr(which, "evaluate_space", no_search)
    assert main(["which", *_files(tmp_path), "50.58"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "ndcgspec: error: VALUE 50.58 is above 1: a percentage? give 0.5058 "
        "(or --above-one to search for it as written)"
    )


def test_bad_value_is_one_line(tmp_path, capsys) -> None:
    assert main(["which", *_files(tmp_path), "zero"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "ndcgspec: error: VALUE must be a decimal number, got 'zero'"


def _extras(config: Config, labels: set[Decimal]) -> tuple[list[int], list[dict]]:
    """What a published value needs beyond the declared space: its own cutoff (trec_eval's
    ``ndcg_cut.23.4`` test) or its own gain map (``-m ndcg.1=3,2=9,4=4.5``), given to
    `which` as a user would with --cutoff and --gain-map."""
    cutoffs = [] if config.cutoff in DEFAULT_CUTOFFS else [config.cutoff]
    maps = []
    if config.choice("gain") == "map":
        table = dict(config.param("gain_map"))
        if table not in collapsing_maps(labels):
            maps.append(table)
    return cutoffs, maps


@pytest.mark.slow
def test_published_values_are_found_in_the_top_3(shared_data: Path) -> None:
    by_inputs: dict[tuple, list[dict]] = defaultdict(list)
    for case in published_cases():
        files = case["input_files"]
        config = parse_measure(case["measure"])
        labels = {Decimal(line.split()[3]) for line in _lines(shared_data / files["qrels"]["path"])}
        cutoffs, maps = _extras(config, labels)
        extra = files["run"].get("extra_fields") == "ignored"
        key = (files["qrels"]["path"], files["run"]["path"], repr(cutoffs), repr(maps), extra)
        by_inputs[key].append((case, config, cutoffs, maps))
    assert sum(len(v) for v in by_inputs.values()) == len(published_cases()) > 50
    # One search per pair of files, two at a time: each is minutes of exact arithmetic.
    with ProcessPoolExecutor(max_workers=2) as pool:
        searches = [
            pool.submit(_missed_in_top_3, shared_data, *key, cases)
            for key, cases in by_inputs.items()
        ]
        missed = [case_id for search in searches for case_id in search.result()]
    assert missed == []


def _missed_in_top_3(
    shared_data: Path, qrels: str, run: str, _: str, __: str, extra: bool, cases: list
) -> list[str]:
    """The ids of the published `cases` on one pair of files whose configuration is not among
    the top 3 that `which` gives for their value."""
    _, _, cutoffs, maps = cases[0]
    searched = evaluate_space(
        str(shared_data / qrels),
        str(shared_data / run),
        [*DEFAULT_CUTOFFS, *cutoffs],
        maps,
        extra_fields=extra,
    )
    missed = []
    for case, config, _, _ in cases:
        places = case["precision"]["decimal_places"]
        found = answer(searched, Decimal(case["expected"]["aggregate"]), places)
        top = [m.config.replace(cutoff=m.cutoff) for g in found.matches[:3] for m in g.members]
        if config not in top:
            missed.append(case["id"])
    return missed


def _lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    return [line for line in text.decode("utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("cutoff", [None, 10])
def test_presets_come_first(cutoff) -> None:
    # The first candidates of the space are the presets themselves, in spec/presets.yaml order;
    # a preset whose configuration an earlier one already has (evret's and rag-eval-lite's are
    # spark_mllib's) is that candidate.
    candidates, _ = search_space([Decimal(0), Decimal(1)], [cutoff])
    firsts = list(dict.fromkeys(c.preset for c in candidates if not c.departures))
    first_of: dict[str, str] = {}
    for preset in presets():
        first_of.setdefault(Config.from_mapping(preset.config).full(), preset.id)
    distinct = list(first_of.values())
    assert firsts[: len(distinct)] == distinct


@pytest.mark.parametrize("extra", [[], ["--decimals", "41"]])
def test_a_value_given_beyond_the_output_digits_is_refused(capsys, extra: list[str]) -> None:
    # The true mean to 45 decimals: the means the search compares hold 40 digits, so asking for
    # more said "nothing reproduces" of the very value.
    value = "0.4943606026218534283649808783801728686906" + ("11111" if not extra else "")
    examples = REPO_ROOT / "examples"
    args = ["which", str(examples / "qrels.txt"), str(examples / "run.txt"), value, *extra]
    assert main(args) == 2
    decimals = 45 if not extra else 41
    assert capsys.readouterr().err == (
        f"ndcgspec: error: VALUE is given to {decimals} decimals; which compares means of 40 "
        "digits (ndcg.precision), so give at most 40\n"
    )
