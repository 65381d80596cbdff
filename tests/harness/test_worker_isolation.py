"""Adapters are untrusted: an adapter module, and the peer library it wraps, load only in the
worker processes that serve it (``harness/host.py``). The harness process learns what
it needs from the start reply, so identify, the preset checks and the matrix never import
them."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT
from install_hints import needing

PEER_LIBRARIES = (
    "sklearn",
    "scipy",
    "torch",
    "torchmetrics",
    "lightgbm",
    "xgboost",
    "catboost",
    "pytrec_eval",
    "ir_measures",
    "ranx",
    "trectools",
)
ADAPTER_MODULES = ("ndcgspec.harness.adapters.peers", "fakes")

# Examines the sklearn adapter as `ndcgspec matrix` does in each of its processes (identify,
# the preset checks naming sklearn, the error in ulps, the prediction of fresh queries) on a few
# probes and as many fresh queries, with the one adapter process `matrix -j 2` gives each
# adapter on two cores, then prints which peer libraries and adapter modules the process holds;
# then loads the adapter in process, to show that the same look sees a library once it is
# imported.
EXAMINE = """
import functools, json, sys
from ndcgspec.harness.adapters.base import load_adapter
from ndcgspec.harness.registry import BUILTIN_ADAPTERS
from ndcgspec.survey import identify, matrix, prediction, probes

def held():
    return sorted(
        m for m in sys.modules
        if m.split(".")[0] in LIBRARIES or m.startswith(ADAPTER_MODULES)
    )

few = [p for p in probes.probe_inputs() if p.case_id.startswith(("ties.", "generated."))][:6]
identify.probe_inputs = lambda: few
matrix.predict = functools.partial(prediction.predict, count=len(few))
item = matrix.examine("sklearn", few, processes=1)
during = held()
load_adapter(BUILTIN_ADAPTERS["sklearn"])
print(json.dumps({
    "during": during,
    "after_loading": held(),
    "adapter": item.identification.adapter.to_json(),
    "presets": [check.preset for check in item.presets],
}))
"""


@needing("sklearn", "sklearn")
def test_examining_a_peer_imports_neither_its_adapter_nor_its_library() -> None:
    script = f"LIBRARIES = {set(PEER_LIBRARIES)!r}\nADAPTER_MODULES = {ADAPTER_MODULES!r}\n"
    done = subprocess.run(
        [sys.executable, "-c", script + EXAMINE],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["during"] == []
    assert "sklearn" in found["after_loading"]
    assert "ndcgspec.harness.adapters.peers.sklearn" in found["after_loading"]
    # What the harness knows of the adapter came from the start reply of a worker.
    assert found["adapter"]["name"] == "sklearn"
    assert found["adapter"]["observability"]["sees_unretrieved_labels"] is False
    assert found["presets"] == ["sklearn"]


def calls_of(function: str, path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return sum(
        isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == function
        for node in ast.walk(tree)
    )


def test_only_the_worker_host_loads_an_adapter() -> None:
    loaders = sorted(
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "harness").rglob("*.py")
        if calls_of("load_adapter", path)
    )
    assert loaders == ["harness/host.py"]
