"""The nDCG specification as data: `ndcg.yaml`, `presets.yaml`, `grammar.yaml`,
`comparison.yaml` and the JSON Schemas.

This package holds no logic beyond locating and parsing those files, and the records they are
read into (`axes.py`, `presets.py`, `grammar.py`, `comparison.py`); everything else in ndcgspec
reads the specification through `load_spec` (anchor ``ndcg``; still the parse of ``ndcg.yaml``,
whose axes ``reference/config.py`` reads into `axes.py`'s records), and as records through
`load_presets`, `load_grammar` (``ndcg.grammar``) and `load_comparison`
(``ndcg.comparison``), whose parses (`load_yaml`) are read only where their JSON Schemas
validate them.

A YAML file's parse is kept in the cache folder (`cache_root`), by the SHA-256 of the file's
bytes, so that a later process reads the same data in about 1 ms instead of parsing 150 KB of
YAML (20-40 ms of every start). The YAML stays the source: an edited file has another digest
and is parsed again; a kept parse that cannot be read is parsed again and replaced.
"""

from __future__ import annotations

import marshal
import os
from functools import cache

from ndcgspec.spec.digest import sha256_hex

# typing and pathlib cost milliseconds of every start (issue 41): the files are read by their
# paths as text. Type checkers read the name TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, TypeVar

    from ndcgspec.spec.comparison import FloatRule
    from ndcgspec.spec.grammar import Grammar
    from ndcgspec.spec.presets import Presets

    # What `kept` keeps: the plain values marshal writes.
    T = TypeVar(
        "T", bound="dict[Any, Any] | list[Any] | tuple[Any, ...] | str | bytes | float | None"
    )

CACHE_ENV = "NDCGSPEC_CACHE_DIR"
"""Where computed values are kept between runs (``~/.cache/ndcgspec`` when unset, nowhere
when set to the empty string): values computed from files (`kept`: the parsed specification
files, the survey's probe inputs) and expected values (`ndcgspec.suite.expected_cache`)."""


def cache_root() -> Path | None:
    """The cache folder, or None when caching is off."""
    from pathlib import Path

    folder = _cache_folder()
    return None if folder is None else Path(folder)


