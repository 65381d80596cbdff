"""Seeded random cases over every axis (``ndcg``): random configurations and inputs with
grades 0–4, negative and fractional labels where the configuration allows them, unjudged and
unretrieved documents, duplicates under ``first``, and ties. Only `random.Random(seed)` draws."""

from __future__ import annotations

import random
from typing import Any

from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_axes, choice_ids, since
from ndcgspec.reference.rejection import choice_anchor
from ndcgspec.suite.case import case_file, cite, computed_case
from ndcgspec.suite.case_record import Case, CaseFile, Row, Source

ORIGIN = "generated"
SOURCE = "ndcgspec.suite.generated"
CASES_PER_FILE = 100
FIRST_VERSION_SEEDS = 21
ADDED_VERSION_SEEDS = 3


def seeds_by_spec_version() -> dict[str, range]:
    """The seeds of each spec version that added a choice, in version order: the first version
    21, each later one the next 3. A seed draws among the choices of its spec version, so a
    choice added later never changes the cases of an earlier seed
    (``ndcg.definition.versions``), and a new version's seeds follow from its choices' `since`."""
    versions = sorted(
        {since(entry.id, choice) for entry in choice_axes() for choice in choice_ids(entry.id)}
    )
    seeds: dict[str, range] = {}
    start = 1
    for version in versions:
        count = ADDED_VERSION_SEEDS if seeds else FIRST_VERSION_SEEDS
        seeds[".".join(map(str, version))] = range(start, start + count)
        start += count
    return seeds


SEEDS_BY_SPEC_VERSION = seeds_by_spec_version()
FILE_SEEDS = tuple(seed for seeds in SEEDS_BY_SPEC_VERSION.values() for seed in seeds)
LARGE_SEED = 10000
LARGE_DOCUMENTS = 10000

PARAM_VALUES: dict[str, tuple[str, ...]] = {
    "log_base": ("2", "2", "10", "e", "1.5"),
    "log_offset": ("1", "1", "2", "0.5"),
    "persistence": ("0.5", "0.8", "0.95"),
}
CUTOFFS: tuple[int | None, ...] = (None, None, 1, 2, 3, 5, 10, 20)
FRACTIONS = ("0.5", "0.25", "0.7", "0.1", "0.75")


def random_config(rng: random.Random, as_of: str) -> Config:
    """A configuration with a choice drawn uniformly on every axis among those of spec version
    `as_of`, and drawn parameters."""
    values: dict[str, Any] = {}
    for entry in choice_axes():
        choice = rng.choice(choice_ids(entry.id, as_of))
        values[entry.id] = choice
        for name in entry.by_id[choice].params:
            if name == "gain_map":
                labels = rng.sample(["-1", "0", "1", "2", "3", "4", "2.5"], rng.randint(1, 4))
                values[name] = {label: str(rng.choice(range(0, 20))) for label in labels}
            else:
                values[name] = rng.choice(PARAM_VALUES[name])
    values["cutoff"] = rng.choice(CUTOFFS)
    return Config.from_mapping(values)


def document_count(rng: random.Random) -> int:
    """Mostly short lists, a tail up to 1,000 documents."""
    draw = rng.random()
    if draw < 0.78:
        return rng.randint(1, 10)
    if draw < 0.98:
        return rng.randint(11, 100)
    return rng.randint(101, 1000)


def random_label(rng: random.Random, config: Config) -> str:
    """A grade 0–4, sometimes negative or fractional when the configuration accepts it
    (and, rarely, when it rejects it, so that rejection is exercised too)."""
    grade = rng.choice((0, 0, 0, 1, 1, 2, 3, 4))
    draw = rng.random()
    allow_negative = config.choice("negative") != "error" or draw < 0.01
    allow_fraction = config.choice("fractional") != "error" or draw < 0.01
    if allow_negative and rng.random() < 0.08:
        grade = -rng.randint(1, 2)
    if allow_fraction and rng.random() < 0.15:
        return f"{grade}.{rng.choice(FRACTIONS)[2:]}" if grade >= 0 else f"{grade}.5"
    return str(grade)


def random_score(rng: random.Random, tie_rate: float) -> str:
    """A score; with probability `tie_rate` one of a few values, written in varying notation
    ("0.5", "0.50") so that numerically equal scores tie."""
    if rng.random() < tie_rate:
        value = rng.choice(("1", "0.5", "0.25", "2"))
        return value + ("0" if "." in value and rng.random() < 0.3 else "")
    return f"{rng.randint(0, 10**6) / 10**4:.4f}"


