"""Memory strategies: what of the episode so far a model is shown at a decision.

- full: every event so far, in order.
- recency: the last k events.
- rag: the k events that BM25 ranks best for the query, shown in their original order.
- rag-policy: rag over only the events whose memory the requester may see now and that are
  still active. It READS HIDDEN METADATA (the memory annotations and the access policy), so it
  is a metadata-aware upper reference, not a deployable system.
- managed: the model keeps its own store (see `llama.py`); this class holds that store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memriskbench.episodes.episode import Episode, Event
from memriskbench.episodes.world import World
from memriskbench.play.systems.bm25 import top_k
from memriskbench.play.systems.visible import VisibleEvent


@dataclass(frozen=True, slots=True)
class ContextItem:
    event: str
    text: str
    memory_ids: tuple[str, ...]


def render_event(ep: Episode, ev: Event | VisibleEvent) -> str | None:
    """The visible text of an event; scripted tool returns and hidden annotations are never shown."""
    who = ""
    if ev.speaker:
        try:
            p = ep.principal(ev.speaker)
            who = f"{p.display_name} ({p.role})"
        except KeyError:
            who = ev.speaker
    stamp = f"[{ev.timestamp}] " if ev.timestamp else ""
    if ev.turn_kind and ev.turn_kind != "dialogue":
        who += f" [{ev.turn_kind.replace('_', ' ')}]"
    if ev.kind == "message":
        return f"{stamp}{who}: {ev.text}"
    if ev.kind == "constraint":
        verb = "set a rule" if ev.op == "declare" else "lifted a rule"
        return f"{stamp}{who or 'Admin'} {verb}: {ev.text}"
    return None


class Strategy:
    name = "full"
    metadata_aware = False

    def __init__(self, k: int = 8) -> None:
        self.k = k
        self.items: list[ContextItem] = []
        self.episode: Episode | None = None

    def params(self) -> dict[str, Any]:
        return {"strategy": self.name, "metadata_aware": self.metadata_aware}

    def reset(self, episode: Episode) -> None:
        self.episode = episode
        self.items = []

    def observe(self, event: Event | VisibleEvent) -> None:
        assert self.episode is not None
        text = render_event(self.episode, event)
        if text is not None:
            # Only a metadata-aware strategy is handed the annotations (systems/visible.py).
            ids = tuple(m.id for m in event.memory if m.op in ("write", "update")) if isinstance(event, Event) else ()
            self.items.append(ContextItem(event.id, text, ids))

    def select(self, decision: Event | VisibleEvent) -> list[ContextItem]:
        return list(self.items)


class Recency(Strategy):
    name = "recency"

    def params(self) -> dict[str, Any]:
        return {**super().params(), "k": self.k}

    def select(self, decision: Event | VisibleEvent) -> list[ContextItem]:
        return self.items[-self.k :] if self.k > 0 else []


class Rag(Strategy):
    name = "rag"

    def params(self) -> dict[str, Any]:
        return {**super().params(), "k": self.k, "ranker": "bm25(k1=1.5,b=0.75)"}

    def candidates(self, decision: Event | VisibleEvent) -> list[ContextItem]:
        return self.items

    def select(self, decision: Event | VisibleEvent) -> list[ContextItem]:
        pool = self.candidates(decision)
        picked = sorted(top_k(decision.query, [c.text for c in pool], self.k))
        return [pool[i] for i in picked]


class RagPolicy(Rag):
    name = "rag-policy"
    metadata_aware = True

    def reset(self, episode: Episode) -> None:
        super().reset(episode)
        self.world = World(episode)

    def observe(self, event: Event | VisibleEvent) -> None:
        assert isinstance(event, Event), "rag-policy is metadata-aware: the runner hands it whole events"
        super().observe(event)
        self.world.apply(event)

    def candidates(self, decision: Event | VisibleEvent) -> list[ContextItem]:
        requester = decision.requester or ""
        keep = []
        for item in self.items:
            records = [self.world.store.records[i] for i in item.memory_ids if i in self.world.store.records]
            if all(r.status == "active" and self.world.policy.may_see(requester, r) for r in records):
                keep.append(item)
        return keep


@dataclass
class ManagedStore:
    """The model's own memory: key -> value and visibility, with every operation it made."""

    items: dict[str, dict[str, str]] = field(default_factory=dict)

    def apply(self, op: dict[str, Any]) -> str:
        kind, key = op.get("op"), str(op.get("key", ""))
        if kind == "create" or (kind == "update" and key in self.items):
            self.items[key] = {"value": str(op.get("value", "")), "visibility": str(op.get("visibility", "public"))}
            return "ok"
        if kind == "delete" and key in self.items:
            del self.items[key]
            return "ok"
        return "none" if kind == "none" else "not_found"

    def snapshot(self) -> list[dict[str, Any]]:
        return [{"id": k, "key": k, "status": "active", **v} for k, v in sorted(self.items.items())]


class Managed(Strategy):
    name = "managed"

    def reset(self, episode: Episode) -> None:
        super().reset(episode)
        self.store = ManagedStore()

    def select(self, decision: Event | VisibleEvent) -> list[ContextItem]:
        return [
            ContextItem(f"mem:{k}", f"{k}: {v['value']} ({v['visibility']})", ())
            for k, v in sorted(self.store.items.items())
        ]


STRATEGIES: dict[str, type[Strategy]] = {s.name: s for s in (Strategy, Recency, Rag, RagPolicy, Managed)}
