"""Trace records: one frozen dataclass per JSONL `type`, the fixed termination reasons, and the
shape check that turns a parsed line back into a typed record.

The writer, the verifying reader and resume live in `trace.py`; this module holds only what a
record is, so the scorer and auditors can read records without the I/O around them.
"""

from __future__ import annotations

import functools
import types
import typing
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Termination(str, Enum):
    COMPLETED = "completed"
    MAX_STEPS = "max_steps"
    PARSE_ERROR = "parse_error"
    MODEL_ERROR = "model_error"


@dataclass(frozen=True, slots=True, kw_only=True)
class Header:
    type: str = "header"
    schema_version: int
    memriskbench_version: str
    system: dict[str, Any]
    model: dict[str, Any] | None
    seed: int
    episodes: dict[str, str]  # episode id -> sha256 of its canonical form


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeStart:
    type: str = "episode_start"
    episode: str
    risk: str
    tier: str
    domain: str
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class EventRecord:
    """An ingested non-decision event. `ground_truth` holds hidden annotations, for auditors."""

    type: str = "event"
    episode: str
    event: str
    kind: str
    speaker: str | None
    timestamp: str | None
    text: str
    ground_truth: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryOpRecord:
    """A system's own memory operation on ingesting an event (the managed strategy)."""

    type: str = "memory_op"
    episode: str
    event: str
    raw_output: str
    op: dict[str, Any]
    result: str
    store: list[dict[str, Any]]
    tokens: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One step of a decision: what the system saw, what it said, what it did, the world then."""

    type: str = "decision"
    episode: str
    decision: str
    step: int
    requester: str
    query: str
    tools: list[str]
    context: dict[str, Any]
    raw_output: str
    action: dict[str, Any] | None
    error: str | None
    tool_result: Any
    memory: list[dict[str, Any]]
    agent_memory: list[dict[str, Any]] | None
    constraints: dict[str, str]
    visible_scopes: list[str]
    tokens: dict[str, int]
    timing: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeEnd:
    type: str = "episode_end"
    episode: str
    path: list[str]
    termination: str
    final_actions: dict[str, str]
    timing: dict[str, float] = field(default_factory=dict)


Record = Header | EpisodeStart | EventRecord | MemoryOpRecord | Decision | EpisodeEnd
RECORD_TYPES: dict[str, type] = {
    "header": Header,
    "episode_start": EpisodeStart,
    "event": EventRecord,
    "memory_op": MemoryOpRecord,
    "decision": Decision,
    "episode_end": EpisodeEnd,
}


def _shape_ok(value: Any, hint: Any) -> bool:
    """Does a JSON value have the shape a record field is declared with (one level deep)?"""
    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_shape_ok(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_shape_ok(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint)
        return isinstance(value, dict) and all(isinstance(k, str) and _shape_ok(v, item) for k, v in value.items())
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _action_ok(action: Any) -> bool:
    if action is None:
        return True
    if (
        not isinstance(action, dict)
        or not isinstance(action.get("type"), str)
        or not isinstance(action.get("content", ""), str)
    ):
        return False
    return action["type"] != "tool_call" or (
        isinstance(action.get("tool"), str) and isinstance(action.get("args", {}), dict)
    )


def record_from_dict(d: dict[str, Any]) -> Record:
    """A typed record; ValueError naming the field when a value has the wrong shape (a trace whose
    chain verifies can still hold a malformed record, and the scorer must not trip on it)."""
    cls = RECORD_TYPES.get(d.get("type", ""))
    if cls is None:
        raise ValueError(f"unknown record type {d.get('type')!r}")
    body = {k: v for k, v in d.items() if k not in ("seq", "chain")}
    hints = _hints(cls)
    for name, value in body.items():
        if name in hints and not _shape_ok(value, hints[name]):
            raise ValueError(f"{d.get('type')}.{name} has the wrong shape: {str(value)[:60]!r}")
    if cls is Decision and not _action_ok(body.get("action")):
        raise ValueError(f"decision.action has the wrong shape: {str(body.get('action'))[:60]!r}")
    if cls is Decision and not all(
        isinstance(m, dict) and isinstance(m.get("id"), str) and isinstance(m.get("status"), str)
        for m in body.get("memory", [])
    ):
        raise ValueError("decision.memory has the wrong shape")
    record: Record = cls(**body)
    return record
