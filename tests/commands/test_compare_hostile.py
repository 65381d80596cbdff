"""``compare`` under hostile use: per-query spreads to every printed digit, a run that no
convention can score named with the conventions, and an interrupted ``--out`` that leaves the
older files. Values from mpmath at 100 digits on the hand example of test_compare_runs.py."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import mpmath
import pytest
from install_hints import needing

from ndcgspec.commands import compare_page
from ndcgspec.commands.cli import main

LINEAR, EXPONENTIAL = "nDCG", "nDCG(gain=exponential)"


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    # One query: x = 2, y = 1, z = 1 judged; run A ranks n (not judged) then x.
    (tmp_path / "qrels").write_text("q 0 x 2\nq 0 y 1\nq 0 z 1\n")
    (tmp_path / "A").write_text("q Q0 n 1 2 A\nq Q0 x 2 1 A\n")
    (tmp_path / "B").write_text("q Q0 y 1 2 B\nq Q0 z 2 1 B\n")
    return ["--qrels", str(tmp_path / "qrels"), str(tmp_path / "A"), str(tmp_path / "B")]


def test_a_query_spread_is_right_to_the_digits_of_its_two_values(capsys, files) -> None:
    # The spread is the difference of two values rounded to 40 digits (about 0.40 and 0.46):
    # it is within their rounding, 1e-40, of the true difference; a subtraction at mpmath's
    # default 53 bits would be 1e-17 off.
    assert main(["compare", "--format", "json", "-m", LINEAR, "-m", EXPONENTIAL, *files]) == 0
    rows = json.loads(capsys.readouterr().out)["queries"]
    [row] = [r for r in rows if r["run"] == "A"]
    with mpmath.workdps(100):
        # A ranks x (gain 2, or 2^2 - 1 = 3) at rank 2; the ideal list is x, y, z.
        log3 = mpmath.log(3, 2)
        linear = (2 / log3) / (2 + 1 / log3 + mpmath.mpf(1) / 2)
        exponential = (3 / log3) / (3 + 1 / log3 + mpmath.mpf(1) / 2)
        true = Decimal(mpmath.nstr(exponential - linear, 90))
    assert len(row["spread"]) == len("0.") + 41
    assert abs(Decimal(row["spread"]) - true) <= Decimal("1e-40")


def test_a_run_no_convention_scores_is_named_with_the_conventions(
    tmp_path: Path, capsys, files
) -> None:
    # A run listing x twice for q: every convention here refuses duplicates.
    twice = tmp_path / "twice"
    twice.write_text("q Q0 x 1 2 T\nq Q0 x 2 1 T\n")
    assert main(["compare", "-m", "trec_eval", "-m", "pytrec_eval", *files, str(twice)]) == 2
    # The run goes by its tag, T, as trec_eval's runid names it.
    refused = f"run T: {twice}:2: duplicate document 'x' for query 'q' (duplicates=error)"
    assert capsys.readouterr().err == (
        "ndcgspec: error: fewer than two conventions score every run; nothing to compare "
        f"(trec_eval: {refused}; pytrec_eval: {refused})\n"
    )


def test_a_run_sharing_no_query_with_the_qrels_is_named(tmp_path: Path, capsys, files) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("other Q0 x 1 1 E\n")
    assert main(["compare", "-m", "trec_eval", "-m", "pytrec_eval", *files, str(elsewhere)]) == 2
    assert capsys.readouterr().err == (
        f"ndcgspec: error: the run E and the qrels {files[1]} share no query (the "
        "run's: 'other'; the qrels': 'q'): nothing to score\n"
    )


@needing("matplotlib", "figures")
def test_an_interrupted_out_leaves_the_older_files(
    tmp_path: Path, capsys, files, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "compare.json").write_text("older")
    (out / "compare.html").write_text("older")

    def interrupted(report, folder: Path, title: str) -> None:
        (folder / "compare.json").write_text("newer")
        raise KeyboardInterrupt

    monkeypatch.setattr(compare_page, "write_page", interrupted)
    assert main(["compare", *files, "--out", str(out)]) == 130
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "compare.json": "older",
        "compare.html": "older",
    }


PIPED, BROKEN = "a|b\\|c", "x\n\ny`z"


def _table(capsys, files: list[str], kind: str, *names: str) -> str:
    named = [w for n in names for w in ("--name", n)]
    assert main(["compare", "-m", LINEAR, "-m", EXPONENTIAL, *files, *named, "--format", kind]) == 0
    return capsys.readouterr().out


@needing("markdown_it", "page")
def test_markdown_cells_hold_run_names_with_pipes_and_line_breaks(capsys, files) -> None:
    from markdown_it import MarkdownIt

    # A Markdown parser of GitHub's tables reads the table back: a header and two rows of
    # three cells, each name whole (its line break a space), and the caption one paragraph
    # naming the baseline.
    table = _table(capsys, files, "markdown", PIPED, BROKEN)
    page = MarkdownIt("commonmark").enable("table").render(table)
    assert page.count("<tr>") == 3 and page.count("<td") == 6
    assert "<td>a|b\\|c</td>" in page and "<td>x y`z</td>" in page
    assert page.count("<p>") == 1 and "than <code>a|b\\|c</code>," in page


def test_latex_rows_hold_run_names_with_pipes_and_blank_lines(capsys, files) -> None:
    # A blank line inside tabular ends the paragraph: LaTeX stops with "Paragraph ended".
    table = _table(capsys, files, "latex", PIPED, BROKEN)
    assert "\n\n" not in table
    rows = table.split("\\midrule\n")[1].split("\n\\bottomrule")[0].split("\n")
    assert [r.split(" & ")[0] for r in rows] == [
        r"a\textbar{}b\textbackslash{}\textbar{}c",
        "x y`z",
    ]


@needing("matplotlib", "figures")
def test_figures_draw_run_names_as_written(tmp_path: Path, capsys, files) -> None:
    # "$x^$" is a formula matplotlib cannot parse: drawing the name raised ValueError.
    out = tmp_path / "out"
    assert main(["compare", *files, "--name", "a$x^$b", "--name", "c", "--out", str(out)]) == 0
    assert (out / compare_page.BUMP_PNG).read_bytes()[:4] == b"\x89PNG"
    assert (out / compare_page.VERDICT_PNG).read_bytes()[:4] == b"\x89PNG"


def test_one_convention_is_refused_naming_it_before_any_input_is_read(
    tmp_path: Path, capsys, files
) -> None:
    absent = tmp_path / "absent"
    assert main(["compare", "-m", "trec_eval@10", *files, str(absent)]) == 2
    assert capsys.readouterr().err == (
        "ndcgspec: error: compare needs at least two conventions; one was given "
        "(trec_eval@10): add another -m, or --presets\n"
    )
