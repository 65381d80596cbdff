"""The probes beyond the axes that ask the adapter questions of their own (``identify``): a
cutoff it chooses when asked for the whole ranking, scores a relative 1e-9 or 1e-12 apart and
decimals one double apart, its tie order on rankings of growing length, and document ids that
look like numbers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ndcgspec.harness.adapters.base import ApiView, NumberFormat
from ndcgspec.reference import Config
from ndcgspec.reference.config import axis
from ndcgspec.reference.decimals import canonical_decimal, exact_decimal
from ndcgspec.spec import load_spec
from ndcgspec.suite.tolerance import is_undefined
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.answer_observations import leaves_undefined
from ndcgspec.survey.identification import (
    CHOSEN_CUTOFF,
    CUTOFF,
    DOCUMENT_IDS,
    NO_SINGLE_CUTOFF,
    NUMBER_READING,
    RANKS_CLOSE_SCORES,
    READS_IDS_AS_NUMBERS,
    READS_IDS_AS_TEXT,
    READS_NEIGHBOURS_APART,
    READS_NEIGHBOURS_EQUAL,
    SCORE_RESOLUTION,
    TIE_ORDER,
    TIE_RULE_BREAKS,
    TIE_RULE_HOLDS,
    TIES_CLOSE_SCORES,
    Observation,
    gap_text,
)
from ndcgspec.survey.probes import (
    RESOLUTION_GAPS,
    ULP,
    ProbeInput,
    ask,
    beyond_view,
    expected_of,
    longest_query,
    meets,
    meets_values,
    number_reading_inputs,
    outcome_key,
    questions,
    replaced,
    scores_merged,
    spread_ties,
    tie_order_inputs,
    within_tie_bounds,
)

# Whole-ranking probes tried against every cutoff up to this length, to find a chosen cutoff,
# and then against the longer defaults of libraries (trectools' depth=1000, say).
CUTOFF_SEARCH_LENGTH = 200
CUTOFF_DEFAULTS = (256, 500, 512, 1000, 1024, 2000, 5000)


def chosen_cutoff(
    command: Sequence[str] | str,
    own: Config,
    identified: Config,
    probes: Sequence[ProbeInput],
    numbers: NumberFormat,
) -> Observation | None:
    """A cutoff the implementation applies when asked for the whole ranking: whole-ranking
    probes it misses, met by the reference at one cutoff k instead, every one of them that
    is longer than k (ranked or judged documents of a query); a miss on a probe no longer than
    k, which no cutoff of k can explain, has another cause and is listed as disagreeing. Each
    missed probe first names the smallest k that meets it; a probe that gains nothing past
    rank 2 is met at 2 as well as at the library's 10, so every k named is then tried on every
    missed probe longer than it, and the smallest that meets them all is the cutoff. The probes
    are asked under the adapter's `own` configuration, as every probe is, and read against
    the `identified` one: a choice the adapter declares may compute another of the spec's."""
    asked = replaced(own, cutoff=None)
    computed = replaced(identified, cutoff=None)
    whole = [p for p in probes if p.config.cutoff is None]
    answers = ask(command, questions(asked, whole))
    found: dict[int, list[str]] = {}
    missed: dict[str, int] = {}
    for probe in whole:
        answer = answers[(probe.case_id, asked.full())]
        scored = "per_query" in answer.result and expected_of(probe, computed).error is None
        if not scored or meets(probe, computed, answer, asked, *numbers):
            continue
        if leaves_undefined(probe, computed, answer):
            # Another observation (`undefined_values`), whatever the cutoff.
            continue
        longest = max(Counter(q for q, *_ in probe.run).values(), default=0)
        missed[probe.case_id] = longest_query(probe)
        candidates = [
            *range(1, min(longest, CUTOFF_SEARCH_LENGTH) + 1),
            *(k for k in CUTOFF_DEFAULTS if CUTOFF_SEARCH_LENGTH < k < longest),
        ]
        for k in candidates:
            if meets(probe, replaced(computed, cutoff=k), answer, asked, *numbers):
                found.setdefault(k, []).append(probe.case_id)
                break
    if not missed:
        return None
    anchor = axis(CUTOFF).anchor
    by_id = {p.case_id: p for p in whole}
    for k in sorted(found):
        longer = [case for case, length in missed.items() if length > k]
        met = [
            case
            for case in longer
            if meets(
                by_id[case],
                replaced(computed, cutoff=k),
                answers[(case, asked.full())],
                asked,
                *numbers,
            )
        ]
        if longer and len(met) == len(longer):
            others = sorted(set(missed) - set(met))
            return Observation(
                CUTOFF, CHOSEN_CUTOFF, "null", sorted(met), others, cutoffs=[k], anchor=anchor
            )
    return Observation(
        CUTOFF,
        NO_SINGLE_CUTOFF,
        "null",
        disagreeing=sorted(missed),
        cutoffs=sorted(found),
        anchor=anchor,
    )


