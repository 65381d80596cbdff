"""The built-in adapters, the one registry of their names: each Python adapter's name →
``module:object`` (the reference and the adapters of other nDCG implementations, which each
peer module names itself), each protocol program's name → how it runs, and which adapter each
preset describes (stated in ``spec/presets.yaml``). The harness, which loads the adapters, may
import the peers (``tests/test_architecture.py`` sees the package named here as imported
module by module), and the SDK below them (``harness.adapters``) knows none.

Each target imports its library only when loaded (``harness/adapters/peers/common.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.reference.config import presets

PEERS = "ndcgspec.harness.adapters.peers"
"""The package of the peer adapters, each of whose modules is loaded by the name its
``ADAPTERS`` constant gives (``harness/adapters/peers/common.py``)."""


def declared_peer_adapters() -> dict[str, str]:
    """Each peer module's ``ADAPTERS``, read from its source (importing 20 modules to list
    their names would cost every command that names an adapter): name → ``module:object``,
    the modules in file-name order. A name declared twice is an error naming both modules."""
    found: dict[str, str] = {}
    for path in sorted((Path(__file__).parent / "adapters" / "peers").glob("*.py")):
        for name, attribute in _adapters_constant(path.read_text(encoding="utf-8")).items():
            if name in found:
                raise AdapterError(f"adapter {name!r} named by {found[name]} and {path}")
            found[name] = f"{PEERS}.{path.stem}:{attribute}"
    return found


def _adapters_constant(source: str) -> dict[str, str]:
    """The value of a module's ``ADAPTERS = {...}`` statement (none: empty): from the first
    line that starts with ``ADAPTERS = ``, as many lines as make a statement, parsed alone.
    Parsing the 20 whole modules cost every process that loads the registry 20 ms, every
    adapter host among them."""
    start = f"\n{source}".find("\nADAPTERS = ")
    if start < 0:
        return {}
    lines = source[start:].splitlines(keepends=True)
    for end in range(1, len(lines) + 1):
        try:
            statement = ast.parse("".join(lines[:end])).body[0]
        except SyntaxError:
            continue
        assert isinstance(statement, ast.Assign)
        found: dict[str, str] = ast.literal_eval(statement.value)
        return found
    raise AdapterError(f"ADAPTERS = ... does not end: {lines[0].strip()}")


PEER_ADAPTERS = declared_peer_adapters()


BUILTIN_ADAPTERS: dict[str, str] = {
    "reference": "ndcgspec.harness.adapters.reference:adapter",
    **PEER_ADAPTERS,
}
"""Every built-in Python adapter, served over the protocol by ``harness/host.py``."""

BUILTIN_PROGRAMS: dict[str, tuple[str, str]] = {"node-example": ("node", "ndcg_adapter.mjs")}
"""The built-in protocol programs: name → (interpreter, program file shipped beside this
module)."""


def builtin_names() -> list[str]:
    """Every built-in adapter's name: the Python adapters, then the protocol programs."""
    return [*BUILTIN_ADAPTERS, *BUILTIN_PROGRAMS]


def adapter_target(name: str) -> str:
    """The ``module:object`` a built-in name stands for, or `name` itself when it is one."""
    if name in BUILTIN_ADAPTERS:
        return BUILTIN_ADAPTERS[name]
    module, _, attribute = name.partition(":")
    if not module or not attribute:
        builtins = ", ".join(BUILTIN_ADAPTERS)
        raise AdapterError(
            f"adapter {name!r}: expected a built-in name ({builtins}) or module:object"
        )
    return name


def preset_adapters() -> dict[str, str]:
    """preset id → the built-in adapter of the library it describes, for every preset of
    ``spec/presets.yaml`` that names one (its ``adapter`` field), in file order."""
    return {p.id: p.adapter for p in presets() if p.adapter is not None}
