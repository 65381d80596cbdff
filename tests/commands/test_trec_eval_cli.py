"""``ndcgspec trec_eval`` prints, byte for byte, what the trec_eval 10.0 binary prints for its
nDCG measures, on trec_eval's own test files and on the TREC 2019 DL passage runs. The binary
is built from the shared source tarball as the ``trec_eval`` adapter builds it
(``harness/adapters/peers/trec_eval_build.py``); the test skips when the tarball, a C compiler
or the data are absent."""

from __future__ import annotations

import gzip
import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ndcgspec.commands.cli import main
from ndcgspec.harness.adapters.peers.trec_eval_build import trec_eval_program

EVERY_MEASURE = ["-m", "ndcg", "-m", "ndcg_cut", "-m", "ndcg_rel", "-m", "Rndcg"]
INFO = ["-m", "runid", "-m", "num_q"]


@pytest.fixture(scope="session")
def trec_eval(trec_eval_tarball: Path) -> Path:
    """The trec_eval program built from the shared source (make, a C compiler only), as the
    ``trec_eval`` adapter builds it."""
    if shutil.which("make") is None or not any(map(shutil.which, ("cc", "gcc", "clang"))):
        pytest.skip("no C compiler or make on PATH: trec_eval cannot be built")
    return trec_eval_program()


def binary_output(binary: Path, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(binary), *args], capture_output=True, check=False, timeout=300)


def ours(args: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes]:
    status = main(["trec_eval", *args])
    return status, capsysbinary.readouterr().out


