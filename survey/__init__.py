"""The implementation survey: probing an adapter's behaviour axis by axis (``identify``), checking
presets and predicting fresh queries from declared departures (``predict``), and the conformance
page of every peer library (``matrix``). It runs adapters through the harness's runner."""
