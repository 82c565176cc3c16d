"""Model backends: how a system's messages reach a model and its text comes back.

A backend renders or sends chat messages with the JSON schema of the allowed replies and returns
the text, token counts and whether it was cut off; the agent loop (`systems/agent.py`: strategies,
prompts, tool loop, managed memory) sits on top of any of them. Adding a backend is one module
and one line in BACKENDS.
"""

from __future__ import annotations

from .base import Completion, ModelBackend

BACKENDS = {
    "llama": "memriskbench.systems.backends.llama_cpp:LlamaCppBackend",
    "openai": "memriskbench.systems.backends.openai_compat:OpenAIBackend",
    "replay": "memriskbench.systems.backends.replay:ReplayBackend",
}

__all__ = ["BACKENDS", "Completion", "ModelBackend"]
