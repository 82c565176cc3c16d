"""The contract between the runner and a system: what it is told and what it must return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from memriskbench.episodes.episode import Episode, Event
from memriskbench.episodes.tools import ToolSpec
from memriskbench.play.actions import Action
from memriskbench.play.systems.visible import VisibleEvent


@dataclass(frozen=True, slots=True)
class Step:
    """An earlier step of the same decision: the action taken and the tool's scripted result."""

    action: Action
    tool_result: Any


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    decision: Event | VisibleEvent  # the whole Event only for a metadata-aware system
    step: int
    steps: tuple[Step, ...]
    tools: tuple[ToolSpec, ...]
    constraint_texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Reply:
    """What the system produced. `action` is None when the raw output could not be parsed."""

    raw_output: str
    action: Action | None
    context: dict[str, Any]
    error: str | None = None
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "cached": 0, "completion": 0})
    agent_memory: list[dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class Observation:
    """What a system did on ingesting an event, when it acts then (the managed strategy's memory op)."""

    raw_output: str
    op: dict[str, Any]
    result: str
    tokens: dict[str, int]
    store: list[dict[str, Any]] = field(default_factory=list)  # the system's store after the op


class ModelError(RuntimeError):
    """The model failed for this episode (e.g. context overflow); the run goes on."""


class Pending(Exception):
    """No reply yet for this step (a replayed system): the episode stops unfinished, nothing of it
    is written, and the next run plays it again from the start."""


class System(Protocol):
    name: str

    def identity(self) -> dict[str, Any]:
        """Everything that defines this system's behaviour, for the trace header."""
        ...

    def model_identity(self) -> dict[str, Any] | None: ...

    def start_episode(self, episode: Episode) -> None:
        """Reset to a fresh state: nothing may carry over from an earlier episode."""
        ...

    def observe(self, event: Event | VisibleEvent) -> Observation | None:
        """An ingested non-decision event. Hidden annotations are present: only documented
        metadata-aware systems (reference agents, rag-policy) may read them."""
        ...

    def decide(self, request: DecisionRequest) -> Reply: ...

    def close(self) -> None: ...
