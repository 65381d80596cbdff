"""The import directions of the README's map: each package folder of ndcgspec, and the packages
it may import, are read from the map's table, so the README states the rule once and these
tests hold the code to it. Every module is checked, imports inside functions included; the map
itself must be free of cycles, so the code is too. Only the peer adapters, which run in worker
processes, touch a peer library."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
README = REPO_ROOT / "README.md"
NOT_PACKAGES = {"tests", "benchmarks"}
"""Rows of the map that are not installed packages: they may import everything."""

PEER_FOLDER = REPO_ROOT / "harness" / "adapters" / "peers"
SPARK_FOLDER = REPO_ROOT / "spark"
SPARK_LIBRARIES = {"pyspark", "pandas"}
"""What the Spark package may import, inside functions only: pyspark and the pandas frames of
its mapInPandas."""
MODULE_STRING = re.compile(r"ndcgspec(\.[a-z_]+)+(:[A-Za-z_]+)?")
API_MODULES = {p.stem for p in (REPO_ROOT / "api").glob("*.py")} - {"__init__"}
"""The modules of the top-level package ``ndcgspec`` itself (the folder ``api/``)."""


@cache
def the_map() -> dict[str, set[str]]:
    """Each package of the README's map table (``harness.adapters`` for the folder
    ``harness/adapters/``) and the packages its last column says it may import."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## The map") :]
    rows = re.findall(r"^\| `([a-z_/]+)/` \|.*\| ([^|]+) \|$", section, re.M)
    allowed = {
        folder.replace("/", "."): set(re.findall(r"`([a-z_.]+)`", column))
        for folder, column in rows
        if folder not in NOT_PACKAGES
    }
    assert allowed, "the README's map has no rows"
    return allowed


def top_packages() -> set[str]:
    """The top-level folders of the map's packages."""
    return {room.split(".")[0] for room in the_map()}


def room_of_folder(path: Path) -> str:
    """The package of the map a module file lies in: its deepest folder with a row."""
    parts = path.relative_to(REPO_ROOT).parent.parts
    for depth in range(len(parts), 0, -1):
        name = ".".join(parts[:depth])
        if name in the_map():
            return name
    raise AssertionError(f"{path.relative_to(REPO_ROOT)} lies in no package of the map")


def room_of_import(name: str) -> str | None:
    """The package of the map a dotted name imported from ndcgspec lies in, or None outside
    ndcgspec."""
    parts = name.split(".")
    if parts[0] != "ndcgspec":
        return None
    if len(parts) == 1 or parts[1] in API_MODULES:
        return "api"
    for depth in range(len(parts) - 1, 0, -1):
        if (room := ".".join(parts[1 : depth + 1])) in the_map():
            return room
    raise AssertionError(f"{name} lies in no package of the map")


@cache
def syntax_tree(path: Path) -> ast.Module:
    """The parsed module, parsed once for every test that walks it (none changes it)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def package_modules() -> Iterator[Path]:
    """Every Python module of every installed package."""
    for top in top_packages():
        yield from sorted((REPO_ROOT / top).rglob("*.py"))


def imported_names(path: Path) -> Iterator[str]:
    """The dotted names a module imports, at any depth (function-level imports included), and
    the module names it passes to `require`, the peer adapters' deferred import, or names in a
    string (``ndcgspec.survey.matrix``, ``ndcgspec.harness.adapters.reference:Adapter``)."""
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        else:
            yield from _names_of_node(node)


def _names_of_node(node: ast.AST) -> Iterator[str]:
    """What one node of a module imports, but for ``from module import names``."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "require"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ):
        yield str(node.args[0].value)
    elif (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and MODULE_STRING.fullmatch(node.value)
        and node.value.split(".")[1].partition(":")[0] in top_packages()
    ):
        # A module named in a string is imported by name: the command line's table of
        # subcommands, the registry of built-in adapters, packaged resources.
        yield node.value.partition(":")[0]