def assert_identical(
    binary: Path, args: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    expected = binary_output(binary, args)
    assert expected.returncode == 0, expected.stderr.decode()
    status, out = ours(args, capsysbinary)
    assert status == 0
    assert out == expected.stdout, " ".join(args)


@pytest.fixture(scope="module")
def suite(shared_data: Path) -> Path:
    folder = shared_data / "trec_eval-test"
    if not folder.is_dir():
        pytest.skip(f"trec_eval's test files {folder} are absent")
    return folder


# Every combination of the flags that change values, each with -q (per-query and summary
# lines); then the flags that change only what is printed, with every value-changing flag on.
COMPUTING = [list(itertools.chain(*c)) for c in itertools.product(
    [[], ["-c"]], [[], ["-J"]], [[], ["-M100"]], [[], ["-l2"]]
)]  # fmt: skip
FLAGS = [["-q", *flags] for flags in COMPUTING] + [
    [*printing, "-c", "-J", "-M100", "-l2"] for printing in ([], ["-n"], ["-q", "-n"])
]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "none")
@pytest.mark.parametrize(
    "files", [("qrels.test", "results.trunc"), ("qrels.rel_level", "results.test")]
)
def test_trec_eval_suite_every_measure_and_flag(
    trec_eval: Path,
    suite: Path,
    files: tuple[str, str],
    flags: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    qrels, run = (str(suite / name) for name in files)
    if "-c" not in flags and files[1] == "results.trunc":
        # trec_eval 10.0 stops (exit 4) on a qrels query missing from the run without -c.
        expected = binary_output(trec_eval, [*flags, *EVERY_MEASURE, qrels, run])
        assert expected.returncode == 4
        assert main(["trec_eval", *flags, *EVERY_MEASURE, qrels, run]) == 2
        assert capsysbinary.readouterr().out == b""
        return
    assert_identical(trec_eval, [*flags, *EVERY_MEASURE, *INFO, qrels, run], capsysbinary)


@pytest.mark.parametrize(
    "measures",
    [
        ["-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4"],
        ["-m", "ndcg_rel.0=1,1=2,2=3", "-m", "Rndcg.1=3,2=9,4=4.5"],
        ["-m", "ndcg_cut.5", "-m", "ndcg_cut.10", "-m", "ndcg.3=0"],
        ["--measure=ndcg_cut.1000,1", "--measure", "Rndcg.2=-3"],
    ],
)
def test_gain_parameters_and_cutoffs(
    trec_eval: Path, suite: Path, measures: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    args = ["-q", *measures, str(suite / "qrels.rel_level"), str(suite / "results.test")]
    assert_identical(trec_eval, args, capsysbinary)


@pytest.fixture(scope="module")
def dl19(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> tuple[Path, list[Path]]:
    """DL19 qrels and every run there, gunzipped (trec_eval reads no gzip)."""
    folder = shared_data / "dl19-passage"
    if not folder.is_dir():
        pytest.skip(f"DL19 passage data {folder} is absent")
    out = tmp_path_factory.mktemp("dl19")
    runs = []
    for path in sorted(folder.glob("official-runs/*.gz")) + sorted(folder.glob("run.*.gz")):
        target = out / path.name.removesuffix(".gz")
        target.write_bytes(gzip.decompress(path.read_bytes()))
        runs.append(target)
    return folder / "qrels.dl19-passage.txt", runs


@pytest.mark.slow
def test_dl19_runs_every_measure(
    trec_eval: Path, dl19: tuple[Path, list[Path]], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    qrels, runs = dl19
    assert len(runs) == 8
    for run in runs:
        assert_identical(
            trec_eval, ["-q", *EVERY_MEASURE, *INFO, str(qrels), str(run)], capsysbinary
        )


@pytest.mark.parametrize("flags", [[], ["-c"], ["-J", "-n"]])
def test_many_runs_print_what_one_call_per_run_prints(
    trec_eval: Path,
    dl19: tuple[Path, list[Path]],
    flags: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # ndcg and ndcg_cut alone: the runs are read by the engine's columnar reader.
    qrels, runs = dl19
    measures = ["-q", *flags, "-m", "ndcg", "-m", "ndcg_cut", *INFO]
    expected = b"".join(
        binary_output(trec_eval, [*measures, str(qrels), str(run)]).stdout for run in runs
    )
    status, out = ours([*measures, str(qrels), *map(str, runs)], capsysbinary)
    assert status == 0
    assert out == expected


def test_standard_input_is_one_file_at_most(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trec_eval", "-m", "ndcg", "-", "-"]) == 2
    said = capsys.readouterr().err
    assert said == (
        "ndcgspec: error: standard input ('-') can be only one of the qrels and the runs\n"
    )


@pytest.mark.parametrize(
    "flags", [["-c", "-J"], ["-M", "100", "-l", "2"], ["-J", "-M10", "-n", "-q"]]
)
def test_dl19_flags(
    trec_eval: Path,
    dl19: tuple[Path, list[Path]],
    flags: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    qrels, runs = dl19
    # TUA1-1 holds many tied scores, which trec_eval orders by docno descending.
    run = next(r for r in runs if "TUA1-1" in r.name)
    assert_identical(trec_eval, [*flags, *EVERY_MEASURE, *INFO, str(qrels), str(run)], capsysbinary)


def test_the_command_line_reads_gzip_and_matches_through_a_process(
    trec_eval: Path, suite: Path, tmp_path: Path
) -> None:
    run = tmp_path / "results.test.gz"
    run.write_bytes(gzip.compress((suite / "results.test").read_bytes()))
    qrels = str(suite / "qrels.test")
    expected = binary_output(
        trec_eval, ["-q", "-m", "ndcg_cut.10", qrels, str(suite / "results.test")]
    )
    command = [
        sys.executable,
        "-m",
        "ndcgspec.commands.cli",
        "trec_eval",
        "-q",
        "-m",
        "ndcg_cut.10",
    ]
    got = subprocess.run([*command, qrels, str(run)], capture_output=True, check=False, timeout=300)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == expected.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "'official'"),
        (["-m", "all_trec"], "nDCG family"),
        (["-m", "map"], "not an nDCG measure"),
        (["-m", "ndcg_cut.5,5"], "duplicate cutoffs"),
        (["-m", "ndcg_cut.0"], "positive"),
        (["-m", "ndcg.x=3"], "level=gain"),
        (["-m", "ndcg.1=0.5"], "differ by less than 1"),
        (["-m", "ndcg", "-M", "-1"], "-M"),
    ],
)
def test_refusals_are_one_line(
    suite: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["trec_eval", *args, str(suite / "qrels.test"), str(suite / "results.test")])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1


SMALL_CASES = {
    # -l0 makes a query judged only 0 have relevant documents but no positive gain: trec_eval's
    # Rndcg divides 0 by 0 there and prints -nan, also in the mean.
    "nan": ("q1 0 a 0\nq1 0 b 0\nq2 0 c 1\n", "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq2 Q0 c 1 1 r\n"),
    # Tied scores (1 and 1.0 are the same double), an unjudged and a negatively judged document.
    "ties": (
        "q1 0 a 0\nq1 0 b -1\nq2 0 c 2\nq2 0 d 1\n",
        "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq2 Q0 c 1 1 r\nq2 Q0 x 1 1 r\nq2 Q0 d 1 1.0 s\n",
    ),
    # Levels 0, 1 and 2, a level-1 document not retrieved and an unjudged one.
    "levels": (
        "q1 0 a 1\nq1 0 b 2\nq1 0 c 0\nq1 0 e 1\n",
        "q1 Q0 c 1 4 r\nq1 Q0 a 2 3 r\nq1 Q0 b 3 2 r\nq1 Q0 d 4 1 r\n",
    ),
    # Labels as atol reads them: 1e3, 1.5e1 and +1 are 1, x is 0, 2abc is 2, -0.5 is 0 and
    # -1e3 is -1 (pooled but unjudged); the spec's number reading would give 1000 and 15.
    "atol": (
        "q1 0 a 1e3\nq1 0 b 1.5e1\nq1 0 c 2\nq1 0 d x\n"
        "q2 0 e 2abc\nq2 0 f +1\nq2 0 g -0.5\nq2 0 h -1e3\n",
        "q1 Q0 d 1 4 r\nq1 Q0 c 2 3 r\nq1 Q0 b 3 2 r\nq1 Q0 a 4 1 r\n"
        "q2 Q0 h 1 4 r\nq2 Q0 g 2 3 r\nq2 Q0 f 3 2 r\nq2 Q0 e 4 1 r\n",
    ),
    # Plain integers with a sign or leading zeros, which the columnar reader reads: atol and
    # the decimal agree on each (+1 is 1, 007 is 7, -0 is 0, -02 is -2).
    "integers": (
        "q1 0 a +1\nq1 0 b 007\nq1 0 c -0\nq2 0 d -02\nq2 0 e 2\nq2 0 f 0010\n",
        "q1 Q0 c 1 3 r\nq1 Q0 a 2 2 r\nq1 Q0 b 3 1 r\n"
        "q2 Q0 d 1 3 r\nq2 Q0 e 2 2 r\nq2 Q0 x 3 1.5 r\nq2 Q0 f 4 1 r\n",
    ),
}


def small_files(folder: Path, case: str) -> list[str]:
    """The paths of one of `SMALL_CASES`, written into `folder`: qrels, then run."""
    paths = [folder / "qrels", folder / "run"]
    for path, text in zip(paths, SMALL_CASES[case], strict=True):
        path.write_text(text)
    return [str(path) for path in paths]


# Every measure goes through the reference's trace; ndcg and ndcg_cut alone, without -M,
# through the engine, on the qrels as the columnar reader reads them where it can.
@pytest.mark.parametrize("case", sorted(SMALL_CASES))
@pytest.mark.parametrize("flags", [["-q", "-l0"], ["-q", "-J"], ["-q", "-c", "-M2"]])
@pytest.mark.parametrize(
    "measures", [EVERY_MEASURE, ["-m", "ndcg", "-m", "ndcg_cut.1,2,3"]], ids=["every", "engine"]
)
def test_small_edge_cases(
    trec_eval: Path,
    tmp_path: Path,
    case: str,
    flags: list[str],
    measures: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    files = small_files(tmp_path, case)
    assert_identical(trec_eval, [*flags, *measures, *INFO, *files], capsysbinary)


def test_plain_integer_labels_are_not_read_by_the_plain_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # q1: c (label 0), a (+1), b (007) ranked in that order. Linear gains, log2(i+1):
    # DCG = 0 + 1/log2(3) + 7/2 = 4.130930; ideal 7 + 1/log2(3) = 7.630930: 0.541340.
    # q2: d (-02, gain 0 in trec_eval), e (2), x (unjudged), f (0010) ranked in that order:
    # DCG = 2/log2(3) + 10/log2(5) = 1.261860 + 4.306766 = 5.568626;
    # ideal 10 + 2/log2(3) = 11.261860: 0.494469. The mean is 0.517905.
    files = small_files(tmp_path, "integers")

    def unread(*args: object) -> None:
        raise AssertionError("the plain qrels reader was called")

    monkeypatch.setattr("ndcgspec.commands.trec_eval.read_qrels", unread)
    assert main(["trec_eval", "-q", "-m", "ndcg", *files]) == 0
    assert capsys.readouterr().out.split() == [
        "ndcg", "q1", "0.5413", "ndcg", "q2", "0.4945", "ndcg", "all", "0.5179"
    ]  # fmt: skip


# trec_eval reads -l and -M with atol: "2_0" is 2 and "1e3" is 1 (Python's int reads 20 or
# fails), and "٢" (an Arabic-Indic two) is 0. In "ties", -l 2 leaves q2 one relevant document
# where -l 20 leaves none, and -M 1 keeps one of q2's three documents.
@pytest.mark.parametrize(
    "flags", [["-l", "2_0"], ["-l2e5"], ["-M", "1_0"], ["-M1e3"], ["-M", "\u0662"]], ids=" ".join
)
def test_flags_are_read_as_atol_reads_them(
    trec_eval: Path, tmp_path: Path, flags: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    files = small_files(tmp_path, "ties")
    assert_identical(trec_eval, ["-q", *flags, *EVERY_MEASURE, *files], capsysbinary)


# Where C leaves trec_eval's result undefined the binary still prints something: atol clamps a
# cutoff beyond a long to LONG_MAX (glibc), and comp_long's int difference sorts 3000000000
# before 1, after which ndcg_cut_1 is computed at the wrong depth.
@pytest.mark.parametrize(
    ("args", "binary_first", "message"),
    [
        (["-m", "ndcg_cut.99999999999999999999"], "ndcg_cut_9223372036854775807", "C's long"),
        (["-m", "ndcg_cut.1,3000000000"], "ndcg_cut_3000000000", "comp_long"),
        (["-l", "99999999999999999999", "-m", "Rndcg"], "Rndcg", "-l '9999"),
        (["-M", "-99999999999999999999", "-m", "ndcg"], "ndcg", "-M '-9999"),
        # comp_rel_gain casts a gain difference beyond C's int: trec_eval's ideal list is then
        # out of order, and it prints 0.7925 for q2, whose nDCG is 0.5000 (to 4 decimals).
        (["-m", "ndcg.2=3000000000"], "ndcg_2=3000000000", "comp_rel_gain"),
    ],
)  # fmt: skip
def test_what_c_leaves_undefined_is_refused_in_one_line(
    trec_eval: Path,
    tmp_path: Path,
    args: list[str],
    binary_first: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = small_files(tmp_path, "ties")
    printed = binary_output(trec_eval, ["-q", *args, *files]).stdout.decode().split()
    assert printed[:1] == [binary_first]
    assert main(["trec_eval", "-q", *args, *files]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err
    assert err.count("\n") == 1


def test_the_run_can_come_from_stdin(trec_eval: Path, suite: Path) -> None:
    args = ["-q", "-m", "runid", "-m", "ndcg_cut.10", str(suite / "qrels.test")]
    run = (suite / "results.test").read_bytes()
    expected = subprocess.run(
        [str(trec_eval), *args, "-"], input=run, capture_output=True, check=False, timeout=300
    )
    got = subprocess.run(
        [sys.executable, "-m", "ndcgspec.commands.cli", "trec_eval", *args, "-"],
        input=run, capture_output=True, check=False, timeout=300,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == expected.stdout


def test_atol_skips_only_c_white_space_before_a_cutoff(
    trec_eval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A no-break space is no white space to C's isspace: atol reads 0, a cutoff trec_eval
    # refuses ("Negative cutoff detected").
    args = ["-m", "ndcg_cut.\u00a05", *small_files(tmp_path, "ties")]
    assert binary_output(trec_eval, args).returncode != 0
    assert main(["trec_eval", *args]) == 2
    assert "cutoffs must be positive" in capsys.readouterr().err


@pytest.mark.parametrize("measures", [["-m", "ndcg"], ["-m", "runid", "-m", "ndcg"]])
def test_an_error_of_the_run_names_its_file_and_stdin_only_for_dash(
    tmp_path: Path, measures: list[str]
) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 1 r\nq1 Q0 b 2 x r\n")
    command = [sys.executable, "-m", "ndcgspec.commands.cli", "trec_eval", *measures, str(qrels)]
    named = subprocess.run(
        [*command, str(run)], capture_output=True, text=True, check=False, timeout=300
    )
    piped = subprocess.run(
        [*command, "-"], input=run.read_text(), capture_output=True, text=True, check=False,
        timeout=300,
    )  # fmt: skip
    problem = "2: score 'x' is not a finite decimal number\n"
    assert (named.returncode, named.stdout) == (2, "")
    assert named.stderr == f"ndcgspec: error: {run}:{problem}"
    assert (piped.returncode, piped.stdout) == (2, "")
    assert piped.stderr == f"ndcgspec: error: <stdin>:{problem}"


def test_a_query_judged_only_below_zero_is_refused_where_trec_eval_crashes(
    trec_eval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels").write_text("a 0 x 1\nb 0 y -2\n")
    (tmp_path / "run").write_text("a Q0 x 1 1 r\nb Q0 y 1 1 r\n")
    args = ["-q", *EVERY_MEASURE, str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert binary_output(trec_eval, args).returncode != 0
    assert main(["trec_eval", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "query 'b' has only negative labels" in err


def test_a_label_beyond_a_c_long_is_refused_where_trec_eval_fails(
    trec_eval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels").write_text("a 0 x 2\na 0 y 99999999999999999999\n")
    (tmp_path / "run").write_text("a Q0 x 1 1 r\na Q0 y 2 2 r\n")
    args = ["-m", "ndcg", str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert binary_output(trec_eval, args).returncode != 0
    assert main(["trec_eval", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"ndcgspec: error: {tmp_path / 'qrels'}:2: label '99999999999999999999' is beyond C's "
        "long, where trec_eval's atol is undefined\n"
    )


# trec_eval counts a level's documents into the ideal list at the level's first pair, and
# looks a document's gain up in the table sorted by gain, at the level's smallest gain.
@pytest.mark.parametrize("measure", ["ndcg.1=3,1=9", "ndcg_rel.2=1,2=9", "Rndcg.1=3,1=9,2=5,2=7"])
def test_a_level_given_again_with_no_smaller_gain_keeps_its_first(
    trec_eval: Path, tmp_path: Path, measure: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    files = small_files(tmp_path, "levels")
    assert_identical(trec_eval, ["-q", "-m", measure, *files], capsysbinary)


def test_score_and_explain_keep_a_levels_first_gain(
    trec_eval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = small_files(tmp_path, "levels")
    printed = binary_output(trec_eval, ["-m", "ndcg.1=3,1=9", *files]).stdout.decode().split()
    assert main(["score", "--digits", "4", "-m", "ndcg.1=3,1=9", *files]) == 0
    assert capsys.readouterr().out.split() == ["ndcg.1=3,1=9", "all", printed[-1]]
    assert main(["explain", "ndcg.1=3,1=9"]) == 0
    assert "gain_map={1:3}," in capsys.readouterr().out


@pytest.mark.parametrize("measure", ["ndcg.1=9,1=3", "ndcg_rel.2=9,2=1"])
def test_a_level_given_again_with_a_smaller_gain_is_refused_everywhere(
    trec_eval: Path, tmp_path: Path, measure: str, capsys: pytest.CaptureFixture[str]
) -> None:
    files = small_files(tmp_path, "levels")
    name, params = measure.split(".")
    # The DCG at the smaller gain over the ideal list at the first: neither pair's value.
    variants = [measure, *(f"{name}.{pair}" for pair in params.split(","))]
    printed = {binary_output(trec_eval, ["-m", m, *files]).stdout.split()[-1] for m in variants}
    assert len(printed) == 3
    for command in (["trec_eval", "-m", measure, *files], ["score", "-m", measure, *files]):
        assert main(command) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert "is given gain 9, then the smaller" in err
        assert err.count("\n") == 1
    assert main(["explain", measure]) == 2
    assert "then the smaller" in capsys.readouterr().err
