"""The prediction check: does the configuration string the conformance page publishes for a
library, with the departures the page declares for it, predict the library on inputs that no
probe and no golden case ever showed it?

Fresh queries are drawn from a seeded generator (`fresh_inputs`): graded labels 0-4, unjudged
documents and judged documents the run does not retrieve, exact ties and near ties (a relative
1e-9, a relative 1e-12 and one float64 ulp), queries with nothing relevant, one-document
queries, labels -1 and -2, fractional labels, cutoffs none/1/3/5/10/32, long URL-like document
ids. Each fresh query is its own input. The library scores it through its built-in adapter, in
worker processes (``survey/probes.ask``); the expected value comes from the reference
under the published configuration (at the query's cutoff, or at the configuration's own cutoff
when the query asks for none), never from the library. A query is

- *predicted* when the answer meets the reference's under the comparison rule;
- *explained* by a declared departure when the answer does not, but the departure's model
  (`MODELS`: the reference on the input as the library's documented flaw sees it) meets it;
  and by the ``tie-order`` departure, when one is declared, wherever the order of tied
  documents decides the value (`order_decides`), even when the answer meets it: an order the
  departure declares arbitrary meets the configuration's there by chance, and which orders a
  sort gives changes with the machine (numpy's default argsort is not stable, and its code
  depends on the CPU), so that the page would otherwise depend on the machine that made it;
- *unexplained* otherwise, kept with its full reproduction;
- *left out* when its answer depends on labels of unretrieved documents that the library's
  API is never given (an axis the adapter cannot be asked about is settled by the way the
  adapter gives the input to the library, so the published choice holds there).

The declared departures come from the identification (the `Observation`s beyond the axes that
depart from exact nDCG, and the errors its findings record) and from the ``departures`` of the
presets naming the adapter that give a ``model``; each is shown on the page with the first
fresh query it explains. Their ids: ``float32-scores``, ``adjacent-doubles-tie`` (a number
reader that takes adjacent doubles for one score), ``undefined-where-scored`` (params
``mean_kept``), ``negative-ideal-quotient``, ``tie-order`` (params ``from_length``),
``refuses`` (params ``reasons``), ``errors`` (params ``errors``: first lines),
``targets-summing-to-zero-empty``, ``negative-ideal-quotient``, ``ideal-of-the-first-k-judgments``,
``ideal-of-the-nonzero-labels`` and ``ideal-floored-at-epsilon``.

The record (`Prediction.to_json`), stored on the matrix's ``Implementation.prediction`` and,
per adapter name, under ``"libraries"`` in ``docs/predictions.json``
(``{"predictions_version": 1, "seed": ..., "queries": ..., "libraries": {...}}``)::

    {
      "adapter": "ranx",                       # built-in adapter name
      "version": "0.3.21",                     # the library's version
      "configuration": "nDCG(...)",            # the published string the adapter is asked for
      "seed": 17,                              # fresh_inputs(seed, queries)
      "queries": 400,                          # fresh queries generated
      "left_out": 0,                           # not showable through the API
      "predicted": 383,                        # met the configuration's value
      "explained": 17,                         # missed it, as a declared departure says
      "departures": {"tie-order": 17},         # explained, per departure id
      "unexplained": [                         # neither: each with its reproduction
        {"query": "fresh-17/0042", "measure": "nDCG(...)@3",
         "qrels": [[q, doc, label], ...], "run": [[q, doc, score], ...],
         "library": <the adapter's result object>, "reference": <the reference's answer>,
         "line": "<the same as one line of text>"}
      ],
      "declared": [                            # the departures the page declares
        {"id": "tie-order", "text": "...", "params": {"from_length": 16},
         "reproduction": "<one line: the first fresh query it explains>" or null}
      ]
    }

with ``queries == left_out + predicted + explained + len(unexplained)``.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from ndcgspec.harness.adapters.base import ApiView, NumberFormat
from ndcgspec.harness.outcome import summed_terms
from ndcgspec.harness.registry import preset_adapters
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.reference.config import preset
from ndcgspec.reference.decimals import canonical_decimal
from ndcgspec.suite.tolerance import Tolerance, compare_value, is_undefined
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.identification import (
    DIVIDES_NEGATIVE_IDEAL,
    NEGATIVE_IDEAL,
    NUMBER_READING,
    READS_NEIGHBOURS_EQUAL,
    REFUSES_VALID_INPUTS,
    REJECTIONS,
    SCORE_RESOLUTION,
    TIE_ORDER,
    TIE_RULE_BREAKS,
    TIES_CLOSE_SCORES,
    UNDEFINED_VALUES,
    UNDEFINED_WHERE_SCORED,
    Identification,
    Observation,
)
from ndcgspec.survey.kept_answers import declaration
from ndcgspec.survey.preset_check import asked_and_expected
from ndcgspec.survey.probes import (
    ULP,
    ProbeInput,
    analysis_pool,
    ask,
    beyond_view,
    compared_answer,
    expected_of,
    meets,
    meets_aggregate,
    meets_values,
    nudged,
    quotient_values,
    replaced,
    scores_merged,
    within_tie_bounds,
)
from ndcgspec.survey.reasons import failure_key, first_line, refusal_key
from ndcgspec.survey.undefined_rules import undefined_rule

PREDICTIONS_VERSION = 1
PREDICTIONS_FILE = "predictions.json"
PAGE_SEED, PAGE_QUERIES = 17, 400
"""The fresh queries of the conformance page (the test suite draws fewer, from other seeds)."""
CUTOFFS = (None, 1, 3, 5, 10, 32)
NEAR_GAPS = (Decimal("1e-9"), Decimal("1e-12"), ULP)
REPRODUCTION_ROWS = 12
"""A one-line reproduction lists a query's rows in full only up to this many per file."""


