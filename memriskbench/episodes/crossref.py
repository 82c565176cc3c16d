"""Rules across a parsed episode, which no one field breaks alone: ids unique and resolving,
memory records written before they are changed or checked, a subject on every record a decision
targets, the event graph acyclic, the tier's length, and at least one decision."""

from __future__ import annotations

import re
from typing import Any

import networkx as nx

from memriskbench.episodes.episode import ACTION_TYPES, TIERS, Episode
from memriskbench.episodes.readers import Ctx
from memriskbench.errors import EpisodeError
from memriskbench.vocab import CHECK_PARAMS

PLACEHOLDER_RE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")


def cross_errors(ctx: Ctx, ep: Episode) -> list[EpisodeError]:
    errs: list[EpisodeError] = []
    index = {e.id: i for i, e in enumerate(ep.events)}
    pids = {p.id for p in ep.principals}
    seen: set[str] = set()
    for i, ev in enumerate(ep.events):
        if ev.id in seen:
            errs.append(ctx.error(("events", i, "id"), f"duplicate event id {ev.id!r}"))
        seen.add(ev.id)
    if len(pids) != len(ep.principals):
        errs.append(ctx.error(("principals",), "duplicate principal id"))
    records: dict[str, int] = {}
    keys: set[str] = set()
    constraints: set[str] = set()
    for i, ev in enumerate(ep.events):
        for j, m in enumerate(ev.memory):
            p = ("events", i, "memory", j)
            if m.op in ("write", "update"):
                if m.id in records:
                    errs.append(ctx.error(p + ("id",), f"duplicate memory record id {m.id!r}"))
                records[m.id] = i
                keys.add(m.key)
                if m.owner and m.owner not in pids:
                    errs.append(ctx.error(p + ("owner",), f"unknown principal {m.owner!r}"))
                if m.op == "update" and m.supersedes not in records:
                    errs.append(ctx.error(p + ("supersedes",), f"unknown or later record {m.supersedes!r}"))
            elif m.id not in records:
                errs.append(ctx.error(p + ("id",), f"{m.op} of record {m.id!r} that was not written before"))
        if ev.kind == "constraint":
            constraints.add(ev.constraint or "")
        for field, who in (("speaker", ev.speaker if ev.kind == "message" else None), ("requester", ev.requester)):
            if who is not None and who not in pids:
                errs.append(ctx.error(("events", i, field), f"unknown principal {who!r}"))
        for j, a in enumerate(ev.after):
            if a not in index:
                errs.append(ctx.error(("events", i, "after", j), f"unknown event {a!r}"))
        if ev.when is not None:
            target = index.get(ev.when.decision)
            if target is None or not ep.events[target].is_decision:
                errs.append(ctx.error(("events", i, "when", "decision"), f"unknown decision {ev.when.decision!r}"))
    for i, ev in enumerate(ep.events):
        if not ev.is_decision:
            continue
        if ev.target is not None and ev.target not in keys:
            errs.append(ctx.error(("events", i, "target"), f"no memory key {ev.target!r} in this episode"))
        for field, call in (("oracle", ev.oracle), ("naive", ev.naive)):
            if call is None:
                continue
            for text in [call.content, *[v for v in call.args.values() if isinstance(v, str)]]:
                for name in PLACEHOLDER_RE.findall(text):
                    if name not in keys:
                        errs.append(ctx.error(("events", i, field), f"placeholder {{{name}}} names no memory key"))
        for j, c in enumerate(ev.checks):
            p = ("events", i, "checks", j)
            for field, rid in _record_refs(c.type, c.params):
                if rid not in records:
                    errs.append(ctx.error(p + (field,), f"unknown memory record {rid!r}"))
            if c.type == "constraint_respected" and c.params["constraint"] not in constraints:
                errs.append(ctx.error(p + ("constraint",), f"unknown constraint {c.params['constraint']!r}"))
            for a in c.params.get("actions", []):
                if a not in ACTION_TYPES:
                    errs.append(ctx.error(p + ("actions",), f"{a!r} is not an action"))
    errs += _subject_errors(ctx, ep)
    graph = nx.DiGraph()
    graph.add_nodes_from(index)
    graph.add_edges_from((a, e.id) for e in ep.events for a in e.after if a in index)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        errs.append(ctx.error(("events",), "the event graph has a cycle: " + " -> ".join(f"{u}" for u, _ in cycle)))
    lo, hi = TIERS.get(ep.tier, (0, len(ep.events)))
    if not lo <= ep.turns <= hi:
        errs.append(
            ctx.error(("tier",), f"tier {ep.tier} needs {lo}-{hi} turns (non-decision events), found {ep.turns}")
        )
    if not ep.decisions:
        errs.append(ctx.error(("events",), "an episode needs at least one decision"))
    return errs


def _record_refs(ctype: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, record id) for every record a check names: in a record parameter, or as a {record: id}
    item of a value list."""
    out: list[tuple[str, str]] = []
    for name, value in params.items():
        kind = CHECK_PARAMS[ctype][name].kind
        if kind == "record":
            out.append((name, str(value)))
        elif kind == "valuelist":
            out += [(name, str(x["record"])) for x in value if isinstance(x, dict)]
    return out


def targeted_keys(ep: Episode) -> dict[str, str]:
    """Memory keys a decision targets (its `target`, or a record one of its checks names), each with
    the decision that does."""
    by_id = {m.id: m.key for ev in ep.events for m in ev.memory if m.op in ("write", "update")}
    out: dict[str, str] = {}
    for ev in ep.decisions:
        if ev.target:
            out.setdefault(ev.target, ev.id)
        for c in ev.checks:
            for _, rid in _record_refs(c.type, c.params):
                if rid in by_id:
                    out.setdefault(by_id[rid], ev.id)
    return out


def _subject_errors(ctx: Ctx, ep: Episode) -> list[EpisodeError]:
    """The judge tells which thing a reply attaches a value to by the records' subjects: every
    record of a key a decision targets needs one."""
    targeted = targeted_keys(ep)
    errs = []
    for i, ev in enumerate(ep.events):
        for j, m in enumerate(ev.memory):
            if m.op in ("write", "update") and m.key in targeted and not m.subject.strip():
                errs.append(
                    ctx.error(
                        ("events", i, "memory", j, "subject"),
                        f"required on a record a decision targets ({targeted[m.key]} targets {m.key!r}):"
                        " what the value is about, in a person's words",
                    )
                )
    return errs
