"""``ndcgspec score``: text and JSON output, --config, and one-line errors with empty stdout.

Expected values are derived by hand. With one relevant document (label 1) at rank r and the
default log2 discount, DCG = 1/log2(r + 1) and IDCG = 1; for r = 3 and r = 7 that is exactly
1/2 and 1/3, so those values are compared as exact rationals. Where a logarithm is irrational
the expected value is computed in binary floating point: each log2 and division is within one
ulp, a sum of a few such terms stays within 16 ulp, hence a relative tolerance of 16 × 2^-52.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT

from ndcgspec.commands.cli import main
from ndcgspec.commands.subcommands import COMMANDS
from ndcgspec.reference import config as config_module

SPEC_VERSION = yaml.safe_load((REPO_ROOT / "spec" / "ndcg.yaml").read_text(encoding="utf-8"))[
    "spec_version"
]
FLOAT_TOLERANCE = 16 * 2.0**-52

# q1: the relevant document at rank 3. q2: at rank 7, below six unjudged documents.
# q3: judged relevant, absent from the run. "zz" is a run query absent from the qrels.
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 0\nq2 0 x 1\nq2 0 y 0\nq3 0 z 1\n"
RUN = (
    "q1 Q0 b 1 0.9 t\nq1 Q0 c 2 0.8 t\nq1 Q0 a 3 0.7 t\n"
    + "".join(f"q2 Q0 u{i} {i} {10 - i} t\n" for i in range(1, 7))
    + "q2 Q0 x 7 1 t\nzz Q0 a 1 5 t\n"
)
Q1, Q2, Q3 = Fraction(1, 2), Fraction(1, 3), Fraction(0)


def rounded(value: Fraction, digits: int = 40) -> Decimal:
    """`value` rounded to `digits` significant digits, the spec's output rule."""
    with localcontext() as context:
        context.prec = digits
        return Decimal(value.numerator) / Decimal(value.denominator)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run.txt").write_text(RUN, encoding="utf-8")
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def only_note_on(missing: str, err: str, unjudged: str | None = None) -> bool:
    """Whether stderr is the one-line note on the qrels query `missing` absent from the run,
    then, given `unjudged`, the one-line note on that run query absent from the qrels."""
    lines = err.splitlines(keepends=True)
    expected = [f"ndcgspec: note: 1 of 3 qrels queries are not in the run ('{missing}')"]
    if unjudged:
        expected.append(f"ndcgspec: note: 1 query of the run not in the qrels ('{unjudged}')")
    return len(lines) == len(expected) and all(
        line.startswith(start) and line.endswith("\n")
        for line, start in zip(lines, expected, strict=True)
    )


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["score", *args])
    out, err = capsys.readouterr()
    return status, out, err


def score_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    status, out, err = score(capsys, *args, "--format", "json")
    assert status == 0
    assert all(line.startswith("ndcgspec: note: ") for line in err.splitlines())
    return [json.loads(line) for line in out.splitlines()]


def test_json_contract(capsys, files) -> None:
    [result] = score_json(capsys, *files, "-m", "nDCG@10")
    keys = {"measure", "written", "fingerprint", "spec_version", "aggregate", "per_query"}
    keys.add("provenance")
    assert set(result) == keys
    assert result["measure"] == result["written"] == "nDCG@10"
    assert result["spec_version"] == SPEC_VERSION
    assert len(result["fingerprint"]) == 16
    int(result["fingerprint"], 16)
    assert list(result["per_query"]) == ["q1", "q2", "q3"]
    for values in result["per_query"].values():
        assert set(values) == {"ndcg", "dcg", "idcg"}
        assert all(isinstance(v, str) for v in values.values())
    expected = {"q1": (Q1, Q1, 1), "q2": (Q2, Q2, 1), "q3": (Q3, 0, 1)}
    for qid, (ndcg, dcg, idcg) in expected.items():
        got = result["per_query"][qid]
        assert Decimal(got["ndcg"]) == rounded(ndcg)
        assert Decimal(got["dcg"]) == rounded(Fraction(dcg))
        assert Decimal(got["idcg"]) == rounded(Fraction(idcg))
    assert Decimal(result["aggregate"]) == rounded((Q1 + Q2 + Q3) / 3)


def test_single_measure_json_is_one_object(capsys, files) -> None:
    status, out, _ = score(capsys, *files, "--format", "json")
    assert status == 0
    assert json.loads(out)["measure"] == "nDCG"


