"""Stage 3, judge: rule-based checks score a finished trace, decision by decision.

The check registry (`checks/`), the constraint monitors, the claim reader and the scorer. Reads
episodes and traces; never runs a model.

May import: `traces`, `gatemem`, `episodes`, `common` and the root modules; never `play`.
"""
