"""Model backends: how a system's messages reach a model and its text comes back.

A backend renders or sends chat messages with the JSON schema of the allowed replies and returns
the text, token counts and whether it was cut off; the agent loop (`systems/agent.py`: strategies,
prompts, tool loop, managed memory) sits on top of any of them. Adding a backend is one module
with a `from_args` (the parsed `run` options -> a backend) and one line in BACKENDS, which names
the `--agent` value; the module is imported only when chosen.
"""

from __future__ import annotations

import importlib
from typing import Any

from memriskbench.play.systems.backends.base import Completion, ModelBackend

BACKENDS = {
    "llama": "memriskbench.play.systems.backends.llama_cpp:from_args",
    "openai": "memriskbench.play.systems.backends.openai_compat:from_args",
    "replay": "memriskbench.play.systems.backends.replay:from_args",
}


def backend_from_args(agent: str, args: Any) -> ModelBackend:
    module, fn = BACKENDS[agent].split(":")
    backend: ModelBackend = getattr(importlib.import_module(module), fn)(args)
    return backend


__all__ = ["BACKENDS", "Completion", "ModelBackend", "backend_from_args"]