def _spread_verdicts(
    pairs: Sequence[tuple[ProbeInput, ProbeInput]],
    own: Config,
    identified: Config,
    answers: Mapping[tuple[str, str], Answer],
    numbers: NumberFormat,
) -> tuple[list[str], list[str]]:
    """The spread probes the adapter (asked under `own`) ranks exactly, and those it ties
    again as the original, read against the `identified` configuration."""
    exact, collapsed = [], []
    for original, spread in pairs:
        sent = replaced(own, cutoff=spread.config.cutoff)
        computed = replaced(identified, cutoff=spread.config.cutoff)
        if outcome_key(original, computed) == outcome_key(spread, computed):
            continue
        answer = answers[(spread.case_id, sent.full())]
        if meets(spread, computed, answer, sent, *numbers):
            exact.append(spread.case_id)
        elif meets(original, computed, answer, sent, *numbers):
            collapsed.append(spread.case_id)
    return exact, collapsed


def close_scores(
    command: Sequence[str] | str,
    own: Config,
    identified: Config,
    probes: Sequence[ProbeInput],
    numbers: NumberFormat,
) -> list[Observation]:
    """Scores a relative 1e-9 or 1e-12 apart (``RESOLUTION_GAPS``): does the implementation
    rank them, or tie them again under its own tie rule, whichever it is? And decimals one
    double apart (0.223, 0.22300000000000003): does its number reader tell them apart? The
    second is asked only of an implementation that ranks the coarser gaps exactly. Asked under
    the adapter's `own` configuration, read against the `identified` one (`chosen_cutoff`)."""
    rule = identified.choice("ties")
    ties = [p for p in probes if p.case_id.startswith("ties.")]
    spreads = {
        gap: [(p, s) for p in ties if (s := spread_ties(p, rule, gap)) is not None]
        for gap in RESOLUTION_GAPS
        if gap != ULP
    }
    adjacent = number_reading_inputs()
    asked = replaced(own, cutoff=None)
    answers = ask(
        command,
        [
            *(
                (s, replaced(own, cutoff=s.config.cutoff))
                for pairs in spreads.values()
                for _, s in pairs
            ),
            *((p, asked) for p in adjacent),
        ],
    )
    verdicts = {
        gap: _spread_verdicts(pairs, own, identified, answers, numbers)
        for gap, pairs in spreads.items()
    }
    precision = load_spec()["precision"]["anchor"]
    tied = [gap for gap in spreads if verdicts[gap][1]]
    if tied:
        exact, collapsed = verdicts[tied[0]]
        return [
            Observation(
                SCORE_RESOLUTION,
                TIES_CLOSE_SCORES,
                "exact decimals",
                evidence=collapsed,
                disagreeing=exact,
                anchor=precision,
                gaps=[gap_text(g) for g in tied],
            )
        ]
    found = []
    exact = [case for gap in spreads for case in verdicts[gap][0]]
    if exact:
        found.append(
            Observation(
                SCORE_RESOLUTION,
                RANKS_CLOSE_SCORES,
                "exact decimals",
                evidence=exact,
                anchor=precision,
                gaps=[gap_text(g) for g in spreads],
            )
        )
    apart, equal = [], []
    for probe in adjacent:
        answer = answers[(probe.case_id, asked.full())]
        if meets(probe, identified, answer, asked, *numbers):
            apart.append(probe.case_id)
        elif within_tie_bounds(scores_merged(probe), identified, answer, asked, *numbers):
            equal.append(probe.case_id)
    if apart or equal:
        found.append(
            Observation(
                NUMBER_READING,
                READS_NEIGHBOURS_EQUAL if equal else READS_NEIGHBOURS_APART,
                "exact decimals",
                evidence=equal or apart,
                disagreeing=apart if equal else [],
                anchor=precision,
                gaps=[ULP],
            )
        )
    return found


ID_PROBES = "ids."
"""The case ids of the golden cases whose document ids look like numbers (``suite/ids.py``):
probed on their own, not on the axes, which they do not tell apart."""


def _spelled_as_text(probe: ProbeInput) -> ProbeInput:
    """The probe with a letter before every document id: the same judgments and ranking, and
    since every id gains the same prefix, the same order of ids (``ndcg.ties``), but no id an
    implementation could read as a number."""
    return ProbeInput(
        f"{probe.case_id}.as-text",
        tuple((q, f"d{d}", v) for q, d, v in probe.qrels),
        tuple((q, f"d{d}", v) for q, d, v in probe.run),
        probe.config,
    )


def _exact_values(per_query: object) -> dict[str, str | None] | None:
    """An answer's per-query values as the exact decimals of its numbers (`exact_decimal`), to
    judge another answer against; None when a value is no finite number nor undefined."""
    if not isinstance(per_query, Mapping):
        return None
    values: dict[str, str | None] = {}
    for qid, value in per_query.items():
        try:
            values[qid] = None if is_undefined(value) else canonical_decimal(exact_decimal(value))
        except (TypeError, ValueError):
            return None
    return values


