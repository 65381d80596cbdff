"""The evidence files ``ndcgspec matrix`` writes beside the conformance page, held to their
schemas: ``presets.json`` (``spec/schema/presets-evidence.schema.json``) and
``predictions.json`` (``spec/schema/predictions.schema.json``).

The page's tables and the tests read these files as data, so a file that does not meet its
schema is refused with one line naming it, where in it and what is wrong, before anything
is written and whenever it is read back.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ndcgspec.reference import NdcgSpecError
from ndcgspec.spec import load_schema

PRESETS_EVIDENCE_SCHEMA = "presets-evidence"
PREDICTIONS_SCHEMA = "predictions"
SHOWN = 160
"""A problem is cut to this many characters: a schema message may quote a whole record."""


@cache
def _validator(schema: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(schema))


def checked_document(text: str, schema: str, where: Path | str) -> Any:
    """The JSON document `text` (the content of the file `where`) when it meets
    ``spec/schema/<schema>.schema.json``; NdcgSpecError in one line otherwise."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise NdcgSpecError(f"{where}: line {error.lineno}: not JSON: {error.msg}") from None
    problem = best_match(_validator(schema).iter_errors(document))
    if problem is not None:
        pointer = "".join(f"/{part}" for part in problem.absolute_path) or "/"
        message = " ".join(problem.message.split())
        if len(message) > SHOWN:
            message = message[: SHOWN - 3] + "..."
        raise NdcgSpecError(f"{where}: {pointer}: {message} ({schema}.schema.json)")
    return document