def test_json_lines_one_object_per_measure_in_order(capsys, files) -> None:
    results = score_json(capsys, *files, "-m", "nDCG", "-m", "nDCG(aggregate=run)@2", "-q")
    assert [r["measure"] for r in results] == ["nDCG", "nDCG(aggregate=run)@2"]
    # aggregate=run: only q1 and q2; @2 cuts both relevant documents off.
    assert list(results[1]["per_query"]) == ["q1", "q2"]
    assert results[1]["aggregate"] == "0"
    assert results[0]["fingerprint"] != results[1]["fingerprint"]


def test_undefined_is_null_in_json_and_undefined_in_text(capsys, tmp_path) -> None:
    (tmp_path / "qrels").write_text("q1 0 a 0\n", encoding="utf-8")
    (tmp_path / "run").write_text("q1 Q0 a 1 1 t\n", encoding="utf-8")
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    [result] = score_json(capsys, *paths, "-m", "nDCG(empty=nan)")
    assert result["aggregate"] is None
    assert result["per_query"]["q1"] == {"ndcg": None, "dcg": "0", "idcg": "0"}
    status, out, _ = score(capsys, *paths, "-m", "nDCG(empty=nan)", "-q")
    assert status == 0
    assert out.splitlines() == [
        "nDCG(empty=nan)\tq1\tundefined",
        "nDCG(empty=nan)\tall\tundefined",
    ]


def _text_rows(out: str) -> list[tuple[str, str, Decimal]]:
    rows = [line.split("\t") for line in out.splitlines()]
    assert all(len(row) == 3 for row in rows)
    return [(m, q, Decimal(v)) for m, q, v in rows]


def test_text_output_aggregate_only(capsys, files) -> None:
    status, out, err = score(capsys, *files, "-m", "nDCG@10")
    assert status == 0
    assert only_note_on("q3", err, "zz")
    assert _text_rows(out) == [("nDCG@10", "all", rounded((Q1 + Q2 + Q3) / 3))]
    # The spec's output digits: 40 significant digits, no exponent.
    value = out.split("\t")[2].strip()
    assert value.startswith("0.") and len(value.removeprefix("0.")) == 40


def test_text_output_per_query_then_all(capsys, files) -> None:
    status, out, _ = score(capsys, *files, "-m", "nDCG(aggregate=run)", "-q")
    assert status == 0
    assert _text_rows(out) == [
        ("nDCG(aggregate=run)", "q1", rounded(Q1)),
        ("nDCG(aggregate=run)", "q2", rounded(Q2)),
        ("nDCG(aggregate=run)", "all", rounded((Q1 + Q2) / 2)),
    ]


def test_default_measure_is_the_spec_defaults_without_cutoff(capsys, files) -> None:
    [default] = score_json(capsys, *files)
    [explicit] = score_json(capsys, *files, "-m", "nDCG")
    assert default == explicit
    assert default["measure"] == "nDCG"


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".yaml", "unjudged: condense\ncutoff: 2\n"),
        (".json", '{"unjudged": "condense", "cutoff": 2}'),
    ],
)
def test_config_file_equals_measure_string(capsys, files, tmp_path, suffix, text) -> None:
    path = tmp_path / f"config{suffix}"
    path.write_text(text, encoding="utf-8")
    by_file, by_string = score_json(
        capsys, *files, "--config", str(path), "-m", "nDCG(unjudged=condense)@2"
    )
    assert by_file == by_string
    # Condensing removes the six unjudged documents of q2: x moves to rank 1, nDCG 1.
    assert Decimal(by_file["per_query"]["q2"]["ndcg"]) == 1


def test_preset_with_cutoff(capsys, files) -> None:
    [result] = score_json(capsys, *files, "-m", "trec_eval@10")
    assert result["measure"].endswith("@10")


def test_gzip_inputs(capsys, files, tmp_path) -> None:
    for name, text in (("qrels.gz", QRELS), ("run.gz", RUN)):
        (tmp_path / name).write_bytes(gzip.compress(text.encode()))
    zipped = score_json(capsys, str(tmp_path / "qrels.gz"), str(tmp_path / "run.gz"))
    plain = score_json(capsys, *files)
    # The same data: the same digests of the decompressed bytes, under other paths.
    for result in (*zipped, *plain):
        for digest in result["provenance"]["inputs"].values():
            del digest["path"]
    assert zipped == plain


