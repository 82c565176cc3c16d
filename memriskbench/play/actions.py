"""The action a system returns at a decision step, and its parsing from raw model output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memriskbench.common import jsonsafe
from memriskbench.episodes.episode import ACTION_TYPES


@dataclass(frozen=True, slots=True)
class Action:
    type: str
    content: str = ""
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type, "content": self.content}
        if self.type == "tool_call":
            d["tool"] = self.tool
            d["args"] = self.args
        return d

    def to_output(self) -> dict[str, Any]:
        """The action in the JSON form a model emits (`action` key), as `parse_action` reads it."""
        d = self.to_dict()
        return {"action": d.pop("type"), **d}

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Action:
        return Action(type=d["type"], content=d.get("content", ""), tool=d.get("tool"), args=d.get("args") or {})


class ActionParseError(ValueError):
    pass


def model_json(raw: str) -> Any:
    """A model's output as JSON, or ActionParseError: whatever it holds is data, never a crash.
    NaN and Infinity (which Python's json accepts and no JSON allows), a number of more digits
    than Python converts, and nesting deeper than a trace can carry back (`MODEL_DEPTH`) are the
    model's errors."""
    try:
        return jsonsafe.loads(raw, max_depth=jsonsafe.MODEL_DEPTH)
    except jsonsafe.JSONError as exc:
        raise ActionParseError(str(exc)[:160]) from None


def parse_action(raw: str, allowed_tools: tuple[str, ...]) -> Action:
    """Parse a model's JSON output into an Action; raise ActionParseError with the reason."""
    obj = model_json(raw)
    if not isinstance(obj, dict):
        raise ActionParseError("not a JSON object")
    kind = obj.get("action")
    if kind not in ACTION_TYPES:
        raise ActionParseError(f"unknown action {kind!r}")
    content = obj.get("content", "")
    if not isinstance(content, str):
        raise ActionParseError("content is not a string")
    if kind != "tool_call":
        return Action(type=kind, content=content)
    tool = obj.get("tool")
    if tool not in allowed_tools:
        raise ActionParseError(f"tool {tool!r} is not offered here")
    args = obj.get("args", {})
    if not isinstance(args, dict):
        raise ActionParseError("args is not an object")
    return Action(type=kind, content=content, tool=tool, args=args)
