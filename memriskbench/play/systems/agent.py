"""The agent loop over any model backend: a memory strategy picks the context, the prompts turn it
into messages, the backend answers, and the reply is parsed into an action; tool results come back
as the next message. The managed strategy also asks the model for a memory operation per message.
"""

from __future__ import annotations

import json
from typing import Any

from memriskbench.common.canonical import sha256_text
from memriskbench.episodes.episode import Episode, Event
from memriskbench.errors import MemRiskError
from memriskbench.play.actions import ActionParseError, model_json, parse_action
from memriskbench.play.systems.backends import ModelBackend
from memriskbench.play.systems.base import DecisionRequest, Observation, Reply
from memriskbench.play.systems.prompts import (
    MANAGED_SYSTEM,
    action_schema,
    decision_messages,
    managed_messages,
    managed_schema,
    system_text,
)
from memriskbench.play.systems.strategies import STRATEGIES, ContextItem, Managed, Strategy


class ModelSystem:
    """A model behind a backend, plus a memory strategy: the system under test. Close it to free the model."""

    def __init__(self, backend: ModelBackend, strategy: str = "full", k: int = 8) -> None:
        if strategy not in STRATEGIES:
            backend.close()
            raise MemRiskError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
        self.backend = backend
        self.strategy: Strategy = STRATEGIES[strategy](k=k)
        self.name = f"{backend.kind}:{backend.label}:{strategy}"
        self.episode: Episode | None = None
        self._messages: list[dict[str, str]] = []
        self._shown: list[ContextItem] = []

    @property
    def metadata_aware(self) -> bool:
        """Handed the hidden annotations by the runner: only under rag-policy (an upper reference)."""
        return self.strategy.metadata_aware

    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "agent": self.backend.kind,
            "kind": self.backend.kind,
            **self.strategy.params(),
            "decoding": self.backend.decoding(),
        }

    def model_identity(self) -> dict[str, Any]:
        return self.backend.model_identity()

    def start_episode(self, episode: Episode) -> None:
        self.backend.reset()
        self.episode = episode
        self.strategy.reset(episode)
        self._messages = []

    def observe(self, event: Event) -> Observation | None:
        self.strategy.observe(event)
        if isinstance(self.strategy, Managed) and event.kind == "message":
            return self._manage(event)
        return None

    def close(self) -> None:
        self.backend.close()

    def decide(self, request: DecisionRequest) -> Reply:
        assert self.episode is not None
        d = request.decision
        if request.step == 0:
            shown = self.strategy.select(d)
            self._shown = shown
            self._messages = decision_messages(system_text(self.episode), shown, self.episode, d, request.tools)
        else:
            result = json.dumps(request.steps[-1].tool_result, sort_keys=True)
            self._messages.append(
                {"role": "user", "content": f"Tool result: {result}\nNow reply with one JSON object."}
            )
        context = _context_record(self._shown)
        out = self.backend.complete(
            self._messages, action_schema(request.tools), f"{self.episode.id}/{d.id}/{request.step}"
        )
        raw = out.text
        self._messages.append({"role": "assistant", "content": raw})
        agent_memory = self.strategy.store.snapshot() if isinstance(self.strategy, Managed) else None
        if out.truncated:
            limit = self.backend.decoding().get("max_tokens")
            return Reply(raw, None, context, f"truncated at max_tokens={limit}", out.tokens, agent_memory)
        try:
            action = parse_action(raw, tuple(t.name for t in request.tools))
        except ActionParseError as exc:
            return Reply(raw, None, context, str(exc), out.tokens, agent_memory)
        return Reply(raw, action, context, None, out.tokens, agent_memory)

    def _manage(self, event: Event) -> Observation:
        assert isinstance(self.strategy, Managed) and self.episode is not None
        messages = managed_messages(MANAGED_SYSTEM, self.strategy.store, self.episode, event)
        out = self.backend.complete(messages, managed_schema(), f"{self.episode.id}/{event.id}/memory")
        op: dict[str, Any] = {}
        if not out.truncated:
            try:
                parsed = model_json(out.text)
            except ActionParseError:
                parsed = {}
            op = parsed if isinstance(parsed, dict) else {}  # a list or a number is no operation
        result = self.strategy.store.apply(op) if op else "parse_error"
        return Observation(
            raw_output=out.text, op=op, result=result, tokens=out.tokens, store=self.strategy.store.snapshot()
        )


def _context_record(shown: list[ContextItem]) -> dict[str, Any]:
    text = "\n".join(c.text for c in shown)
    # memory_ids are added by the runner from the shown events: the system never reads them.
    return {
        "events": [c.event for c in shown],
        "text": text,
        "sha256": sha256_text(text),
    }
