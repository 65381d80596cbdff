"""What the commands compute about scores beyond the scores themselves (``ndcgspec.analysis``):
the space of configurations `which` searches and its search, the paired tests of `compare`,
judged@k, and the provenance of every result. Libraries passing typed records; the commands
(``ndcgspec.commands``) turn them into text, JSON and tables."""
