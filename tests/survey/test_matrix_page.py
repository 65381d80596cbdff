"""The conformance page: its markdown rendered by markdown-it-py (tables, lists, code spans,
quoted error messages escaped rather than read as tags), and the page drawn from a fixture of
records written by hand: one colour per choice in every row, the default marked, departures
flagged, counts shown, reproductions quoted, well-formed and self-contained."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from install_hints import needing

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.registry import PEER_ADAPTERS
from ndcgspec.reference import Config
from ndcgspec.spec.presets import Departure
from ndcgspec.survey import page_html
from ndcgspec.survey.grid import Cell, sharp_edges
from ndcgspec.survey.identification import (
    MET,
    NONE,
    NOT_OBSERVABLE,
    RANKS_CLOSE_SCORES,
    SCORE_RESOLUTION,
    TIES_CLOSE_SCORES,
    AxisFinding,
    CaseError,
    Identification,
    Observation,
)
from ndcgspec.survey.matrix import (
    IN_TURN,
    STARTED_EARLY,
    Implementation,
    examination_order,
    markdown,
)
from ndcgspec.survey.page_html import markdown_html
from ndcgspec.survey.prediction import Prediction
from ndcgspec.survey.preset_check import PresetCheck
from ndcgspec.survey.probes import ProbeInput

RENDERS_MARKDOWN = needing("markdown_it", "page")

PAGE = """## Presets

| preset | library | pass |
|---|---|---|
| `ranx` | ranx | 313 |

