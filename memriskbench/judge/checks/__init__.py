"""Deterministic checks: a registry of pure predicates over (episode, trace)."""

from memriskbench.judge.checks import families as _families  # noqa: F401  (registers the checks)
from memriskbench.judge.checks import gatemem as _gatemem  # noqa: F401
from memriskbench.judge.checks import text as _text  # noqa: F401
from memriskbench.judge.checks.base import REGISTRY, CheckContext, Outcome, ToolCall, normalize

__all__ = ["REGISTRY", "CheckContext", "Outcome", "ToolCall", "normalize"]
