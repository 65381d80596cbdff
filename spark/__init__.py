"""Exact nDCG on Apache Spark: ``ndcgspec score --engine spark`` and `score_frames`.

Spark partitions the input by query; each executor scores its queries with ndcgspec's own
engine (`partition`), and the driver combines the per-query values into the result objects of
``ndcgspec score`` (`scoring`), identical to the single-machine ones digit for digit. pyspark
is imported only inside functions, so ``import ndcgspec`` never needs it.
"""

from __future__ import annotations

from ndcgspec.spark.scoring import score_frames, score_paths

__all__ = ["score_frames", "score_paths"]
