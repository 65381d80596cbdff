"""The joint search's choice between departures that explain and are contradicted alike
(``survey/joint_search.py`` `_departures`), on a table of three probes whose verdicts are
given by hand."""

from __future__ import annotations

from collections.abc import Sequence

from ndcgspec.reference import Config
from ndcgspec.survey.joint_search import Changes, _departures
from ndcgspec.survey.probes import ProbeInput

ROW = (("q1", "d1", "1"),)
FIRST, SECOND, MET = (ProbeInput(name, ROW, ROW, Config.default()) for name in "abc")


class _Table:
    """Two misses and one met probe; a departure of the gain or of the ideal explains both
    misses and is contradicted by the met probe alike, and another ideal meets the first
    miss, where no other gain meets either."""

    probes = (FIRST, SECOND, MET)

    def asked(self, probe: ProbeInput) -> Config:
        return probe.config

    def config(self, probe: ProbeInput, changes: Changes) -> Config:
        return probe.config

    def verdict(self, probe: ProbeInput, changes: Changes) -> bool:
        return probe is MET or (
            probe is FIRST and changes.computes("ideal", "judged") == "retrieved"
        )

    def misses(self, changes: Changes) -> list[ProbeInput]:
        return [p for p in self.probes if not self.verdict(p, changes)]

    def explained(self, probe: ProbeInput, changes: Changes, departed: Sequence[str]) -> bool:
        return bool({"gain", "ideal"} & set(departed))


def test_of_departures_costing_alike_the_one_another_choice_comes_nearer_to_is_chosen() -> None:
    table = _Table()
    for axes in (["gain", "ideal"], ["ideal", "gain"]):
        cost, departed = _departures(table, Changes(), axes)  # type: ignore[arg-type]
        assert (cost, departed) == ((0, 1), ("ideal",))
