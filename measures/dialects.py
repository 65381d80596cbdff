"""Measure strings in the dialects of other tools (``spec/grammar.yaml``): a ``trec_eval:`` or
``ir_measures:`` prefix names the dialect; without one, a string that only that tool's
grammar can produce (``ndcg_cut.10``, ``nDCG(judged_only=True)@5``) is read in it. A string
valid in the canonical grammar (``nDCG@10``, ``ndcg``) keeps its canonical meaning."""

from __future__ import annotations

from collections.abc import Callable

from ndcgspec.measures.trec_eval_names import is_trec_eval_name, single_config
from ndcgspec.reference.config import Config
from ndcgspec.spec import load_grammar


# ir_measures' reader is imported when a string is not trec_eval's: the grammar tries
# trec_eval's first, and a start that reads one of its names needs none of it (issue 41).
def _is_ir_measures_string(text: str) -> bool:
    from ndcgspec.measures.ir_measures_names import is_ir_measures_string

    return is_ir_measures_string(text)


def _ir_measures_config(text: str) -> Config:
    from ndcgspec.measures.ir_measures_names import ir_measures_config

    return ir_measures_config(text)


Reader = tuple[Callable[[str], bool], Callable[[str], Config]]
_READERS: dict[str, Reader] = {
    "trec_eval": (is_trec_eval_name, single_config),
    "ir_measures": (_is_ir_measures_string, _ir_measures_config),
}
#: Each dialect of ``spec/grammar.yaml`` with how it is recognised and read, in the order the
#: grammar tries them.
DIALECTS: dict[str, Reader] = {name: _READERS[name] for name in load_grammar().dialects}


def dialect_config(text: str) -> Config | None:
    """The configuration of a string of another tool's dialect, None for a canonical one."""
    prefix, sep, rest = text.strip().partition(":")
    if sep and prefix in DIALECTS:
        return DIALECTS[prefix][1](rest)
    for recognise, translate in DIALECTS.values():
        if recognise(text):
            return translate(text)
    return None
