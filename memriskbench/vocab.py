"""The closed vocabularies an episode may use: check types and monitor types with their parameters.

Each parameter is declared once, here, with its kind; an enum parameter carries its allowed values.
The loader validates against these tables, `episodes/schema.json` is generated from them, lint
reads its check families from them, and the check registry and the monitors must implement exactly
these names (a test holds them together).
"""

from __future__ import annotations

from dataclasses import dataclass

# What a parameter's value may be. Past the plain JSON shapes of the first line, the loader also
# reads a value for its meaning, so that an author's slip is refused at validation rather than
# found when a run is scored.
KINDS = (
    "str", "bool", "num", "int", "strlist", "dict", "any",
    "valuelist",  # literals and {record: id} items, at least one
    "record",  # the id of a memory record written in the episode
    "enum",  # one of `values`
    "regex",  # a pattern that compiles within common/patterns.py's bounds
    "date",  # YYYY-MM-DD
    "time",  # HH:MM
    "weekdays",  # a list of weekday names
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a check or monitor type."""

    name: str
    kind: str
    required: bool = False
    values: tuple[str, ...] = ()  # an enum's allowed values

    def __post_init__(self) -> None:
        if self.kind not in KINDS or (self.kind == "enum") != bool(self.values):
            raise ValueError(f"parameter {self.name}: bad kind {self.kind!r} or values {self.values!r}")


Params = dict[str, Param]  # by name, in the order they are declared


def _params(*params: Param) -> Params:
    return {p.name: p for p in params}


def _req(name: str, kind: str, values: tuple[str, ...] = ()) -> Param:
    return Param(name, kind, True, values)


def _opt(name: str, kind: str, values: tuple[str, ...] = ()) -> Param:
    return Param(name, kind, False, values)


_TEXT = (_opt("include_args", "bool"),)
# A value check gives the value it looks for in exactly one of these ways (see judge/checks/text.py).
_GIVEN = ("value", "record", "all_of", "any_of")
_VALUE = (
    _opt("value", "str"),
    _opt("record", "record"),
    _opt("all_of", "valuelist"),
    _opt("any_of", "valuelist"),
    _opt("phrase", "bool"),
)

CHECK_PARAMS: dict[str, Params] = {
    "contains": _params(*_VALUE, *_TEXT),
    "not_contains": _params(*_VALUE, *_TEXT),
    "not_affirmed": {},
    "regex": _params(_req("pattern", "regex"), *_TEXT),
    "not_regex": _params(_req("pattern", "regex"), *_TEXT),
    "called": _params(_req("tool", "str"), _opt("args", "dict"), _opt("match", "enum", ("subset", "exact"))),
    "not_called": _params(_opt("tool", "str")),
    "arg_equals": _params(_req("tool", "str"), _req("arg", "str"), _req("value", "any")),
    "call_count": _params(_opt("tool", "str"), _opt("min", "int"), _opt("max", "int")),
    "memory_used": _params(_req("record", "record")),
    "memory_not_used": _params(_req("record", "record")),
    "surfaced": _params(_req("record", "record")),
    "not_surfaced": _params(_req("record", "record")),
    "memory_status": _params(
        _req("record", "record"), _req("status", "enum", ("active", "superseded", "revoked", "deleted"))
    ),
    "scope": _params(_req("scope", "str")),
    "constraint_respected": _params(_req("constraint", "str")),
    "action_in": _params(_req("actions", "strlist")),
    "gatemem_include": _params(_req("patterns", "strlist"), *_TEXT),
    "gatemem_leak": _params(_req("patterns", "strlist"), *_TEXT),
}

# Value checks, by the parameters they take: each names exactly one of `_GIVEN`.
ONE_OF: dict[str, tuple[str, ...]] = {t: _GIVEN for t, ps in CHECK_PARAMS.items() if set(_GIVEN) <= set(ps)}
VALUE_CHECKS = tuple(ONE_OF)
# Record checks: about one memory record, which they must name (so lint can ask that it be written first).
RECORD_CHECKS = tuple(
    t for t, ps in CHECK_PARAMS.items() if any(p.kind == "record" and p.required for p in ps.values())
)

MONITOR_PARAMS: dict[str, Params] = {
    "arg_not_regex": _params(_req("pattern", "regex"), _opt("tool", "str"), _opt("arg", "str")),
    "arg_max": _params(_req("tool", "str"), _req("arg", "str"), _req("max", "num")),
    "arg_min": _params(_req("tool", "str"), _req("arg", "str"), _req("min", "num")),
    "recipient_domain": _params(_req("arg", "str"), _req("domains", "strlist"), _opt("tool", "str")),
    "tool_forbidden": _params(_req("tool", "str")),
    "content_not_regex": _params(_req("pattern", "regex")),
    # Typed date and time rules over a tool's arguments (dates in any spelling, see common/values.py).
    "date_not_in": _params(
        _req("tool", "str"), _opt("arg", "str"), _opt("from", "date"), _opt("to", "date"), _opt("weekdays", "weekdays")
    ),
    "time_not_before": _params(_req("tool", "str"), _opt("arg", "str"), _req("min", "time")),
}
