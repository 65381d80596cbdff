"""The probe inputs kept between processes (`survey.probes.probe_inputs`): what a later process
reads back is what the case files hold, and a case file that changes is read again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ndcgspec.suite.load import case_files, cases_root
from ndcgspec.survey import probes


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NDCGSPEC_CACHE_DIR", str(tmp_path))
    return tmp_path


def first_inline_case(path: Path) -> dict:
    """The first case of a case file with an input of its own, read as plain JSON."""
    content = json.loads(path.read_text(encoding="utf-8"))
    return next(c for c in content["cases"] if "input" in c and "input_of" not in c)


def test_the_kept_inputs_are_the_case_files_own(cache: Path) -> None:
    computed = probes.probe_inputs.__wrapped__(2)
    assert list((cache / "probe-inputs").iterdir())
    read_back = probes.probe_inputs.__wrapped__(2)
    assert read_back == computed
    by_id = {p.case_id: p for p in read_back}
    for path in case_files()[:20]:
        case = first_inline_case(path)
        probe = by_id[case["id"]]
        assert probe.qrels == tuple(tuple(r) for r in case["input"]["qrels"])
        assert probe.run == tuple(tuple(r) for r in case["input"]["run"])
        assert probe.config.to_mapping() == probes.Config.from_mapping(case["config"]).to_mapping()


def test_a_changed_case_file_is_read_again(cache: Path, tmp_path: Path, monkeypatch) -> None:
    # A copy of two case files stands for the suite, so that touching one disturbs no other test.
    root = tmp_path / "cases"
    for path in case_files()[:2]:
        copy = root / path.relative_to(cases_root())
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(probes, "cases_root", lambda: root)
    calls = []
    monkeypatch.setattr(probes, "_probe_rows", lambda n: calls.append(n) or [])
    assert probes.probe_inputs.__wrapped__(1) == ()
    assert probes.probe_inputs.__wrapped__(1) == ()
    assert calls == [1]
    # The same bytes with another modification time: a file the key cannot tell unchanged.
    changed = case_files(root)[0]
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert probes.probe_inputs.__wrapped__(1) == ()
    assert calls == [1, 1]
