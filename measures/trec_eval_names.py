"""trec_eval's nDCG measure names (``-m ndcg``, ``ndcg_cut.5,10``, ``ndcg.1=3,2=9``,
``ndcg_rel``, ``Rndcg``) and its -c and -J flags, as configurations of the spec.

trec_eval's convention is the preset ``trec_eval`` of ``spec/presets.yaml``; -c and -J change
exactly the axes on which the presets ``trec_eval_complete`` and ``trec_eval_judged_only``
differ from it, so the evidence for every axis stays with the presets. What no single
configuration expresses (``ndcg_rel`` and ``Rndcg`` average nDCG at several cutoffs) is
composed in ``ndcgspec.commands.trec_eval`` from nDCG@k of these configurations.
"""

from __future__ import annotations

import itertools
import re
from decimal import Decimal

from ndcgspec.reference.config import Config, preset_config
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import ConfigError, NdcgSpecError
from ndcgspec.spec import load_grammar

_DIALECT = load_grammar().trec_eval
#: trec_eval 10.0's nDCG measures in the order it prints them (``spec/grammar.yaml``, with
#: the source of each list).
NDCG_MEASURES: tuple[str, ...] = _DIALECT.measures
#: Measures that print facts of the input, accepted beside the nDCG family.
INFO_MEASURES: tuple[str, ...] = _DIALECT.info_measures
#: The measures taking 'rel_level=gain' parameters.
GAIN_MEASURES: tuple[str, ...] = _DIALECT.gain_measures
ONE_CONFIGURATION_MEASURES = ("ndcg", "ndcg_cut")
"""The measures whose value, at each of their cutoffs, is the nDCG of one configuration
(``ndcg_rel`` and ``Rndcg`` average nDCG over ranks)."""
#: ndcg_cut's cutoffs when none are given.
DEFAULT_CUTOFFS: tuple[int, ...] = _DIALECT.default_cutoffs
#: trec_eval's nicknames for sets of measures, most of them outside the family.
NICKNAMES: tuple[str, ...] = _DIALECT.nicknames

#: C's long and int where trec_eval is built (LP64): atol beyond a long is undefined, and its
#: sort comparators return a difference as an int.
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INT_MAX = 2**31 - 1

_NAME = re.compile(r"(?P<name>[^.]*)(?:\.(?P<params>.*))?", re.DOTALL)
# C's isspace in the C locale, not Python's \s, which also skips non-ASCII spaces.
_ATOL = re.compile(r"[ \t\n\v\f\r]*(?P<sign>[+-]?)0*(?P<digits>[0-9]*)")
_LONG_DIGITS = len(str(LONG_MAX))


