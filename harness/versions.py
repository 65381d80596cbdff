"""The versions a report records: the harness, the golden suite and the protocol."""

from __future__ import annotations

import ndcgspec
from ndcgspec.harness.protocol import protocol_version
from ndcgspec.spec import load_spec


def spec_version() -> str:
    """``spec_version`` of ``spec/ndcg.yaml``."""
    return str(load_spec()["spec_version"])


def version_line() -> str:
    """What ``ndcgspec --version`` prints: the software's version and the spec's, which are
    different things (a spec version names what is computed, ``ndcg.definition.versions``)."""
    return f"ndcgspec {ndcgspec.__version__} (spec {spec_version()})"


def versions() -> dict[str, str | int]:
    """Harness, spec and protocol versions, as a report header lists them."""
    return {
        "harness_version": ndcgspec.__version__,
        "spec_version": spec_version(),
        "protocol_version": protocol_version(),
    }
