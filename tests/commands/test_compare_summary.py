"""``ndcgspec compare``'s default text is a summary that fits a terminal and a paper, and
``--full`` still gives every table.

The input is shaped as the seven official DL19 passage runs are (43 queries, 7 runs of 100
documents each, run names of up to 15 characters, grades 0-3), drawn from a seed: on the DL19
runs themselves, before the summary, the default printed 162 lines, 97 of them longer than 100
characters (the longest 197), almost all of them the table of every pair's paired tests."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ndcgspec.commands.cli import main

WIDTH = 100
# Each run's name, and how its score of a document weighs being relevant, the grade, and noise.
RUNS = {
    "neural_rerank_a": (1.6, 0.0, 1.0),
    "TUA1-1": (0.0, 0.7, 1.0),
    "bm25_base": (0.6, 0.3, 1.2),
    "bm25_tuned_rm3": (0.3, 0.45, 1.2),
    "bert_large_p1": (1.2, 0.3, 1.0),
    "duet_v2": (0.9, 0.25, 1.1),
    "x": (2.5, 0.4, 2.0),
}
CONVENTIONS = ("trec_eval@10", "burges2005@10", "sklearn@10", "jarvelin2002@10")
QUERIES = [f"q{1000 + 37 * i}" for i in range(43)]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The qrels and the seven runs: each query judges 40 documents, and a run ranks 100 of
    them and 200 unjudged ones by its weights of relevance and grade, plus noise."""
    folder = tmp_path_factory.mktemp("dl19-shaped")
    draw = random.Random(19)
    grades = {
        q: {f"{q}-d{i}": draw.choices(range(4), (50, 25, 15, 10))[0] for i in range(40)}
        for q in QUERIES
    }
    (folder / "qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, judged in grades.items() for d, g in judged.items()),
        encoding="utf-8",
    )
    paths = []
    for name, (relevant, grade, noise) in RUNS.items():
        lines = []
        for q, judged in grades.items():
            pool = [*judged, *(f"{q}-u{i}" for i in range(200))]
            scores = {}
            for d in pool:
                g = judged.get(d, 0)
                scores[d] = relevant * (g > 0) + grade * g + draw.gauss(0, noise)
            top = sorted(pool, key=lambda d: -scores[d])[:100]
            lines += [f"{q} Q0 {d} {r} {scores[d]:.6f} {name}\n" for r, d in enumerate(top, 1)]
        (folder / name).write_text("".join(lines), encoding="utf-8")
        paths.append(str(folder / name))
    return ["--qrels", str(folder / "qrels"), *paths]


def printed(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(["compare", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def test_the_default_is_a_summary_of_at_most_100_characters_a_line(capsys, files) -> None:
    lines = printed(capsys, *files)
    assert max(map(len, lines)) <= WIDTH, max(lines, key=len)
    # A heading, the means (a header and 7 runs), the 4 conventions against the first, at
    # most 10 flips and 10 changed verdicts (2 and 3 here), and what --full adds: it fits a
    # terminal of 50 lines.
    assert len(lines) <= 50, len(lines)
    rows = [line.split() for line in lines]
    header = rows.index(
        ["run", "trec_eval@10", "burges2005@10", "sklearn@10", "jarvelin2002@10", "spread"]
    )
    assert [row[0] for row in rows[header + 1 : header + 8]] == list(RUNS)
    assert "--full adds" in lines[-2]
    # The table of every pair's p-values is left to --full.
    assert not any(row[:2] == ["a", "b"] for row in rows)


def test_full_gives_every_table(capsys, files) -> None:
    lines = printed(capsys, *files, "--full")
    rows = [line.split() for line in lines]
    header = rows.index(
        ["a", "b", "convention", "n", "mean", "a-b", "p", "rand", "adj", "p", "t", "adj", "verdict"]
    )
    table = rows[header + 1 : lines.index("", header)]
    # Every pair of the 7 runs (21) under each of the 4 conventions.
    names = list(RUNS)
    pairs = {(a, b) for i, a in enumerate(names) for b in names[i + 1 :]}
    assert sorted(tuple(row[:3]) for row in table) == sorted(
        (a, b, convention) for a, b in pairs for convention in CONVENTIONS
    )
    assert "Kendall's tau-b between conventions (reversed pairs of runs)" in lines
    assert "Queries where the conventions disagree most (top 10)" in lines


@pytest.mark.slow
def test_every_preset_still_fits_100_characters(capsys, files) -> None:
    # 28 conventions: the tables with a column per convention are cut into blocks.
    lines = printed(capsys, *files, "--presets")
    assert max(map(len, lines)) <= WIDTH, max(lines, key=len)


@pytest.mark.slow
def test_the_dl19_runs_as_a_user_compares_them(capsys, shared_data: Path) -> None:
    folder = shared_data / "dl19-passage"
    runs = sorted(map(str, (folder / "official-runs").glob("input.*.judged-only.gz")))
    assert len(runs) == 7
    lines = printed(capsys, "--qrels", str(folder / "qrels.dl19-passage.txt"), *runs)
    assert max(map(len, lines)) <= WIDTH, max(lines, key=len)
    assert len(lines) <= 50, len(lines)