@cache
def module_files() -> dict[str, Path]:
    """Every installed module's dotted name → its file (``ndcgspec.reference.gain`` →
    ``reference/gain.py``; a package's name → its ``__init__.py``)."""
    out = {}
    for path in package_modules():
        parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts[0] == "api":
            parts.pop(0)
        out[".".join(["ndcgspec", *parts])] = path
    return out


def imported_modules(path: Path) -> Iterator[str]:
    """The ndcgspec modules a module imports at any depth, each name resolved to the deepest
    module it lies in: ``from package import module`` is the module (not the package's
    ``__init__``, which every submodule's import runs first, and so no cycle of its own)."""
    modules = module_files()
    names = []
    # The package names a module keeps in a constant of its own (the registry's `PEERS`), as
    # opposed to one passed once, as a packaged resource's is.
    strings = {
        node.value.value
        for node in syntax_tree(path).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            names += _names_of_node(node)
    for name in names:
        if name in modules and modules[name].name == "__init__.py" and name in strings:
            # A package named in a module's constant is loaded module by module (the registry
            # reads the peer adapters' names from the peers package): it imports each of them.
            yield from (m for m in modules if m.startswith(f"{name}."))
            continue
        parts = name.split(".")
        for depth in range(len(parts), 0, -1):
            if (module := ".".join(parts[:depth])) in modules:
                yield module
                break


def module_graph() -> dict[str, set[str]]:
    """Each installed module → the other modules it imports."""
    return {
        name: {m for m in imported_modules(path) if m != name}
        for name, path in module_files().items()
    }


def test_no_two_modules_import_each_other_even_inside_functions() -> None:
    # A cycle hidden in a function-level import is still a cycle: neither module can be
    # understood, tested or moved without the other.
    try:
        list(TopologicalSorter(module_graph()).static_order())
    except CycleError as cycle:
        pytest.fail(f"modules import each other in a cycle: {' -> '.join(cycle.args[1])}")


def test_nothing_imports_the_commands() -> None:
    # The command line is the top floor: what a command computes lives in a library package
    # below it, which other commands, the harness and users import.
    importers = [
        f"{module} imports {imported}"
        for module, imported_set in sorted(module_graph().items())
        if not module.startswith("ndcgspec.commands")
        for imported in sorted(imported_set)
        if imported.startswith("ndcgspec.commands")
    ]
    assert importers == []


def top_level(name: str) -> str:
    return name.split(".")[0]


def crossings() -> set[tuple[str, str, str]]:
    """(importing package, imported package, where) for every import between two packages."""
    found = set()
    for path in package_modules():
        source = room_of_folder(path)
        for name in imported_names(path):
            target = room_of_import(name)
            if target is not None and target != source:
                found.add((source, target, f"{path.relative_to(REPO_ROOT)} imports {name}"))
    return found


def test_every_package_folder_has_a_row_of_the_map() -> None:
    folders = {
        ".".join(init.parent.relative_to(REPO_ROOT).parts)
        for top in top_packages()
        for init in (REPO_ROOT / top).rglob("__init__.py")
    }
    assert folders == set(the_map())


def test_the_map_names_only_its_own_packages_and_has_no_cycle() -> None:
    rooms = the_map()
    assert {name for allowed in rooms.values() for name in allowed} <= set(rooms)
    try:
        list(TopologicalSorter(rooms).static_order())
    except CycleError as cycle:
        pytest.fail(f"the README's map has a cycle: {cycle.args[1]}")


def test_no_module_uses_a_relative_import() -> None:
    # Relative imports would hide a package crossing from the checks below.
    relative = [
        str(path.relative_to(REPO_ROOT))
        for path in package_modules()
        for node in ast.walk(syntax_tree(path))
        if isinstance(node, ast.ImportFrom) and node.level
    ]
    assert relative == []


def test_every_import_between_packages_is_one_the_map_allows() -> None:
    rooms = the_map()
    assert [
        where for source, target, where in sorted(crossings()) if target not in rooms[source]
    ] == []


def test_the_imports_between_packages_form_no_cycle() -> None:
    graph: dict[str, set[str]] = {room: set() for room in the_map()}
    for source, target, _ in crossings():
        graph[source].add(target)
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError as cycle:
        pytest.fail(f"the packages import each other in a cycle: {cycle.args[1]}")


def test_every_allowed_import_is_used() -> None:
    # The map states what the code does, not a wider permission.
    used = {(source, target) for source, target, _ in crossings()}
    unused = [(s, t) for s, allowed in the_map().items() for t in allowed if (s, t) not in used]
    assert unused == []


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
        for path in package_modules()
        if PEER_FOLDER not in path.parents
        for name in imported_names(path)
        if top_level(name) in libraries
        and not (SPARK_FOLDER in path.parents and top_level(name) in SPARK_LIBRARIES)
    ]
    assert outside == []


