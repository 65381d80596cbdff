"""Which cases an adapter is judged on: the selection rule of the protocol's start reply
(``spec/schema/protocol/start-reply.json``, ``capabilities``) and of the README.

A stored case welds one input to one configuration, and a library computes one convention, so
stored cases alone would judge almost nothing. Every bundled input (hand, documents, generated,
and published where its data is present) is therefore also a case under each *target*
configuration:

- with neither ``--preset`` nor ``-m``: the adapter's native configuration, the choice it
  declares first on each axis and the value it declares first for each parameter of those
  choices (the spec's default where it declares none);
- ``--preset P``: the preset's configuration; ``-m MEASURE``: the measure's.

The input keeps its own cutoff unless the target states one: a measure's ``@k`` applies to
every input, and a preset's own cutoff (the one its tool applies unasked) to the inputs that have
none. An input whose configured case is already stored is judged on the stored case; the others
get their expected values from the exact reference at run time, cached by input, fingerprint
and a digest of the definition (`ExpectedCache`), and marked ``"expected_source": "computed"``
in the report. Results keep the group of the case the input was written for, so a failure still
points at one axis. The stored cases whose configuration the adapter declares (those of the
preset or measure, when one is given) are judged too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.reference import Config
from ndcgspec.suite.case_record import Case
from ndcgspec.suite.expect import outcome, published_outcome
from ndcgspec.suite.expected_cache import ExpectedCache
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.loaded import LoadedCase
from ndcgspec.suite.targets import Target, measure_target, preset_target

COMPUTED = "computed"


def input_digest(loaded: LoadedCase) -> str:
    """A key of a case's input: its inline rows or its published files' checksums, as the case
    file writes them (the key of the cache of expected values on disk)."""
    given, files = loaded.case.input, loaded.case.input_files
    source = given.to_json() if given is not None else files.to_json() if files else None
    return hashlib.sha256(json.dumps(source, sort_keys=True).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Selection:
    """The stored cases (already filtered by file) and the presets and measures asked for."""

    stored: Sequence[LoadedCase]
    presets: Sequence[str] = ()
    measures: Sequence[str] = ()

    def __post_init__(self) -> None:
        # Unknown presets and malformed measures fail before any adapter starts.
        self.explicit_targets()

    def explicit_targets(self) -> list[Target]:
        """The targets named by ``--preset`` and ``-m``."""
        return [preset_target(p) for p in self.presets] + [measure_target(m) for m in self.measures]

    def targets(self, adapter: Declaration) -> list[Target]:
        """The targets for this adapter: those asked for, else its native configuration."""
        return self.explicit_targets() or [Target(adapter.native_config(), every_input=False)]

    def chosen_stored(self) -> list[LoadedCase]:
        """The stored cases a target asked for would judge (its configuration at the case's
        cutoff, by `Target.for_input`), or all of them when none is asked for."""
        wanted = self.explicit_targets()
        at_cutoff: dict[int | None, set[str]] = {}
        chosen = []
        for loaded in self.stored:
            cutoff = loaded.case.config.cutoff
            if cutoff not in at_cutoff:
                at_cutoff[cutoff] = {t.for_input(cutoff).fingerprint() for t in wanted}
            if not wanted or _fingerprint(loaded) in at_cutoff[cutoff]:
                chosen.append(loaded)
        # A case that judges another case's input reports in that case's group: the axis the
        # input was written for.
        groups = {c.case.id: c.group for c in self.stored}
        return [
            replace(loaded, group=groups[source])
            if (source := loaded.case.input_of) is not None and source in groups
            else loaded
            for loaded in chosen
        ]

    @cached_property
    def _inputs(self) -> list[tuple[LoadedCase, str]]:
        """Each distinct input that can run, with its digest (`_distinct_inputs`)."""
        return [(c, input_digest(c)) for c in _distinct_inputs(self.stored) if not c.unavailable]

    def cases_for(self, adapter: Declaration) -> list[LoadedCase]:
        """Every case the adapter is judged on: the chosen stored cases, then each input under
        each target that no stored case already covers."""
        chosen = self.chosen_stored()
        covered = {(input_digest(c), _fingerprint(c)) for c in chosen}
        computed: list[LoadedCase] = []
        for target in self.targets(adapter):
            under: dict[int | None, _Configured] = {}
            for loaded, digest in self._inputs:
                cutoff = loaded.case.config.cutoff
                if cutoff not in under:
                    under[cutoff] = _Configured(target.for_input(cutoff))
                configured = under[cutoff]
                if (digest, configured.fingerprint) not in covered:
                    covered.add((digest, configured.fingerprint))
                    computed.append(configured.case_of(loaded))
        return chosen + computed


def _fingerprint(loaded: LoadedCase) -> str:
    return _fingerprint_of(loaded.case.config)


@cache
def _fingerprint_of(config: Config) -> str:
    # Stored cases share a few hundred configurations among thousands of cases.
    return config.fingerprint()


def _distinct_inputs(cases: Iterable[LoadedCase]) -> list[LoadedCase]:
    """The first case of each distinct (input, cutoff), in suite order, leaving out the cases
    that judge another case's input (``input_of``): the input's own case says which axis it
    was written for."""
    seen: dict[tuple[str, int | None], LoadedCase] = {}
    for loaded in cases:
        if loaded.case.input_of is None:
            key = (input_digest(loaded), loaded.case.config.cutoff)
            seen.setdefault(key, loaded)
    return list(seen.values())


class _Configured:
    """One configuration's texts, computed once for every input judged under it."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.fingerprint = config.fingerprint()

    def case_of(self, loaded: LoadedCase) -> LoadedCase:
        """The input of `loaded` under this configuration, its expected values left for
        `fill_expected`; its id is the input's case id and the fingerprint."""
        source = loaded.case
        case = Case(
            id=f"{source.id}@{self.fingerprint}",
            description=source.description,
            config=self.config,
            spec=source.spec,
            sources=source.sources,
            origin=source.origin,
            input=source.input,
            input_files=source.input_files,
            input_of=source.id,
        )
        return replace(loaded, case=case, expected_source=COMPUTED)


def configured_case(loaded: LoadedCase, config: Config) -> LoadedCase:
    """The input of `loaded` under `config`, as a run judges it (`_Configured.case_of`)."""
    return _Configured(config).case_of(loaded)


def fill_expected(cache: ExpectedCache, loaded: LoadedCase, data: Path | None) -> LoadedCase:
    """The case with its expected values: a computed case's from `cache`, a stored case's its
    own."""
    case = loaded.case
    if loaded.expected_source != COMPUTED or case.expected is not None:
        return loaded
    expected = cache.value(
        _fingerprint(loaded), input_digest(loaded), lambda: _reference_outcome(case, data)
    )
    return replace(loaded, case=replace(case, expected=expected))


def _reference_outcome(case: Case, data: Path | None) -> ExpectedValues:
    if case.input_files is not None:
        return published_outcome(case.config, case.input_files, data)
    qrels, run = case.inputs(data)
    return outcome(case.config, qrels, run)
