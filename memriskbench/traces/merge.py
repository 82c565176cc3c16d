"""`memriskbench merge OUT SHARD...`: the traces of one system run as shards (`run --shard i/n`, on
one machine or several) become one trace, as if the suite had been run in one go.

The shards must agree on everything in their headers but their episodes, hold disjoint episodes,
and be finished. Episodes are written in suite order (the episode files' order), each with its
records as the shard recorded them; seq and chain are computed anew. Timing aside, the result is
the trace an unsharded run writes.

`--out` must not exist. The merge holds the trace lock on it (as a run does), so two merges, or a
merge and a run, never write one file together; the trace is written to a temporary file and
renamed into place, so a failed merge leaves nothing behind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path

from memriskbench.common.jsonsafe import write_lines
from memriskbench.errors import MemRiskError, TraceError
from memriskbench.traces.records import Header, Record
from memriskbench.traces.trace import GENESIS, TraceLock, encode_line, read_trace


def merge(out: str | Path, shards: Sequence[str], order: Sequence[str]) -> int:
    """Write the merged trace; returns the number of episodes. `order`: episode ids in suite order."""
    lock = TraceLock(Path(out))
    try:
        if Path(out).exists():  # checked under the lock: a second merge cannot slip in between
            raise MemRiskError(f"{out}: already exists; merge writes a new trace")
        header, records = _merged(shards, order)
        write_lines(out, _lines([header, *records]))
    finally:
        lock.release()
    return len(header.episodes)


def _lines(records: Sequence[Record]) -> Iterator[str]:
    chain = GENESIS
    for seq, r in enumerate(records):
        data, chain = encode_line(r, seq, chain)
        yield data.decode("utf-8")


def _merged(shards: Sequence[str], order: Sequence[str]) -> tuple[Header, list[Record]]:
    """The merged header and records, after every check."""
    try:
        traces = [read_trace(p) for p in shards]
    except TraceError as exc:
        raise MemRiskError(str(exc)) from None
    first = traces[0].header
    episodes: dict[str, list[Record]] = {}
    digests: dict[str, str] = {}
    for t in traces:
        if dataclasses.replace(t.header, episodes={}) != dataclasses.replace(first, episodes={}):
            raise MemRiskError(f"{t.path}: not a shard of the same run as {traces[0].path} (the headers differ)")
        done = t.episodes()
        missing = sorted(set(t.header.episodes) - set(done))
        if missing:
            raise MemRiskError(
                f"{t.path}: unfinished ({len(missing)} episode(s) without an end, e.g. {missing[0]}); resume it first"
            )
        for eid, records in done.items():
            if eid in episodes:
                raise MemRiskError(f"{t.path}: episode {eid} is in two shards")
            episodes[eid] = records
        digests.update(t.header.episodes)
    position = {eid: i for i, eid in enumerate(order)}
    unknown = sorted(e for e in episodes if e not in position)
    if unknown:
        raise MemRiskError(f"episode {unknown[0]} is not among the loaded episodes (give --episodes/--gatemem)")
    ids = sorted(episodes, key=position.__getitem__)
    header: Header = dataclasses.replace(first, episodes={e: digests[e] for e in ids})
    return header, [r for eid in ids for r in episodes[eid]]
