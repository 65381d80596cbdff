"""The committed golden cases: `ndcgspec cases check` passes, regeneration is byte-identical,
the manifest is current, and the interaction cases the suite promises exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ndcgspec.reference.config import axes
from ndcgspec.suite.check import check
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.generate import generate, published_available
from ndcgspec.suite.load import case_files, cases_root
from ndcgspec.suite.loaded import cases_in_order, iter_cases
from ndcgspec.suite.manifest import manifest_is_current

ROOT = cases_root()
DATA = data_root()
FOLDERS = [a.id for a in axes()] + ["documents", "published", "generated"]
INTERACTIONS = (
    "ties.average/straddles-cutoff",
    "unjudged.condense/with-cutoff",
    "ideal.retrieved/k-beyond-retrieved",
    "empty.skip/in-the-mean",
    "aggregate.qrels/query-missing-from-run",
    "negative.unjudged/with-condense-top",
    "negative.zero/with-condense-top",
    "duplicates.first/higher-score-later",
    "cutoff.none/one-document",
    "cutoff.k/k-1",
    "cutoff.k/k-beyond-every-list",
    "cutoff.none/ten-thousand-documents",
    "ties.docid-desc/unicode-docids",
    "ties.docid-desc/case-differs",
    "ties.docid-desc/byte-order",
)


@pytest.mark.slow
def test_cases_check_passes() -> None:
    report = check(ROOT, DATA)
    assert report.cases >= 2500
    assert not report.problems, "\n".join(map(str, report.problems[:20]))
    if not published_available(DATA):
        pytest.skip(f"published cases skipped: no shared data at {DATA}")
    assert not report.skipped


@pytest.mark.slow
def test_regeneration_is_byte_identical(tmp_path: Path) -> None:
    written = generate(tmp_path, DATA)
    fresh = {p.relative_to(tmp_path).as_posix() for p in written}
    committed = {p.relative_to(ROOT).as_posix() for p in case_files(ROOT)}
    if not published_available(DATA):
        committed = {p for p in committed if not p.startswith("published/")}
    assert fresh == committed
    changed = [p for p in sorted(fresh) if (tmp_path / p).read_bytes() != (ROOT / p).read_bytes()]
    assert not changed, f"regenerating changes {changed}: run `ndcgspec cases generate`"


def test_manifest_is_current() -> None:
    assert manifest_is_current(ROOT), "cases/MANIFEST is stale: run `ndcgspec cases generate`"


def test_every_folder_has_cases() -> None:
    counts = {folder: len(case_files(ROOT, f"{folder}/*.json")) for folder in FOLDERS}
    assert all(counts.values()), counts


def test_generated_cases_are_many_and_marked() -> None:
    generated = list(iter_cases("generated/*.json"))
    assert len(generated) >= 2000
    assert all(c.case.origin == "generated" for c in generated)
    files = {
        path: json.loads(path.read_text(encoding="utf-8")) for path in {c.path for c in generated}
    }
    assert all(isinstance(content["generator"]["seed"], int) for content in files.values())
    sizes = [
        len({row[1] for row in c.case.input.run if row[0] == qid})
        for c in generated
        if c.case.input is not None
        for qid in {row[0] for row in c.case.input.run}
    ]
    assert min(sizes) >= 1 and 500 <= max(sizes) <= 1000


def test_interaction_cases_exist() -> None:
    ids = {c.case.id for c in iter_cases()}
    assert not [i for i in INTERACTIONS if i not in ids]


def test_ten_thousand_documents_in_one_query() -> None:
    (large,) = list(iter_cases("cutoff/large.json"))
    assert large.case.input is not None
    assert len({row[1] for row in large.case.input.run}) == 10000


def test_published_cases_reference_files_without_embedding_them() -> None:
    published = list(iter_cases("published/*.json"))
    assert len(published) == 54
    assert all(c.case.input is None and c.case.input_files is not None for c in published)
    expected = {c.case.id: c.case.expected and c.case.expected.aggregate for c in published}
    assert expected["published.bm25/dl19-passage-ndcg_cut_10"] == "0.5058"
    assert expected["published.bm25/trec-covid-ndcg_cut_10"] == "0.5947"


def test_loader_reports_absent_data_as_unavailable(tmp_path: Path) -> None:
    cases = list(iter_cases("published/bm25.json", data=tmp_path))
    assert cases and all(c.unavailable and "absent" in c.unavailable for c in cases)


def test_case_files_are_plain_json_with_their_group() -> None:
    for path in case_files(ROOT, "*/*.json"):
        content = json.loads(path.read_text(encoding="utf-8"))
        assert content["group"] == path.relative_to(ROOT).with_suffix("").as_posix()


def test_a_case_file_is_parsed_once_until_it_changes(tmp_path: Path) -> None:
    (tmp_path / "ties").mkdir()
    copy = tmp_path / "ties" / "average.json"
    content = json.loads((ROOT / "ties" / "average.json").read_text(encoding="utf-8"))
    copy.write_text(json.dumps(content), encoding="utf-8")
    first = [c.case for c in iter_cases(root=tmp_path)]
    again = [c.case for c in iter_cases(root=tmp_path)]
    assert len(first) == len(content["cases"]) > 1
    assert all(a is b for a, b in zip(first, again, strict=True))
    # A file written again is read again.
    content["cases"] = content["cases"][1:]
    copy.write_text(json.dumps(content), encoding="utf-8")
    assert [c.case for c in iter_cases(root=tmp_path)] == first[1:]


def test_the_cases_of_a_file_in_order_are_its_cases_whether_read_or_not(tmp_path: Path) -> None:
    (tmp_path / "ties").mkdir()
    copy = tmp_path / "ties" / "average.json"
    content = json.loads((ROOT / "ties" / "average.json").read_text(encoding="utf-8"))
    copy.write_text(json.dumps(content), encoding="utf-8")
    unread = list(cases_in_order(copy))
    # Built from the file's JSON, case by case, in the file's order.
    assert [c.id for c in unread] == [c["id"] for c in content["cases"]]
    read = [c.case for c in iter_cases(root=tmp_path)]
    assert unread == read
    # Once the file is read whole, its records themselves.
    assert all(a is b for a, b in zip(cases_in_order(copy), read, strict=True))
