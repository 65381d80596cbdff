"""Statistics on exact per-query values (``ndcgspec.inference``): the paired randomization
(sign-flip) test, the paired t-test, percentile bootstrap intervals and the corrections for
multiple comparisons, every one computed on the exact decimals of the per-query nDCG values,
so that "at least as extreme" and every order of resampled means is decided exactly."""
