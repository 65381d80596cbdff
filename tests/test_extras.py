"""The install hints of ``ndcgspec.reference.errors``: what they tell a user to install is what
pyproject.toml lists for the extra, with the extras it is built of expanded (``ndcgspec`` itself
is not on the package index), and the command survives the shell."""

from __future__ import annotations

import shlex

import pytest
from install_hints import EXTRAS, PROJECT, names_extras
from packaging.requirements import Requirement

from ndcgspec.reference.errors import extra_requirements, install_hint


def expanded(extra: str) -> set[str]:
    """pyproject's requirements of `extra`, an ``ndcgspec[a,b]`` among them replaced by those
    of a and b."""
    found = set()
    for line in EXTRAS[extra]:
        requirement = Requirement(line)
        if requirement.name == PROJECT["name"]:
            found |= {r for inner in requirement.extras for r in expanded(inner)}
        else:
            found.add(str(requirement))
    return found


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_an_extra_installs_what_pyproject_lists_for_it(extra: str) -> None:
    assert {str(Requirement(r)) for r in extra_requirements(extra)} == expanded(extra)


def test_the_union_of_the_peers_is_built_of_other_extras() -> None:
    # So that no version is stated twice, and each peer has an extra of its own.
    assert all(Requirement(r).name == PROJECT["name"] for r in EXTRAS["peers"])
    assert {"sklearn", "torchmetrics", "page"} <= {
        e for r in EXTRAS["peers"] for e in Requirement(r).extras
    }


@pytest.mark.parametrize("extras", [("ir-measures",), ("page", "figures")])
def test_the_hint_is_a_command_the_shell_passes_on_whole(extras: tuple[str, ...]) -> None:
    hint = install_hint(*extras)
    command, _, _ = hint.partition(" (")
    assert shlex.split(command) == ["pip", "install", *(r for e in extras for r in EXTRAS[e])]
    assert names_extras(hint, extras)
