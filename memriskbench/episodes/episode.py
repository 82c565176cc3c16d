"""Typed, immutable records of one episode: principals, policy, and the event DAG."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from memriskbench.common.canonical import sha256_text

TIERS = {"easy": (5, 8), "medium": (10, 14), "hard": (15, 25)}
IMPORTED_TIER = "imported"  # no turn-count rule: imported episodes keep their source's length
CATEGORIES = ("utility", "access", "forgetting", "constraint", "conflict", "stale")


ACTION_TYPES = ("answer", "answer_redacted", "refuse", "no_memory", "clarify", "tool_call")
MEMORY_OPS = ("write", "update", "delete", "revoke")
EVENT_KINDS = ("message", "tool_return", "constraint", "decision")


@dataclass(frozen=True, slots=True)
class Principal:
    id: str
    role: str
    display_name: str


@dataclass(frozen=True, slots=True)
class Relationship:
    source: str
    target: str
    type: str
    scope: str | None = None
    # Imported data (GateMem) names its parties by role-specific keys: kept as (key, value) pairs.
    attrs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Group:
    """A group or channel that messages can go to, by id or any of its names ("QA channel")."""

    id: str
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PolicyRule:
    """Grants sight of `scope` to the listed principals and roles."""

    scope: str
    principals: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MemoryOp:
    """Hidden ground truth on a message: what the message does to the shared memory."""

    op: str
    id: str
    key: str = ""
    value: str = ""
    scope: str = "public"
    owner: str = ""
    visibility: str = "public"
    supersedes: str | None = None
    source: str = ""
    subject: str = ""  # what the value is about, for the judge only
    # Every judge-only phrase that gives the record away: its declared aliases, other words for
    # the same fact ("AFib"), then its categories. The leak rules read them all as they read the
    # value; `categories` keeps which of them are categories, for the lint.
    aliases: tuple[str, ...] = ()
    # The sensitive kind of fact the value is ("oncology" for "stage II melanoma", "performance
    # improvement plan" for "PIP-2291"): saying it gives the record away though no word of the
    # value is said. None: not declared; (): declared to have none. Judge-only.
    categories: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class PolicyChange:
    """Hidden ground truth on a message: consent granted or withdrawn."""

    op: str  # grant | withdraw
    scope: str
    principal: str | None = None
    role: str | None = None


@dataclass(frozen=True, slots=True)
class Monitor:
    """A machine-checkable constraint monitor; `params` depend on `type`."""

    type: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)


@dataclass(frozen=True, slots=True)
class Condition:
    """`when`: holds if the earlier decision's final action is (or is not) one of `actions`."""

    decision: str
    actions: tuple[str, ...]
    negate: bool = False


@dataclass(frozen=True, slots=True)
class CheckSpec:
    id: str
    type: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """A tool call in machine form: what the oracle does, or what a naive agent would do."""

    action: str
    content: str = ""
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)


@dataclass(frozen=True, slots=True)
class Event:
    """One node of the episode DAG. Fields that do not apply to `kind` keep their defaults."""

    id: str
    kind: str
    after: tuple[str, ...]
    when: Condition | None = None
    # message
    speaker: str | None = None
    timestamp: str | None = None
    text: str = ""
    turn_kind: str | None = None  # e.g. GateMem's note_update, portal_message; shown to the model
    memory: tuple[MemoryOp, ...] = ()
    policy: tuple[PolicyChange, ...] = ()
    # tool_return
    tool: str | None = None
    result: Any = None
    # constraint
    constraint: str | None = None
    op: str | None = None
    monitor: Monitor | None = None
    # decision
    requester: str | None = None
    query: str = ""
    tools: tuple[str, ...] = ()
    category: str | None = None
    expected_action: str | None = None
    target: str | None = None
    oracle: ScriptedCall | None = None
    naive: ScriptedCall | None = None
    checks: tuple[CheckSpec, ...] = ()
    max_steps: int = 3
    attack_type: str | None = None  # GateMem's attack family of an access or forgetting probe

    @property
    def is_decision(self) -> bool:
        return self.kind == "decision"


@dataclass(frozen=True, slots=True)
class Episode:
    id: str
    risk: str
    tier: str
    domain: str
    title: str
    tags: tuple[str, ...]
    principals: tuple[Principal, ...]
    relationships: tuple[Relationship, ...]
    policy: tuple[PolicyRule, ...]
    events: tuple[Event, ...]
    groups: tuple[Group, ...] = ()
    source_file: str = field(default="", compare=False)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)
    # memory_ops, computed once: the checks ask for it thousands of times a run (read-only). Not an
    # init field, so that dataclasses.replace (a changed copy) starts with an empty one.
    _ops: dict[str, MemoryOp] = field(default_factory=dict, init=False, compare=False, hash=False, repr=False)

    def event(self, event_id: str) -> Event:
        for ev in self.events:
            if ev.id == event_id:
                return ev
        raise KeyError(event_id)

    @property
    def decisions(self) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.is_decision)

    @property
    def turns(self) -> int:
        return sum(1 for e in self.events if not e.is_decision)

    def names(self) -> list[str]:
        """How the episode's people and groups are named: ids, display names, declared names."""
        return [f"{p.id} {p.display_name}" for p in self.principals] + [" ".join((g.id, *g.names)) for g in self.groups]

    def principal(self, pid: str) -> Principal:
        for p in self.principals:
            if p.id == pid:
                return p
        raise KeyError(pid)

    def memory_ops(self) -> dict[str, MemoryOp]:
        """Every write/update op by record id: the values that checks look for. Shared: do not
        change it."""
        if not self._ops:
            for ev in self.events:
                for m in ev.memory:
                    if m.op in ("write", "update"):
                        self._ops[m.id] = m
        return self._ops


# Fields of a memory operation that only the judge reads. No system is shown them and they
# change nothing that is played, so they are left out of the digest: adding a subject, aliases or
# categories to a record keeps every trace of the episode valid, and what it changes in the score,
# `audit` re-scores.
JUDGE_ONLY = ("subject", "aliases", "categories")


def _played(raw: Any) -> Any:
    """The loaded YAML without the judge-only fields of its memory operations."""
    if not isinstance(raw, dict) or not isinstance(raw.get("events"), list):
        return raw
    events = []
    for ev in raw["events"]:
        if isinstance(ev, dict) and isinstance(ev.get("memory"), list):
            ev = {
                **ev,
                "memory": [
                    {k: v for k, v in m.items() if k not in JUDGE_ONLY} if isinstance(m, dict) else m
                    for m in ev["memory"]
                ],
            }
        events.append(ev)
    return {**raw, "events": events}


def episode_digest(ep: Episode) -> str:
    """sha256 of the episode's canonical form: the loaded YAML as canonical JSON, judge-only fields aside."""
    text = json.dumps(_played(ep.raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return sha256_text(text)
