"""The trace: typed JSONL records, the hash-chained writer and reader, resume and the lock, and
what is done to finished traces (pack, merge, compare).

Reads and writes trace files; knows nothing of episodes, systems or checks. May import: `common`
and the root modules.
"""
