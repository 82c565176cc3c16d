"""A local GGUF model through llama-cpp-python, plus a memory strategy: the system under test.

Decoding is greedy (temperature 0, no repetition penalty) under a JSON-schema grammar built
from the decision's actions and tools, whose strings cannot hold raw control characters
(`grammar.py`), so output is valid JSON of the action's shape unless it is cut off. Prompts are append-only within an episode, stable prefix first, requester and query
last, so llama-cpp-python reuses the evaluated prefix; each episode starts from a reset state.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from ..actions import ActionParseError, parse_action
from ..canonical import sha256_text
from ..episode import Episode, Event
from ..errors import MemRiskError
from .base import DecisionRequest, ModelError, Observation, Reply
from .grammar import schema_gbnf
from .models import ModelInfo, describe_model
from .prompts import (
    MANAGED_SYSTEM,
    action_schema,
    decision_messages,
    managed_messages,
    managed_schema,
    system_text,
)
from .strategies import STRATEGIES, ContextItem, Managed, Strategy

# Recorded in the header: the schema's shape, with strings that hold no raw control character.
GRAMMAR = "json-schema, json strings"


@dataclass(frozen=True, slots=True)
class LlamaSettings:
    n_threads: int = 2
    n_ctx: int = 4096
    n_gpu_layers: int = 0
    max_tokens: int = 256
    flash_attn: bool = False
    n_batch: int = 512
    seed: int = 0
    k: int = 8


class LlamaSystem:
    """`--agent llama`: model + strategy. Close it to free the model."""

    def __init__(self, model: str = "default", strategy: str = "full", settings: LlamaSettings | None = None) -> None:
        from llama_cpp import Llama

        if strategy not in STRATEGIES:
            raise MemRiskError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
        self.settings = settings or LlamaSettings()
        self.info: ModelInfo = describe_model(model)
        self.strategy: Strategy = STRATEGIES[strategy](k=self.settings.k)
        self.name = f"llama:{self.info.path.stem}:{strategy}"
        s = self.settings
        try:
            self.llm = Llama(
                model_path=str(self.info.path),
                n_ctx=s.n_ctx,
                n_threads=s.n_threads,
                n_threads_batch=s.n_threads,
                n_gpu_layers=s.n_gpu_layers,
                n_batch=s.n_batch,
                flash_attn=s.flash_attn,
                seed=s.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise MemRiskError(f"cannot load model {self.info.path}: {exc}") from None
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        self._template = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(
            self.info.chat_template
        )
        self._grammars: dict[str, Any] = {}
        self.episode: Episode | None = None
        self._messages: list[dict[str, str]] = []
        self._shown: list[ContextItem] = []

    # identity -----------------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "agent": "llama",
            "kind": "llama",
            **self.strategy.params(),
            "decoding": {"temperature": 0.0, "repeat_penalty": 1.0, "grammar": GRAMMAR, **asdict(self.settings)},
        }

    def model_identity(self) -> dict[str, Any]:
        return self.info.identity()

    # episode lifecycle ---------------------------------------------------------------------
    def start_episode(self, episode: Episode) -> None:
        self.llm.reset()  # a fresh KV state: nothing carries over from the previous episode
        self.episode = episode
        self.strategy.reset(episode)
        self._messages = []

    def observe(self, event: Event) -> Observation | None:
        self.strategy.observe(event)
        if isinstance(self.strategy, Managed) and event.kind == "message":
            return self._manage(event)
        return None

    def close(self) -> None:
        llm: Any = getattr(self, "llm", None)
        if llm is not None:
            llm.close()
            del self.llm

    # generation ----------------------------------------------------------------------------
    def _render(self, messages: list[dict[str, str]]) -> str:
        if self.info.merge_system and messages and messages[0]["role"] == "system":
            first = {"role": "user", "content": messages[0]["content"] + "\n\n" + messages[1]["content"]}
            messages = [first, *messages[2:]]
        return str(
            self._template.render(
                messages=messages,
                add_generation_prompt=True,
                bos_token=self.info.bos_token,
                eos_token=self.info.eos_token,
            )
        )

    def _grammar(self, schema: dict[str, Any]) -> Any:
        from llama_cpp import LlamaGrammar

        key = json.dumps(schema)  # property order matters: the grammar emits keys in this order
        if key not in self._grammars:
            self._grammars[key] = LlamaGrammar.from_string(schema_gbnf(schema), verbose=False)
        return self._grammars[key]

    def _generate(self, prompt: str, schema: dict[str, Any]) -> tuple[str, dict[str, int], bool]:
        tokens = self.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        limit = self.settings.n_ctx
        if len(tokens) + self.settings.max_tokens > limit:
            raise ModelError(
                f"context overflow: {len(tokens)} prompt + {self.settings.max_tokens} max tokens > n_ctx {limit}"
            )
        held = list(self.llm.input_ids[: self.llm.n_tokens])
        cached = 0
        for a, b in zip(held, tokens, strict=False):
            if a != b:
                break
            cached += 1
        try:
            out = self.llm.create_completion(
                prompt=tokens,
                max_tokens=self.settings.max_tokens,
                temperature=0.0,
                repeat_penalty=1.0,
                grammar=self._grammar(schema),
                seed=self.settings.seed,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp failed: {exc}") from None
        assert isinstance(out, dict)  # not streaming
        choice = out["choices"][0]
        usage = out["usage"]
        counts = {
            "prompt": len(tokens),
            "cached": min(cached, len(tokens) - 1),
            "completion": int(usage["completion_tokens"]),
        }
        return str(choice["text"]), counts, choice.get("finish_reason") == "length"

    # decisions -----------------------------------------------------------------------------
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
        schema = action_schema(request.tools)
        raw, counts, truncated = self._generate(self._render(self._messages), schema)
        self._messages.append({"role": "assistant", "content": raw})
        agent_memory = self.strategy.store.snapshot() if isinstance(self.strategy, Managed) else None
        if truncated:
            return Reply(
                raw, None, context, f"truncated at max_tokens={self.settings.max_tokens}", counts, agent_memory
            )
        try:
            action = parse_action(raw, tuple(t.name for t in request.tools))
        except ActionParseError as exc:
            return Reply(raw, None, context, str(exc), counts, agent_memory)
        return Reply(raw, action, context, None, counts, agent_memory)

    # managed memory ------------------------------------------------------------------------
    def _manage(self, event: Event) -> Observation:
        assert isinstance(self.strategy, Managed) and self.episode is not None
        messages = managed_messages(MANAGED_SYSTEM, self.strategy.store, self.episode, event)
        raw, counts, truncated = self._generate(self._render(messages), managed_schema())
        op: dict[str, Any] = {}
        if not truncated:
            try:
                op = json.loads(raw)
            except json.JSONDecodeError:
                op = {}
        result = self.strategy.store.apply(op) if op else "parse_error"
        return Observation(raw_output=raw, op=op, result=result, tokens=counts, store=self.strategy.store.snapshot())


def _context_record(shown: list[ContextItem]) -> dict[str, Any]:
    text = "\n".join(c.text for c in shown)
    return {
        "events": [c.event for c in shown],
        "memory_ids": sorted({i for c in shown for i in c.memory_ids}),
        "text": text,
        "sha256": sha256_text(text),
    }
