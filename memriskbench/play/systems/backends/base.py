"""The contract a model backend meets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    tokens: dict[str, int]  # prompt, cached (prefix reused), completion
    truncated: bool  # stopped at max_tokens


class ModelBackend(Protocol):
    kind: str  # "llama" or "openai": the trace header's agent and kind
    label: str  # the model's short name in the system name, e.g. the GGUF file's stem

    def decoding(self) -> dict[str, Any]:
        """The decoding settings, for the trace header (never a secret)."""
        ...

    def model_identity(self) -> dict[str, Any]:
        """What identifies the model: file hash and metadata, or the server's own description."""
        ...

    def reset(self) -> None:
        """A fresh state for a new episode: nothing may carry over."""
        ...

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        """The model's reply to `messages`, constrained to `schema`. Raises ModelError. `key` says
        where in the suite the request is (episode/decision/step, or episode/event/memory); only a
        backend that looks replies up (replay) reads it."""
        ...

    def close(self) -> None: ...
