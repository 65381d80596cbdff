"""What the last run judged, kept in the cache folder (``cache_root``) so that ``cases show``
finds a computed id's configuration and the adapter's answer without being given the run's
report: a configuration's fingerprint is not reversible (``reference/config.py``).

One small JSON file per configuration, by fingerprint, and one per failing or erring case, by
a digest of its id; a file is written whole and renamed into place, so that runs side by side
never leave one half written. A cache that cannot be written costs the lookup, never a result.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ndcgspec.reference import Config
from ndcgspec.suite.result import CaseResult

CONFIGURATIONS = "judged-configurations"
RESULTS = "judged-results"


def _write(path: Path, content: Any) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _result_file(root: Path, case_id: str) -> Path:
    return root / RESULTS / f"{hashlib.sha256(case_id.encode('utf-8')).hexdigest()[:32]}.json"


def remember(root: Path | None, results: Sequence[CaseResult]) -> None:
    """Keep the configurations of the run's `results` by fingerprint (those of computed cases,
    whose id is ``case@fingerprint``) and its failing or erring results below `root` (nothing
    when None); a case that no longer fails forgets its old result."""
    if root is None:
        return
    configurations = {r.id.partition("@")[2]: r.config for r in results if "@" in r.id}
    for fingerprint, config in configurations.items():
        path = root / CONFIGURATIONS / f"{fingerprint}.json"
        if not path.exists():
            _write(path, dict(config))
    for record in results:
        path = _result_file(root, record.id)
        if record.outcome in ("fail", "error"):
            _write(path, record.to_json())
        elif path.exists():
            path.unlink(missing_ok=True)


def judged_configuration(root: Path | None, fingerprint: str) -> Config | None:
    """The configuration a run judged under `fingerprint`, or None; a ConfigError when the
    file holds no configuration of the spec."""
    if root is None or not fingerprint.isalnum():
        return None
    found = _read(root / CONFIGURATIONS / f"{fingerprint}.json")
    return Config.from_mapping(found) if isinstance(found, dict) and found else None


def judged_result(root: Path | None, case_id: str) -> CaseResult | None:
    """The last failing or erring result of `case_id`, or None."""
    if root is None:
        return None
    found = _read(_result_file(root, case_id))
    if not isinstance(found, dict) or found.get("id") != case_id:
        return None
    return CaseResult.from_json(found)
