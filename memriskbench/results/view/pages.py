"""The data of the viewer's episode pages: one episode of one system, in the order it was played.

Built from the trace's own records (what the system was shown, said and did) and the scorer's
verdicts on them; the episode file adds only what the trace does not hold (the title, the time of
a decision). Nothing is scored here: the verdicts come in from `judge.scoring`.

A trace is hostile input: a record whose chain verifies can still hold a value of the wrong shape
where the page reads a list or a text. Such a record is passed on as it is, with a `malformed`
list saying what is wrong, so that the page shows it as malformed instead of failing on it.
Highlight offsets are in UTF-16 code units, as JavaScript indexes strings.
"""

from __future__ import annotations

from typing import Any

from memriskbench.episodes.episode import Episode
from memriskbench.judge.scoring import CheckResult, EpisodeResult
from memriskbench.results.audit import context_problems, kind_of
from memriskbench.results.view.spans import locate, utf16

# The ambient checks every decision gets: their ids are `<decision>.<type>`.
AMBIENT_PREFIX = "ambient_"


def outcome(result: EpisodeResult | None, variant: str = "default") -> str:
    if result is None or not result.scored:
        return "not scored"
    return "passed" if result.success(variant) else "failed"


def _check(c: CheckResult, steps: list[dict[str, Any]]) -> dict[str, Any]:
    spans: list[list[int]] = []
    if c.applicable and not c.normalized:
        for s in steps:
            action = s.get("action")
            content = str((action if isinstance(action, dict) else {}).get("content") or "")
            spans += [[s["step"], a, b] for a, b in utf16(content, locate(c.type, c.evidence, content))]
    return {
        "id": c.check,
        "type": c.type,
        "ambient": c.type.startswith(AMBIENT_PREFIX),
        "applicable": c.applicable,
        "strict": c.strict,
        "normalized": c.normalized,
        "evidence": c.evidence,
        "spans": spans,
    }


def _step(d: dict[str, Any]) -> dict[str, Any]:
    ctx = d.get("context")
    ctx = ctx if isinstance(ctx, dict) else {}
    memory = d.get("agent_memory")
    memory = memory if isinstance(memory, list) else []
    out = {
        "step": d.get("step", 0),
        "shown_events": ctx.get("events"),
        "shown_memory": ctx.get("memory_ids"),
        "context_text": ctx.get("text"),
        "raw_output": d.get("raw_output", ""),
        "action": d.get("action"),
        "error": d.get("error"),
        "tool_result": d.get("tool_result"),
        "tokens": d.get("tokens") or {},
        "store": [f"{m.get('id')}: {m.get('status')}" for m in memory if isinstance(m, dict)] or None,
    }
    bad = context_problems(d.get("context", {}))
    if bad:
        out["malformed"] = bad
    return out


def _event(r: dict[str, Any]) -> dict[str, Any]:
    raw = r.get("ground_truth")
    truth = raw if isinstance(raw, dict) else {}
    out = {
        "kind": "event",
        "event": r.get("event"),
        "type": r.get("kind"),
        "speaker": r.get("speaker"),
        "timestamp": r.get("timestamp"),
        "text": r.get("text", ""),
        "memory": truth.get("memory", []),
        "policy": truth.get("policy", []),
        "constraints": [truth["constraint"]] if truth.get("constraint") else [],
    }
    bad = [
        f"ground_truth.{key} is {kind_of(out[key])}, not a list"
        for key in ("memory", "policy")
        if not isinstance(out[key], list)
    ]
    if bad:
        out["malformed"] = bad
    return out


def episode_page(
    index: int,
    name: str,
    eid: str,
    records: list[dict[str, Any]],
    ep: Episode | None,
    result: EpisodeResult | None,
    play: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Everything the one-episode view shows, from one play of the episode's records in trace
    order. `play`: (this play, plays) where the trace holds the episode more than once."""
    timeline: list[dict[str, Any]] = []
    steps_of: dict[str, list[dict[str, Any]]] = {}
    start = next((r for r in records if r.get("type") == "episode_start"), {})
    end = next((r for r in records if r.get("type") == "episode_end"), None)
    for r in records:
        kind = r.get("type")
        if kind == "event":
            timeline.append(_event(r))
        elif kind == "memory_op":
            keep = ("event", "raw_output", "op", "result")
            timeline.append({"kind": "memory_op", **{k: r.get(k) for k in keep}})
        elif kind == "decision":
            did = str(r.get("decision"))
            if did not in steps_of:
                steps_of[did] = []
                stamp = None
                if ep is not None:
                    try:
                        stamp = ep.event(did).timestamp
                    except KeyError:
                        stamp = None
                timeline.append(
                    {
                        "kind": "decision",
                        "decision": did,
                        "timestamp": stamp,
                        "requester": r.get("requester"),
                        "query": r.get("query", ""),
                        "steps": steps_of[did],
                    }
                )
            steps_of[did].append(_step(r))
    checks_of: dict[str, list[CheckResult]] = {}
    for c in result.checks if result else ():
        checks_of.setdefault(c.decision, []).append(c)
    for item in timeline:
        if item["kind"] != "decision":
            continue
        mine = checks_of.get(item["decision"], [])
        item["checks"] = [_check(c, item["steps"]) for c in mine]
        scored = [c for c in mine if c.applicable]
        item["passed"] = all(c.passed("default", result.risk) for c in scored) if result and scored else None
    return {
        "system": index,
        "name": name,
        "episode": eid,
        "risk": start.get("risk", ep.risk if ep else ""),
        "tier": start.get("tier", ep.tier if ep else ""),
        "domain": start.get("domain", ep.domain if ep else ""),
        "description": ep.title if ep else "",
        "outcome": outcome(result),
        "termination": end.get("termination") if end else "unfinished",
        "path": end.get("path", []) if end else [],
        "timeline": timeline,
    } | ({"play": play[0], "plays": play[1]} if play else {})
