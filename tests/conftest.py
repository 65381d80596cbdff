"""Shared fixtures and hypothesis strategies: the shared data folder (found as every command
finds it, ``suite/folders.py``), and configurations drawn from the spec's own axes,
choice ids and parameter bounds (never restated here)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from ndcgspec.spec import load_spec
from ndcgspec.suite.folders import UNKNOWN, data_root, trec_eval_source

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = Path(__file__).resolve().parent

# Expected values computed during the tests are cached for the session alone, never read from a
# user's cache (``suite/expected_cache.py``); the session's worker processes, which inherit the
# controller's environment, share its folder. A caller may name the folder itself: CI's pinned
# job gives its steps one new folder (`.ci/run`), so that a value is computed once per CI run.
if "NDCGSPEC_TEST_CACHE" not in os.environ:
    os.environ["NDCGSPEC_TEST_CACHE"] = tempfile.mkdtemp(prefix="ndcgspec-cache-")
os.environ["NDCGSPEC_CACHE_DIR"] = os.environ["NDCGSPEC_TEST_CACHE"]

# Where the machine says not to write bytecode (PYTHONDONTWRITEBYTECODE), each of the hundreds
# of processes the tests start (workers, adapters, the command line) would compile numpy, mpmath
# and ndcgspec from their sources again: over half the suite's CPU. The session's processes keep
# their bytecode in a folder of the session's own instead, removed when it ends, and nothing is
# written beside the sources.
SESSION_BYTECODE: str | None = None
if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTEST_XDIST_WORKER" not in os.environ:
    SESSION_BYTECODE = tempfile.mkdtemp(prefix="ndcgspec-bytecode-")
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = SESSION_BYTECODE
    sys.pycache_prefix, sys.dont_write_bytecode = SESSION_BYTECODE, False

# Property tests: CI draws every example a test names (the profile `ci`, loaded where the
# environment variable CI is set, or by --hypothesis-profile=ci); the README's command, run on
# every change, a quarter of them (`examples`). The examples differ from run to run, and one
# that failed is tried first the next time, from Hypothesis's database.
EXAMPLE_SHARE = 4
settings.register_profile("ci", max_examples=100)
settings.register_profile("dev", max_examples=100 // EXAMPLE_SHARE)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def examples(count: int) -> int:
    """The examples of a property test that names `count`: all of them under the profile
    `ci`, a quarter (at least 10) otherwise."""
    if settings.get_current_profile_name() == "ci":
        return count
    return max(10, count // EXAMPLE_SHARE)


# The deliberately wrong adapters of `fakes` are test code, not product: adapters run in child
# processes, which find them through PYTHONPATH.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(TESTS_DIR), os.environ.get("PYTHONPATH")) if p
)


def _shared(found: Path | None, present: Callable[[Path], bool], what: str) -> Path:
    """`found` inside the shared folder; the test skips when no shared folder is known or
    `found` is absent."""
    if found is None:
        pytest.skip(UNKNOWN)
    if not present(found):
        pytest.skip(f"{what} {found} is absent")
    return found


def pytest_unconfigure(config: pytest.Config) -> None:
    if SESSION_BYTECODE is not None:
        shutil.rmtree(SESSION_BYTECODE, ignore_errors=True)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared real-data folder; the test skips when it is absent or none is known."""
    return _shared(data_root(), Path.is_dir, "real data folder")


@pytest.fixture(scope="session")
def trec_eval_tarball() -> Path:
    """The shared trec_eval source tarball; the test skips when it is absent or no shared
    folder is known."""
    return _shared(trec_eval_source(), Path.is_file, "trec_eval source")


def choice_axes() -> list[dict[str, Any]]:
    """The spec's axes that are a choice among named conventions."""
    return [a for a in load_spec()["axes"] if "choices" in a]


def spec_param(name: str) -> dict[str, Any]:
    """The spec entry of parameter `name`."""
    return next(p for a in choice_axes() for p in a.get("params", []) if p["id"] == name)


def decimals_within(param: dict[str, Any]) -> st.SearchStrategy[Decimal]:
    """Exact decimals strictly inside the parameter's spec bounds."""
    low = Decimal(param.get("exclusive_minimum", "-100"))
    high = Decimal(param.get("exclusive_maximum", low + 100))
    return st.decimals(min_value=low, max_value=high, places=3).filter(lambda d: low < d < high)


def param_values(param: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of one parameter as a user may write them; gain tables map to gains ≥ 0."""
    kind = param["type"]
    if kind == "label_map":
        labels = st.integers(min_value=-2, max_value=6).map(str)
        gains = st.decimals(min_value=0, max_value=100, places=2).map(str)
        return st.dictionaries(labels, gains, min_size=1, max_size=5)
    within = decimals_within(param)
    written = st.one_of(within.map(str), within.map(lambda d: f"{d}00"))
    return st.one_of(st.just("e"), written) if kind == "log_base" else written


@st.composite
def config_mappings(
    draw: st.DrawFn,
    excluded: Mapping[str, set[str]] | None = None,
    cutoffs: st.SearchStrategy[int | None] | None = None,
) -> dict[str, Any]:
    """A configuration object: a choice per axis (minus `excluded` choice ids), written out
    or left to the default, with some parameters of the chosen choices."""
    values: dict[str, Any] = {}
    for axis in choice_axes():
        allowed = [
            c for c in axis["choices"] if c["id"] not in (excluded or {}).get(axis["id"], ())
        ]
        choice = draw(st.sampled_from(allowed))
        if draw(st.booleans()) or choice["id"] != axis["default"]:
            values[axis["id"]] = choice["id"]
        for name in choice.get("params", []):
            param = spec_param(name)
            if param.get("required") or draw(st.booleans()):
                values[name] = draw(param_values(param))
    values["cutoff"] = draw(
        st.one_of(st.none(), st.integers(1, 1000)) if cutoffs is None else cutoffs
    )
    return values