def numeric_ids(
    command: Sequence[str] | str,
    own: Config,
    identified: Config,
    probes: Sequence[ProbeInput],
    numbers: NumberFormat,
) -> Observation | None:
    """Document ids that look like numbers (0010, 010 beside 10, 1e5, 1.0, -0, 007): does the
    implementation read them as the text they are (``ndcg.input``), or misread them as
    numbers, silently?

    Each probe's answer is judged against the implementation's own answer to the same probe
    with its ids spelled as text: what else it computes (a cutoff of its own that no single
    value explains, say) is the same on both, so only the ids' reading can tell them apart.
    Where that answer is not to be had, the probe is judged against the identified
    configuration. Both are asked under the adapter's `own` configuration (`chosen_cutoff`)."""
    pairs = _numeric_id_pairs(probes)
    if not pairs:
        return None
    asked = replaced(own, cutoff=None)
    answers = ask(command, [(p, asked) for pair in pairs for p in pair])
    text: list[str] = []
    misread: list[str] = []
    for probe, spelled in pairs:
        answer = answers[(probe.case_id, asked.full())]
        control = answers[(spelled.case_id, asked.full())]
        values = None if control.failed else _exact_values(control.result.get("per_query"))
        if values:
            met = meets_values(probe, values, answer, asked, *numbers)
        else:
            met = bool(meets(probe, identified, answer, asked, *numbers))
        (text if met else misread).append(probe.case_id)
    anchor = load_spec()["input"]["anchor"]
    if misread:
        return Observation(
            DOCUMENT_IDS, READS_IDS_AS_NUMBERS, "ids as text", misread, text, anchor=anchor
        )
    return Observation(DOCUMENT_IDS, READS_IDS_AS_TEXT, "ids as text", text, anchor=anchor)


def tie_order_by_length(
    command: Sequence[str] | str,
    own: Config,
    identified: Config,
    numbers: NumberFormat,
    view: ApiView,
) -> Observation | None:
    """On rankings of every length in ``TIE_LENGTHS`` full of tied scores, does the adapter
    keep the identified tie rule (``ndcg.ties``)? The lengths on which it misses with every
    value between the pessimistic and the optimistic tie order (so that the order of tied
    documents alone explains the miss) say from which length on it breaks the rule. Asked
    under the adapter's `own` configuration (`chosen_cutoff`)."""
    asked = replaced(own, cutoff=None)
    inputs = _tie_order_inputs(asked, view)
    if not inputs:
        return None
    answers = ask(command, [(p, asked) for p in inputs])
    kept, broken = [], []
    for probe in inputs:
        answer = answers[(probe.case_id, asked.full())]
        if meets(probe, identified, answer, asked, *numbers):
            kept.append(int(probe.case_id.rsplit("-", 1)[1]))
        elif within_tie_bounds(probe, identified, answer, asked, *numbers):
            broken.append(int(probe.case_id.rsplit("-", 1)[1]))
    anchor = axis("ties").anchor
    if broken:
        return Observation(
            TIE_ORDER,
            TIE_RULE_BREAKS,
            identified.choice("ties"),
            evidence=[f"ties.length-{n}" for n in broken],
            lengths=broken,
            anchor=anchor,
        )
    if not kept:
        return None
    return Observation(
        TIE_ORDER, TIE_RULE_HOLDS, identified.choice("ties"), lengths=kept, anchor=anchor
    )


def _numeric_id_pairs(probes: Sequence[ProbeInput]) -> list[tuple[ProbeInput, ProbeInput]]:
    """Each probe of `probes` whose ids look like numbers, with the same probe whose ids are
    spelled as text (`numeric_ids`)."""
    return [(p, _spelled_as_text(p)) for p in probes if p.case_id.startswith(ID_PROBES)]


def _tie_order_inputs(asked: Config, view: ApiView) -> list[ProbeInput]:
    """The inputs of `tie_order_by_length` whose answer under `asked` the API shows."""
    return [p for p in tie_order_inputs() if not beyond_view(p, asked, view)]


def questions_ahead(
    own: Config, probes: Sequence[ProbeInput], view: ApiView
) -> list[tuple[ProbeInput, Config]]:
    """The questions that `numeric_ids`, `tie_order_by_length` and the decimals one double
    apart of `close_scores` ask of an adapter whose own configuration is `own`, whatever
    the search finds: identify asks them while it computes (``survey/asked_ahead.py``)."""
    asked = replaced(own, cutoff=None)
    return [
        *((p, asked) for pair in _numeric_id_pairs(probes) for p in pair),
        *((p, asked) for p in _tie_order_inputs(asked, view)),
        *((p, asked) for p in number_reading_inputs()),
    ]
