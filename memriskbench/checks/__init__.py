"""Deterministic checks: a registry of pure predicates over (episode, trace)."""

from . import families as _families  # noqa: F401  (registers the checks)
from . import gatemem as _gatemem  # noqa: F401
from . import text as _text  # noqa: F401
from .base import REGISTRY, CheckContext, Outcome, ToolCall, normalize

__all__ = ["REGISTRY", "CheckContext", "Outcome", "ToolCall", "normalize"]
