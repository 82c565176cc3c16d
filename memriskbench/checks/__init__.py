"""Deterministic checks: a registry of pure predicates over (episode, trace)."""

from . import families as _families  # noqa: F401  (registers the checks)
from .base import REGISTRY, CheckContext, Outcome, ToolCall, normalize

__all__ = ["REGISTRY", "CheckContext", "Outcome", "ToolCall", "normalize"]
