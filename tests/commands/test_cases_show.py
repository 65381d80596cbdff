"""``ndcgspec cases show`` prints a stored case, and a computed id run gives an input.

negative.zero/at-defaults (cases/negative/zero.json) ranks d1 (label -1, gain 0 under
negative=zero) above d2 (label 2): DCG = 2/log2(3) = 1.2618595..., IDCG = 2, nDCG =
1/log2(3) = 0.6309297535...
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile.cli import ndcgspec

from ndcgspec.commands import case_view
from ndcgspec.commands.cli import main
from ndcgspec.reference import Config
from ndcgspec.suite.loaded import LoadedCase


@pytest.fixture(scope="module", autouse=True)
def suite_read_once() -> Iterator[None]:
    """`cases show` reads every case file of the suite (47 MB of JSON) to find one case: the
    files are read once for the module's commands, which only look cases up."""
    read: dict[tuple[Any, ...], list[LoadedCase]] = {}
    load = case_view.load_cases

    def cases_once(*args: Any, **kwargs: Any) -> list[LoadedCase]:
        # A folder that cannot be read raises each time: only what was read is kept.
        key = (*args, *sorted(kwargs.items()))
        if key not in read:
            read[key] = load(*args, **kwargs)
        return list(read[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(case_view, "load_cases", cases_once)
        yield


def shown(capsys, *words: str) -> tuple[int, str, str]:
    status = main(["cases", "show", *words])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_stored_case_shows_its_configuration_rows_expected_values_and_trace(capsys):
    status, out, _ = shown(capsys, "negative.zero/at-defaults")
    assert status == 0
    assert "configuration: nDCG\n" in out
    assert "negative=zero" in out and "spec ndcg.negative.zero:" in out
    assert "  q1 d1 -1\n" in out and "  q1 d1 2\n" in out
    assert "q1: nDCG 0.63092975357" in out
    assert "DCG = 1.261859507  IDCG = 2.000000000" in out


def test_a_stored_case_is_looked_up_in_the_file_its_id_names_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    globs: list[str | None] = []
    load = case_view.load_cases

    def spy(*args: Any, **kwargs: Any) -> list[LoadedCase]:
        globs.append(kwargs.get("glob"))
        return load(*args, **kwargs)

    monkeypatch.setattr(case_view, "load_cases", spy)
    found = case_view.find_case("negative.zero/at-defaults", None, None)
    assert (found.path.parent.name, found.path.name) == ("negative", "zero.json")
    assert globs == ["negative/zero.json"]
    # An id that is not its file's group and name: cases/published/trec_eval-test-aqc.json.
    globs.clear()
    found = case_view.find_case("published.trec_eval-test/aqc-ndcg", None, None)
    assert found.path.name == "trec_eval-test-aqc.json"
    assert globs == [None]


def test_a_computed_id_is_the_input_under_the_configuration_its_fingerprint_names(capsys):
    keep = Config.from_mapping({"negative": "keep"})
    status, out, _ = shown(
        capsys, f"negative.zero/at-defaults@{keep.fingerprint()}", "-m", keep.canonical()
    )
    # Under negative=keep d1's gain is -1: DCG = -1 + 2/log2(3), IDCG = 2 (the ideal list of
    # `judged` leaves out gains not above zero), nDCG = 1/log2(3) - 1/2 = 0.13092975357...
    assert status == 0
    assert "input of: negative.zero/at-defaults" in out
    assert "q1: nDCG 0.13092975357" in out


def test_an_unknown_id_or_fingerprint_is_one_line(capsys):
    status, _, err = shown(capsys, "nothing/here")
    assert status == 2 and err.count("\n") == 1 and "no case 'nothing/here'" in err
    status, _, err = shown(capsys, "negative.zero/at-defaults@0000")
    assert status == 2 and err.count("\n") == 1 and "--report" in err


FIXTURES = Path(__file__).parents[1] / "fixtures" / "harness_cases" / "fixtures.json"


def _without_an_id(path: Path) -> bytes:
    content = json.loads(FIXTURES.read_text())
    del content["cases"][0]["id"]
    return json.dumps(content).encode()


def _cases_a_string(path: Path) -> bytes:
    return json.dumps({**json.loads(FIXTURES.read_text()), "cases": "none"}).encode()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (lambda _: b"not json\n", ": /: invalid JSON at line 1 column 1"),
        (lambda _: b"[1]\n", ": /: [1] is not of type 'object'"),
        (_without_an_id, ": /cases/0: 'id' is a required property"),
        (_cases_a_string, ": /cases: 'none' is not of type 'array'"),
        (lambda _: b'{"cases": [{"id": "\xff"}]}', ": /: not UTF-8: invalid start byte"),
    ],
    ids=["not-json", "a-list", "a-case-without-id", "cases-a-string", "not-utf-8"],
)
def test_a_bad_case_file_is_one_line_naming_it(tmp_path: Path, content, problem: str) -> None:
    # Each was a traceback (JSONDecodeError, AttributeError, KeyError, UnicodeDecodeError).
    (tmp_path / "bad.json").write_bytes(content(tmp_path))
    done = ndcgspec("cases", "show", "fx/perfect", "--cases-dir", str(tmp_path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"ndcgspec: error: {tmp_path / 'bad.json'}{problem}")
    assert done.stderr.count("\n") == 1, done.stderr


def test_a_missing_cases_dir_is_named(tmp_path: Path) -> None:
    done = ndcgspec("cases", "show", "fx/perfect", "--cases-dir", str(tmp_path / "absent"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"ndcgspec: error: {tmp_path / 'absent'}: not a folder of case files\n"


def test_an_id_not_in_a_cases_dir_names_the_folder(tmp_path: Path, capsys) -> None:
    (tmp_path / "fixtures.json").write_text(FIXTURES.read_text())
    status, _, err = shown(capsys, "fx/absent", "--cases-dir", str(tmp_path))
    assert (status, err) == (2, f"ndcgspec: error: no case 'fx/absent' in {tmp_path}\n")


@pytest.mark.parametrize("case_id", ["x" * 100_000, "negative.zero/at-defaults@" + "0" * 100_000])
def test_a_huge_id_is_shortened_in_the_message(capsys, case_id: str) -> None:
    status, _, err = shown(capsys, case_id)
    assert status == 2 and err.count("\n") == 1
    # At most 80 characters of the id (reprlib's cut) in a sentence of under 220.
    assert len(err) < 300, len(err)


def test_a_report_of_invalid_utf_8_is_one_line_naming_it(tmp_path: Path) -> None:
    report = tmp_path / "run.jsonl"
    report.write_bytes(b'{"type": "header"}\n\xff\xfe\n')
    done = ndcgspec("cases", "show", "negative.zero/at-defaults@0000", "--report", str(report))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"ndcgspec: error: {report}: cannot read report: ")
    assert done.stderr.count("\n") == 1, done.stderr


def test_a_reports_configuration_the_spec_lacks_names_the_report(tmp_path: Path, capsys) -> None:
    case_id = "negative.zero/at-defaults@0000"
    header = {
        "type": "header",
        "report_format": 1,
        "harness_version": "0",
        "spec_version": "0",
        "protocol_version": 1,
        "command": "run",
        "started": "0",
        "adapter": {"name": "a", "version": "0", "float_width": 64},
    }
    result = {"type": "result", "id": case_id, "outcome": "fail", "config": {"gain": "cubic"}}
    report = tmp_path / "run.jsonl"
    report.write_text(json.dumps(header) + "\n" + json.dumps(result) + "\n")
    status, _, err = shown(capsys, case_id, "--report", str(report))
    assert status == 2
    assert err.startswith(
        f"ndcgspec: error: {report}: the configuration of '{case_id}': unknown choice 'cubic'"
    )
