"""What ndcgspec reads of ``grammar.yaml`` (``ndcg.grammar``), as records: the tokens of the
measure language and the names of the other tools' dialects. Its examples and refused strings
are read by the tests, as the file a reader sees."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tokens:
    """The tokens of a measure string: an atom's pattern and the punctuation."""

    atom: str
    punctuation: str


@dataclass(frozen=True)
class TrecEvalNames:
    """trec_eval's measure names (``dialects.trec_eval``): its nDCG measures, those that take
    per-level gains, the informational ones, the nicknames of measure groups and the cutoffs
    ``ndcg_cut`` computes when given none."""

    measures: tuple[str, ...]
    gain_measures: tuple[str, ...]
    info_measures: tuple[str, ...]
    nicknames: tuple[str, ...]
    default_cutoffs: tuple[int, ...]


@dataclass(frozen=True)
class IrMeasuresNames:
    """ir_measures' names of nDCG, its parameters and the values of its ``dcg`` parameter
    (``dialects.ir_measures``)."""

    names: tuple[str, ...]
    parameters: tuple[str, ...]
    dcg: tuple[str, ...]


@dataclass(frozen=True)
class Grammar:
    """The tokens, the dialects' ids in file order, and each dialect's names."""

    tokens: Tokens
    dialects: tuple[str, ...]
    trec_eval: TrecEvalNames
    ir_measures: IrMeasuresNames
