"""The survey's commands bound their whole run by default, and say so in their help: an
adapter that hangs costs at most the budget, whatever it does, and is sent no case after its
first timeout (`tests/survey/test_time_limits.py` holds that)."""

from __future__ import annotations

import math

import pytest

from ndcgspec.commands.cli import main
from ndcgspec.survey.probes import CASE_TIMEOUT, COMMAND_BUDGET


@pytest.mark.parametrize("command", ["identify", "predict"])
def test_the_default_budget_bounds_the_command_and_the_help_states_it(capsys, command) -> None:
    assert 0 < COMMAND_BUDGET < math.inf and 0 < CASE_TIMEOUT <= COMMAND_BUDGET
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "seconds allowed for the whole command" in text
    assert f"(default {COMMAND_BUDGET:g})" in text and f"(default {CASE_TIMEOUT:g})" in text
    assert "once the adapter has timed out it is taken as hung, and the cases not yet sent" in text
