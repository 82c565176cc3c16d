"""The information barrier (play/systems/visible.py), checked at runtime: a system that is not
metadata-aware is handed views that lack the hidden annotations, so reading one raises; the
metadata-aware ones (reference agents, rag-policy) get whole events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memriskbench.episodes.episode import Episode, Event
from memriskbench.play.runner import run
from memriskbench.play.systems.base import DecisionRequest, Reply
from memriskbench.play.systems.reference import ReferenceAgent
from memriskbench.play.systems.strategies import STRATEGIES
from memriskbench.play.systems.visible import VisibleEvent

HIDDEN = (
    "memory",
    "policy",
    "checks",
    "oracle",
    "naive",
    "expected_action",
    "category",
    "attack_type",
    "result",
    "monitor",
)


class Curious:
    """A system that tries to read what it should not, and records what it was handed."""

    name = "curious"

    def __init__(self, aware: bool) -> None:
        self.metadata_aware = aware
        self.seen: list[Any] = []
        self.episodes: list[Episode] = []

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "agent": self.name, "kind": "test", "aware": self.metadata_aware}

    def model_identity(self) -> None:
        return None

    def start_episode(self, episode: Episode) -> None:
        self.episodes.append(episode)

    def observe(self, event: Any) -> None:
        self.seen.append(event)

    def decide(self, request: DecisionRequest) -> Reply:
        self.seen.append(request.decision)
        from memriskbench.play.actions import Action

        return Reply("{}", Action("refuse", "No."), {"events": []})

    def close(self) -> None:
        pass


def test_a_system_that_is_not_metadata_aware_cannot_read_hidden_annotations(
    episodes: list[Episode], tmp_path: Path
) -> None:
    ep = next(e for e in episodes if any(ev.memory for ev in e.events) and e.decisions[0].checks)
    system = Curious(aware=False)
    run(system, [ep], tmp_path / "t.jsonl")
    assert system.seen and all(isinstance(x, VisibleEvent) for x in system.seen)
    for x in system.seen:
        for name in HIDDEN:
            with pytest.raises(AttributeError):
                getattr(x, name)
    handed = system.episodes[0]
    assert all(isinstance(e, VisibleEvent) for e in handed.events) and handed.tags == () and handed.raw == {}
    decision = next(x for x in system.seen if x.is_decision)
    assert decision.query and decision.requester  # what a participant sees is there


def test_metadata_aware_systems_get_whole_events(episodes: list[Episode], tmp_path: Path) -> None:
    ep = episodes[0]
    system = Curious(aware=True)
    run(system, [ep], tmp_path / "t.jsonl")
    assert system.seen and all(isinstance(x, Event) for x in system.seen)
    assert ReferenceAgent("oracle").metadata_aware
    assert [n for n, s in STRATEGIES.items() if s.metadata_aware] == ["rag-policy"]
