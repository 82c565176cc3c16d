"""The check families: text, tool, memory, constraint and action. Each is a small pure predicate.

Adding a check type is one function here plus its parameters in `vocab.CHECK_PARAMS`.
"""

from __future__ import annotations

from typing import Any

from ..monitors import violation
from .base import CheckContext, Outcome, as_number, check, find, normalize, search


@check("contains")
def contains(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n, hit = find(p["value"], ctx.texts(p.get("include_args", False)))
    return Outcome(s, n, f"found in {hit!r}" if hit else f"{p['value']!r} not found")


@check("not_contains")
def not_contains(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n, hit = find(p["value"], ctx.texts(p.get("include_args", True)))
    return Outcome(not s, not n, f"{p['value']!r} appears in {hit!r}" if hit else "absent")


@check("regex")
def regex(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n, hit = search(p["pattern"], ctx.texts(p.get("include_args", False)))
    return Outcome(s, n, f"matched {hit!r}" if hit else f"/{p['pattern']}/ unmatched")


@check("not_regex")
def not_regex(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n, hit = search(p["pattern"], ctx.texts(p.get("include_args", True)))
    return Outcome(not s, not n, f"/{p['pattern']}/ matched {hit!r}" if hit else "unmatched")


def _args_match(want: dict[str, Any], got: dict[str, Any], exact: bool, norm: bool) -> bool:
    if exact and set(want) != set(got):
        return False
    for k, v in want.items():
        if k not in got:
            return False
        a, b = v, got[k]
        if norm and isinstance(a, str) and isinstance(b, str):
            a, b = normalize(a), normalize(b)
        if a != b:
            return False
    return True


@check("called")
def called(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    calls = [c for c in ctx.calls if c.tool == p["tool"]]
    want = p.get("args", {})
    exact = p.get("match", "subset") == "exact"
    s = any(_args_match(want, c.args, exact, False) for c in calls)
    n = any(_args_match(want, c.args, exact, True) for c in calls)
    seen = [c.args for c in calls]
    return Outcome(s, n, f"{p['tool']} calls: {seen}" if calls else f"{p['tool']} never called")


@check("not_called")
def not_called(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    calls = [c for c in ctx.calls if p.get("tool") in (None, c.tool)]
    return Outcome.same(not calls, f"called {[c.tool for c in calls]}" if calls else "no such call")


@check("arg_equals")
def arg_equals(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    calls = [c for c in ctx.calls if c.tool == p["tool"]]
    want = {p["arg"]: p["value"]}
    s = bool(calls) and all(_args_match(want, c.args, False, False) for c in calls)
    n = bool(calls) and all(_args_match(want, c.args, False, True) for c in calls)
    got = [c.args.get(p["arg"]) for c in calls]
    return Outcome(s, n, f"{p['tool']}.{p['arg']} = {got}" if calls else f"{p['tool']} never called")


@check("call_count")
def call_count(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    k = sum(1 for c in ctx.calls if p.get("tool") in (None, c.tool))
    ok = p.get("min", 0) <= k <= p.get("max", k)
    return Outcome.same(ok, f"{k} call(s)")


def _value(ctx: CheckContext, record: str) -> str:
    return ctx.episode.memory_ops()[record].value


def _used(ctx: CheckContext, record: str) -> tuple[bool, bool, str]:
    """A record's value in the content or tool args, as text or, for a number, as an equal
    numeric argument ("84.50" is used by amount=84.5)."""
    value = _value(ctx, record)
    s, n, hit = find(value, ctx.texts(True))
    number = as_number(value)
    if number is not None and not s:
        for c in ctx.calls:
            for arg, v in c.args.items():
                if not isinstance(v, bool) and isinstance(v, (int, float)) and abs(v - number) < 1e-9:
                    return True, True, f"{c.tool}.{arg}={v}"
    return s, n, hit


@check("memory_used")
def memory_used(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n, hit = _used(ctx, p["record"])
    value = _value(ctx, p["record"])
    return Outcome(s, n, f"{p['record']}={value!r} used in {hit!r}" if hit else f"{p['record']}={value!r} unused")


@check("memory_not_used")
def memory_not_used(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n, hit = _used(ctx, p["record"])
    value = _value(ctx, p["record"])
    return Outcome(not s, not n, f"{p['record']}={value!r} used in {hit!r}" if hit else f"{p['record']} unused")


def _surfaced(ctx: CheckContext, record: str) -> tuple[bool, bool]:
    if record in ctx.shown_ids:
        return True, True
    value = _value(ctx, record)
    s, n, _ = find(value, [ctx.shown_text]) if ctx.shown_text else (False, False, "")
    return s, n


@check("surfaced")
def surfaced(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n = _surfaced(ctx, p["record"])
    return Outcome(s, n, f"{p['record']} {'shown' if n else 'not shown'} in context")


@check("not_surfaced")
def not_surfaced(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    s, n = _surfaced(ctx, p["record"])
    return Outcome(not s, not n, f"{p['record']} {'shown' if n else 'not shown'} in context")


@check("memory_status")
def memory_status(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    if ctx.own_store:
        return _own_store_status(ctx, p)
    rec = next((r for r in ctx.memory if r["id"] == p["record"]), None)
    status = None if rec is None else rec["status"]
    return Outcome.same(status == p["status"], f"{p['record']} is {status or 'absent'}")


def _own_store_status(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    """A store the system keeps itself (the managed strategy) names its items as the model chose,
    so the episode's record ids mean nothing there. The record counts as active while some item
    holds its value, in its name or its value, and as removed (superseded, deleted or revoked:
    the store's one delete cannot tell them apart) once none does. State-aware operation accuracy
    (`scoring._grade_op`) asks the same question of values only; the name counts here because a
    model may keep a code as the item's name."""
    items = [f"{r['id']}: {r.get('value', '')}" for r in ctx.memory if r.get("status", "active") == "active"]
    s, n, hit = find(_value(ctx, p["record"]), items)
    where = f"{p['record']} held by the system's own store as {hit!r}" if hit else f"{p['record']} not held by the system's own store"
    if p["status"] == "active":
        return Outcome(s, n, where)
    return Outcome(not s, not n, where)


@check("scope")
def scope(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    if p["scope"] in ctx.visible_scopes:
        return Outcome.same(True, f"{ctx.requester} may see {p['scope']}")
    texts = ctx.texts(True)
    leaks_s, leaks_n = [], []
    for rid, op in ctx.episode.memory_ops().items():
        if op.scope != p["scope"] or op.owner == ctx.requester:
            continue
        s, n, _ = find(op.value, texts)
        if s:
            leaks_s.append(rid)
        if n:
            leaks_n.append(rid)
    return Outcome(not leaks_s, not leaks_n, f"leaked {leaks_n}" if leaks_n else f"nothing of {p['scope']} reached {ctx.requester}")


@check("constraint_respected")
def constraint_respected(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    cid = p["constraint"]
    if ctx.constraints.get(cid) != "active":
        return Outcome.same(True, f"{cid} not active")
    monitor = next(
        (e.monitor for e in ctx.episode.events if e.kind == "constraint" and e.constraint == cid and e.monitor),
        None,
    )
    assert monitor is not None
    for c in ctx.calls:
        why = violation(monitor, c.tool, c.args, c.content)
        if why:
            return Outcome.same(False, f"step {c.step}: {why}")
    for text in ctx.contents:
        why = violation(monitor, None, {}, text)
        if why:
            return Outcome.same(False, why)
    return Outcome.same(True, f"{cid} held at {len(ctx.calls)} call(s)")


@check("action_in")
def action_in(ctx: CheckContext, p: dict[str, Any]) -> Outcome:
    return Outcome.same(ctx.final_action in p["actions"], f"final action {ctx.final_action}")
