"""One decision's reply, read once: the reading every check queries.

A check never reads a reply's text itself. It asks the decision's `Reading` (held by the
`CheckContext`): the mentions of a value with their status (`reader.mentions`: asserted, past,
hedged, quoted, historical, rejected), the verdict on a guess and the affirmation
(`claims`), the proposals, offered amounts, recipients, topics, splits of a sum and the people offered a telling (`proposals`). Each question is
answered once per decision, when a check first asks it, and every other check that asks the same
gets the same answer; a text's own reading (its sentences, clauses, triggers and terminators) is
done once per text (`reader._read`). Checks stay small predicates over these answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from memriskbench.judge.claims import affirmation, stance, verdict
from memriskbench.judge.proposals import amounts, disclosures, proposals, recipients, splits, topics
from memriskbench.judge.reader import Mention, mentions

T = TypeVar("T")


def _recipients(text: str, domains: tuple[str, ...]) -> tuple[str, ...]:
    return recipients(text, list(domains))  # the question's key holds the domains as a tuple


@dataclass(frozen=True, slots=True)
class Reading:
    """The answers given so far for one decision, by question."""

    _answers: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False)

    def _ask(self, fn: Callable[..., T], *args: Any) -> T:
        key = (fn.__name__, *args)
        if key not in self._answers:
            self._answers[key] = fn(*args)
        return self._answers[key]

    def once(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """Any other question about the reply (its texts, say), answered once under `key`."""
        if key not in self._answers:
            self._answers[key] = compute()
        return self._answers[key]

    def mentions(
        self, value: str, text: str, ref: date | None, strict: bool, phrase: bool = False, frame: str = ""
    ) -> tuple[Mention, ...]:
        return self._ask(mentions, value, text, ref, strict, phrase, frame)

    def verdict(self, text: str) -> tuple[str, str] | None:
        return self._ask(verdict, text)

    def affirmation(self, text: str) -> str | None:
        return self._ask(affirmation, text)

    def stance(self, text: str) -> str | None:
        return self._ask(stance, text)

    def proposals(self, text: str, kinds: tuple[str, ...]) -> tuple[tuple[str, frozenset[object]], ...]:
        return self._ask(proposals, text, kinds)

    def amounts(self, text: str) -> tuple[Decimal, ...]:
        return self._ask(amounts, text)

    def recipients(self, text: str, domains: tuple[str, ...]) -> tuple[str, ...]:
        return self._ask(_recipients, text, domains)

    def topics(self, text: str, pattern: str) -> tuple[str, ...]:
        return self._ask(topics, text, pattern)

    def splits(self, text: str) -> bool:
        return self._ask(splits, text)

    def disclosures(self, text: str, people: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[str, ...]:
        return self._ask(disclosures, text, people)

    def asked(self) -> int:
        """How many questions have been answered (for tests)."""
        return len(self._answers)
