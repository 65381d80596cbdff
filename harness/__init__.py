"""The conformance harness: the plan of what an adapter is judged on, the workers that run
adapters in processes of their own, the pool, the protocol, the verdicts, the JSON-lines report
and its renderings, the pytest plugin, and the adapter SDK with the peer adapters."""
