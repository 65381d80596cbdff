"""``ndcgspec explain``: full form, fingerprint, definitions and citations from the spec, the
paper sentence, BibTeX, and the per-rank trace of one query."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT

import ndcgspec
from ndcgspec.commands.cli import main

SPEC = yaml.safe_load((REPO_ROOT / "spec" / "ndcg.yaml").read_text(encoding="utf-8"))

# Written by hand from the defaults of spec/ndcg.yaml, every axis in spec order.
FULL_NDCG_10 = (
    "nDCG(gain=linear,discount=log,log_base=2,log_offset=1,ideal=judged,unjudged=zero,"
    "negative=zero,fractional=keep,ties=docid-desc,duplicates=error,empty=zero,"
    "aggregate=qrels)@10"
)


def explain(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["explain", *args])
    out, err = capsys.readouterr()
    return status, out, err


def explained(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    status, out, err = explain(capsys, *args)
    assert (status, err) == (0, "")
    return out


def field(out: str, name: str) -> str:
    """The value of a ``name  value`` header line."""
    [line] = [line for line in out.splitlines() if line.startswith(f"{name}  ")]
    return line.removeprefix(name).strip()


def flat(text: str) -> str:
    return " ".join(text.split())


def test_full_form_and_fingerprint(capsys) -> None:
    out = explained(capsys, "nDCG@10")
    assert field(out, "measure") == "nDCG@10"
    assert field(out, "full form") == FULL_NDCG_10
    fingerprint = field(out, "fingerprint")
    assert len(fingerprint) == 16
    int(fingerprint, 16)
    # The full form names the same configuration, so it has the same fingerprint.
    assert field(explained(capsys, FULL_NDCG_10), "fingerprint") == fingerprint


def test_fingerprint_matches_score_and_config_file(capsys, tmp_path) -> None:
    fingerprint = field(explained(capsys, "nDCG(gain=exponential)@5"), "fingerprint")
    (tmp_path / "qrels").write_text("q 0 a 1\n", encoding="utf-8")
    (tmp_path / "run").write_text("q Q0 a 1 1 t\n", encoding="utf-8")
    (tmp_path / "c.yaml").write_text("gain: exponential\ncutoff: 5\n", encoding="utf-8")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    status = main(["score", *files, "--config", str(tmp_path / "c.yaml"), "--format", "json"])
    out, _ = capsys.readouterr()
    assert status == 0
    assert json.loads(out)["fingerprint"] == fingerprint


def _choice(axis_id: str, choice_id: str) -> dict:
    [axis] = [a for a in SPEC["axes"] if a["id"] == axis_id]
    [choice] = [c for c in axis["choices"] if c["id"] == choice_id]
    return choice


def test_every_axis_with_its_citations_from_the_spec(capsys) -> None:
    measure = "nDCG(gain=exponential,discount=geometric,persistence=0.7,ties=average)@10"
    out = flat(explained(capsys, measure))
    chosen = {axis["id"]: axis.get("default") for axis in SPEC["axes"] if "choices" in axis}
    chosen.update(gain="exponential", discount="geometric", ties="average")
    for axis_id, choice_id in chosen.items():
        choice = _choice(axis_id, choice_id)
        assert f"{axis_id} = {choice_id} ({choice['anchor']})" in out
        for cite in choice["citations"]:
            assert flat(f"{cite['ref']}: {cite['note']}") in out
    [cutoff] = [a for a in SPEC["axes"] if a["id"] == "cutoff"]
    assert "cutoff = 10 (ndcg.cutoff)" in out
    assert all(flat(c["note"]) in out for c in cutoff["citations"])


def test_definition_shows_the_parameter_values(capsys) -> None:
    out = flat(explained(capsys, "nDCG(discount=log,log_base=10,log_offset=2)"))
    assert "1 / log_b(i + o), with b = 10 (log_base) and o = 2 (log_offset)" in out
    out = flat(explained(capsys, "nDCG(discount=geometric,persistence=0.7)"))
    assert "p^(i − 1) with p = 0.7 (persistence)" in out


def test_paper_sentence(capsys) -> None:
    out = explained(capsys, "nDCG@10")
    fingerprint = field(out, "fingerprint")
    [sentence] = [line for line in out.splitlines() if line.startswith("We report")]
    assert sentence.startswith(
        f"We report nDCG@10 as defined by nDCG specification {SPEC['spec_version']} "
        f"(ndcgspec {ndcgspec.__version__}), "
        f"configuration `{FULL_NDCG_10}` (fingerprint {fingerprint}): "
    )
    assert "gain = linear" in sentence
    assert "discount = log (log_base = 2, log_offset = 1)" in sentence
    assert "cutoff = 10" in sentence
    assert sentence.endswith("aggregate = qrels.")


def test_bibtex_entry(capsys) -> None:
    out = explained(capsys, "nDCG(gain=map,gain_map={1:3,2:9})")
    fingerprint = field(out, "fingerprint")
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("@software{"))
    end = lines.index("}", start)
    entry = "\n".join(lines[start : end + 1])
    assert entry.count("{") - entry.count(r"\{") == entry.count("}") - entry.count(r"\}")
    [note] = [line for line in lines[start:end] if line.strip().startswith("note = ")]
    assert fingerprint in note
    # LaTeX would stop on a bare "_" or read "{1:3,2:9}" as a group.
    assert r"gain\_map=\{1:3,2:9\}" in note


def trace_rows(out: str) -> list[list[str]]:
    lines = out.splitlines()
    start = lines.index("Trace of query q1") + 2
    return [line.split() for line in lines[start:] if line.split()[0].isdigit()]


def exact(out: str, name: str) -> Decimal:
    [line] = [line for line in out.splitlines() if line.startswith(f"{name} = ")]
    return Decimal(line.removeprefix(f"{name} = "))


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    # q1: b (label 0), u (unjudged), a (label 1): the relevant document at rank 3.
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n", encoding="utf-8")
    (tmp_path / "run").write_text(
        "q1 Q0 b 1 0.9 t\nq1 Q0 u 2 0.8 t\nq1 Q0 a 3 0.7 t\nzz Q0 a 1 1 t\n", encoding="utf-8"
    )
    return ["--qrels", str(tmp_path / "qrels"), "--run", str(tmp_path / "run")]


def test_trace_table(capsys, files) -> None:
    out = explained(capsys, "nDCG", "--query", "q1", *files)
    header = out.splitlines()[out.splitlines().index("Trace of query q1") + 1].split()
    assert header[:3] == ["rank", "docid", "label"] and header[-1] == "IDCG"
    w2 = f"{1 / math.log2(3):.6f}"  # 0.630930
    zero, one, half = "0.000000", "1.000000", "0.500000"
    assert trace_rows(out) == [
        # rank docid label gain discount discounted DCG ideal-gain IDCG
        ["1", "b", "0", zero, one, zero, zero, one, one],
        ["2", "u", "unjudged", zero, w2, zero, zero, "-", one],
        ["3", "a", "1", one, half, half, half, "-", one],
    ]
    # One relevant document at rank 3: DCG = 1/log2(4) = 1/2, IDCG = 1.
    assert exact(out, "nDCG") == Decimal("0.5")
    assert exact(out, "DCG") == Decimal("0.5")
    assert exact(out, "IDCG") == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["nDCG", "--query", "q9"], "'q9' is not in the qrels"),
        (["nDCG", "--query", "zz"], "'zz' is only in the run"),
        (["nDCG(aggregate=run)", "--query", "q2"], "'q2' is absent from the run"),
    ],
    ids=["unknown query", "run-only query", "aggregate=run, not in run"],
)
def test_query_not_scored_is_a_one_line_error(capsys, files, args, fragment) -> None:
    status, out, err = explain(capsys, *args, *files)
    assert (status, out) == (2, "")
    assert fragment in err and err.count("\n") == 1


def test_query_missing_from_run_traces_an_empty_ranking(capsys, files) -> None:
    out = explained(capsys, "nDCG", "--query", "q2", *files)
    assert exact(out, "nDCG") == 0
    assert exact(out, "IDCG") == 1


def test_trace_needs_query_and_both_files(capsys, files) -> None:
    for args in (["--query", "q1"], files, ["--query", "q1", *files[:2]]):
        status, out, err = explain(capsys, "nDCG", *args)
        assert (status, out) == (2, "")
        assert "--query, --qrels and --run" in err


def test_bad_file_names_file_and_line(capsys, tmp_path, files) -> None:
    bad = tmp_path / "bad-run"
    bad.write_text("q1 Q0 a 1 0.5 t\nq1 Q0 b 2 1e999x t\n", encoding="utf-8")
    status, out, err = explain(capsys, "nDCG", "--query", "q1", *files[:2], "--run", str(bad))
    assert (status, out) == (2, "")
    assert err.startswith(f"ndcgspec: error: {bad}:2: ")


def test_unknown_measure(capsys) -> None:
    status, out, err = explain(capsys, "nDCG(gain=cubic)")
    assert (status, out) == (2, "")
    assert "unknown choice 'cubic'" in err


def _bibtex(out: str) -> dict[str, str]:
    """The fields of the one BibTeX entry in `out`, outer braces removed."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("@software{"))
    end = lines.index("}", start)
    fields = {}
    for line in lines[start + 1 : end]:
        name, _, value = line.strip().partition(" = ")
        fields[name] = value.removesuffix(",")[1:-1]
    return fields


def test_bibtex_from_package_metadata_and_citation_file(capsys) -> None:
    from importlib.metadata import metadata

    meta = metadata("ndcgspec")
    cff = yaml.safe_load((REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    fields = _bibtex(explained(capsys, "nDCG@10"))
    assert fields["version"] == meta["Version"] == str(cff["version"])
    assert fields["author"] == "{" + meta["Author"] + "}"
    assert [a["name"] for a in cff["authors"]] == [meta["Author"]]
    assert fields["year"] == str(cff["date-released"])[:4]
    # The software version and the spec version are told apart.
    assert f"nDCG specification version {SPEC['spec_version']}" in fields["note"]
    urls = meta.get_all("Project-URL") or []
    assert ("url" in fields) == bool(urls or cff.get("repository-code"))


@pytest.mark.parametrize(
    "measure", ["nDCG@10", "trec_eval@10", "nDCG(gain=map,gain_map={1:3,2:9})@5"]
)
def test_cite_gives_a_paragraph_of_at_most_six_lines(capsys, measure) -> None:
    out = explained(capsys, measure, "--cite")
    paragraph = out.split("\n\n@software{")[0]
    assert 1 <= len(paragraph.splitlines()) <= 6
    fingerprint = field(explained(capsys, measure), "fingerprint")
    assert f"(fingerprint {fingerprint})" in flat(paragraph)
    # The software's version and the spec's, each named as what it is.
    assert f"ndcgspec {ndcgspec.__version__} under nDCG specification {SPEC['spec_version']}" in (
        flat(paragraph)
    )


def test_the_versions_are_named_as_what_they_are(capsys) -> None:
    out = explained(capsys, "nDCG@10")
    assert field(out, "spec") == f"nDCG specification {SPEC['spec_version']}"
    assert field(out, "software") == f"ndcgspec {ndcgspec.__version__}"


def test_cite_long_paragraph(capsys) -> None:
    out = explained(capsys, "trec_eval@10", "--cite", "--long")
    paragraph = flat(out.split("@software{")[0])
    fingerprint = field(explained(capsys, "trec_eval@10"), "fingerprint")
    assert "measure `nDCG(negative=unjudged,fractional=truncate,aggregate=run)@10`" in paragraph
    assert f"(fingerprint {fingerprint})" in paragraph
    assert f"under nDCG specification {SPEC['spec_version']}" in paragraph
    for axis in SPEC["axes"]:
        assert f"{axis['id'].capitalize()}: " in paragraph
    # Each axis in the spec's words, followed by its anchor.
    truncate = _choice("fractional", "truncate")
    assert f"{flat(truncate['definition']).rstrip('.')}. [ndcg.fractional.truncate]" in paragraph
    assert "Cutoff: k = 10. [ndcg.cutoff]" in paragraph
    assert "[ndcg.negative.unjudged]" in paragraph and "[ndcg.aggregate.run]" in paragraph
    assert out.rstrip().endswith("}")


def test_the_choices_of_the_adapter_docs_are_those_explain_generates(capsys):
    from ndcgspec.commands.explain import choice_lines
    from ndcgspec.reference.config import choice_axes

    text = (Path(__file__).resolve().parents[2] / "docs" / "adapters.md").read_text("utf-8")
    block = text.split("<!-- generated by `ndcgspec explain --choices` -->\n```text\n")[1]
    assert block.split("```\n<!-- end of generated text -->")[0] == "\n".join(choice_lines()) + "\n"
    # Every choice of every axis is listed, under its axis.
    for axis in choice_axes():
        assert all(f"  {c.id} " in block for c in axis.choices)