- sklearn: errors (ValueError: <temporary file> & y < 0) on `sklearn.1/a`
"""


@RENDERS_MARKDOWN
def test_tables_lists_and_code_spans_become_html() -> None:
    html = markdown_html(PAGE)
    assert "<h2>Presets</h2>" in html
    assert "<th>preset</th>" in html and "<td><code>ranx</code></td>" in html
    assert "<td>313</td>" in html and "<table>" in html
    assert "<li>sklearn: errors (ValueError: &lt;temporary file&gt; &amp; y &lt; 0)" in html
    assert "<code>sklearn.1/a</code></li>" in html


@RENDERS_MARKDOWN
def test_raw_html_in_a_message_stays_text() -> None:
    assert markdown_html("- crash: <script>x</script>\n") == (
        "<ul>\n<li>crash: &lt;script&gt;x&lt;/script&gt;</li>\n</ul>\n"
    )


# The page of a fixture of records written by hand: what each cell must show follows from them.
def _finding(axis: str, asked: str, status: str, choices: list[str], **more: object) -> AxisFinding:
    return AxisFinding(axis, asked, status, choices, probes=2, evidence=["e"], **more)  # type: ignore[arg-type]


def _implementation(
    name: str,
    findings: list[AxisFinding],
    extras: list[Observation],
    config: dict[str, str],
    width: int = 64,
    places: int | None = None,
) -> Implementation:
    adapter = {"name": name, "version": "1.0", "float_width": width, "capabilities": {}}
    if places is not None:
        adapter["decimal_places"] = places
    declared = Declaration.from_json(adapter)
    found = Identification(declared, findings, extras, Config.from_mapping(config), None, {})
    return Implementation(name, found)


TIES_OF_FLOATS = Observation(SCORE_RESOLUTION, TIES_CLOSE_SCORES, "exact decimals", ["t~spread"])
RANKS_EXACTLY = Observation(SCORE_RESOLUTION, RANKS_CLOSE_SCORES, "exact decimals", ["t~spread"])
CONFIG = Config.default()
PROBES = [
    ProbeInput(
        "t",
        (("q1", "a", "1"), ("q1", "b", "0")),
        (("q1", "a", "1"), ("q1", "b", "1")),
        Config.default(),
    ),
    ProbeInput("big", tuple(("q1", f"d{i}", "1") for i in range(20)), (), CONFIG),
]


def fixture() -> list[Implementation]:
    first = _implementation(
        "first",
        [
            _finding("gain", "linear", MET, ["linear"]),
            _finding("negative", "zero", MET, ["keep"]),
            _finding("ties", "input", NONE, [], closest="input", disagreeing=["t", "big"]),
            AxisFinding("duplicates", "error", NOT_OBSERVABLE, reason="no document ids"),
        ],
        [TIES_OF_FLOATS],
        {"negative": "keep", "ties": "input"},
        width=32,
    )
    first.presets = [
        PresetCheck(
            "sklearn",
            "first",
            [Departure("refuses", "refuses one-document rows.", ("t",))],
            passed=["p1", "p2", "p3"],
            departed=["t"],
            failed=[("f1", "differs")],
        )
    ]
    # 12 fresh queries: 2 left out (unseen labels), 7 predicted, 1 explained by a departure.
    first.prediction = Prediction(
        "first", "1.0", "nDCG", 5, 12, left_out=2, predicted=7, departures={"refuses": 1}
    )
    second = _implementation(
        "second",
        [
            _finding("gain", "exponential", MET, ["exponential"]),
            _finding("negative", "zero", MET, ["zero"]),
            _finding("ties", "docid-desc", MET, ["docid-desc"]),
        ],
        [RANKS_EXACTLY],
        {"gain": "exponential"},
        places=4,
    )
    third = _implementation("third", [_finding("gain", "linear", MET, ["linear"])], [], {})
    return [first, second, third]


def grid_cells(document: ET.Element) -> dict[str, dict[str, ET.Element]]:
    """implementation → column → its <td> of the grid."""
    table = document.find(".//table[@class='grid']")
    assert table is not None
    columns = [th.text for th in table.findall("./thead/tr/th")][1:]
    cells = {}
    for row in table.findall("./tbody/tr"):
        name = row.find("th").text  # type: ignore[union-attr]
        cells[name] = dict(zip(columns, row.findall("td"), strict=True))
    return cells


def colour(cell: ET.Element) -> str | None:
    style = cell.get("style") or ""
    return style.removeprefix("background:") or None


def rendered() -> tuple[str, ET.Element]:
    items = fixture()
    text = markdown(items, {"absent": "lib is not installed"}, PROBES)
    page = page_html.page(text, items, PROBES, [("a figure", b"\x89PNG")])
    return text, ET.fromstring(page)


@RENDERS_MARKDOWN
def test_one_colour_per_choice_the_same_in_every_row() -> None:
    cells = grid_cells(rendered()[1])
    assert colour(cells["first"]["gain"]) == colour(cells["third"]["gain"])  # linear, linear
    assert colour(cells["first"]["gain"]) != colour(cells["second"]["gain"])  # exponential
    assert colour(cells["first"]["negative"]) != colour(cells["second"]["negative"])
    assert colour(cells["first"]["values"]) != colour(cells["second"]["values"])
    assert colour(cells["first"]["ties"]) is None  # meets no choice: hatched, not coloured
    assert "none" in cells["first"]["ties"].get("class", "").split()
    assert "unseen" in cells["first"]["duplicates"].get("class", "").split()


@RENDERS_MARKDOWN
def test_the_spec_default_is_marked_and_departures_flagged() -> None:
    cells = grid_cells(rendered()[1])

    def marked(cell: ET.Element, kind: str) -> bool:
        return any(span.get("class") == kind for span in cell.findall("span"))

    assert marked(cells["first"]["gain"], "mark")  # linear is the default
    assert not marked(cells["second"]["gain"], "mark")
    assert marked(cells["second"]["ties"], "mark")  # docid-desc
    flagged = {
        (name, column)
        for name, row in cells.items()
        for column, cell in row.items()
        if "departs" in cell.get("class", "").split()
    }
    # first: computes keep when asked zero, ties meet no choice, float32 scores;
    # second: values printed to 4 decimals.
    assert flagged == {
        ("first", "negative"),
        ("first", "ties"),
        ("first", "scores"),
        ("second", "values"),
    }
    assert all(marked(cells[n][c], "flag") for n, c in flagged)


@RENDERS_MARKDOWN
def test_a_narrow_cell_breaks_after_its_arrow_not_inside_a_choice() -> None:
    # A line-break opportunity after each arrow, so that the text wraps whole choices.
    text = "linear→linear; exponential→exponential"
    cell = ET.fromstring(page_html.cell_html("gain", Cell(text, "linear", False, False)))
    pieces = [cell.text, *(b.tail for b in cell.findall("wbr"))]
    assert pieces == ["linear→", "linear; exponential→", "exponential"]


@RENDERS_MARKDOWN
def test_counts_are_shown_as_bars_and_text() -> None:
    text, document = rendered()
    bars = document.findall(".//table[@class='rates']/tbody/tr")
    said = {
        row.find("th").text: [s.text for s in row.iter("span") if s.get("class") == "ratetext"]  # type: ignore[union-attr]
        for row in bars
    }
    # 3 pass, 1 departs as declared, 1 fails: 5 cases; of the 10 fresh queries it can see, 7
    # predicted and 1 explained by a declared departure.
    assert said["first"] == ["3 of 5 (+1 declared departures)", "7 of 10 (+1 declared departures)"]
    assert said["second"] == []
    good = next(s for s in bars[0].iter("span") if s.get("class") == "good")
    assert good.get("style") == "left:0;width:60.00%"
    row = "| first | 1.0 | 32 | `nDCG(negative=keep,ties=input)` | – |"
    assert f"{row} 7 of 10 (+1 declared departures) |" in text
    assert "| second | 1.0 | 64 | `nDCG(gain=exponential)` | – | – |" in text


@RENDERS_MARKDOWN
def test_sharp_edges_come_with_the_smallest_input_that_shows_them() -> None:
    text, document = rendered()
    line = "reproduce: qrels `q1 a 1; q1 b 0` run `q1 a 1; q1 b 1` (`t`)"
    assert line in text  # the ties edge names t (4 rows) and big (20 rows)
    repro = [s for s in document.iter("span") if s.get("class") == "repro"]
    assert any("q1 a 1; q1 b 0" in "".join(s.itertext()) for s in repro)


@RENDERS_MARKDOWN
def test_the_page_is_well_formed_and_self_contained() -> None:
    _, document = rendered()
    assert document.tag == "html"
    for element in document.iter():
        for attribute in ("src", "href"):
            value = element.get(attribute)
            assert value is None or value.startswith(("data:", "#")), value
    page = ET.tostring(document, encoding="unicode")
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page and "@import" not in page


def test_two_builds_of_the_same_code_differ_where_their_records_do() -> None:
    first, second, _ = fixture()
    first.name, second.name = "pytrec_eval", "trec_eval"
    text = markdown([first, second], {}, PROBES)
    section = text.split("## pytrec_eval 1.0 against trec_eval 1.0")[1].split("## Sharp")[0]
    table = [line for line in section.splitlines() if line.startswith("| ")]
    rows = {line.split(" | ")[0].strip("| ") for line in table[1:]}
    # Every grid column on which the two records differ; the score resolution is the scores row.
    assert rows == {"gain", "negative", "ties", "duplicates", "values", "scores"}
    scores = next(line for line in table if line.startswith("| scores |"))
    assert scores.startswith("| scores | float32: ties 1e-9 apart | exact: ranks 1e-9 apart |")
    assert scores.endswith("tied scores spread by a relative 1e-9 (`t~spread`) |")


def test_one_crash_met_on_every_axis_is_one_sharp_edge() -> None:
    crash = [CaseError("c", "adapter crashed: killed by SIGSEGV")]
    item = _implementation(
        "lib",
        [
            _finding(axis, "linear" if axis == "gain" else "log", MET, [], errors=crash)
            for axis in ("gain", "discount")
        ],
        [],
        {},
    )
    assert [edge.text for edge in sharp_edges(item)] == [
        "errors (adapter crashed: killed by SIGSEGV) on `c`, probing gain, discount"
    ]


def test_float_errors_are_stated_in_whole_ulps() -> None:
    # sklearn-ignore-ties' errors on two machines whose numpy log2 differs (AVX-512 or not):
    # one line on both.
    lines = set()
    for ulps in ([0.0, 0.24, 0.24, 1.46], [0.0, 0.24, 0.24, 1.85]):
        item = _implementation("lib", [], [], {})
        item.ulps = ulps
        lines.add(tuple(edge.text for edge in sharp_edges(item)))
    assert lines == {
        (
            "float64 values: median error at most 1 ulps, worst at most 2 ulps "
            "over 4 per-query values",
        )
    }


def test_a_departure_several_presets_declare_is_one_sharp_edge() -> None:
    shared = Departure("refuses", "stops on an empty run.", ("t",))
    item = _implementation("lib", [], [], {})
    item.presets = [
        PresetCheck("trec_eval", "lib", [shared]),
        PresetCheck("trec_eval_complete", "lib", [shared]),
        PresetCheck("trec_eval_judged_only", "lib", [Departure("crashes", "dies.", ("c",))]),
    ]
    assert [edge.text for edge in sharp_edges(item)] == [
        "presets trec_eval, trec_eval_complete declare that it refuses: stops on an empty run; "
        "cases `t`",
        "preset trec_eval_judged_only declares that it crashes: dies; cases `c`",
    ]


def test_every_adapter_is_examined_once_and_ranx_before_the_adapters_loading_its_kernels() -> None:
    # A misspelt name in IN_TURN or STARTED_EARLY would be dropped without a word.
    assert {n for turn in IN_TURN for n in turn} | set(STARTED_EARLY) <= set(PEER_ADAPTERS)
    turns = examination_order(list(PEER_ADAPTERS))
    assert sorted(n for turn in turns for n in turn) == sorted(PEER_ADAPTERS)
    assert turns[0] == ("ranx", "ir_measures-ranx", "ir_measures")
    assert turns[1 : 1 + len(STARTED_EARLY)] == [(n,) for n in STARTED_EARLY]
    assert examination_order(["sklearn", "ir_measures", "catboost", "ranx"]) == [
        ("ranx", "ir_measures"),
        ("catboost",),
        ("sklearn",),
    ]
