"""ir_measures' nDCG strings (``nDCG@10``, ``nDCG(dcg='exp-log2')@10``,
``nDCG(gains={0:0,1:1,2:3})``, ``nDCG(judged_only=True)@5``) as configurations of the spec.

The syntax is read as ir_measures reads it (``ir_measures.util.parse_measure``): a Python
expression, ``Name``, ``Name(key=literal, ...)`` and ``... @ literal``. The configuration is
what ir_measures' default pipeline computes: the preset ``ir_measures`` (pytrec_eval, every
qrels query averaged), with ``judged_only=True`` as trec_eval's -J (the axes on which
``trec_eval_judged_only`` differs from ``trec_eval``), ``gains`` as the ``map`` gain
(``gains.get(label, label)``) and ``dcg='exp-log2'``, which pytrec_eval does not serve, as
the exponential gain gdeval.pl computes, which serves it only with a cutoff.
"""

from __future__ import annotations

from decimal import Decimal

from ndcgspec.reference.config import Config, key_names, preset_config
from ndcgspec.reference.errors import ConfigError
from ndcgspec.spec import load_grammar

# The typing module costs milliseconds of every start that reads a measure (issue 41); type
# checkers read the name TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DIALECT = load_grammar().ir_measures
#: ir_measures' names of nDCG, its parameters and their values (``spec/grammar.yaml``).
NAMES: tuple[str, ...] = _DIALECT.names
KEYS: tuple[str, ...] = _DIALECT.parameters
DCG_CHOICES: tuple[str, ...] = _DIALECT.dcg
#: The parameters the canonical grammar lacks (it has `cutoff`): a string using one is
#: ir_measures' (``ndcg.grammar`` rules).
ONLY_IR_MEASURES: frozenset[str] = frozenset(KEYS) - set(key_names())


def _fail(text: str, problem: str) -> ConfigError:
    return ConfigError(f"ir_measures measure {text!r}: {problem}")


def parse_ir_measures(text: str) -> tuple[str, dict[str, object]]:
    """(measure name, parameters) of an ir_measures string, parsed as ir_measures does: each
    value the Python literal written, checked by `ir_measures_config`."""
    # Imported to read an ir_measures string only: a start that reads another needs none of it.
    import ast

    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise _fail(text, f"not a measure expression ({error.msg})") from None
    params: dict[str, object] = {}
    try:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            params["cutoff"] = ast.literal_eval(node.right)
            node = node.left
        if isinstance(node, ast.Call):
            if node.args:
                raise _fail(text, "arguments must be named")
            for keyword in node.keywords:
                params[keyword.arg or ""] = ast.literal_eval(keyword.value)
            node = node.func
    except ValueError:
        raise _fail(text, "parameter values must be literals") from None
    if not isinstance(node, ast.Name):
        raise _fail(text, "expected a measure name")
    return node.id, params


def _gain_map(text: str, gains: object) -> tuple[tuple[Decimal, Decimal], ...]:
    if not isinstance(gains, dict) or not all(
        type(k) is int and type(v) is int and k >= 0 and v >= 0 for k, v in gains.items()
    ):
        # pytrec_eval takes integer labels only, and a negative one as unjudged after mapping,
        # where the spec reads negative labels before the gain: refuse those rather than differ.
        raise _fail(text, "gains must map non-negative integer labels to non-negative integers")
    return tuple(sorted((Decimal(k), Decimal(v)) for k, v in gains.items()))


def _judged_only(config: Config) -> Config:
    """`config` with what trec_eval's -J changes (the preset trec_eval_judged_only against
    trec_eval)."""
    base = preset_config("trec_eval").to_mapping()
    flag = preset_config("trec_eval_judged_only").to_mapping()
    return config.replace(**{k: v for k, v in flag.items() if base.get(k) != v})


def ir_measures_config(text: str) -> Config:
    """The configuration ir_measures' default pipeline computes for an nDCG string."""
    name, params = parse_ir_measures(text)
    if name not in NAMES:
        raise _fail(text, f"not an nDCG measure; ndcgspec computes {' or '.join(NAMES)}")
    unknown = sorted(set(params) - set(KEYS))
    if unknown:
        raise _fail(text, f"unknown parameter {unknown[0]!r}; valid: {', '.join(KEYS)}")
    cutoff = params.get("cutoff")
    if cutoff is not None and (type(cutoff) is not int or cutoff < 1):
        raise _fail(text, "the cutoff must be a positive integer")
    dcg = params.get("dcg", "log2")
    if dcg not in DCG_CHOICES:
        raise _fail(text, f"dcg must be one of {', '.join(DCG_CHOICES)}")
    judged_only = params.get("judged_only", False)
    if not isinstance(judged_only, bool):
        raise _fail(text, "judged_only must be True or False")
    changes: dict[str, Any] = {"cutoff": cutoff}
    if dcg == "exp-log2":
        if cutoff is None or "gains" in params or judged_only:
            raise _fail(
                text,
                "ir_measures serves dcg='exp-log2' with gdeval.pl, only with a cutoff and "
                "without gains or judged_only (without a cutoff it falls to ranx, whose ties "
                "follow an unstable sort)",
            )
        changes["gain"] = "exponential"
    if "gains" in params:
        changes.update(gain="map", gain_map=_gain_map(text, params["gains"]))
    config = preset_config("ir_measures").replace(**changes)
    return _judged_only(config) if judged_only else config


def is_ir_measures_string(text: str) -> bool:
    """Whether `text` uses what only ir_measures' syntax has: quotes, Python literals, or one
    of its parameters the canonical grammar lacks (`ONLY_IR_MEASURES`)."""
    if not any(key in text for key in ONLY_IR_MEASURES):
        # Not ir_measures' without one of those parameters written: a canonical string is
        # told apart without parsing Python (ast costs a millisecond of its start, issue 41).
        return False
    try:
        name, params = parse_ir_measures(text)
    except ConfigError:
        return False
    return name in NAMES and bool(ONLY_IR_MEASURES.intersection(params))
