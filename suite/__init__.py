"""The golden cases as the harness and ``ndcgspec cases`` use them: loading and linting case
files, their expected values, the tolerance they are judged with, and building and checking
them from the exact reference (``cases/README.md``)."""
