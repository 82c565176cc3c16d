"""Drive episodes through a system and write the trace. The runner never scores.

Events are walked in a deterministic topological order (ties broken by file order). An event
runs if it has no predecessors or at least one ran, and its `when` condition holds.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from memriskbench import TRACE_SCHEMA_VERSION, __version__
from memriskbench.episodes.episode import JUDGE_ONLY, Episode, Event, episode_digest
from memriskbench.episodes.tools import TOOLS, ToolBox
from memriskbench.episodes.world import World
from memriskbench.play.systems.base import DecisionRequest, ModelError, Observation, Pending, Step, System
from memriskbench.play.systems.visible import for_system, visible_episode
from memriskbench.traces.records import (
    Decision,
    EpisodeEnd,
    EpisodeStart,
    EventRecord,
    Header,
    MemoryOpRecord,
    Record,
    Termination,
)
from memriskbench.traces.trace import TraceWriter, prepare_resume

SEED = 0


def event_order(ep: Episode) -> list[str]:
    index = {e.id: i for i, e in enumerate(ep.events)}
    g = nx.DiGraph()
    g.add_nodes_from(index)
    g.add_edges_from((a, e.id) for e in ep.events for a in e.after)
    return list(nx.lexicographical_topological_sort(g, key=lambda n: index[n]))


def make_header(system: System, episodes: Sequence[Episode], seed: int = SEED) -> Header:
    return Header(
        schema_version=TRACE_SCHEMA_VERSION,
        memriskbench_version=__version__,
        system=system.identity(),
        model=system.model_identity(),
        seed=seed,
        episodes={ep.id: episode_digest(ep) for ep in episodes},
    )


def _ground_truth(ev: Event) -> dict[str, Any]:
    gt: dict[str, Any] = {}
    if ev.memory:
        # What the system played against; the judge-only fields (a record's subject) are read
        # from the episode file by the scorer, and a trace holds what its digest covers.
        gt["memory"] = [
            {k: v for k, v in _slots(m).items() if v not in (None, "") and k not in JUDGE_ONLY} for m in ev.memory
        ]
    if ev.policy:
        gt["policy"] = [{k: v for k, v in _slots(p).items() if v is not None} for p in ev.policy]
    if ev.kind == "constraint":
        gt["constraint"] = {
            "id": ev.constraint,
            "op": ev.op,
            "monitor": None if ev.monitor is None else {"type": ev.monitor.type, **ev.monitor.params},
        }
    if ev.kind == "tool_return":
        gt["tool_return"] = {"tool": ev.tool, "result": ev.result}
    return gt


def _slots(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in obj.__slots__}


def play_episode(ep: Episode, system: System, writer: TraceWriter | _Buffer) -> Termination:
    """Play one episode from a fresh system state and append its records."""
    t_start = time.perf_counter()
    world = World(ep)
    toolbox = ToolBox()
    aware = getattr(system, "metadata_aware", False)
    system.start_episode(ep if aware else visible_episode(ep))
    writer.write(EpisodeStart(episode=ep.id, risk=ep.risk, tier=ep.tier, domain=ep.domain, sha256=episode_digest(ep)))
    ran: set[str] = set()
    final: dict[str, str] = {}
    path: list[str] = []
    termination = Termination.COMPLETED
    for eid in event_order(ep):
        ev = ep.event(eid)
        if ev.after and not any(a in ran for a in ev.after):
            continue
        if ev.when is not None:
            taken = final.get(ev.when.decision)
            if taken is None or ((taken in ev.when.actions) == ev.when.negate):
                continue
        ran.add(eid)
        path.append(eid)
        if not ev.is_decision:
            world.apply(ev)
            if ev.kind == "tool_return" and ev.tool:
                toolbox.script(ev.tool, ev.result)
            writer.write(
                EventRecord(
                    episode=ep.id,
                    event=ev.id,
                    kind=ev.kind,
                    speaker=ev.speaker,
                    timestamp=ev.timestamp or None,
                    text=ev.text if ev.kind != "tool_return" else "",
                    ground_truth=_ground_truth(ev),
                )
            )
            try:
                note = system.observe(for_system(system, ev))
            except ModelError as exc:
                note = Observation(raw_output="", op={}, result=f"model_error: {exc}", tokens={})
                termination = termination if termination is not Termination.COMPLETED else Termination.MODEL_ERROR
            if note is not None:
                writer.write(
                    MemoryOpRecord(
                        episode=ep.id,
                        event=ev.id,
                        raw_output=note.raw_output,
                        op=note.op,
                        result=note.result,
                        store=note.store,
                        tokens={"prompt": 0, "cached": 0, "completion": 0, **note.tokens},
                    )
                )
            continue
        outcome = _decide(ep, ev, world, toolbox, system, writer)
        final[ev.id] = outcome[0]
        if termination is Termination.COMPLETED and outcome[1] is not Termination.COMPLETED:
            termination = outcome[1]
    writer.write(
        EpisodeEnd(
            episode=ep.id,
            path=path,
            termination=termination.value,
            final_actions=final,
            timing={"episode_s": round(time.perf_counter() - t_start, 6)},
        )
    )
    return termination


def _decide(
    ep: Episode, ev: Event, world: World, toolbox: ToolBox, system: System, writer: TraceWriter | _Buffer
) -> tuple[str, Termination]:
    tools = tuple(TOOLS[t] for t in ev.tools)
    texts = tuple(text for _, (on, _, text) in world.constraints.items() if on and text)
    steps: list[Step] = []
    for step in range(ev.max_steps):
        request = DecisionRequest(
            decision=for_system(system, ev), step=step, steps=tuple(steps), tools=tools, constraint_texts=texts
        )
        t0 = time.perf_counter()
        try:
            reply = system.decide(request)
        except ModelError as exc:
            _write_decision(writer, ep, ev, world, step, None, str(exc), None, {"memory_ids": []}, "", None, {}, 0.0)
            return "model_error", Termination.MODEL_ERROR
        elapsed = time.perf_counter() - t0
        action = reply.action
        result = None
        if action is not None and action.type == "tool_call":
            assert action.tool is not None
            result = (
                toolbox.call(action.tool, action.args)
                if action.tool in ev.tools
                else {"status": "error", "error": "tool not offered"}
            )
        _write_decision(
            writer,
            ep,
            ev,
            world,
            step,
            action,
            reply.error,
            result,
            _with_memory_ids(ep, reply.context),
            reply.raw_output,
            reply.agent_memory,
            reply.tokens,
            elapsed,
        )
        if action is None:
            return "parse_error", Termination.PARSE_ERROR
        steps.append(Step(action, result))
        if action.type != "tool_call":
            return action.type, Termination.COMPLETED
    return steps[-1].action.type, Termination.MAX_STEPS


def _with_memory_ids(ep: Episode, context: dict[str, Any]) -> dict[str, Any]:
    """The memory records behind the events a system showed its model, for the checks that ask
    whether a record was used: the runner adds them, so the system never reads the annotations."""
    if "memory_ids" in context or "events" not in context:
        return context
    known = {e.id: e for e in ep.events}
    ids = {m.id for eid in context["events"] if eid in known for m in known[eid].memory if m.op in ("write", "update")}
    return {**context, "memory_ids": sorted(ids)}


def _write_decision(
    writer: TraceWriter | _Buffer,
    ep: Episode,
    ev: Event,
    world: World,
    step: int,
    action: Any,
    error: str | None,
    result: Any,
    context: dict[str, Any],
    raw: str,
    agent_memory: Any,
    tokens: dict[str, int],
    elapsed: float,
) -> None:
    requester = ev.requester or ""
    writer.write(
        Decision(
            episode=ep.id,
            decision=ev.id,
            step=step,
            requester=requester,
            query=ev.query,
            tools=list(ev.tools),
            context=context,
            raw_output=raw,
            action=None if action is None else action.to_dict(),
            error=error,
            tool_result=result,
            memory=world.store.snapshot(),
            agent_memory=agent_memory,
            constraints=world.constraint_states(),
            visible_scopes=world.policy.visible_scopes(requester),
            tokens={"prompt": 0, "cached": 0, "completion": 0, **tokens},
            timing={"decide_s": round(elapsed, 6)},
        )
    )


@dataclass
class RunSummary:
    ran: int
    skipped: int
    terminations: dict[str, int]
    pending: int = 0  # episodes stopped at a step without a reply (replay)


class _Buffer:
    """One episode's records, held until the episode ends: a trace only ever receives whole
    episodes, in suite order, whether they were played one at a time or several in flight."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    def write(self, record: Record) -> None:
        self.records.append(record)


