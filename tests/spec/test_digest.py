"""`ndcgspec.spec.digest`: the interpreter's own SHA-256 gives hashlib's digest, and is the one
used where the interpreter has it (issue 41: hashlib loads OpenSSL at every start)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from importlib.util import find_spec

import pytest

from ndcgspec.spec.digest import sha256_hex


@pytest.mark.parametrize("data", [b"", b"ndcgspec 1 nDCG@10", bytes(range(256)) * 1000])
def test_the_digest_is_hashlibs(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_the_digest_does_not_load_openssl_where_the_interpreter_has_its_own() -> None:
    own = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    if find_spec(own) is None:
        pytest.skip(f"this interpreter has no {own}")
    code = "import sys, ndcgspec.spec.digest; print('_hashlib' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "False\n"
