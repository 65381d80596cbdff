"""The built-in adapters of other implementations: lazy imports, a missing library's message,
a crash of the library coming out as an error outcome, and the derived probes."""

from __future__ import annotations

import ast
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from install_hints import names_extras, needing

from ndcgspec.harness.adapters import peers
from ndcgspec.harness.adapters.base import AdapterError, load_adapter
from ndcgspec.harness.adapters.peers.common import require
from ndcgspec.harness.adapters.peers.numpy_snippet import tutorial_ndcg
from ndcgspec.harness.registry import PEER_ADAPTERS, adapter_target
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.survey.probes import ProbeInput, ask, spread_ties

PEERS_FOLDER = Path(peers.__file__).parent


def test_a_missing_library_names_the_extra_and_what_it_installs() -> None:
    with pytest.raises(AdapterError) as raised:
        require("ndcgspec_no_such_module", "sklearn")
    assert str(raised.value).startswith("cannot import ndcgspec_no_such_module (No module named")
    assert names_extras(str(raised.value), ["sklearn"])


def test_peer_modules_import_no_library() -> None:
    modules = sorted({target.split(":")[0] for target in PEER_ADAPTERS.values()})
    # Every library a peer defers, as its `require` calls name them: each top-level package.
    libraries = sorted(
        {
            str(node.args[0].value).split(".")[0]
            for path in PEERS_FOLDER.glob("*.py")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "require"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        }
    )
    assert {"sklearn", "torch", "ranx", "pyltr"} <= set(libraries), libraries
    script = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"print([name for name in {libraries!r} if name in sys.modules])"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == "[]"


def test_tutorial_snippet_one_relevant_document_second() -> None:
    # Relevant document at rank 2 of 2: DCG = 1/log2(3), IDCG = 1.
    value = tutorial_ndcg(np.array([1.0, 0.0]), np.array([0.2, 0.9]), None)
    assert value == pytest.approx(1 / math.log2(3), rel=4 * 2**-53)


def test_tutorial_snippet_scores_nothing_relevant_as_zero() -> None:
    assert tutorial_ndcg(np.array([0.0, 0.0]), np.array([0.2, 0.9]), 5) == 0.0


@needing("catboost", "catboost")
def test_a_segfaulting_library_is_an_error_and_the_run_goes_on() -> None:
    # catboost.utils.eval_metric([], [], "NDCG", group_id=[]) dies with SIGSEGV: an empty run.
    empty = ProbeInput("empty-run", (("q1", "d1", "1"),), (), Config.default())
    fine = ProbeInput("one-doc", (("q1", "d1", "1"),), (("q1", "d1", "1"),), Config.default())
    asked = Config.from_mapping({"ideal": "retrieved", "ties": "pessimistic", "empty": "one"})
    answers = ask(adapter_command("catboost", None), [(empty, asked), (fine, asked)])
    crashed = answers[("empty-run", asked.full())].result
    assert "SIGSEGV" in crashed["error"]
    assert answers[("one-doc", asked.full())].result["per_query"] == {"q1": 1.0}


def test_spread_ties_reverses_the_tie_rule_by_a_relative_gap() -> None:
    probe = ProbeInput(
        "p",
        (("q", "a", "1"),),
        (("q", "a", "2"), ("q", "b", "2"), ("q", "c", "1")),
        Config.default(),
    )
    spread = spread_ties(probe, "input")
    assert spread is not None
    # Input order a, b: a gets the lower score, b is 2 + 2 * 1e-9 higher.
    assert [r[2] for r in spread.run] == ["2", "2.000000002", "1"]
    by_docid = spread_ties(probe, "docid-desc")
    assert by_docid is not None
    # docid-desc ranks b first, so b gets the lower score.
    assert [r[2] for r in by_docid.run] == ["2.000000002", "2", "1"]


def test_spread_ties_needs_a_tie() -> None:
    probe = ProbeInput(
        "p", (("q", "a", "1"),), (("q", "a", "2"), ("q", "b", "1")), Config.default()
    )
    assert spread_ties(probe, "input") is None


# Importing ranx compiles its sources, whose strings hold LaTeX escapes it does not mean.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", ["ranx", "ir_measures-ranx", "rankereval"])
def test_an_adapter_whose_library_compiles_in_each_process_runs_one(name: str) -> None:
    """ranx and rankerEval compile their kernels (numba) in each process on first use: a
    second process compiles them all again (ir_measures-ranx's cold identify took 30.5 s, 44 s
    of CPU, with two)."""
    try:
        adapter = load_adapter(adapter_target(name))
    except AdapterError as error:
        pytest.skip(f"{name}'s library is not installed: {error}")
    assert adapter.processes == 1