def random_query(rng: random.Random, qid: str, config: Config) -> tuple[list[Row], list[Row]]:
    """Qrels and run rows of one query."""
    n = document_count(rng)
    tie_rate = rng.choice((0.0, 0.1, 0.5, 1.0))
    unjudged_rate = 0.0 if config.choice("unjudged") == "error" else rng.choice((0.0, 0.1, 0.3))
    docids = [f"{qid}-d{i}" for i in range(1, n + 1)]
    rng.shuffle(docids)
    qrels = [[qid, d, random_label(rng, config)] for d in docids if rng.random() >= unjudged_rate]
    run = [[qid, d, random_score(rng, tie_rate)] for d in docids]
    for i in range(rng.choice((0, 0, 1, 3))):
        qrels.append([qid, f"{qid}-u{i + 1}", random_label(rng, config)])
    if config.choice("duplicates") == "first" and run:
        for _ in range(rng.randint(0, 3)):
            run.append([qid, rng.choice(docids), random_score(rng, tie_rate)])
    return qrels, run


def random_case(rng: random.Random, case_id: str, as_of: str) -> Case:
    """One generated case: a random configuration (choices of spec version `as_of`) and a
    random input of 1–4 queries."""
    config = random_config(rng, as_of)
    qrels: list[Row] = []
    run: list[Row] = []
    queries = [f"q{i}" for i in range(1, rng.randint(1, 4) + 1)]
    for qid in queries:
        query_qrels, query_run = random_query(rng, qid, config)
        qrels.extend(query_qrels)
        if rng.random() < 0.9:
            run.extend(query_run)
    if rng.random() < 0.2:
        run.append(["q-unjudged", "x1", "1"])
    sizes = sorted({sum(1 for r in run if r[0] == q) for q in queries})
    spec = [cite("ndcg.definition.ndcg")] + [
        cite(choice_anchor(entry.id, config.choice(entry.id)))
        for entry in choice_axes()
        if config.choice(entry.id) != entry.default
    ]
    return computed_case(
        case_id=case_id,
        description=f"random case: {len(queries)} queries, {sizes[0]}-{sizes[-1]} run documents",
        config=config,
        spec=spec,
        sources=[Source("spec", "ndcg", "seeded random input")],
        origin=ORIGIN,
        qrels=qrels,
        run=run,
    )


def generated_file(seed: int) -> CaseFile:
    """The file of `CASES_PER_FILE` random cases drawn from `seed`."""
    rng = random.Random(seed)
    group = f"generated/seed-{seed:04d}"
    as_of = next(v for v, seeds in SEEDS_BY_SPEC_VERSION.items() if seed in seeds)
    cases = [
        random_case(rng, f"generated.seed-{seed:04d}/{i:03d}", as_of) for i in range(CASES_PER_FILE)
    ]
    return case_file(
        group,
        f"Seeded random configurations and inputs over every axis (seed {seed}).",
        ORIGIN,
        SOURCE,
        cases,
        seed=seed,
    )


def large_file() -> CaseFile:
    """One query of 10,000 documents with random grades, unjudged documents and ties."""
    rng = random.Random(LARGE_SEED)
    qrels: list[Row] = []
    run: list[Row] = []
    for i in range(1, LARGE_DOCUMENTS + 1):
        docid = f"doc{i:05d}"
        if rng.random() < 0.9:
            qrels.append(["q1", docid, str(rng.choice((0, 0, 0, 0, 1, 1, 2, 3, 4)))])
        run.append(["q1", docid, str(rng.randint(0, 5000))])
    case = computed_case(
        case_id="cutoff.none/ten-thousand-documents",
        description="one query of 10,000 documents with ties and unjudged ones",
        config=Config.default(),
        spec=[cite("ndcg.cutoff", "An integer k ≥ 1, or null for the whole ranking.")],
        sources=[Source("spec", "ndcg.cutoff", "seeded random input")],
        origin=ORIGIN,
        qrels=qrels,
        run=run,
    )
    return case_file(
        "cutoff/large",
        "One query with 10,000 documents, scored over the whole ranking.",
        ORIGIN,
        SOURCE,
        [case],
        seed=LARGE_SEED,
    )
