"""The episode file format, described once: each YAML mapping's fields, whether required, and kind.

The loader takes from these tables which keys a mapping may and must have, the closed sets its
enum fields draw from and the bounds of counted fields; `schema.py` builds the published JSON Schema
from the same tables. So a field added or made required here changes both, or neither. A check's
or monitor's parameters are described by type in `vocab.py`, which both read likewise.

The loader keeps the rules a field table cannot say (ids resolve, the graph has no cycle, a tier's
length); the schema states structure only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memriskbench.episodes.episode import ACTION_TYPES, CATEGORIES, EVENT_KINDS, IMPORTED_TIER, MEMORY_OPS, TIERS
from memriskbench.episodes.tools import TOOLS
from memriskbench.risks import IMPORTED_RISK, RISKS
from memriskbench.vocab import CHECK_PARAMS, MONITOR_PARAMS

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

# What a field's value may be.
KINDS = (
    "id",  # a string matching ID_RE
    "str",
    "scalar",  # a string, or an unquoted YAML number read as its text
    "strs",  # a string or a list of strings (one item may be written bare)
    "enum",  # one of `values`
    "enumlist",  # a list of `values`
    "int",  # an integer within `bounds`
    "any",  # any JSON value
    "mapping",  # any mapping
    "parties",  # a non-empty mapping of role key to scalar (imported relationships)
    "object",  # the mapping named by `of`
    "list",  # a list of the mappings named by `of`, its length within `bounds`
)


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    kind: str
    required: bool = False
    values: tuple[str, ...] = ()  # enum, enumlist: the allowed values
    of: str = ""  # object, list: a key of OBJECTS, or "event"
    bounds: tuple[int, int | None] | None = None  # list: its length; int: its value
    nullable: bool = False  # null is read as if the field were left out

    def __post_init__(self) -> None:
        if (
            self.kind not in KINDS
            or (self.kind in ("enum", "enumlist")) != bool(self.values)
            or (self.kind in ("object", "list")) != bool(self.of)
        ):
            raise ValueError(f"field {self.name}: bad kind {self.kind!r} or its values, of")


@dataclass(frozen=True, slots=True)
class Obj:
    """One kind of YAML mapping."""

    name: str
    fields: tuple[Field, ...]
    # Alternative spellings: exactly one of these groups of fields is given, and all of it.
    forms: tuple[tuple[str, ...], ...] = ()

    @property
    def allowed(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.required)

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


_TOOL_NAMES = tuple(sorted(TOOLS))

PRINCIPAL = Obj(
    "principal", (Field("id", "id", required=True), Field("role", "str", required=True), Field("display_name", "str"))
)
GROUP = Obj("group", (Field("id", "id", required=True), Field("names", "strs")))
RELATIONSHIP = Obj(
    "relationship",
    (
        Field("from", "str"),
        Field("to", "str"),
        Field("type", "str", required=True),
        Field("scope", "str", nullable=True),
        Field("with", "parties"),
    ),
    forms=(("from", "to"), ("with",)),
)
RULE = Obj("rule", (Field("scope", "str", required=True), Field("principals", "strs"), Field("roles", "strs")))
MEMORY = Obj(
    "memory",
    (
        Field("op", "enum", required=True, values=MEMORY_OPS),
        Field("id", "id", required=True),
        Field("key", "str"),
        Field("value", "scalar"),
        Field("scope", "str"),
        Field("owner", "str"),
        Field("visibility", "enum", values=("private", "public")),
        Field("supersedes", "str", nullable=True),
        Field("source", "str"),
        # What the value is about, in a person's words ("gate", "pickup", "spare EpiPen"): the
        # judge reads it to tell which thing a reply attaches a value to. Judge-only (see
        # episode.JUDGE_ONLY): no system is shown it, and it is outside the episode's digest.
        Field("subject", "str"),
        # Other words for the same fact ("AFib", "heart rhythm problem" for "atrial fibrillation";
        # "the middle column" for a keypad code): a list of non-empty strings. Judge-only too.
        Field("aliases", "strs"),
        # The sensitive kind of fact the value is, in the words a writer would use for it
        # ("oncology", "performance improvement plan"): read by the leak checks like aliases; an
        # empty list declares that the value has none. Judge-only too.
        Field("categories", "strs"),
    ),
)
POLICY_CHANGE = Obj(
    "policy_change",
    (
        Field("op", "enum", required=True, values=("grant", "withdraw")),
        Field("scope", "str", required=True),
        Field("principal", "str", nullable=True),
        Field("role", "str", nullable=True),
    ),
)
SCRIPTED = Obj(
    "scripted",
    (
        Field("action", "enum", required=True, values=ACTION_TYPES),
        Field("content", "str"),
        Field("tool", "enum", values=_TOOL_NAMES),
        Field("args", "mapping"),
    ),
)
# The loader also asks for exactly one of action, not_action; the schema leaves that open.
WHEN = Obj("when", (Field("decision", "str", required=True), Field("action", "strs"), Field("not_action", "strs")))
# A check's or monitor's other fields are the parameters of its `type` (vocab.py).
CHECK = Obj("check", (Field("type", "enum", required=True, values=tuple(CHECK_PARAMS)), Field("id", "id")))
MONITOR = Obj("monitor", (Field("type", "enum", required=True, values=tuple(MONITOR_PARAMS)),))

# Every event field, once; each event kind takes some of them, some required.
_EVENT_FIELDS = {
    f.name: f
    for f in (
        Field("id", "id"),
        Field("kind", "enum", values=EVENT_KINDS),
        Field("after", "strs"),  # default: the event before
        Field("when", "object", of="when"),
        Field("speaker", "str", nullable=True),
        Field("timestamp", "scalar"),
        Field("text", "scalar"),
        Field("turn_kind", "str", nullable=True),
        Field("memory", "list", of="memory"),
        Field("policy", "list", of="policy_change"),
        Field("tool", "enum", values=_TOOL_NAMES),
        Field("result", "any"),
        Field("constraint", "id"),
        Field("op", "enum", values=("declare", "lift")),
        Field("monitor", "object", of="monitor"),
        Field("requester", "str"),
        Field("query", "scalar"),
        Field("tools", "enumlist", values=_TOOL_NAMES),
        Field("category", "enum", values=CATEGORIES),
        Field("expected_action", "enum", values=ACTION_TYPES),
        Field("target", "str", nullable=True),
        Field("oracle", "object", of="scripted"),
        Field("naive", "object", of="scripted"),
        Field("checks", "list", of="check", bounds=(1, 3)),
        Field("max_steps", "int", bounds=(1, 10)),
        Field("attack_type", "str", nullable=True),
    )
}


def _event(kind: str, required: tuple[str, ...], optional: tuple[str, ...]) -> Obj:
    fields = tuple(replace(_EVENT_FIELDS[n], required=True) for n in required) + tuple(
        _EVENT_FIELDS[n] for n in optional
    )
    return Obj(kind, fields)


_COMMON = ("after", "when")
EVENTS: dict[str, Obj] = {
    "message": _event(
        "message", ("id", "kind", "speaker", "text"), _COMMON + ("timestamp", "turn_kind", "memory", "policy")
    ),
    "tool_return": _event("tool_return", ("id", "kind", "tool", "result"), _COMMON),
    "constraint": _event(
        "constraint", ("id", "kind", "constraint", "op"), _COMMON + ("text", "monitor", "speaker", "timestamp")
    ),
    "decision": _event(
        "decision",
        ("id", "kind", "requester", "query", "category", "expected_action", "checks"),
        _COMMON + ("tools", "target", "oracle", "naive", "max_steps", "attack_type"),
    ),
}

EPISODE = Obj(
    "episode",
    (
        Field("id", "id", required=True),
        Field("risk", "enum", required=True, values=(*RISKS, IMPORTED_RISK)),
        Field("tier", "enum", required=True, values=(*TIERS, IMPORTED_TIER)),
        Field("domain", "str", required=True),
        Field("title", "str", required=True),
        Field("tags", "strs"),
        Field("principals", "list", required=True, of="principal"),
        Field("groups", "list", of="group", nullable=True),
        Field("relationships", "list", of="relationship", nullable=True),
        Field("policy", "list", of="rule", nullable=True),
        Field("events", "list", required=True, of="event", bounds=(1, None)),
    ),
)

# Every mapping but the events, by the name a field's `of` gives.
OBJECTS: dict[str, Obj] = {
    o.name: o
    for o in (EPISODE, PRINCIPAL, GROUP, RELATIONSHIP, RULE, MEMORY, POLICY_CHANGE, SCRIPTED, WHEN, CHECK, MONITOR)
}
