"""The exact reference implementation of ``spec/ndcg.yaml``: one small module per axis,
mpmath arithmetic at the spec's precision, written for clarity rather than speed."""

from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import ConfigError, InputError, Location, NdcgSpecError
from ndcgspec.reference.evaluate import Evaluation, evaluate
from ndcgspec.reference.inputs import Judgment, Posting, qrels_from_labels, run_from_scores
from ndcgspec.reference.query import QueryResult, TraceRow

__all__ = [
    "Config",
    "ConfigError",
    "Evaluation",
    "InputError",
    "Judgment",
    "Location",
    "NdcgSpecError",
    "Posting",
    "QueryResult",
    "TraceRow",
    "evaluate",
    "qrels_from_labels",
    "run_from_scores",
]
