"""The layout of the commands' terminal reports: tables cut into blocks that fit 100
characters, prose wrapped to them."""

from __future__ import annotations

from ndcgspec.commands.text_table import paged, wrapped


def test_columns_that_do_not_fit_go_on_to_a_block_repeating_the_first() -> None:
    # Indent 2 + "run" 3 + two columns of 2 + 40 = 89 characters; a third would make 131.
    wide = ["a" * 40, "b" * 40, "c" * 40]
    lines = paged(["run", *wide], [["r1", "1", "2", "3"], ["r22", "10", "20", "30"]])
    assert lines == [
        "  run  " + "  ".join(wide[:2]),
        "  r1   " + " " * 39 + "1  " + " " * 39 + "2",
        "  r22  " + " " * 38 + "10  " + " " * 38 + "20",
        "",
        "  run  " + wide[2],
        "  r1   " + " " * 39 + "3",
        "  r22  " + " " * 38 + "30",
    ]
    assert max(map(len, lines)) == 89


def test_a_column_wider_than_the_page_has_a_block_of_its_own() -> None:
    lines = paged(["run", "x" * 120, "y"], [["r", "1", "2"]])
    assert lines == ["  run  " + "x" * 120, "  r    " + " " * 119 + "1", "", "  run  y", "  r    2"]


def test_prose_wraps_at_100_with_a_hanging_indent_and_keeps_long_words() -> None:
    text = " ".join(["word"] * 30) + " " + "n" * 120
    lines = wrapped(text, "  ")
    # 2 + 19 words of 4 and their 18 spaces = 96; a 20th would make 101.
    assert lines[0] == "  " + " ".join(["word"] * 19)
    assert lines[1] == "      " + " ".join(["word"] * 11)
    assert lines[2] == "      " + "n" * 120
