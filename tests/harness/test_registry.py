"""The one registry of built-in adapters (``harness/registry.py``): the worker's host, the
worker's `adapter_command` and the command line all read it."""

from __future__ import annotations

import argparse
import importlib

import pytest

from ndcgspec.commands.adapter_flags import add_adapter_arguments
from ndcgspec.harness.adapters import base
from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.harness.registry import (
    BUILTIN_ADAPTERS,
    BUILTIN_PROGRAMS,
    PEER_ADAPTERS,
    _adapters_constant,
    adapter_target,
    builtin_names,
)
from ndcgspec.harness.worker import adapter_command, example_program, python_host_command

# The names `ndcgspec run --help` lists, in its order: the reference, the peers by the file name
# of their module (each module's own names in its order), then the protocol programs.
NAMES = [
    "reference",
    "catboost",
    "evret",
    "ir_measures",
    "ir_measures-pytrec_eval",
    "ir_measures-ranx",
    "ir_measures-trectools",
    "ir_measures-gdeval",
    "lightgbm",
    "numpy-snippet",
    "pyltr",
    "pytrec_eval",
    "rag-eval-lite",
    "rank-validation",
    "rankereval",
    "rankkit",
    "ranx",
    "sklearn",
    "sklearn-ignore-ties",
    "spark-mllib",
    "spark-mllib-relevance",
    "spark-ml",
    "szl-retrieval-bench",
    "toolkit-rag-quality",
    "torchmetrics",
    "torchmetrics-functional",
    "trec_eval",
    "trectools",
    "xgboost",
    "node-example",
]


def test_the_registry_names_every_built_in_once() -> None:
    assert builtin_names() == NAMES
    assert not set(BUILTIN_ADAPTERS) & set(BUILTIN_PROGRAMS)


def test_a_built_in_name_stands_for_its_module_and_object() -> None:
    assert BUILTIN_ADAPTERS["reference"] == "ndcgspec.harness.adapters.reference:adapter"
    assert adapter_target("reference") == BUILTIN_ADAPTERS["reference"]
    assert adapter_target("fakes:always_zero") == "fakes:always_zero"
    assert base.load_adapter(adapter_target("reference")).name == "ndcgspec-reference"
    with pytest.raises(AdapterError, match=r"expected a built-in name .*reference.* or module"):
        adapter_target("nothing")
    # The SDK knows no built-in name: a second table of names would drift from this one.
    assert not hasattr(base, "BUILTIN_ADAPTERS")
    with pytest.raises(AdapterError, match="expected module:object"):
        base.load_adapter("reference")


def test_the_worker_runs_registered_programs_and_hosts_the_rest() -> None:
    assert adapter_command("node-example", None) == [
        "node",
        str(example_program("ndcg_adapter.mjs")),
    ]
    assert example_program("ndcg_adapter.mjs").is_file()
    assert adapter_command("ranx", None) == python_host_command("ranx")


def test_the_command_line_lists_the_registry() -> None:
    parser = argparse.ArgumentParser()
    add_adapter_arguments(parser)
    (positional,) = [a for a in parser._actions if a.dest == "adapter"]
    assert positional.help == f"built-in ({', '.join(NAMES)}) or module:object"


def test_each_peer_modules_constant_is_read_as_importing_it_reads_it() -> None:
    modules = {target.split(":")[0] for target in PEER_ADAPTERS.values()}
    imported = {
        name: f"{module}:{attribute}"
        for module in modules
        for name, attribute in importlib.import_module(module).ADAPTERS.items()
    }
    assert imported == PEER_ADAPTERS


def test_the_constant_is_read_from_the_first_line_that_starts_with_it() -> None:
    source = (
        '"""ADAPTERS = {\'in-a-docstring\': \'no\'}"""\n'
        "import x\n"
        "ADAPTERS = {\n"
        "    'one': 'adapter',  # a comment, and a brace }\n"
        "    'two': 'other',\n"
        "}\n"
        "LATER = 1\n"
    )
    assert _adapters_constant(source) == {"one": "adapter", "two": "other"}
    assert _adapters_constant("ADAPTERS = {'first': 'line'}\n") == {"first": "line"}
    assert _adapters_constant("NOT_ADAPTERS = {'a': 'b'}\n") == {}
    with pytest.raises(AdapterError, match="does not end"):
        _adapters_constant("ADAPTERS = {'open': \n")
