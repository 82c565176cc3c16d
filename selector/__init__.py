"""Risk-preserving subset selection: pick a fraction of the episodes that keeps the ranking of
systems, covers every risk, and still flags the high-risk systems.

Works on per-episode results across several systems (from traces, never from models):
`data` builds the pass/fail matrix and 12 episode features, `objective` scores a subset,
`greedy` selects, `baselines` are the comparison methods, `evaluate` makes the method table,
leave-one-system-out validation and the feature ablation.
"""
