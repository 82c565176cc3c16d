"""Read traces for scoring and auditing: verify what can be verified, score what is sound, and
list every problem precisely (a broken chain, a truncated tail, a missing header, another
benchmark version, a duplicated or changed episode). Nothing here raises on bad input."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memriskbench import TRACE_SCHEMA_VERSION, __version__
from memriskbench.episodes.episode import Episode
from memriskbench.errors import TraceError
from memriskbench.judge.scoring import episode_problem, score_episode
from memriskbench.results.figures import SystemRun
from memriskbench.traces.records import EpisodeEnd, EpisodeStart, Header, Record, record_from_dict
from memriskbench.traces.trace import TraceRead, read_lines


@dataclass
class LoadedTrace:
    path: str
    run: SystemRun | None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def load_trace(
    path: str | Path, episodes: dict[str, Episode], rescore: bool = False, got: TraceRead | None = None
) -> LoadedTrace:
    """`rescore`: score episodes whose file changed since the trace was made against the current
    file (new checks on old replies), with a note, instead of leaving them out. `got`: the trace's
    lines as `read_lines(path, strict=False, salvage=True)` gave them, where the caller has them."""
    p = str(path)
    out = LoadedTrace(p, None)
    changed = 0
    if got is None:
        try:
            got = read_lines(path, strict=False, salvage=True)
        except TraceError as exc:
            out.problems.append(str(exc))
            return out
    if got.error is not None:
        out.problems.append(f"{got.error} (only the {len(got.lines)} line(s) before it are used)")
    if got.partial_tail:
        out.problems.append(f"{p}:{len(got.lines) + 1}: truncated last line dropped (an interrupted run?)")
    if not got.lines:
        out.problems.append(f"{p}: no verifiable lines, nothing to score")
        return out
    records: list[Record] = []
    for i, obj in enumerate(got.lines):
        try:
            records.append(record_from_dict(obj))
        except (TypeError, ValueError) as exc:
            out.problems.append(f"{p}:{i + 1}: bad record: {exc}")
            return out
    header = records[0]
    if not isinstance(header, Header):
        out.problems.append(f"{p}: missing header")
        return out
    if header.schema_version != TRACE_SCHEMA_VERSION:
        out.problems.append(
            f"{p}: trace schema {header.schema_version}, this memriskbench reads {TRACE_SCHEMA_VERSION}; not scored"
        )
        return out
    if header.memriskbench_version != __version__:
        out.problems.append(f"{p}: made by memriskbench {header.memriskbench_version}, scored by {__version__}")
    results = []
    seen: set[str] = set()
    current: list[Record] = []
    for r in records[1:]:
        if isinstance(r, EpisodeStart):
            current = [r]
            continue
        current.append(r)
        if not isinstance(r, EpisodeEnd):
            continue
        eid = r.episode
        if eid in seen:
            out.problems.append(f"{p}: episode {eid} appears twice; the first is scored")
            continue
        seen.add(eid)
        problem = episode_problem(eid, episodes, header.episodes)
        if problem and rescore and eid in episodes:
            changed += 1
            problem = None
        if problem:
            out.problems.append(f"{p}: {problem}; not scored")
        else:
            try:
                results.append(score_episode(episodes[eid], current))
            except (TraceError, KeyError, TypeError, ValueError) as exc:
                out.problems.append(f"{p}: episode {eid} cannot be scored: {exc}")
    if changed:
        out.notes.append(
            f"{p}: {changed} episode(s) changed since the trace was made; scored against the current files (--rescore)"
        )
    name = str(header.system.get("name") or header.system.get("agent") or Path(p).stem)
    out.run = SystemRun(name=name, trace=p, header=asdict(header), results=results, finished=len(seen))
    return out


def load_traces(paths: Sequence[str], episodes: dict[str, Episode], rescore: bool = False) -> list[LoadedTrace]:
    return [load_trace(p, episodes, rescore) for p in paths]