# --- fresh inputs -----------------------------------------------------------------------------


def _label(rng: random.Random, kinds: set[str]) -> str:
    """A judged document's label: graded 0-4 (mostly low), -1/-2 or a fraction by `kinds`."""
    roll = rng.random()
    if "negative" in kinds and roll < 0.2:
        return rng.choice(["-1", "-2"])
    if "fractional" in kinds and roll < 0.4:
        return rng.choice(["0.5", "1.5", "2.25", "0.75", "3.5"])
    if "nothing relevant" in kinds:
        return "0"
    return str(rng.choices(range(5), weights=(5, 3, 2, 1, 1))[0])


def _docid(rng: random.Random, style: str, index: int) -> str:
    if style == "url":
        return f"https://example.org/collection/{rng.randrange(10**6):06d}/doc-{index}.html?v=2"
    if style == "trec":
        return f"clueweb09-en{rng.randrange(10):04d}-{rng.randrange(100):02d}-{index:05d}"
    return f"d{index:03d}"


def _scores(rng: random.Random, count: int) -> list[str]:
    """Scores with exact ties (drawn from a small pool) and near ties (a document nudged by
    one of `NEAR_GAPS` above another's score), each the shortest decimal of a double: a
    library given doubles can tell apart every two distinct scores."""
    pool = [
        Decimal(str(round(rng.uniform(-3, 12), rng.choice((0, 1, 2, 3)))))
        for _ in range(max(1, count // rng.choice((1, 2, 3))))
    ]
    scores = [canonical_decimal(rng.choice(pool)) for _ in range(count)]
    for index in range(count):
        if count > 1 and rng.random() < 0.25:
            other = Decimal(scores[rng.randrange(count)])
            near = nudged(other, rng.choice((1, 1, 2)), rng.choice(NEAR_GAPS))
            scores[index] = repr(float(near))
    return scores


def fresh_input(rng: random.Random, case_id: str) -> ProbeInput:
    """One fresh query, its cutoff drawn from `CUTOFFS`."""
    kinds = {
        kind
        for kind, chance in (
            ("negative", 0.15),
            ("fractional", 0.15),
            ("nothing relevant", 0.12),
            ("unjudged", 0.5),
            ("unretrieved", 0.5),
        )
        if rng.random() < chance
    }
    roll = rng.random()
    if roll < 0.08:
        count = 1
    elif roll < 0.55:
        count = rng.randint(2, 10)
    elif roll < 0.88:
        count = rng.randint(11, 40)
    else:
        count = rng.randint(41, 300)
    style = rng.choice(("short", "url", "trec"))
    qid = f"topic-{rng.randrange(1000)}"
    docids = list(dict.fromkeys(_docid(rng, style, i) for i in range(count + 10)))
    retrieved, spare = docids[:count], docids[count:]
    qrels = [
        (qid, doc, _label(rng, kinds))
        for doc in retrieved
        if "unjudged" not in kinds or rng.random() < 0.6
    ]
    if "unretrieved" in kinds:
        qrels += [(qid, doc, _label(rng, kinds)) for doc in spare[: rng.randint(1, 5)]]
    if not qrels:
        qrels = [(qid, retrieved[0], _label(rng, kinds))]
    run = [(qid, doc, score) for doc, score in zip(retrieved, _scores(rng, count), strict=True)]
    rng.shuffle(run)
    config = Config.default().replace(cutoff=rng.choice(CUTOFFS))
    return ProbeInput(case_id, tuple(qrels), tuple(run), config)


def fresh_inputs(seed: int, count: int) -> list[ProbeInput]:
    """`count` fresh queries from `seed`: the same seed gives the same queries."""
    rng = random.Random(seed)
    return [fresh_input(rng, f"fresh-{seed}/{i:04d}") for i in range(count)]


# --- declared departures and their models -----------------------------------------------------

FLOAT32_SCORES = "float32-scores"
NEIGHBOURS_TIE = "adjacent-doubles-tie"
UNDEFINED_WHERE_SCORED_ID = "undefined-where-scored"
TIE_ORDER_ID = "tie-order"
REFUSES_ID = "refuses"
ERRORS_ID = "errors"
SUM_ZERO_EMPTY = "targets-summing-to-zero-empty"
NEGATIVE_IDEAL_QUOTIENT = "negative-ideal-quotient"
IDEAL_FIRST_K = "ideal-of-the-first-k-judgments"
IDEAL_NONZERO = "ideal-of-the-nonzero-labels"
IDEAL_FLOORED = "ideal-floored-at-epsilon"
FLOAT64_EPSILON = Decimal(2) ** -52
"""float64's machine epsilon, ``np.finfo(np.float64).eps``."""


@dataclass(frozen=True)
class ModelParams:
    """What the identification measured of a departure, which its model reads: whether the
    mean meets the configuration's where values are undefined (`mean_kept`, of
    ``undefined-where-scored``) and the rule of ``UNDEFINED_RULES`` naming those queries
    (`when`), the first ranking length whose ties the library breaks its own way
    (`from_length`, of ``tie-order``), the refusals seen (`reasons`, of ``refuses``) and the
    first lines of the errors seen (`errors`, of ``errors``). None where not measured: each
    model then takes any (and a mean that meets, a length of 2)."""

    mean_kept: bool | None = None
    when: str | None = None
    from_length: int | None = None
    reasons: tuple[str, ...] | None = None
    errors: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The parameters measured, as ``docs/predictions.json`` lists them."""
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in asdict(self).items()
            if value is not None
        }


@dataclass(frozen=True)
class Declared:
    """A departure the page declares for a library: its model id, its text, the parameters
    the identification measured (`params`)."""

    id: str
    text: str
    params: ModelParams = ModelParams()


@dataclass(frozen=True)
class Miss:
    """An answer that misses the configuration's value on a fresh query: the query (`probe`,
    or the input as a departure makes the library see it), the configuration whose value it
    misses (`expected`), the library's `answer` when `asked`, and its number format."""

    probe: ProbeInput
    expected: Config
    answer: Answer
    asked: Config
    numbers: NumberFormat

    def met_on(self, probe: ProbeInput) -> bool:
        """Whether the answer meets the reference's on `probe` instead."""
        return bool(meets(probe, self.expected, self.answer, self.asked, *self.numbers))

    def tied_on(self, probe: ProbeInput) -> bool:
        """Whether some order of the tied documents of `probe` explains the answer."""
        return within_tie_bounds(probe, self.expected, self.answer, self.asked, *self.numbers)

    def mean_met(self) -> bool:
        """Whether the answer's mean meets the reference's."""
        return meets_aggregate(self.probe, self.expected, self.answer, self.asked, *self.numbers)

    def rule(self, qid: str) -> Tolerance:
        """The comparison rule of one query's value."""
        terms = summed_terms(self.probe.qrels, self.probe.run, self.asked)
        return Tolerance(self.numbers[0], terms.get(qid, 1), self.numbers[1])


Model = Callable[[Miss, ModelParams], bool]


def _with_scores(probe: ProbeInput, score: Callable[[str], str], suffix: str) -> ProbeInput:
    run = tuple((q, d, score(s)) for q, d, s in probe.run)
    return ProbeInput(f"{probe.case_id}~{suffix}", probe.qrels, run, probe.config)


def _float32_scores(miss: Miss, params: ModelParams) -> bool:
    """Scores stored as float32 (``ndcg.precision``): the reference on the input with every
    score rounded to the nearest float32, ties among them broken by the configuration's rule."""
    return miss.met_on(_float32_view(miss.probe))


def _float32_view(probe: ProbeInput) -> ProbeInput:
    """The input with every score rounded to the nearest float32."""
    return _with_scores(probe, lambda s: repr(float(np.float32(s))), "float32")


def _neighbours_tie(miss: Miss, params: ModelParams) -> bool:
    """Decimals one double apart read as equal or not: some order of the documents whose
    scores are adjacent doubles explains the answer."""
    return miss.tied_on(scores_merged(miss.probe))


def _undefined_where_scored(miss: Miss, params: ModelParams) -> bool:
    """Per-query values undefined or left out where the configuration gives a number, every
    other value meeting the configuration's, and the mean too unless the identification saw
    the undefined values make the mean undefined (`params.mean_kept` false); with
    `params.when`, a rule of ``UNDEFINED_RULES``, exactly the queries it names."""
    want = expected_of(miss.probe, miss.expected)
    result = miss.answer.result
    given = result.get("per_query")
    if given is None or want.per_query is None:
        return False
    if params.when and not undefined_rule(miss.probe, miss.expected, miss.answer, params.when):
        return False
    mean_undefined = "aggregate" in result and is_undefined(result["aggregate"])
    mean_kept = params.mean_kept is not False
    if not miss.mean_met() and (mean_kept or not mean_undefined):
        return False
    for qid, entry in want.per_query.items():
        value = given.get(qid)
        if is_undefined(value) and entry.ndcg is not None:
            continue
        if compare_value(qid, entry.ndcg, value, miss.rule(qid)):
            return False
    return True


def _longest_ranking(probe: ProbeInput) -> int:
    counts: dict[str, int] = {}
    for qid, *_ in probe.run:
        counts[qid] = counts.get(qid, 0) + 1
    return max(counts.values(), default=0)


def _from_length(params: ModelParams) -> int:
    """The shortest ranking whose ties the library breaks its own way: any with two documents
    when not measured."""
    return 2 if params.from_length is None else params.from_length


def _tie_order(miss: Miss, params: ModelParams) -> bool:
    """Tied documents put in an order other than the tie rule's, on rankings of at least
    `params.from_length` documents: some order of each tie group explains the answer."""
    if _longest_ranking(miss.probe) < _from_length(params):
        return False
    return miss.tied_on(miss.probe)


def order_decides(probe: ProbeInput, expected: Config, params: ModelParams) -> bool:
    """Whether, on rankings as long as the `tie-order` departure's `params.from_length`,
    the order of the tied documents decides some query's value (the pessimistic and the
    optimistic tie rule give two values): there the library's order, which that departure
    declares arbitrary, meets the configuration's only by chance."""
    if _longest_ranking(probe) < _from_length(params):
        return False
    low = expected_of(probe, replaced(expected, ties="pessimistic")).per_query or {}
    high = expected_of(probe, replaced(expected, ties="optimistic")).per_query or {}
    return any(entry.ndcg != high[qid].ndcg for qid, entry in low.items())


def _refuses(miss: Miss, params: ModelParams) -> bool:
    """A refusal of a valid input for one of the reasons the identification saw (for any
    reason when none is given)."""
    if "rejected" not in miss.answer.result:
        return False
    return params.reasons is None or miss.answer.refusal in params.reasons


def _errors(miss: Miss, params: ModelParams) -> bool:
    """A failure (an exception, a crash) with one of the errors the identification saw the
    library fail with on its probes (any error when none is given)."""
    if not miss.answer.failed:
        return False
    return params.errors is None or miss.answer.failure in params.errors


def _labels_zeroed(probe: ProbeInput) -> ProbeInput:
    qrels = tuple((q, d, "0") for q, d, _ in probe.qrels)
    return ProbeInput(f"{probe.case_id}~zeroed", qrels, probe.run, probe.config)


def _sum_zero_empty(miss: Miss, params: ModelParams) -> bool:
    """A query whose retrieved documents' labels sum to 0 treated as empty: the reference on
    the input with every label 0 (an empty query, ``ndcg.empty``)."""
    labels = {(q, d): Decimal(v) for q, d, v in miss.probe.qrels}
    retrieved = [labels.get((q, d), Decimal(0)) for q, d, _ in miss.probe.run]
    if sum(retrieved) != 0:
        return False
    return miss.met_on(_labels_zeroed(miss.probe))


def _negative_ideal_quotient(miss: Miss, params: ModelParams) -> bool:
    """A query whose ideal DCG is negative scored DCG / IDCG instead of as empty."""
    values = quotient_values(miss.probe, miss.expected)
    return values is not None and meets_values(
        miss.probe, values, miss.answer, miss.asked, *miss.numbers
    )


def _ideal_dcg(
    probe: ProbeInput, config: Config, qid: str, labels: list[str], k: int | None
) -> Decimal:
    """The DCG, under `config`, of `labels` sorted descending and cut at `k` (None: whole)."""
    ordered = sorted(labels, key=Decimal, reverse=True)
    rows = [(qid, f"ideal-{i:06d}", label) for i, label in enumerate(ordered)]
    run = tuple((q, d, str(len(rows) - i)) for i, (q, d, _) in enumerate(rows))
    ideal = ProbeInput(f"{probe.case_id}~ideal", tuple(rows), run, config)
    found = (expected_of(ideal, config.replace(cutoff=k)).per_query or {}).get(qid)
    return Decimal((None if found is None else found.dcg) or 0)


def _with_ideal(miss: Miss, ideal: Callable[[str, int | None], Decimal], empty_nan: bool) -> bool:
    """Whether the answer is each query's DCG over the ideal DCG `ideal(qid, k)` (k the
    cutoff, None when none is asked): 0 where that ideal DCG is 0, or undefined when
    `empty_nan`."""
    want = expected_of(miss.probe, miss.expected)
    if want.per_query is None:
        return False
    values: dict[str, str | None] = {}
    for qid, entry in want.per_query.items():
        if entry.dcg is None:
            values[qid] = entry.ndcg
            continue
        below = ideal(qid, miss.expected.cutoff)
        if below:
            values[qid] = canonical_decimal(Decimal(entry.dcg) / below)
        else:
            values[qid] = None if empty_nan else "0"
    return meets_values(miss.probe, values, miss.answer, miss.asked, *miss.numbers)


def _longest_list_of_both(probe: ProbeInput) -> int:
    """The longest judgment list or ranking of a query both judged and retrieved: the k that
    rank-validation's adapter passes for the whole ranking, since its rows are those queries
    (a query of the qrels or the run alone is not given, so its lists do not count)."""
    judged = Counter(q for q, *_ in probe.qrels)
    retrieved = Counter(q for q, *_ in probe.run)
    both = judged.keys() & retrieved.keys()
    return max((max(judged[q], retrieved[q]) for q in both), default=1)


def _ideal_first_k(miss: Miss, params: ModelParams) -> bool:
    """The ideal DCG of a query built from its first k judgments in qrels order, padded with
    labels 0 to k, before they are sorted (rank-validation); k is the cutoff, or when none is
    asked the longest list of a query both judged and retrieved (`_longest_list_of_both`)."""
    whole = _longest_list_of_both(miss.probe)

    def ideal(qid: str, cutoff: int | None) -> Decimal:
        k = cutoff or whole
        labels = [v for q, _, v in miss.probe.qrels if q == qid][:k]
        return _ideal_dcg(miss.probe, miss.expected, qid, labels + ["0"] * (k - len(labels)), k)

    return _with_ideal(miss, ideal, empty_nan=False)


def _ideal_nonzero(miss: Miss, params: ModelParams) -> bool:
    """The ideal DCG of a query built from its nonzero labels only, so that negative labels
    move up past the zeros (a sparse matrix keeps no zero, rankerEval); a query without a
    nonzero label is undefined."""

    def ideal(qid: str, k: int | None) -> Decimal:
        labels = [v for q, _, v in miss.probe.qrels if q == qid and Decimal(v) != 0]
        return _ideal_dcg(miss.probe, miss.expected, qid, labels, k)

    return _with_ideal(miss, ideal, empty_nan=True)


def _ideal_floored(miss: Miss, params: ModelParams) -> bool:
    """Each query's DCG over its ideal DCG floored at float64's machine epsilon,
    ``dcg / max(eps, idcg)`` (pyltr): a query whose ideal DCG is 0 or below scores its DCG
    over 2^-52 instead of as empty."""
    want = expected_of(miss.probe, miss.expected)
    if want.per_query is None:
        return False
    values: dict[str, str | None] = {}
    for qid, entry in want.per_query.items():
        # The reference gives a query's DCG and its ideal DCG together, or neither.
        if entry.dcg is None or entry.idcg is None:
            values[qid] = entry.ndcg
            continue
        floored = max(FLOAT64_EPSILON, Decimal(entry.idcg))
        values[qid] = canonical_decimal(Decimal(entry.dcg) / floored)
    return meets_values(miss.probe, values, miss.answer, miss.asked, *miss.numbers)


MODELS: dict[str, Model] = {
    FLOAT32_SCORES: _float32_scores,
    NEIGHBOURS_TIE: _neighbours_tie,
    UNDEFINED_WHERE_SCORED_ID: _undefined_where_scored,
    TIE_ORDER_ID: _tie_order,
    REFUSES_ID: _refuses,
    ERRORS_ID: _errors,
    SUM_ZERO_EMPTY: _sum_zero_empty,
    NEGATIVE_IDEAL_QUOTIENT: _negative_ideal_quotient,
    IDEAL_FIRST_K: _ideal_first_k,
    IDEAL_NONZERO: _ideal_nonzero,
    IDEAL_FLOORED: _ideal_floored,
}
"""The model of every departure a page may declare, by id: whether it explains an answer that
misses the configuration's value."""
VIEWS: dict[str, Callable[[ProbeInput], ProbeInput]] = {FLOAT32_SCORES: _float32_view}
"""The departures that change how the library sees every input: the other models are also
tried on the input as such a departure makes the library see it (a negative ideal DCG divided
out, say, of scores rounded to float32)."""


def _declared_by(observation: Observation) -> Declared | None:
    """The departure an identification's observation declares, if it has a model."""
    said = f"{observation.topic}: {observation.verdict()}"
    if observation.topic == SCORE_RESOLUTION and observation.outcome == TIES_CLOSE_SCORES:
        return Declared(FLOAT32_SCORES, said)
    if observation.topic == NUMBER_READING and observation.outcome == READS_NEIGHBOURS_EQUAL:
        return Declared(NEIGHBOURS_TIE, said)
    if observation.topic == UNDEFINED_VALUES and observation.outcome == UNDEFINED_WHERE_SCORED:
        kept = len(observation.mean_meets) == len(observation.evidence)
        when = observation.when or None
        return Declared(UNDEFINED_WHERE_SCORED_ID, said, ModelParams(mean_kept=kept, when=when))
    if observation.topic == NEGATIVE_IDEAL and observation.outcome == DIVIDES_NEGATIVE_IDEAL:
        return Declared(NEGATIVE_IDEAL_QUOTIENT, said)
    if observation.topic == TIE_ORDER and observation.outcome == TIE_RULE_BREAKS:
        return Declared(TIE_ORDER_ID, said, ModelParams(from_length=observation.lengths[0]))
    if observation.topic == REJECTIONS and observation.outcome == REFUSES_VALID_INPUTS:
        reasons = tuple(sorted({refusal_key(r) for r in observation.reasons}))
        return Declared(REFUSES_ID, said, ModelParams(reasons=reasons))
    return None


def preset_departures(adapter: str) -> list[Declared]:
    """The departures with a ``model`` that the presets naming `adapter` declare."""
    found = []
    for preset_id, name in preset_adapters().items():
        if name != adapter:
            continue
        for departure in preset(preset_id).departures:
            if departure.model is not None:
                if departure.model not in MODELS:
                    raise NdcgSpecError(
                        f"preset {preset_id}: unknown departure model {departure.model!r}; "
                        f"known: {', '.join(sorted(MODELS))}"
                    )
                text = departure.said.split(". ")[0]
                found.append(Declared(departure.model, f"preset {preset_id}: {text}"))
    return found


def declared_departures(identification: Identification, adapter: str) -> list[Declared]:
    """Every departure the page declares for `adapter`: from its identification's
    observations and from the presets naming it, one per model id."""
    found: dict[str, Declared] = {}
    observed = [d for o in identification.extras if (d := _declared_by(o)) is not None]
    errors = sorted({failure_key(e.error) for f in identification.findings for e in f.errors})
    if errors:
        said = f"errors on valid probes: {' | '.join(errors[:3])}"
        observed.append(Declared(ERRORS_ID, said, ModelParams(errors=tuple(errors))))
    for declared in [*observed, *preset_departures(adapter)]:
        # What the identification measured (a tie order's first length) comes first.
        found.setdefault(declared.id, declared)
    return list(found.values())


# --- the check --------------------------------------------------------------------------------


def _shown(answer: Answer) -> str:
    result = answer.result
    if "per_query" in result:
        values = {q: v for q, v in result["per_query"].items()}
        return f"per query {values}, mean {result.get('aggregate')}"
    for key in ("rejected", "error"):
        if key in result:
            return f"{key}: {first_line(result[key])[:100]}"
    return str(result)


def reproduction_line(probe: ProbeInput, asked: Config, answer: Answer, expected: Config) -> str:
    """A fresh query as one line: its qrels, its run, the measure asked, what the library
    answered and what the configuration gives."""

    def rows(found: Sequence[tuple[str, str, str]]) -> str:
        shown = " ".join(f"{d}={v}" for _, d, v in found[:REPRODUCTION_ROWS])
        more = len(found) - REPRODUCTION_ROWS
        return shown + (f" (+{more} rows)" if more > 0 else "")

    qid = probe.run[0][0] if probe.run else probe.qrels[0][0]
    return (
        f"{qid}: qrels {rows(probe.qrels)}; run {rows(probe.run)}; {asked.canonical()}: "
        f"library {_shown(answer)}; configuration "
        f"{json.dumps(compared_answer(probe, expected), default=str)}"
    )


@dataclass
class Prediction:
    """How the published configuration and declared departures predict one library on fresh
    queries (the record the module docstring describes)."""

    adapter: str
    version: str
    configuration: str
    seed: int
    queries: int
    left_out: int = 0
    predicted: int = 0
    departures: dict[str, int] = field(default_factory=dict)
    unexplained: list[dict[str, Any]] = field(default_factory=list)
    declared: list[dict[str, Any]] = field(default_factory=list)

    @property
    def explained(self) -> int:
        """The fresh queries a declared departure explains."""
        return sum(self.departures.values())

    def to_json(self) -> dict[str, Any]:
        """The record as JSON."""
        found = asdict(self)
        found["explained"] = self.explained
        return found

    def summary(self) -> str:
        """One line of counts."""
        departures = ", ".join(f"{k} {v}" for k, v in sorted(self.departures.items()))
        return (
            f"{self.adapter} {self.version}: {self.predicted} of {self.queries} fresh queries "
            f"predicted by {self.configuration}, {self.explained} by declared departures"
            f"{f' ({departures})' if departures else ''}, {len(self.unexplained)} unexplained, "
            f"{self.left_out} left out"
        )


def predict(
    adapter: str,
    configuration: Config,
    declared: Sequence[Declared],
    seed: int = PAGE_SEED,
    count: int = PAGE_QUERIES,
) -> Prediction:
    """Score `count` fresh queries of `seed` with the built-in or ``module:object`` `adapter`,
    asked for `configuration` (the query's cutoff, or none for the library's default), and
    sort every answer as predicted, explained by one of the `declared` departures, unexplained
    or left out."""
    command = adapter_command(adapter, None)
    described = declaration(command, analysis_pool())
    # An axis the adapter cannot be asked about is one its way of giving the input to the
    # library settles (an unjudged document becomes label 0): the published choice holds there.
    # Labels the library is never given still leave a query out when its value depends on them.
    view = ApiView(unretrieved_labels=described.view.unretrieved_labels)
    numbers = described.number_format
    found = Prediction(adapter, described.version, configuration.canonical(), seed, count)
    reproductions: dict[str, str] = {}
    plans = [(p, *asked_and_expected(configuration, p)) for p in fresh_inputs(seed, count)]
    shown = [(p, a, e) for p, a, e in plans if not beyond_view(p, e, view)]
    found.left_out = len(plans) - len(shown)
    answers = ask(command, [(p, asked) for p, asked, _ in shown])
    ties = next((d for d in declared if d.id == TIE_ORDER_ID), None)
    for probe, asked, expected in shown:
        answer = answers[(probe.case_id, asked.full())]
        views = [probe, *(VIEWS[d.id](probe) for d in declared if d.id in VIEWS)]
        if (
            ties is not None
            and order_decides(probe, expected, ties.params)
            and MODELS[TIE_ORDER_ID](Miss(probe, expected, answer, asked, numbers), ties.params)
        ):
            model: Declared | None = ties
        elif meets(probe, expected, answer, asked, *numbers):
            found.predicted += 1
            continue
        else:
            model = next(
                (
                    d
                    for d in declared
                    for view in views
                    if MODELS[d.id](Miss(view, expected, answer, asked, numbers), d.params)
                ),
                None,
            )
        if model is not None:
            found.departures[model.id] = found.departures.get(model.id, 0) + 1
            reproductions.setdefault(model.id, reproduction_line(probe, asked, answer, expected))
            continue
        found.unexplained.append(
            {
                "query": probe.case_id,
                "measure": asked.canonical(),
                "qrels": [list(r) for r in probe.qrels],
                "run": [list(r) for r in probe.run],
                "library": dict(answer.result),
                "reference": compared_answer(probe, expected),
                "line": reproduction_line(probe, asked, answer, expected),
            }
        )
    found.declared = [
        {**asdict(d), "params": d.params.to_json(), "reproduction": reproductions.get(d.id)}
        for d in declared
    ]
    return found


def predictions_text(found: Sequence[Prediction], seed: int, count: int) -> str:
    """``docs/predictions.json``: the records by adapter name."""
    document = {
        "predictions_version": PREDICTIONS_VERSION,
        "seed": seed,
        "queries": count,
        "libraries": {p.adapter: p.to_json() for p in sorted(found, key=lambda p: p.adapter)},
    }
    return json.dumps(document, indent=1, sort_keys=False, default=str) + "\n"
