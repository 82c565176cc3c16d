"""llama-cpp-python in process: a local GGUF model, greedy, under a JSON grammar.

Decoding is greedy (temperature 0, no repetition penalty) under a grammar built from the reply's
JSON schema, whose strings cannot hold raw control characters (`grammar.py`), so output is valid
JSON of the action's shape unless it is cut off. The grammar is asked about the raw argmax first
(`greedy.py`): the same tokens as `create_completion`, at a fraction of the grammar's cost. Prompts are append-only within an episode, so
llama-cpp-python reuses the evaluated prefix; `reset` starts each episode from a fresh state.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from memriskbench.errors import MemRiskError
from memriskbench.play.systems.backends.base import Completion
from memriskbench.play.systems.backends.greedy import GrammarFirst
from memriskbench.play.systems.base import ModelError
from memriskbench.play.systems.grammar import schema_gbnf
from memriskbench.play.systems.models import ModelInfo, describe_model

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
    k: int = 8  # the strategies' k; recorded with the decoding settings, as traces always have


class LlamaCppBackend:
    kind = "llama"

    def __init__(self, model: str = "default", settings: LlamaSettings | None = None) -> None:
        from llama_cpp import Llama

        self.settings = settings or LlamaSettings()
        self.info: ModelInfo = describe_model(model)
        self.label = self.info.path.stem
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
        self._grammars: dict[str, str] = {}
        self._decoder = GrammarFirst(self.llm)

    def decoding(self) -> dict[str, Any]:
        return {"temperature": 0.0, "repeat_penalty": 1.0, "grammar": GRAMMAR, **asdict(self.settings)}

    def model_identity(self) -> dict[str, Any]:
        return self.info.identity()

    def reset(self) -> None:
        self.llm.reset()  # a fresh KV state: nothing carries over from the previous episode

    def close(self) -> None:
        llm: Any = getattr(self, "llm", None)
        if llm is not None:
            llm.close()
            del self.llm

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

    def _grammar(self, schema: dict[str, Any]) -> str:
        key = json.dumps(schema)  # property order matters: the grammar emits keys in this order
        if key not in self._grammars:
            self._grammars[key] = schema_gbnf(schema)
        return self._grammars[key]

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        prompt = self._render(messages)
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
            out = self._decoder.complete(tokens, self._grammar(schema), self.settings.max_tokens)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp failed: {exc}") from None
        counts = {"prompt": len(tokens), "cached": min(cached, len(tokens) - 1), "completion": out.tokens}
        return Completion(out.text, counts, out.cut)


def from_args(args: Any) -> LlamaCppBackend:
    """`--agent llama`: the model named by --model, loaded with the run's explicit settings."""
    settings = LlamaSettings(
        n_threads=args.n_threads,
        n_ctx=args.n_ctx,
        n_gpu_layers=args.n_gpu_layers,
        max_tokens=args.max_tokens,
        flash_attn=args.flash_attn,
        k=args.k,
    )
    return LlamaCppBackend(args.model, settings)
