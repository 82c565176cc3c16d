"""`memriskbench merge OUT SHARD...`: the traces of one system run as shards (`run --shard i/n`, on
one machine or several) become one trace, as if the suite had been run in one go.

The shards must agree on everything in their headers but their episodes, hold disjoint episodes,
and be finished. Episodes are written in suite order (the episode files' order), each with its
records as the shard recorded them; seq and chain are computed anew. Timing aside, the result is
the trace an unsharded run writes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from memriskbench.errors import MemRiskError, TraceError
from memriskbench.traces.records import Header, Record
from memriskbench.traces.trace import TraceWriter, read_trace


def merge(out: str | Path, shards: Sequence[str], order: Sequence[str]) -> int:
    """Write the merged trace; returns the number of episodes. `order`: episode ids in suite order."""
    if Path(out).exists():
        raise MemRiskError(f"{out}: already exists; merge writes a new trace")
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
    with TraceWriter(out) as w:
        w.write(header)
        for eid in ids:
            for r in episodes[eid]:
                w.write(r)
    return len(ids)