def test_irrational_values_within_float_error(capsys, tmp_path) -> None:
    # Labels 2, 0, 1 in run order; the ideal order is 2, 1.
    (tmp_path / "qrels").write_text("q 0 a 2\nq 0 b 0\nq 0 c 1\n", encoding="utf-8")
    (tmp_path / "run").write_text("q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n", encoding="utf-8")
    [result] = score_json(capsys, str(tmp_path / "qrels"), str(tmp_path / "run"))
    dcg = 2 / math.log2(2) + 1 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    got = result["per_query"]["q"]
    assert float(got["dcg"]) == dcg  # 2 + 1/2 is exact in binary
    assert math.isclose(float(got["idcg"]), idcg, rel_tol=FLOAT_TOLERANCE)
    assert math.isclose(float(got["ndcg"]), dcg / idcg, rel_tol=FLOAT_TOLERANCE)


BAD_INPUTS = {
    "malformed qrels line": ("q1 0 a 1\nq1 0 b\n", RUN, "qrels", 2),
    "malformed run line": (QRELS, "q1 Q0 a 1 0.5 t\nq1 Q0 b 2\n", "run", 2),
    "non-numeric score": (QRELS, "q1 Q0 a 1 high t\n", "run", 1),
    "non-finite score": (QRELS, "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 inf t\n", "run", 2),
    "non-numeric label": ("q1 0 a yes\n", RUN, "qrels", 1),
    "non-finite label": ("q1 0 a 1\nq1 0 b nan\n", RUN, "qrels", 2),
    "duplicate qrels entry": ("q1 0 a 1\nq1 0 a 0\n", RUN, "qrels", 2),
    "duplicate run entry": (QRELS, "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq1 Q0 a 3 0 t\n", "run", 3),
    "empty qrels": ("", RUN, "qrels", None),
    "empty run": (QRELS, "\n\n", "run", None),
}


