"""`--agent llama`: a local GGUF model through llama-cpp-python in process, behind the agent loop."""

from __future__ import annotations

from memriskbench.errors import MemRiskError
from memriskbench.play.systems.agent import ModelSystem
from memriskbench.play.systems.backends.llama_cpp import LlamaCppBackend, LlamaSettings
from memriskbench.play.systems.strategies import STRATEGIES


def llama_system(model: str = "default", strategy: str = "full", settings: LlamaSettings | None = None) -> ModelSystem:
    """The model loaded in process, with a memory strategy (checked first: loading is slow)."""
    if strategy not in STRATEGIES:
        raise MemRiskError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
    s = settings or LlamaSettings()
    return ModelSystem(LlamaCppBackend(model, s), strategy, k=s.k)