def _module_level_imports(path: Path) -> Iterator[str]:
    """The modules a file imports at module level, outside ``if TYPE_CHECKING:``."""
    for node in syntax_tree(path).body:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_the_spark_package_imports_pyspark_only_inside_functions() -> None:
    # `import ndcgspec` (and the score command without --engine spark) must not need pyspark.
    eager = [
        f"{path.relative_to(REPO_ROOT)} imports {name} at module level"
        for path in sorted(SPARK_FOLDER.rglob("*.py"))
        for name in _module_level_imports(path)
        if top_level(name) in SPARK_LIBRARIES
    ]
    assert eager == []
    assert {"pyspark"} <= {
        top_level(n) for p in sorted(SPARK_FOLDER.rglob("*.py")) for n in imported_names(p)
    }


def test_importing_ndcgspec_and_its_spark_package_loads_no_pyspark() -> None:
    code = (
        "import sys, ndcgspec, ndcgspec.spark, ndcgspec.commands.score; "
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
        for node in syntax_tree(path).body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "", None)]
        )
        if top_level(alias.name) in libraries
    ]
    assert eager == []


JSON_SHAPED = re.compile(r"\b(dict|Dict|Mapping|MutableMapping)\[str, (Any|object)\]")
JSON_SHAPED_SIGNATURES_AT_MOST = 77
"""Counted this way, 327 before issue 39's typed records, which that issue wants down by three
quarters: records pass between modules, and a JSON-shaped dict stays only where JSON is read or
written (and in the adapter SDK's public ``compute(case_input, config)``, which users' adapters
implement). Lower it as records replace more; it may never rise."""


def json_shaped_aliases(tree: ast.Module) -> set[str]:
    """The names a module gives a JSON-shaped dict type (``Row = dict[str, Any]``), so that a
    signature written with the alias is counted as what it is."""
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and JSON_SHAPED.fullmatch(ast.unparse(node.value))
    }


def json_shaped_signatures() -> list[str]:
    """Each parameter or return annotated with ``dict[str, Any]`` or ``Mapping[str, Any]`` (or
    ``object`` for ``Any``, or a module's alias of one) in a function of an installed package, as
    ``path:line name``."""
    found = []
    for path in package_modules():
        tree = syntax_tree(path)
        aliases = json_shaped_aliases(tree)
        shaped = (
            re.compile(rf"{JSON_SHAPED.pattern}|\b({'|'.join(sorted(aliases))})\b")
            if aliases
            else JSON_SHAPED
        )
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            a = node.args
            named = [(arg.arg, arg.annotation) for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
            named += [(arg.arg, arg.annotation) for arg in (a.vararg, a.kwarg) if arg]
            named.append(("return", node.returns))
            found += [
                f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.name} {name}"
                for name, annotation in named
                if annotation is not None and shaped.search(ast.unparse(annotation))
            ]
    return found


def test_json_shaped_dicts_in_signatures_do_not_grow() -> None:
    found = json_shaped_signatures()
    assert len(found) <= JSON_SHAPED_SIGNATURES_AT_MOST, "\n".join(found)
