"""Replies recorded elsewhere, played back: a human baseline, or a model reached only through a
batch API.

Each request is keyed `episode/decision/step` (or `episode/event/memory` for the managed
strategy's memory operations). An answers file holds one JSON object per line:
`{"key": ..., "reply": ...}`, where `reply` is the raw text the model or person wrote (a JSON
action, as the schema asks), and optionally the `prompt_sha256` of the prompt it answers. A step
without an answer is recorded as pending, with the exact messages and the reply schema, and the
episode stops there unfinished; the next round plays it again up to the next unanswered step.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memriskbench.common.canonical import sha256_obj
from memriskbench.common.jsonsafe import JSONError, line, loads, write_lines
from memriskbench.errors import MemRiskError
from memriskbench.play.systems.backends.base import Completion
from memriskbench.play.systems.base import Pending

NO_TOKENS = {"prompt": 0, "cached": 0, "completion": 0}


@dataclass(frozen=True, slots=True)
class Answer:
    reply: str
    prompt_sha256: str | None


def prompt_digest(messages: list[dict[str, str]]) -> str:
    return sha256_obj(messages)


def load_answers(path: str | Path | None) -> dict[str, Answer]:
    """The answers file, checked line by line; a bad line is a one-line error naming it."""
    if path is None:
        return {}
    p = Path(path)
    try:
        # Lines end at "\n" only: str.splitlines would also break at U+2028 or U+0085, which a
        # JSON string may hold as they are.
        lines = p.read_bytes().decode("utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise MemRiskError(f"{p}: cannot read the answers: {exc}") from None
    answers: dict[str, Answer] = {}
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = loads(text)
        except JSONError as exc:
            raise MemRiskError(f"{p}:{n}: {exc}") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("key"), str) or not isinstance(obj.get("reply"), str):
            raise MemRiskError(f'{p}:{n}: an answer is an object with a string "key" and a string "reply"')
        digest = obj.get("prompt_sha256")
        if digest is not None and not isinstance(digest, str):
            raise MemRiskError(f"{p}:{n}: prompt_sha256 must be a string")
        if obj["key"] in answers:
            raise MemRiskError(f"{p}:{n}: a second answer for {obj['key']}")
        answers[obj["key"]] = Answer(obj["reply"], digest)
    return answers


class ReplayBackend:
    kind = "replay"

    def __init__(self, label: str, answers: dict[str, Answer]) -> None:
        self.label = label
        self.answers = answers
        self.pending: list[dict[str, Any]] = []

    def decoding(self) -> dict[str, Any]:
        return {}

    def model_identity(self) -> dict[str, Any]:
        # Not the answers file's digest: it grows between rounds, and a round resumes the trace.
        # Each decision's raw output is in the trace.
        return {"replay": self.label}

    def reset(self) -> None:
        """Replies are looked up by key: there is no state."""

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        digest = prompt_digest(messages)
        answer = self.answers.get(key)
        if answer is None:
            self.pending.append({"key": key, "prompt_sha256": digest, "messages": messages, "schema": schema})
            raise Pending(key)
        if answer.prompt_sha256 is not None and answer.prompt_sha256 != digest:
            raise MemRiskError(
                f"the answer for {key} was written for another prompt (prompt_sha256 differs): "
                "an earlier answer of that episode changed; answer the new prompt"
            )
        return Completion(answer.reply, dict(NO_TOKENS), False)

    def close(self) -> None:
        pass


def from_args(args: Any) -> ReplayBackend:
    """`--agent replay` (and `prompts`): the answers file, if any; --model names the replier."""
    return ReplayBackend("answers" if args.model == "default" else args.model, load_answers(args.answers))


def write_pending(path: str | Path, pending: list[dict[str, Any]]) -> None:
    """One JSON line per step that waits for a reply, in suite order, written atomically."""
    write_lines(path, (line(p) for p in pending))


def is_pending_file(path: str | Path) -> bool:
    """Whether `path` holds steps written by `write_pending` (or nothing): the only file a round
    with no step left open may remove."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 24).decode("utf-8")
        obj = loads(first) if first.strip() else {"key": "", "messages": []}
    except (OSError, UnicodeDecodeError, JSONError):
        return False
    return isinstance(obj, dict) and "key" in obj and "messages" in obj
