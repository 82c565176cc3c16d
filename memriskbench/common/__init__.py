"""Primitives that several stages read: canonical JSON and hashes, bounded regex matching, text
normalization, the matcher's word lists and typed values (dates, times, amounts, codes).

Reads: only the root modules (`risks`, `vocab`, `errors`). Nothing here knows about episodes,
traces or checks; every stage above may import it.
"""
