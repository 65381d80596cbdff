"""The exact reference implementation of ``spec/ndcg.yaml``: one small module per axis,
mpmath arithmetic at the spec's precision, written for clarity rather than speed."""

from .config import Config, parse_measure
from .errors import ConfigError, InputError, NdcgSpecError
from .evaluate import Evaluation, evaluate
from .inputs import Judgment, Posting, qrels_from_labels, run_from_scores
from .query import QueryResult, TraceRow

__all__ = [
    "Config",
    "ConfigError",
    "Evaluation",
    "InputError",
    "Judgment",
    "NdcgSpecError",
    "Posting",
    "QueryResult",
    "TraceRow",
    "evaluate",
    "parse_measure",
    "qrels_from_labels",
    "run_from_scores",
]
