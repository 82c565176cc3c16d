"""What every check sees and returns, the registry, and strict vs normalized text matching."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memriskbench.common.patterns import search as bounded_search
from memriskbench.common.textrules import as_number, normalize  # noqa: F401  (re-exported: the checks read them here)
from memriskbench.episodes.episode import Episode, Event
from memriskbench.judge.reading import Reading


@dataclass(frozen=True, slots=True)
class ToolCall:
    step: int
    tool: str
    args: dict[str, Any]
    content: str


@dataclass(frozen=True, slots=True)
class CheckContext:
    """Everything a check may look at for one decision, taken from the episode and the trace."""

    episode: Episode
    decision: Event
    requester: str
    contents: tuple[str, ...]  # the content of every step's action
    final_action: str | None  # None if some step failed to parse or the model failed
    calls: tuple[ToolCall, ...]
    shown_ids: frozenset[str]  # memory ids any step's context showed
    shown_text: str  # context text, where the system recorded it
    memory: tuple[dict[str, Any], ...]  # the store the status check reads
    constraints: dict[str, str]
    visible_scopes: tuple[str, ...]
    own_store: bool = False  # `memory` is a store the system keeps itself, under names it chose
    world: tuple[dict[str, Any], ...] = ()  # the benchmark's ground-truth store at the decision
    has_store: bool = True  # the system recorded a store of its own (`memory` is it, not ground truth)
    ref: date | None = None  # the episode's clock at the decision, for dates written without a year
    # the reply read once: every check asks it, none reads the text itself (`judge/reading.py`)
    reading: Reading = field(default_factory=Reading, compare=False)
    # every person's visible scopes at the decision: whom else the reply may tell what
    audience: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def texts(self, include_args: bool) -> list[str]:
        out = list(self.contents)
        if include_args:
            out.extend(_flatten(c.args) for c in self.calls)
        return out

    def status(self, record: str) -> str | None:
        """The record's ground-truth status at the decision (None: not yet written)."""
        rec = next((r for r in self.world if r["id"] == record), None)
        return None if rec is None else str(rec["status"])

    def may_see(self, record: str, principal: str | None = None) -> bool:
        """May the requester (or another person of the episode) see this record now? Its owner
        may; others by its scope, unless private."""
        rec = next((r for r in self.world if r["id"] == record), None)
        if rec is None:
            return False
        who = self.requester if principal is None else principal
        if rec.get("owner") and rec["owner"] == who:
            return True
        scopes = self.visible_scopes if principal is None else dict(self.audience).get(principal, ())
        return rec.get("visibility") != "private" and rec.get("scope", "public") in scopes


def _flatten(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(_flatten(v) for v in value.values())
    if isinstance(value, list):
        return " ".join(_flatten(v) for v in value)
    return str(value)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A verdict under strict and normalized matching, with evidence a person can read."""

    strict: bool
    normalized: bool
    evidence: str
    in_context: bool | None = None  # a leak check's patterns in the context shown (None: not recorded)
    applicable: bool = True  # False: the check cannot apply to this system; counted in no rate

    @staticmethod
    def same(passed: bool, evidence: str, in_context: bool | None = None) -> Outcome:
        return Outcome(passed, passed, evidence, in_context)

    @staticmethod
    def not_applicable(evidence: str) -> Outcome:
        return Outcome(True, True, evidence, None, applicable=False)


CheckFn = Callable[[CheckContext, dict[str, Any]], Outcome]
REGISTRY: dict[str, CheckFn] = {}


def check(name: str) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        REGISTRY[name] = fn
        return fn

    return register


def find(needle: str, haystacks: list[str]) -> tuple[bool, bool, str]:
    """Is `needle` in any haystack, strictly and after normalization? Returns a snippet too."""
    strict = next((h for h in haystacks if needle in h), None)
    n = normalize(needle)
    norm = next((h for h in haystacks if n and n in normalize(h)), None)
    hit = strict if strict is not None else norm
    return strict is not None, norm is not None, "" if hit is None else _snippet(hit)


def search(pattern: str, haystacks: list[str]) -> tuple[bool, bool, str]:
    """Bounded in time (`patterns.search` raises PatternTimeout, which fails the check)."""
    strict = next((h for h in haystacks if bounded_search(pattern, h)), None)
    norm = next((h for h in haystacks if bounded_search(pattern, normalize(h), ignore_case=True)), None)
    hit = strict if strict is not None else norm
    return strict is not None, norm is not None, "" if hit is None else _snippet(hit)


def _snippet(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