def play_buffered(ep: Episode, system: System) -> tuple[Termination, list[Record]] | None:
    """Play one episode; its records, or None when it stopped at a step still without a reply."""
    buf = _Buffer()
    try:
        reason = play_episode(ep, system, buf)
    except Pending:
        return None
    return reason, buf.records


Played = Iterator[tuple[Episode, tuple[Termination, list[Record]] | None]]


def _serial(todo: Sequence[Episode], system: System) -> Played:
    for ep in todo:
        yield ep, play_buffered(ep, system)


def _in_flight(todo: Sequence[Episode], systems: Sequence[System]) -> Played:
    """Several episodes in flight, one per system (each with its own connection and state); the
    results are handed on in suite order, whatever order they finish in. The workers are daemon
    threads: after Ctrl-C, one still inside a request that its closed connection has not yet cut
    does not hold the process open (a pool's workers are joined at exit)."""
    free: queue.Queue[System] = queue.Queue()
    for s in systems:
        free.put(s)
    futures: list[Future[tuple[Termination, list[Record]] | None]] = [Future() for _ in todo]
    jobs: queue.Queue[int] = queue.Queue()
    for i in range(len(todo)):
        jobs.put(i)
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            try:
                i = jobs.get_nowait()
            except queue.Empty:
                return
            if not futures[i].set_running_or_notify_cancel():
                continue
            system = free.get()
            try:
                futures[i].set_result(play_buffered(todo[i], system))
            except BaseException as exc:  # handed to the main thread, which raises it
                futures[i].set_exception(exc)
            finally:
                free.put(system)

    for k in range(len(systems)):
        threading.Thread(target=worker, name=f"episode-{k}", daemon=True).start()
    try:
        for ep, fut in zip(todo, futures, strict=True):
            yield ep, fut.result()
    except BaseException:
        # Ctrl-C or a failure: close every system, so that the requests in flight end now (their
        # connections close) instead of when the server answers or --timeout runs out.
        for s in systems:
            with contextlib.suppress(Exception):
                s.close()
        raise
    finally:
        # Episodes not yet started are dropped; the next run plays every episode not written.
        stop.set()
        for fut in futures:
            fut.cancel()


def run(
    system: System,
    episodes: Sequence[Episode],
    out: str | Path,
    *,
    progress: Callable[[int], Any] | None = None,
    more: Sequence[System] = (),
) -> RunSummary:
    """Play every episode not already finished in `out`; resume a killed run safely. With `more`
    systems (copies of `system`, e.g. one connection each to a server), that many more episodes
    are in flight at once; the trace is the one a serial run writes, timing aside."""
    header = make_header(system, episodes)
    writer, finished = prepare_resume(out, header)
    counts: dict[str, int] = {}
    ran = pending = 0
    todo = [ep for ep in episodes if ep.id not in finished]
    try:
        if progress is not None and len(todo) < len(episodes):
            progress(len(episodes) - len(todo))
        played = _in_flight(todo, [system, *more]) if more else _serial(todo, system)
        for _ep, outcome in played:
            if outcome is None:
                pending += 1
            else:
                reason, records = outcome
                for r in records:
                    writer.write(r)
                counts[reason.value] = counts.get(reason.value, 0) + 1
                ran += 1
            if progress is not None:
                progress(1)
    finally:
        writer.close()
    return RunSummary(ran=ran, skipped=len(finished), terminations=counts, pending=pending)
