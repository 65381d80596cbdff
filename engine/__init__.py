"""The fast exact scoring engine behind ``ndcgspec score``: columnar reading, vectorised
ranking, and the reference's own arithmetic. It computes only the spec anchors `support`
declares; every other configuration goes to the plain reference, the definition, and every
path (files, tables, in-memory inputs, the sweep, Spark partitions) asks `route` which."""
