"""Scripted, deterministic tool stubs, each with a JSON schema for its arguments.

A stub never touches the outside world. Its result is the next scripted `tool_return` for that
tool if the episode queued one, else a fixed acknowledgement numbered by call order. The
`memory_*` tools act on the system's own managed store (the `managed` strategy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

_S = {"type": "string", "maxLength": 200}
_LONG = {"type": "string", "maxLength": 400}
_NUM = {"type": "number"}
# Dates and times have one spelling, which the grammar enforces: no model has to guess it.
_DATE = {"type": "string", "format": "date", "description": "YYYY-MM-DD"}
_TIME = {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "description": "HH:MM, 24-hour"}

# What each argument is, for the checks: `message` is free text sent or stored for someone (a
# superseded value may be named there beside the current one); `recipient` names a person,
# group or address; `text` is other free text (compared by the values it states); the rest
# are compared by type.
ARG_KINDS = ("message", "recipient", "text", "date", "time", "number", "key", "enum")


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    schema: dict[str, Any]
    kinds: dict[str, str]

    def kind(self, arg: str) -> str:
        return self.kinds.get(arg, "text")


TOOLS: dict[str, ToolSpec] = {
    t.name: t
    for t in (
        ToolSpec(
            "calendar_create",
            "Create a calendar entry.",
            _obj(
                {"title": _S, "date": _DATE, "time": _TIME, "attendees": {"type": "array", "items": _S, "maxItems": 8}},
                ["title", "date"],
            ),
            {"title": "message", "date": "date", "time": "time", "attendees": "recipient"},
        ),
        ToolSpec(
            "send_email",
            "Send an email.",
            _obj({"to": _S, "subject": _S, "body": _LONG}, ["to", "body"]),
            {"to": "recipient", "subject": "message", "body": "message"},
        ),
        ToolSpec(
            "send_message",
            "Send a chat message.",
            _obj({"to": _S, "text": _LONG}, ["to", "text"]),
            {"to": "recipient", "text": "message"},
        ),
        ToolSpec("records_lookup", "Look up a record by query.", _obj({"query": _S}, ["query"]), {"query": "text"}),
        ToolSpec("notes_write", "Write a note.", _obj({"text": _LONG}, ["text"]), {"text": "message"}),
        ToolSpec(
            "payment_create",
            "Make a payment.",
            _obj({"payee": _S, "amount": _NUM, "currency": {"type": "string", "maxLength": 8}}, ["payee", "amount"]),
            {"payee": "text", "amount": "number", "currency": "enum"},
        ),
        ToolSpec(
            "order_create",
            "Place an order.",
            _obj({"item": _S, "quantity": {"type": "integer"}, "amount": _NUM, "ship_to": _S}, ["item", "quantity"]),
            {"item": "text", "quantity": "number", "amount": "number", "ship_to": "text"},
        ),
        ToolSpec(
            "memory_create",
            "Store a memory item.",
            _obj(
                {"key": _S, "value": _S, "visibility": {"type": "string", "enum": ["private", "public"]}},
                ["key", "value", "visibility"],
            ),
            {"key": "key", "value": "text", "visibility": "enum"},
        ),
        ToolSpec("memory_read", "Read a memory item.", _obj({"key": _S}, ["key"]), {"key": "key"}),
        ToolSpec(
            "memory_update",
            "Update a memory item.",
            _obj({"key": _S, "value": _S}, ["key", "value"]),
            {"key": "key", "value": "text"},
        ),
        ToolSpec("memory_delete", "Delete a memory item.", _obj({"key": _S}, ["key"]), {"key": "key"}),
    )
}

MEMORY_TOOLS = ("memory_create", "memory_read", "memory_update", "memory_delete")


def validate_args(tool: str, args: dict[str, Any]) -> str | None:
    """Return a reason if `args` do not fit the tool's schema, else None (a small, exact subset)."""
    spec = TOOLS.get(tool)
    if spec is None:
        return f"unknown tool {tool!r}"
    props = spec.schema["properties"]
    for name in spec.schema["required"]:
        if name not in args:
            return f"missing argument {name!r}"
    for name, value in args.items():
        if name not in props:
            return f"unexpected argument {name!r}"
        kind = props[name]["type"]
        ok = {
            "string": isinstance(value, str),
            "number": isinstance(value, (int, float)) and not isinstance(value, bool),
            "integer": isinstance(value, int) and not isinstance(value, bool),
            "array": isinstance(value, list),
        }[kind]
        if not ok:
            return f"argument {name!r} must be {kind}"
        if props[name].get("format") == "date" and not _is_date(value):
            return f"argument {name!r} must be a date YYYY-MM-DD"
        if "pattern" in props[name] and not re.fullmatch(props[name]["pattern"], value):
            return (
                f"argument {name!r} must be {props[name].get('description', 'of the form ' + props[name]['pattern'])}"
            )
    return None


def _is_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


class ToolBox:
    """Per-episode tool state: scripted returns queued by `tool_return` events and the managed store."""

    def __init__(self) -> None:
        self._scripted: dict[str, list[Any]] = {}
        self._calls = 0
        self.managed: dict[str, dict[str, str]] = {}

    def script(self, tool: str, result: Any) -> None:
        self._scripted.setdefault(tool, []).append(result)

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        self._calls += 1
        problem = validate_args(tool, args)
        if problem is not None:
            return {"status": "error", "error": problem}
        if tool in MEMORY_TOOLS:
            return self._memory(tool, args)
        queue = self._scripted.get(tool)
        if queue:
            return queue.pop(0)
        if tool == "records_lookup":
            return {"status": "not_found"}
        return {"status": "ok", "ref": f"{tool}-{self._calls}"}

    def _memory(self, tool: str, args: dict[str, Any]) -> Any:
        key = args["key"]
        if tool == "memory_create":
            self.managed[key] = {"value": args["value"], "visibility": args["visibility"]}
            return {"status": "ok"}
        if key not in self.managed:
            return {"status": "not_found"}
        if tool == "memory_read":
            return {"status": "ok", **self.managed[key]}
        if tool == "memory_update":
            self.managed[key]["value"] = args["value"]
            return {"status": "ok"}
        del self.managed[key]
        return {"status": "ok"}
