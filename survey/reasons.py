"""The names the survey gives an adapter's refusals and failures, the one place where their
text becomes data.

The protocol carries why an adapter rejected a case (``rejected``) or failed on it
(``error``) as text only. A declared departure that refuses or fails "for the reasons the
identification saw" (``survey/prediction.py``) is matched by these names: computed here,
once per answer (`Answer.refusal`, `Answer.failure` of ``survey/probes.py``), and never by
parsing text anywhere else.
"""

from __future__ import annotations

import re
import tempfile

REASON_SHOWN = 120
"""A refusal's reason is cut to this many characters."""
ERROR_SHOWN = 80
"""A failure's error is cut to this many characters, as the page shows it."""
QUERY_PREFIX = re.compile(r"^query \S+: ")
"""The query id some adapters put before a refusal (sklearn's, one query at a time)."""
CODE_CRASH = re.compile(r"^adapter crashed: killed by SIG(SEGV|BUS|FPE|ILL|ABRT)$")
"""How the harness names a process its own code killed (``harness/worker.py``): a signal the
code raises on its input, as a library's segfault, not one sent from outside (SIGKILL, SIGTERM:
the machine's memory, or a stopped run)."""


def first_line(text: object) -> str:
    """The first line of a message ("" for an empty one): libraries put a traceback or a
    usage text after it, which names nothing the survey compares."""
    shown = str(text)
    return shown.splitlines()[0] if shown else ""


def without_temporary_paths(text: str) -> str:
    """An error message with the names of temporary files (which change on every run) gone."""
    return re.sub(re.escape(tempfile.gettempdir()) + r"/[\w.-]+", "<temporary file>", text)


def refusal_key(text: object) -> str:
    """The name of a refusal: its first line without the query id some adapters put before
    it, cut to `REASON_SHOWN`."""
    return QUERY_PREFIX.sub("", first_line(text))[:REASON_SHOWN]


def crashed_by_its_code(text: object) -> bool:
    """Whether a process failure's error says the adapter's own code killed it
    (`CODE_CRASH`)."""
    return CODE_CRASH.match(first_line(text)) is not None


def failure_key(text: object) -> str:
    """The name of a failure: its first line without temporary file names, cut to
    `ERROR_SHOWN`."""
    return without_temporary_paths(first_line(text))[:ERROR_SHOWN]
