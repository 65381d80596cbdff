"""What ndcgspec reads of ``grammar.yaml`` (``ndcg.grammar``), as records: the tokens of the
measure language and the names of the other tools' dialects. Its examples and refused strings
are read by the tests, as the file a reader sees.

Plain classes, not dataclasses: every measure string is read through them, and a dataclass
imports inspect and compiles its methods at every start (issue 41)."""

from __future__ import annotations


class Tokens:
    """The tokens of a measure string: an atom's pattern and the punctuation."""

    __slots__ = ("atom", "punctuation")

    def __init__(self, atom: str, punctuation: str) -> None:
        self.atom = atom
        self.punctuation = punctuation


class TrecEvalNames:
    """trec_eval's measure names (``dialects.trec_eval``): its nDCG measures, those that take
    per-level gains, the informational ones, the nicknames of measure groups and the cutoffs
    ``ndcg_cut`` computes when given none."""

    __slots__ = ("default_cutoffs", "gain_measures", "info_measures", "measures", "nicknames")

    def __init__(
        self,
        measures: tuple[str, ...],
        gain_measures: tuple[str, ...],
        info_measures: tuple[str, ...],
        nicknames: tuple[str, ...],
        default_cutoffs: tuple[int, ...],
    ) -> None:
        self.measures = measures
        self.gain_measures = gain_measures
        self.info_measures = info_measures
        self.nicknames = nicknames
        self.default_cutoffs = default_cutoffs


class IrMeasuresNames:
    """ir_measures' names of nDCG, its parameters and the values of its ``dcg`` parameter
    (``dialects.ir_measures``)."""

    __slots__ = ("dcg", "names", "parameters")

    def __init__(
        self, names: tuple[str, ...], parameters: tuple[str, ...], dcg: tuple[str, ...]
    ) -> None:
        self.names = names
        self.parameters = parameters
        self.dcg = dcg


class Grammar:
    """The tokens, the dialects' ids in file order, and each dialect's names."""

    __slots__ = ("dialects", "ir_measures", "tokens", "trec_eval")

    def __init__(
        self,
        tokens: Tokens,
        dialects: tuple[str, ...],
        trec_eval: TrecEvalNames,
        ir_measures: IrMeasuresNames,
    ) -> None:
        self.tokens = tokens
        self.dialects = dialects
        self.trec_eval = trec_eval
        self.ir_measures = ir_measures
