"""The harness: the ``ndcgspec`` command line, and running adapters against the golden cases."""
