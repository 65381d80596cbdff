"""The versions a report records: the harness, the golden suite and the protocol."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

from ndcgspec.harness.running.protocol import protocol_version
from ndcgspec.spec import load_spec


def harness_version() -> str:
    """The installed version of ndcgspec."""
    try:
        return package_version("ndcgspec")
    except PackageNotFoundError:
        return "unknown"


def spec_version() -> str:
    """``spec_version`` of ``spec/ndcg.yaml``."""
    return str(load_spec()["spec_version"])


def version_line() -> str:
    """What ``ndcgspec --version`` prints: the software's version and the spec's, which are
    different things (a spec version names what is computed, ``ndcg.definition.versions``)."""
    return f"ndcgspec {harness_version()} (spec {spec_version()})"


def versions() -> dict[str, str | int]:
    """Harness, spec and protocol versions, as a report header lists them."""
    return {
        "harness_version": harness_version(),
        "spec_version": spec_version(),
        "protocol_version": protocol_version(),
    }
