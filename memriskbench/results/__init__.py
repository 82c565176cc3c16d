"""Stage 4, results: per-system figures from scored traces, and what is made of them.

Pass rates and GateMem's U/A/F/MGS (`figures.py`), statistics, findings, the report, the
verdicts export, the end-to-end trace check, the audit (which re-scores, and re-plays reference
agents) and the suite self-check. The selector (`selector/`, outside this package) reads these.

May import: every stage below (`judge`, `play`, `traces`, `gatemem`, `episodes`, `common`) and
the root modules; never `cli`.
"""
