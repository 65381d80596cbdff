"""The measure language (spec anchor ``ndcg.grammar``): measure strings in the canonical grammar
and in trec_eval's and ir_measures' dialects, configuration files, and the configuration schema
generated from ``spec/ndcg.yaml``. Each reads into a `ndcgspec.reference.Config`."""

from ndcgspec.measures.grammar import parse_measure

__all__ = ["parse_measure"]
