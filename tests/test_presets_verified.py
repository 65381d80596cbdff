"""Every preset of spec/presets.yaml that names a library is checked by running that library.

The library's built-in adapter is asked for the preset's configuration on every probe input
derived from the golden cases; the expected values come from the exact reference under the
preset's configuration, so a preset that misdescribes its library fails here. A departure the
preset declares must still happen exactly as declared, on exactly its cases. A preset whose
library is not installed is skipped with the extra that installs it.
"""

from __future__ import annotations

import importlib.util
from functools import cache

import pytest

from ndcgspec.harness.adapters.base import load_adapter
from ndcgspec.harness.adapters.registry import PEER_ADAPTERS, PRESET_ADAPTERS
from ndcgspec.harness.analysis.preset_check import verify_preset
from ndcgspec.harness.analysis.probes import ProbeInput, probe_inputs

SHOWN = 8


@cache
def _probes() -> tuple[ProbeInput, ...]:
    return tuple(probe_inputs())


def _module_of(adapter: str) -> str:
    return PEER_ADAPTERS[adapter].split(":")[0]


def _library_installed(adapter: str) -> bool:
    module = _module_of(adapter)
    imports = {
        "ndcgspec.harness.adapters.peers.pytrec_eval": "pytrec_eval",
        "ndcgspec.harness.adapters.peers.ir_measures": "ir_measures",
        "ndcgspec.harness.adapters.peers.ranx": "ranx",
        "ndcgspec.harness.adapters.peers.sklearn": "sklearn",
        "ndcgspec.harness.adapters.peers.torchmetrics": "torchmetrics",
        "ndcgspec.harness.adapters.peers.lightgbm": "lightgbm",
        "ndcgspec.harness.adapters.peers.xgboost": "xgboost",
        "ndcgspec.harness.adapters.peers.catboost": "catboost",
    }
    return importlib.util.find_spec(imports[module]) is not None


@pytest.mark.parametrize("preset_id", sorted(PRESET_ADAPTERS))
def test_preset_matches_its_library(preset_id: str) -> None:
    adapter_name = PRESET_ADAPTERS[preset_id]
    if not _library_installed(adapter_name):
        pytest.skip(f"{adapter_name} is not installed (pip install 'ndcgspec[peers]')")
    check = verify_preset(preset_id, adapter_name, _probes())
    problems = check.problems()
    ran = len(check.passed) + len(check.departed) + len(check.failed) + len(check.errors)
    assert check.passed, f"no case of preset {preset_id} ran"
    assert not problems, (
        f"preset {preset_id} misdescribes {adapter_name} {load_adapter(adapter_name).version} "
        f"on {len(problems)} cases ({ran} ran, {len(check.departed)} departing as declared):\n  "
        + "\n  ".join(problems[:SHOWN])
    )
