"""The episode's ground-truth world: the shared memory store, the access policy, constraints.

The runner feeds events in; systems and the trace read snapshots out. Nothing here scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memriskbench.episodes.episode import Episode, Event, MemoryOp, Monitor

PUBLIC_SCOPE = "public"


@dataclass(slots=True)
class MemoryRecord:
    """One stored value. An update creates a new record and marks the old one superseded."""

    id: str
    key: str
    value: str
    scope: str
    owner: str
    visibility: str
    source: str
    status: str = "active"

    def snapshot(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "status": self.status,
            "scope": self.scope,
            "owner": self.owner,
            "visibility": self.visibility,
        }


class MemoryStore:
    def __init__(self, honor_removals: bool = True) -> None:
        self.records: dict[str, MemoryRecord] = {}
        self.honor_removals = honor_removals

    def apply(self, op: MemoryOp) -> None:
        if op.op in ("write", "update"):
            rec = MemoryRecord(op.id, op.key, op.value, op.scope, op.owner, op.visibility, op.source)
            self.records[op.id] = rec
            if op.supersedes and op.supersedes in self.records:
                self._mark(op.supersedes, "superseded")
        elif self.honor_removals and op.id in self.records:
            self._mark(op.id, "deleted" if op.op == "delete" else "revoked")

    def _mark(self, rid: str, status: str) -> None:
        self.records[rid].status = status

    def for_key(self, key: str) -> list[MemoryRecord]:
        """Records holding `key`, oldest first."""
        return [r for r in self.records.values() if r.key == key]

    def active(self, key: str) -> MemoryRecord | None:
        live = [r for r in self.for_key(key) if r.status == "active"]
        return live[-1] if live else None

    def snapshot(self) -> list[dict[str, Any]]:
        return [r.snapshot() for r in self.records.values()]


class AccessPolicy:
    """Answers "may principal P see scope S now?"; consent can be granted and withdrawn by events."""

    def __init__(self, episode: Episode) -> None:
        self.roles = {p.id: p.role for p in episode.principals}
        self.grants: dict[str, set[str]] = {}
        self.role_grants: dict[str, set[str]] = {}
        for rule in episode.policy:
            self.grants.setdefault(rule.scope, set()).update(rule.principals)
            self.role_grants.setdefault(rule.scope, set()).update(rule.roles)
        for rel in episode.relationships:
            if rel.scope:
                self.grants.setdefault(rel.scope, set()).add(rel.source)

    def apply(self, event: Event) -> None:
        for ch in event.policy:
            table = self.grants if ch.principal else self.role_grants
            who = ch.principal or ch.role or ""
            members = table.setdefault(ch.scope, set())
            if ch.op == "grant":
                members.add(who)
            else:
                members.discard(who)

    def may_see_scope(self, principal: str, scope: str) -> bool:
        if scope == PUBLIC_SCOPE:
            return True
        return principal in self.grants.get(scope, set()) or self.roles.get(principal, "") in self.role_grants.get(
            scope, set()
        )

    def may_see(self, principal: str, record: MemoryRecord) -> bool:
        if record.owner and principal == record.owner:
            return True
        if record.visibility == "private":
            return False
        return self.may_see_scope(principal, record.scope)

    def visible_scopes(self, principal: str) -> list[str]:
        scopes = set(self.grants) | set(self.role_grants)
        return sorted(s for s in scopes if self.may_see_scope(principal, s)) + [PUBLIC_SCOPE]


class World:
    """Ground truth for one episode, advanced event by event."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.store = MemoryStore()
        self.policy = AccessPolicy(episode)
        self.constraints: dict[str, tuple[bool, Monitor | None, str]] = {}

    def apply(self, event: Event) -> None:
        for op in event.memory:
            self.store.apply(op)
        self.policy.apply(event)
        if event.kind == "constraint" and event.constraint:
            if event.op == "declare":
                self.constraints[event.constraint] = (True, event.monitor, event.text)
            elif event.constraint in self.constraints:
                _, mon, text = self.constraints[event.constraint]
                self.constraints[event.constraint] = (False, mon, text)

    def active_constraints(self) -> dict[str, Monitor]:
        return {cid: mon for cid, (on, mon, _) in self.constraints.items() if on and mon is not None}

    def constraint_states(self) -> dict[str, str]:
        return {cid: ("active" if on else "lifted") for cid, (on, _, _) in self.constraints.items()}