def _cache_folder() -> str | None:
    """`cache_root` as text."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return configured or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ndcgspec")


def spec_file(name: str) -> Path:
    """The packaged file `name` of the specification, such as ``"schema/case.schema.json"``
    (`spec_path`)."""
    from pathlib import Path

    return Path(spec_path(name))


def spec_path(name: str) -> str:
    """The path of the packaged file `name` of the specification: beside this module, since
    ndcgspec is installed as files (a wheel or a clone, as `suite.load` finds the cases), and
    importlib.resources would add about 10 ms to every start."""
    return os.path.join(os.path.dirname(__file__), name)


def kept(kind: str, key: str, compute: Callable[[], T]) -> T:
    """`compute()`, or the value a process computed before under the same `key`, kept in the
    cache folder's `kind` folder as marshal data (plain dicts, lists, tuples, strings and
    numbers only). The key must name everything the value depends on (a digest of the files
    it is computed from); a kept value that cannot be read is computed again and replaced."""
    root = _cache_folder()
    path = None if root is None else os.path.join(root, kind, f"{key}.marshal{marshal.version}")
    if path is not None:
        try:
            with open(path, "rb") as stored:
                kept_value: T = marshal.loads(stored.read())
            return kept_value
        except (OSError, EOFError, ValueError, TypeError):
            pass
    value = compute()
    if path is not None:
        _keep(path, marshal.dumps(value))
    return value


def load_yaml(name: str) -> dict[str, Any]:
    """The parsed YAML file `name`, as its JSON Schema validates it: the kept parse of its
    bytes, or parsed and kept."""
    with open(spec_path(name), "rb") as file:
        data = file.read()
    stem = os.path.splitext(os.path.basename(name))[0]
    key = f"{stem}-{sha256_hex(data)}"
    return kept("spec", key, lambda: _parsed_yaml(data))


def _parsed_yaml(data: bytes) -> dict[str, Any]:
    import yaml

    # libyaml's safe loader when PyYAML was built with it: the same data, parsed in C.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    parsed: dict[str, Any] = yaml.load(data.decode("utf-8"), Loader=loader)
    return parsed


def _keep(path: str, content: bytes) -> None:
    """Write `content` to `path` whole or not at all: a reader sees no partial file."""
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        # Imported only to write: a start that reads kept values needs none of it.
        import tempfile

        descriptor, partial = tempfile.mkstemp(dir=folder, prefix=".partial-")
        try:
            with os.fdopen(descriptor, "wb") as out:
                out.write(content)
            os.replace(partial, path)
        except OSError:
            os.unlink(partial)
            raise
    except OSError:
        # A cache that cannot be written costs time, never a result.
        return


@cache
def load_spec() -> dict[str, Any]:
    """The parsed ``ndcg.yaml``: axes, choices, parameters, defaults and anchors."""
    return load_yaml("ndcg.yaml")


@cache
def load_presets() -> Presets:
    """``presets.yaml`` as records: named configurations with their evidence."""
    # Imported here: a start that reads no preset needs none of it.
    from ndcgspec.spec.presets import Condition, Departure, Preset, Presets, Source

    parsed = load_yaml("presets.yaml")
    return Presets(
        version=parsed["presets_version"],
        conditions=tuple(Condition(c["id"], c["text"]) for c in parsed.get("conditions", [])),
        presets=tuple(
            Preset(
                id=p["id"],
                aliases=tuple(p.get("aliases", [])),
                title=p["title"],
                description=p["description"],
                config=p["config"],
                sources=tuple(
                    Source(s["kind"], s["ref"], s["evidence"], s.get("url")) for s in p["sources"]
                ),
                unverified=tuple(p.get("unverified", [])),
                adapter=p.get("adapter"),
                departures=tuple(
                    Departure(
                        outcome=d["outcome"],
                        behaviour=d["behaviour"],
                        cases=tuple(d["cases"]),
                        when=d.get("when"),
                        model=d.get("model"),
                    )
                    for d in p.get("departures", [])
                ),
            )
            for p in parsed["presets"]
        ),
    )


@cache
def load_grammar() -> Grammar:
    """What ndcgspec reads of ``grammar.yaml`` as records: the measure language's tokens and
    the other tools' dialects (``ndcg.grammar``)."""
    from ndcgspec.spec.grammar import Grammar, IrMeasuresNames, Tokens, TrecEvalNames

    parsed = load_yaml("grammar.yaml")
    trec_eval, ir_measures = parsed["dialects"]["trec_eval"], parsed["dialects"]["ir_measures"]
    return Grammar(
        tokens=Tokens(parsed["tokens"]["atom"], parsed["tokens"]["punctuation"]),
        dialects=tuple(parsed["dialects"]),
        trec_eval=TrecEvalNames(
            measures=tuple(trec_eval["measures"]),
            gain_measures=tuple(trec_eval["gain_measures"]),
            info_measures=tuple(trec_eval["info_measures"]),
            nicknames=tuple(trec_eval["nicknames"]),
            default_cutoffs=tuple(trec_eval["default_cutoffs"]),
        ),
        ir_measures=IrMeasuresNames(
            names=tuple(ir_measures["names"]),
            parameters=tuple(ir_measures["parameters"]),
            dcg=tuple(ir_measures["dcg"]),
        ),
    )


@cache
def load_comparison() -> FloatRule:
    """The float rule of ``comparison.yaml`` as a record: how an adapter's number is compared
    with a golden value (``ndcg.comparison.float``)."""
    from ndcgspec.spec.comparison import BinaryFormat, FloatRule

    rule = load_yaml("comparison.yaml")["float_rule"]
    return FloatRule(
        c=int(rule["c"]),
        float_widths={
            int(width): BinaryFormat(int(f["significand_bits"]), int(f["min_exponent"]))
            for width, f in rule["float_widths"].items()
        },
    )


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``schema/<name>.schema.json``."""
    import json

    schema: dict[str, Any] = json.loads(
        spec_file(f"schema/{name}.schema.json").read_text(encoding="utf-8")
    )
    return schema