class TrecMeasure:
    """One ``-m`` argument: a measure name and its parameter text, as trec_eval splits them
    at the first '.' (trec_eval.c mark_measure). A plain class: a dataclass imports inspect and
    compiles its methods, milliseconds of every start that reads a measure (issue 41)."""

    __slots__ = ("name", "params")

    def __init__(self, name: str, params: str | None = None) -> None:
        self.name = name
        self.params = params

    @property
    def cutoffs(self) -> tuple[int, ...]:
        """ndcg_cut's cutoffs: each read with atol, sorted, positive and distinct
        (meas_init.c get_long_cutoffs); refused where C leaves the result undefined (a
        cutoff beyond a long, or two whose difference overflows the comparator's int)."""
        if self.params is None:
            return DEFAULT_CUTOFFS
        try:
            values = sorted(atol(part) for part in self.params.split(","))
        except OverflowError as error:
            raise ConfigError(f"trec_eval measure {self.text!r}: cutoff {error}") from None
        if values[0] <= 0:
            raise ConfigError(f"trec_eval measure {self.text!r}: cutoffs must be positive")
        if len(set(values)) != len(values):
            raise ConfigError(f"trec_eval measure {self.text!r}: duplicate cutoffs")
        if values[-1] - values[0] > INT_MAX:
            raise ConfigError(
                f"trec_eval measure {self.text!r}: cutoffs {values[0]} and {values[-1]} differ "
                "by more than C's int, which trec_eval's cutoff sort (comp_long) leaves unordered"
            )
        return tuple(values)

    @property
    def pairs(self) -> tuple[tuple[Decimal, Decimal], ...]:
        """Every 'rel_level=gain' pair in the order given, levels non-negative integers read
        with atol (gain_init.c setup_gains)."""
        if self.params is None:
            return ()
        pairs = []
        for part in self.params.split(","):
            level, sep, value = part.partition("=")
            if not sep or not re.fullmatch(r"\+?[0-9]+", level):
                # trec_eval skips such a pair silently, or (negative levels) gives its gain to
                # its internal codes for unjudged documents: refuse rather than guess.
                raise ConfigError(
                    f"trec_eval measure {self.text!r}: {part!r} is not 'level=gain' with a "
                    "non-negative integer level"
                )
            try:
                pairs.append((Decimal(atol(level)), parse_decimal(value)))
            except OverflowError as error:
                raise ConfigError(f"trec_eval measure {self.text!r}: level {error}") from None
            except NdcgSpecError:
                raise ConfigError(
                    f"trec_eval measure {self.text!r}: gain {value!r} is not a decimal number"
                ) from None
        return tuple(pairs)

    @property
    def gains(self) -> tuple[tuple[Decimal, Decimal], ...]:
        """The gain of each level given, by level. trec_eval keeps every pair in its gain
        table: a level's documents are counted into the ideal list at its first pair, while a
        document's gain is looked up after the table is sorted by gain, so it is the level's
        smallest (gain_init.c setup_gains, get_gain). A level given again with a gain no
        smaller therefore has its first gain; with a smaller one the DCG and the ideal list
        would weigh it differently, which is no nDCG, so it is refused."""
        first: dict[Decimal, Decimal] = {}
        for level, gain in self.pairs:
            kept = first.setdefault(level, gain)
            if gain < kept:
                raise ConfigError(
                    f"trec_eval measure {self.text!r}: level {level} is given gain {kept}, then "
                    f"the smaller {gain}; trec_eval's DCG would use {gain} and its ideal list "
                    f"{kept} (gain_init.c get_gain), so give each level once"
                )
        return tuple(sorted(first.items()))

    @property
    def text(self) -> str:
        """The argument as written."""
        return self.name if self.params is None else f"{self.name}.{self.params}"

    def labels(self) -> list[str]:
        """The names trec_eval prints: ``ndcg_cut_10`` per cutoff, ``ndcg_1=3,2=9`` with gains
        (meas_init.c append_long / append_string)."""
        if self.name == "ndcg_cut":
            return [f"ndcg_cut_{k}" for k in self.cutoffs]
        return [self.name if self.params is None else f"{self.name}_{self.params}"]


def atol(text: str) -> int:
    """C's atol, by which trec_eval reads its labels, cutoffs, -l and -M: after leading white
    space, an optional sign and the digits up to the first other character ("1e3" and "1.5e1"
    are 1, "x" is 0). A number beyond C's long, where atol is undefined, is an OverflowError
    saying so."""
    match = _ATOL.match(text)
    assert match is not None, "every part of the pattern is optional"
    digits = match.group("digits")
    # Counting digits first keeps a huge field from costing a huge conversion.
    value = int(match.group("sign") + digits) if 0 < len(digits) <= _LONG_DIGITS else 0
    if len(digits) > _LONG_DIGITS or not LONG_MIN <= value <= LONG_MAX:
        raise OverflowError(f"{text!r} is beyond C's long, where trec_eval's atol is undefined")
    return value


def check_gain_order(measure: TrecMeasure, top_level: int) -> None:
    """trec_eval sorts its gain table (every pair given, and gain = level for every other level
    from 0 to the query's highest) with a comparator that returns the difference of two gains
    cast to an int (gain_init.c comp_rel_gain): gains differing by less than 1 then have no
    defined order in its ideal list, and a difference beyond C's int no defined value, so
    such a table is refused."""
    given = {level for level, _ in measure.pairs}
    defaults = {Decimal(level) for level in range(top_level + 1)} - given
    gains = sorted(defaults | {gain for _, gain in measure.pairs})
    for low, high in itertools.pairwise(gains):
        if high - low < 1:
            raise ConfigError(
                f"trec_eval measure {measure.text!r}: gains {low} and {high} differ by less "
                "than 1, which trec_eval's gain sort (comp_rel_gain) leaves unordered"
            )
    if gains[-1] - gains[0] > INT_MAX:
        raise ConfigError(
            f"trec_eval measure {measure.text!r}: gains {gains[0]} and {gains[-1]} differ by "
            "more than C's int, which trec_eval's gain sort (comp_rel_gain) leaves unordered"
        )


