"""``ndcgspec cases show`` prints a stored case, and a computed id run gives an input.

negative.zero/at-defaults (cases/negative/zero.json) ranks d1 (label -1, gain 0 under
negative=zero) above d2 (label 2): DCG = 2/log2(3) = 1.2618595..., IDCG = 2, nDCG =
1/log2(3) = 0.6309297535...
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ndcgspec.commands import case_view
from ndcgspec.commands.cli import main
from ndcgspec.reference import Config
from ndcgspec.suite.load import LoadedCase, iter_cases


@pytest.fixture(scope="module", autouse=True)
def suite_read_once() -> Iterator[None]:
    """`cases show` reads every case file of the suite (47 MB of JSON) to find one case: the
    files are read once for the module's commands, which only look cases up."""
    read: dict[tuple[Any, ...], list[LoadedCase]] = {}

    def cases_once(*args: Any, **kwargs: Any) -> Iterator[LoadedCase]:
        key = (*args, *sorted(kwargs.items()))
        if key not in read:
            read[key] = list(iter_cases(*args, **kwargs))
        return iter(read[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(case_view, "iter_cases", cases_once)
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