@pytest.mark.parametrize(("qrels", "run", "culprit", "line"), BAD_INPUTS.values(), ids=BAD_INPUTS)
def test_bad_input_is_one_line_with_file_and_line(
    capsys, tmp_path, qrels, run, culprit, line
) -> None:
    (tmp_path / "qrels").write_text(qrels, encoding="utf-8")
    (tmp_path / "run").write_text(run, encoding="utf-8")
    status, out, err = score(capsys, str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert status == 2
    assert out == ""
    where = tmp_path / culprit
    assert err.startswith(
        f"ndcgspec: error: {where}:{line}: " if line else f"ndcgspec: error: {where}: "
    )
    assert err.count("\n") == 1


def test_unreadable_gzip(capsys, files, tmp_path) -> None:
    damaged = tmp_path / "qrels.gz"
    whole = gzip.compress("".join(f"q{i} 0 d{i} 1\n" for i in range(5000)).encode())
    damaged.write_bytes(whole[: len(whole) // 2])
    status, out, err = score(capsys, str(damaged), files[1])
    assert (status, out) == (2, "")
    assert err.startswith(f"ndcgspec: error: {damaged}:")
    assert "cannot read gzip data" in err and err.count("\n") == 1


def test_error_in_a_later_measure_prints_nothing(capsys, files) -> None:
    # The first measure scores fine; the second rejects q2's unjudged documents.
    status, out, err = score(capsys, *files, "-m", "nDCG", "-m", "nDCG(unjudged=error)")
    assert (status, out) == (2, "")
    assert f"{files[1]}:4: " in err and "not judged" in err


@pytest.mark.parametrize(
    ("measure", "fragment"),
    [("nDCG(gain=squared)", "unknown choice 'squared'"), ("no_such_tool@10", "unknown preset")],
)
def test_bad_measure(capsys, files, measure, fragment) -> None:
    status, out, err = score(capsys, *files, "-m", measure)
    assert (status, out) == (2, "")
    assert fragment in err and err.count("\n") == 1


def test_bad_config_file(capsys, files, tmp_path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("gain: linear\nties: [\n", encoding="utf-8")
    status, out, err = score(capsys, *files, "--config", str(path))
    assert (status, out) == (2, "")
    assert err.startswith(f"ndcgspec: error: {path}:")


def test_missing_presets_file_is_a_clean_error(capsys, files, monkeypatch) -> None:
    def absent() -> None:
        raise FileNotFoundError("presets.yaml")

    monkeypatch.setattr(config_module, "load_presets", absent)
    monkeypatch.setattr(config_module, "_preset_entries", absent)
    status, out, err = score(capsys, *files, "-m", "trec_eval@10")
    assert (status, out) == (2, "")
    assert "presets are not available" in err and err.count("\n") == 1
    assert score(capsys, *files, "-m", "nDCG@10")[0] == 0


# The installed console script: what a user runs, so no traceback may get through.
SCRIPT = Path(sys.executable).parent / "ndcgspec"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    if not SCRIPT.exists():
        pytest.skip(f"the ndcgspec console script is not installed next to {sys.executable}")
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, check=False, cwd=REPO_ROOT
    )


def test_script_readme_quick_start() -> None:
    done = run_script("score", "examples/qrels.txt", "examples/run.txt", "-m", "nDCG@10", "-q")
    assert done.returncode == 0
    assert only_note_on("q3", done.stderr)
    values = {q: float(v) for _, q, v in (line.split("\t") for line in done.stdout.splitlines())}
    # examples/qrels.txt and run.txt by hand. q1 ranks d1(3) d2(2) dx(unjudged) then the tie
    # d3(0)/d4(1) at 1.2, broken by document id descending: d4 at rank 4, d3 at rank 5; d5(2)
    # is not retrieved. q2 ranks d7(0) d8(3) d6(1). q3 is missing from the run.
    dcg1 = 3 + 2 / math.log2(3) + 1 / math.log2(5)
    idcg1 = 3 + 2 / math.log2(3) + 2 / math.log2(4) + 1 / math.log2(5)
    dcg2 = 3 / math.log2(3) + 1 / math.log2(4)
    idcg2 = 3 + 1 / math.log2(3)
    expected = {"q1": dcg1 / idcg1, "q2": dcg2 / idcg2, "q3": 0.0}
    expected["all"] = sum(expected.values()) / 3
    assert values.keys() == expected.keys()
    for qid, value in expected.items():
        assert math.isclose(values[qid], value, rel_tol=FLOAT_TOLERANCE), qid


@pytest.mark.parametrize(
    "args",
    [
        ["score", "examples/qrels.txt", "examples/no-such-run.txt"],
        ["score", "examples/run.txt", "examples/qrels.txt"],
        ["score", "examples/qrels.txt", "examples/run.txt", "-m", "nDCG(ties=random)"],
    ],
    ids=["missing file", "files swapped", "bad measure"],
)
def test_script_errors_without_traceback(args: list[str]) -> None:
    done = run_script(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("ndcgspec: error: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_score_imports_only_what_scoring_needs(files) -> None:
    """``score`` registers only itself: no other subcommand's module, nor the schema validator
    and process pools they bring, is imported before it reads a byte (issue 14's fast start)."""
    probe = (
        "import sys\n"
        "from ndcgspec.commands.cli import main\n"
        f"main(['score', {files[0]!r}, {files[1]!r}])\n"
        "rooms = ('ndcgspec.commands', 'ndcgspec.harness', 'ndcgspec.suite', 'ndcgspec.survey')\n"
        "print(sorted(m for m in sys.modules if m.startswith(rooms)"
        " or m in ('jsonschema', 'multiprocessing')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = done.stdout.splitlines()[-1]
    assert loaded == str(
        [
            "ndcgspec.commands",
            "ndcgspec.commands.cli",
            "ndcgspec.commands.parser",
            "ndcgspec.commands.score",
            "ndcgspec.commands.score_notes",
            "ndcgspec.commands.score_output",
            # score's own flags of the statistics, which import none of them.
            "ndcgspec.commands.statistics_flags",
            # The table of subcommands the command line reads (module names only).
            "ndcgspec.commands.subcommands",
        ]
    )


def test_a_second_score_starts_without_parsing_yaml(files, tmp_path) -> None:
    """The first process parses the specification's YAML and keeps the parse; a later one
    reads it back and imports no YAML parser at all (``spec/__init__.py``), nor does a
    ``score`` without ``--config`` need one."""
    probe = (
        "import sys\n"
        "from ndcgspec.commands.cli import main\n"
        f"main(['score', {files[0]!r}, {files[1]!r}, '-m', 'nDCG@10', '-m', 'ndcg_cut.10'])\n"
        "print('yaml' in sys.modules)\n"
    )
    environment = {**os.environ, "NDCGSPEC_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env=environment,
        )
        for _ in range(2)
    ]
    assert [r.stdout.splitlines()[-1] for r in runs] == ["True", "False"]
    assert runs[0].stdout == runs[1].stdout.replace("False", "True")


def test_help_lists_every_subcommand(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    listed = capsys.readouterr().out
    assert all(command in listed for command in COMMANDS)
    with pytest.raises(SystemExit) as exited:
        main(["no-such-command"])
    assert exited.value.code == 2
    assert "'score'" in capsys.readouterr().err


def _run_csv(run: str) -> str:
    """The TREC run text as a CSV table of its query, document and score columns."""
    rows = [line.split() for line in run.splitlines()]
    return "query_id,doc_id,score\n" + "".join(f"{q},{d},{s}\n" for q, _, d, _, s, _ in rows)


# Each route and what the engine logs when it takes it.
ROUTES = {
    "engine": None,
    "not grouped": "is not grouped by query: read twice",
    "plain reference": "plain reference used",
    "mean at the boundary": "the whole run at once",
    "table": None,
    "table, plain reference": "plain reference used",
}


@pytest.mark.parametrize("route", ROUTES)
def test_the_note_on_missing_queries_whatever_computes_the_values(
    route: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ndcg.aggregate``: q3 is in the qrels and not in the run, however the values are
    computed: the engine block by block, a run read twice because its queries interleave,
    the plain reference, the whole run at once, or from a table."""
    from ndcgspec.engine import mean, read, stream, support
    from ndcgspec.engine.route import LOG

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS, encoding="utf-8")
    lines = RUN.splitlines(keepends=True)
    if route == "not grouped":
        # q1's first row, then q2's, then q1's others, in pieces of 64 bytes.
        monkeypatch.setattr(stream, "BLOCK_ROWS", 1)
        monkeypatch.setattr(read, "CHUNK_BYTES", 64)
        lines = [lines[0], *lines[3:], *lines[1:3]]
    if route.endswith("plain reference"):
        monkeypatch.setattr(support, "COMPUTED", frozenset())
    if route == "mean at the boundary":

        def straddles(part: mean.MeanPart) -> None:
            raise mean.NeedsMoreDigits(f"the mean of {part.count} queries")

        monkeypatch.setattr(mean.MeanPart, "rounded_mean", straddles)
    if route.startswith("table"):
        pytest.importorskip("pyarrow", reason="pyarrow (the 'tables' extra) is not installed")
        run = tmp_path / "run.csv"
        run.write_text(_run_csv("".join(lines)), encoding="utf-8")
    else:
        run.write_text("".join(lines), encoding="utf-8")
    with caplog.at_level("INFO", logger=LOG.name):
        status, out, err = score(capsys, str(qrels), str(run))
    assert status == 0
    assert out.startswith("nDCG\tall\t")
    # Every route names the run query the qrels lack, as it names the qrels query missing.
    assert only_note_on("q3", err, "zz")
    if ROUTES[route]:
        assert ROUTES[route] in caplog.text


@pytest.mark.parametrize("aggregate", ["qrels", "run"])
def test_a_run_sharing_no_query_with_the_qrels_is_an_error_not_a_zero(
    capsys, tmp_path, aggregate
) -> None:
    # Under aggregate=qrels the mean would be 0 (every qrels query missing), under run it
    # would be undefined: neither is a score of this run, so the command refuses.
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n", encoding="utf-8")
    run.write_text("x1 Q0 a 1 2 t\nx2 Q0 b 1 2 t\n", encoding="utf-8")
    status, out, err = score(capsys, str(qrels), str(run), "-m", f"nDCG(aggregate={aggregate})@10")
    assert (status, out) == (2, "")
    assert err == (
        f"ndcgspec: error: the run {run} and the qrels {qrels} share no query (the run's: "
        "'x1', 'x2'; the qrels': 'q1', 'q2'): nothing to score\n"
    )


def test_the_missing_query_note_says_what_trec_eval_does_without_c(capsys) -> None:
    # trec_eval 10.0 without -c, on examples/ (q3 judged, not retrieved), prints
    # "trec_eval: result qid 'q3' not found in qrels" and exits 4: it stops, it does not
    # leave the query out (run by hand on the program built from ../shared/tools).
    assert main(["score", "examples/qrels.txt", "examples/run.txt"]) == 0
    err = capsys.readouterr().err
    assert "aggregate=run leaves them out (pytrec_eval; trec_eval 10.0 without -c stops" in err
    assert "(trec_eval without -c" not in err