def parse_trec_measure(text: str) -> TrecMeasure:
    """A ``-m`` argument of the nDCG family (or runid, num_q); anything else a ConfigError
    saying what ndcgspec computes."""
    match = _NAME.fullmatch(text)
    assert match is not None, "every part of the pattern is optional"
    name, params = match.group("name"), match.group("params")
    if name in NICKNAMES:
        raise ConfigError(
            f"trec_eval measure set {name!r} is not computed here: ndcgspec computes only "
            f"the nDCG family ({', '.join(NDCG_MEASURES)}) and {', '.join(INFO_MEASURES)}; "
            "name them with -m"
        )
    if name not in NDCG_MEASURES + INFO_MEASURES:
        raise ConfigError(
            f"trec_eval measure {name!r} is not an nDCG measure; ndcgspec computes "
            f"{', '.join(NDCG_MEASURES + INFO_MEASURES)}"
        )
    if params is not None and (params == "" or name in INFO_MEASURES):
        raise ConfigError(f"trec_eval measure {text!r}: improper parameters")
    measure = TrecMeasure(name, params)
    # Validate the parameters now, so that a bad one fails before any file is read.
    _ = measure.cutoffs if name == "ndcg_cut" else measure.gains
    return measure


def trec_eval_config(complete: bool = False, judged_only: bool = False) -> Config:
    """trec_eval's configuration of nDCG without a cutoff, with -c (`complete`) and -J
    (`judged_only`): preset ``trec_eval`` changed where ``trec_eval_complete`` and
    ``trec_eval_judged_only`` differ from it."""
    base = preset_config("trec_eval")
    config = base
    flags = ((complete, "trec_eval_complete"), (judged_only, "trec_eval_judged_only"))
    for wanted, preset_id in flags:
        if wanted:
            flag = preset_config(preset_id).to_mapping()
            changes = {k: v for k, v in flag.items() if base.to_mapping().get(k) != v}
            config = config.replace(**changes)
    return config


def measure_config(measure: TrecMeasure, base: Config) -> Config:
    """The configuration of `measure`'s nDCG without a cutoff: `base` with the measure's
    gains as the ``map`` gain (``ndcg.gain.map``: levels not listed keep gain = level);
    ndcg_cut takes no gains (m_ndcg_cut.c: 'Gain values are the relevance values')."""
    if measure.name in GAIN_MEASURES and measure.gains:
        return base.replace(gain="map", gain_map=measure.gains)
    return base


def single_config(text: str) -> Config:
    """The one configuration a trec_eval name stands for in a measure string
    (``ndcg_cut.10`` is trec_eval@10); names that stand for several values or for an average
    of nDCG at several cutoffs are a ConfigError pointing to ``ndcgspec trec_eval``."""
    measure = parse_trec_measure(text)
    if measure.name not in ONE_CONFIGURATION_MEASURES:
        raise ConfigError(
            f"measure {text!r}: trec_eval's {measure.name} is not the nDCG of one "
            "configuration; compute it with 'ndcgspec trec_eval -m " + text + "'"
        )
    config = measure_config(measure, trec_eval_config())
    if measure.name == "ndcg":
        return config
    if measure.params is None or len(measure.cutoffs) != 1:
        raise ConfigError(
            f"measure {text!r} names {len(measure.cutoffs)} measures; give one cutoff per "
            "measure (ndcg_cut.10), or use 'ndcgspec trec_eval'"
        )
    return config.replace(cutoff=measure.cutoffs[0])


AMBIGUOUS = {
    "ndcg": "measure 'ndcg' is both trec_eval's name and the spec's nDCG in lower case, two "
    "conventions: write trec_eval:ndcg (or ndcg_cut.K) for trec_eval's, nDCG for the spec's "
    "defaults"
}
"""The names that mean one convention to trec_eval and another to the canonical grammar,
refused with both spellings (`grammar.parse_measure`)."""


def is_trec_eval_name(text: str) -> bool:
    """Whether `text` is written as a trec_eval nDCG name (``ndcg_cut.10``, ``ndcg.1=3``,
    ``Rndcg``); a bare ``ndcg`` is `AMBIGUOUS`, so it is not."""
    match = _NAME.fullmatch(text.strip())
    assert match is not None, "every part of the pattern is optional"
    name, params = match.group("name"), match.group("params")
    return name in NDCG_MEASURES and not (name == "ndcg" and params is None)
