"""The ``ndcgspec`` command line and the user-side commands: ``score``, ``trec_eval``,
``explain``, ``which``, ``compare``, ``cases`` and the citation. Each subcommand module exposes
``register(subparsers)``; ``cli`` lists them."""
