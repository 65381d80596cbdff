"""The names ``ndcgspec.reference`` exports, each imported from its module when first asked
for (so that ``import ndcgspec.reference.errors`` loads neither mpmath nor the evaluation)."""

from __future__ import annotations

from importlib import import_module

import pytest

import ndcgspec.reference as reference


@pytest.mark.parametrize("name", reference.__all__)
def test_each_exported_name_is_the_object_its_module_defines(name: str) -> None:
    exported = getattr(reference, name)
    assert getattr(import_module(exported.__module__), name) is exported
    assert exported.__module__.startswith("ndcgspec.reference.")


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        reference.nothing  # noqa: B018  # the lookup is what is tested
    with pytest.raises(ImportError):
        from ndcgspec.reference import nothing  # noqa: F401
