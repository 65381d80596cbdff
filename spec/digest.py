"""The SHA-256 digest of bytes, in hex: the keys of the values kept from the spec's files
(`ndcgspec.spec.kept`) and a configuration's fingerprint (``ndcg.definition.versions``).

Computed by the interpreter's own SHA-256 where it has one (CPython's ``_sha256``, ``_sha2``
from 3.12), else by hashlib's: importing hashlib loads OpenSSL, about 3 ms of every start that
reads a measure (issue 41), for the same digest."""

from __future__ import annotations

import sys
from importlib import import_module

# The typing module costs milliseconds of every start (issue 41); type checkers read the name
# TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _constructor() -> Callable[[bytes], Any]:
    """The interpreter's own SHA-256 constructor, else hashlib's."""
    # Only the module of this version is asked for: a module not found is a search of the
    # whole path.
    own = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    try:
        constructor: Callable[[bytes], Any] = import_module(own).sha256
    except (ImportError, AttributeError):
        from hashlib import sha256

        constructor = sha256
    return constructor


_SHA256 = _constructor()


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of `data` as 64 lowercase hex digits."""
    return str(_SHA256(data).hexdigest())
