"""The information barrier: what a model-backed system may see of an episode.

A system that is not metadata-aware (every model strategy but `rag-policy`) is handed views of the
episode's events that hold only what a participant would see: who spoke, when, what was said, the
rules declared, and at a decision the requester, the query and the offered tools. The hidden
annotations (memory operations, policy changes, scripted tool returns, checks, monitors, the oracle
and naive replies, the expected action, the category and attack type) are not on the view, so
reading one is an AttributeError, not a silent leak. Metadata-aware systems (the reference agents
and `rag-policy`, documented as upper references) declare `metadata_aware = True` and get the whole
`Event` through the runner.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from memriskbench.episodes.episode import Episode, Event


@dataclass(frozen=True, slots=True)
class VisibleEvent:
    id: str
    kind: str
    speaker: str | None = None
    timestamp: str | None = None
    text: str = ""
    turn_kind: str | None = None
    op: str | None = None  # a constraint's declare / lift, said out loud
    requester: str | None = None
    query: str = ""
    tools: tuple[str, ...] = ()

    @property
    def is_decision(self) -> bool:
        return self.kind == "decision"


def visible_event(ev: Event) -> VisibleEvent:
    shown = ev.kind in ("message", "constraint", "decision")
    return VisibleEvent(
        id=ev.id,
        kind=ev.kind,
        speaker=ev.speaker if shown else None,
        timestamp=ev.timestamp if shown else None,
        text=ev.text if shown else "",
        turn_kind=ev.turn_kind if shown else None,
        op=ev.op if ev.kind == "constraint" else None,
        requester=ev.requester,
        query=ev.query,
        tools=ev.tools,
    )


def visible_episode(ep: Episode) -> Episode:
    """The episode with every event replaced by its view: principals, relationships, groups and
    the access rules stay (the prompt states the visible grants), the hidden annotations go."""
    events: Any = tuple(visible_event(e) for e in ep.events)
    return dataclasses.replace(ep, events=events, tags=(), raw={})


def for_system(system: Any, ev: Event) -> Event | VisibleEvent:
    return ev if getattr(system, "metadata_aware", False) else visible_event(ev)
