"""The import directions the README's map states: the spec is data, the reference is the
definition and imports neither engine nor harness, the engine builds on the reference alone,
and only the peer adapters, which run in worker processes, touch a peer library."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

MAY_IMPORT: dict[str, set[str]] = {
    "spec": {"spec"},
    "reference": {"spec", "reference"},
    "engine": {"spec", "reference", "engine"},
    "harness": {"spec", "reference", "engine", "harness", "cases", "spark"},
    "api": {"spec", "reference", "engine", "harness", "api"},
    # Spark scoring: executors run the engine on their queries; the harness's score command
    # reaches it only for --engine spark.
    "spark": {"spec", "reference", "engine", "spark"},
}
"""Each installed package of ndcgspec and the packages of ndcgspec it may import."""

PEER_FOLDER = REPO_ROOT / "harness" / "adapters" / "peers"
SPARK_FOLDER = REPO_ROOT / "spark"
SPARK_LIBRARIES = {"pyspark", "pandas"}
"""What the Spark package may import, inside functions only: pyspark and the pandas frames of
its mapInPandas."""
API_MODULES = {p.stem for p in (REPO_ROOT / "api").glob("*.py")} - {"__init__"}
"""The modules of the top-level package ``ndcgspec`` itself (the folder ``api/``)."""


def modules_of(folder: str) -> Iterator[Path]:
    """Every Python module of one top-level package folder."""
    yield from sorted((REPO_ROOT / folder).rglob("*.py"))


def imported_names(path: Path) -> Iterator[str]:
    """The dotted names a module imports, at any depth (function-level imports included), and
    the module names it passes to `require`, the peer adapters' deferred import."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "require"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            yield str(node.args[0].value)


def top_level(name: str) -> str:
    return name.split(".")[0]


def ndcgspec_package(name: str) -> str | None:
    """The package of ndcgspec that a dotted name lies in, or None outside ndcgspec."""
    parts = name.split(".")
    if parts[0] != "ndcgspec":
        return None
    if len(parts) == 1 or parts[1] in API_MODULES:
        return "api"
    return parts[1]


def test_no_module_uses_a_relative_import_across_packages() -> None:
    # Relative imports would hide a package crossing from the checks below.
    for folder in MAY_IMPORT:
        for path in modules_of(folder):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
            assert not relative, f"{path.relative_to(REPO_ROOT)} uses a relative import"


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_package_imports_only_what_the_map_allows(package: str) -> None:
    crossings = [
        f"{path.relative_to(REPO_ROOT)} imports {name}"
        for path in modules_of(package)
        for name in imported_names(path)
        if (target := ndcgspec_package(name)) is not None and target not in MAY_IMPORT[package]
    ]
    assert crossings == []


def peer_libraries() -> set[str]:
    """The top-level modules the peer adapters import that ndcgspec itself does not need:
    whatever the peer folder imports, less the standard library, numpy and ndcgspec."""
    names = {top_level(n) for path in PEER_FOLDER.glob("*.py") for n in imported_names(path)}
    return names - set(sys.stdlib_module_names) - {"numpy", "ndcgspec", "__future__"}


def test_the_peer_libraries_are_found() -> None:
    # The check below is only as good as this list: it must see every library of the peers.
    assert {"pytrec_eval", "ir_measures", "ranx", "sklearn", "torch", "catboost"} <= (
        peer_libraries()
    )


def test_only_the_peer_adapters_import_a_peer_library() -> None:
    libraries = peer_libraries()
    outside = [
        f"{path.relative_to(REPO_ROOT)} imports {name}"
        for folder in MAY_IMPORT
        for path in modules_of(folder)
        if PEER_FOLDER not in path.parents
        for name in imported_names(path)
        if top_level(name) in libraries
        and not (SPARK_FOLDER in path.parents and top_level(name) in SPARK_LIBRARIES)
    ]
    assert outside == []


def _module_level_imports(path: Path) -> Iterator[str]:
    """The modules a file imports at module level, outside ``if TYPE_CHECKING:``."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_the_spark_package_imports_pyspark_only_inside_functions() -> None:
    # `import ndcgspec` (and the score command without --engine spark) must not need pyspark.
    eager = [
        f"{path.relative_to(REPO_ROOT)} imports {name} at module level"
        for path in modules_of("spark")
        for name in _module_level_imports(path)
        if top_level(name) in SPARK_LIBRARIES
    ]
    assert eager == []
    assert {"pyspark"} <= {top_level(n) for p in modules_of("spark") for n in imported_names(p)}


def test_importing_ndcgspec_and_its_spark_package_loads_no_pyspark() -> None:
    code = (
        "import sys, ndcgspec, ndcgspec.spark, ndcgspec.harness.score; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'pandas')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


def test_peer_adapters_import_their_library_only_when_built() -> None:
    # Module-level imports would load the library in whichever process imports the adapter
    # module; the harness imports none, and a worker loads one only when it builds the adapter.
    libraries = peer_libraries()
    eager = [
        f"{path.relative_to(REPO_ROOT)} imports {alias.name} at module level"
        for path in sorted(PEER_FOLDER.glob("*.py"))
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "", None)]
        )
        if top_level(alias.name) in libraries
    ]
    assert eager == []
