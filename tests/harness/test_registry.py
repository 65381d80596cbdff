"""The one registry of built-in adapters (``harness/adapters/registry.py``): the SDK's
`load_adapter`, the worker's `adapter_command` and the command line all read it."""

from __future__ import annotations

import argparse

from ndcgspec.harness.adapters import base, registry
from ndcgspec.harness.adapters.registry import BUILTIN_ADAPTERS, BUILTIN_PROGRAMS, builtin_names
from ndcgspec.harness.run_command import add_adapter_arguments
from ndcgspec.harness.worker import adapter_command, example_program, python_host_command

# The names `ndcgspec run --help` lists, in its order, as the command line has always given them.
NAMES = [
    "reference",
    "pytrec_eval",
    "ir_measures",
    "ir_measures-pytrec_eval",
    "ir_measures-ranx",
    "ir_measures-trectools",
    "ir_measures-gdeval",
    "ranx",
    "trectools",
    "sklearn",
    "sklearn-ignore-ties",
    "torchmetrics",
    "torchmetrics-functional",
    "lightgbm",
    "xgboost",
    "catboost",
    "numpy-snippet",
    "trec_eval",
    "spark-mllib",
    "spark-mllib-relevance",
    "spark-ml",
    "rank-validation",
    "rankkit",
    "evret",
    "szl-retrieval-bench",
    "rankereval",
    "toolkit-rag-quality",
    "rag-eval-lite",
    "pyltr",
    "node-example",
]


def test_the_registry_names_every_built_in_once() -> None:
    assert builtin_names() == NAMES
    assert not set(BUILTIN_ADAPTERS) & set(BUILTIN_PROGRAMS)


def test_the_sdk_loads_the_reference_by_its_registered_name() -> None:
    assert BUILTIN_ADAPTERS["reference"] == "ndcgspec.harness.adapters.reference:adapter"
    assert (
        base.load_adapter("reference").name
        == base.load_adapter("ndcgspec.harness.adapters.reference:adapter").name
    )
    # No second table of names beside the registry's.
    assert base.BUILTIN_ADAPTERS is registry.BUILTIN_ADAPTERS


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
