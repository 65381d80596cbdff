"""The folders ndcgspec uses outside its package: the cache of computed expected values, and
the shared folder.

The shared folder holds the real data the published cases name (``data/``) and the
trec_eval source (``tools/trec_eval-src.tar.gz``), which belong neither to the project nor to
its wheel. Every command, the pytest plugin, the tests and the benchmarks find it by one rule:

1. ``NDCGSPEC_SHARED``, when set and not empty, names the shared folder;
2. otherwise, when ndcgspec runs from a source checkout (a clone, or an editable install of
   one: the ``pyproject.toml`` that builds the package sits beside the package's source
   folder), the folder ``shared`` beside that checkout, ``../shared`` from its root;
3. otherwise no shared folder is known. An installed wheel is not a checkout, so it finds the
   shared folder through ``NDCGSPEC_SHARED`` alone and never looks inside site-packages.

The folder the rule names need not exist: a published case whose files are absent is skipped
with that reason, never failed (``suite/load.py``)."""

from __future__ import annotations

import os
from pathlib import Path

# The cache folder is the spec package's, whose parsed files are the first thing it keeps.
from ndcgspec.spec import CACHE_ENV as CACHE_ENV
from ndcgspec.spec import cache_root as cache_root

SHARED_ENV = "NDCGSPEC_SHARED"
DATA = Path("data")
TREC_EVAL_SOURCE = Path("tools") / "trec_eval-src.tar.gz"
PACKAGE_SOURCE = Path(__file__).resolve().parent
"""The folder this module runs from: ``suite/`` of a checkout, or ``ndcgspec/suite`` of an
installed package."""
UNKNOWN = (
    f"no shared folder is known: set {SHARED_ENV} to it "
    "(only a source checkout has a default, ../shared)"
)
"""Why nothing of the shared folder can be read when the rule names no folder."""


def shared_root() -> Path | None:
    """The shared folder by the rule above, or None when no folder is known."""
    configured = os.environ.get(SHARED_ENV)
    if configured:
        return Path(configured)
    # An installed package's folder (site-packages/ndcgspec) holds no pyproject.toml.
    checkout = PACKAGE_SOURCE.parent
    if not (checkout / "pyproject.toml").is_file():
        return None
    return checkout.parent / "shared"


def shared_path(relative: Path) -> Path | None:
    """`relative` inside the shared folder, or None when no shared folder is known."""
    root = shared_root()
    return None if root is None else root / relative


def data_root() -> Path | None:
    """The shared data root of the published cases (``data`` in the shared folder), or None
    when no shared folder is known."""
    return shared_path(DATA)


def trec_eval_source() -> Path | None:
    """The trec_eval source tarball in the shared folder, or None when no shared folder is
    known."""
    return shared_path(TREC_EVAL_SOURCE)
