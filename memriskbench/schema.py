"""Build the published JSON Schema of an episode (`episodes/schema.json`) from the loader's tables.

The schema covers structure (fields, types, enums). Graph rules (ids, cycles, tiers) need the
loader. `python -m memriskbench.schema > episodes/schema.json` regenerates the file; a test
keeps it in sync and checks that the schema accepts everything the loader accepts.
"""

from __future__ import annotations

import json
from typing import Any

from .episode import ACTION_TYPES, CATEGORIES, IMPORTED_RISK, IMPORTED_TIER, MEMORY_OPS, RISKS, TIERS
from .loader import _EVENT_FIELDS, ID_RE
from .tools import TOOLS
from .vocab import CHECK_PARAMS, MONITOR_PARAMS, ONE_OF, ParamSpec

STR = {"type": "string"}
OPTSTR = {"type": ["string", "null"]}  # optional fields the loader also accepts as null
SCALAR = {"type": ["string", "number"]}  # the loader reads unquoted numbers as strings
ID = {"type": "string", "pattern": ID_RE.pattern}
STRLIST = {"type": "array", "items": STR}
_KIND = {
    "str": STR,
    "bool": {"type": "boolean"},
    "num": {"type": "number"},
    "int": {"type": "integer"},
    "strlist": STRLIST,
    "dict": {"type": "object"},
    "any": {},
    "valuelist": {"type": "array", "minItems": 1, "items": {"anyOf": [STR, {"type": "object", "properties": {"record": STR}, "required": ["record"], "additionalProperties": False}]}},
}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _typed(name: str, types: dict[str, ParamSpec], extra: dict[str, Any]) -> dict[str, Any]:
    variants = []
    for t, spec in types.items():
        props = {"type": {"const": t}, **extra, **{k: _KIND[kind] for k, (kind, _) in spec.items()}}
        variant = _obj(props, ["type"] + [k for k, (_, req) in spec.items() if req])
        if t in ONE_OF:
            variant["oneOf"] = [{"required": [name]} for name in ONE_OF[t]]
        variants.append(variant)
    return {"title": name, "oneOf": variants}


def build_schema() -> dict[str, Any]:
    memory = _obj(
        {
            "op": {"enum": list(MEMORY_OPS)},
            "id": ID,
            "key": STR,
            "value": SCALAR,
            "scope": STR,
            "owner": STR,
            "visibility": {"enum": ["private", "public"]},
            "supersedes": OPTSTR,
            "source": STR,
        },
        ["op", "id"],
    )
    policy_change = _obj({"op": {"enum": ["grant", "withdraw"]}, "scope": STR, "principal": OPTSTR, "role": OPTSTR}, ["op", "scope"])
    scripted = _obj({"action": {"enum": list(ACTION_TYPES)}, "content": STR, "tool": {"enum": sorted(TOOLS)}, "args": {"type": "object"}}, ["action"])
    when = {
        "type": "object",
        "properties": {"decision": STR, "action": {"anyOf": [STR, STRLIST]}, "not_action": {"anyOf": [STR, STRLIST]}},
        "required": ["decision"],
        "additionalProperties": False,
    }
    field_schemas: dict[str, Any] = {
        "id": ID,
        "after": {"anyOf": [STR, STRLIST]},
        "when": when,
        "speaker": OPTSTR,
        "timestamp": SCALAR,
        "text": SCALAR,
        "memory": {"type": "array", "items": memory},
        "policy": {"type": "array", "items": policy_change},
        "tool": {"enum": sorted(TOOLS)},
        "result": {},
        "constraint": ID,
        "op": {"enum": ["declare", "lift"]},
        "monitor": _typed("monitor", MONITOR_PARAMS, {}),
        "requester": STR,
        "query": SCALAR,
        "tools": {"type": "array", "items": {"enum": sorted(TOOLS)}},
        "category": {"enum": list(CATEGORIES)},
        "expected_action": {"enum": list(ACTION_TYPES)},
        "target": OPTSTR,
        "oracle": scripted,
        "naive": scripted,
        "checks": {"type": "array", "minItems": 1, "maxItems": 3, "items": _typed("check", CHECK_PARAMS, {"id": ID})},
        "max_steps": {"type": "integer", "minimum": 1, "maximum": 10},
        "turn_kind": OPTSTR,
        "attack_type": OPTSTR,
    }
    required = {
        "message": ["id", "kind", "speaker", "text"],
        "tool_return": ["id", "kind", "tool", "result"],
        "constraint": ["id", "kind", "constraint", "op"],
        "decision": ["id", "kind", "requester", "query", "category", "expected_action", "checks"],
    }
    events = []
    for kind, fields in _EVENT_FIELDS.items():
        props = {f: field_schemas[f] for f in fields if f != "kind"}
        props["kind"] = {"const": kind}
        events.append(_obj(props, required[kind]))
    principal = _obj({"id": ID, "role": STR, "display_name": STR}, ["id", "role"])
    parties = {"type": "object", "minProperties": 1, "additionalProperties": SCALAR}
    relationship = {
        "anyOf": [
            _obj({"from": STR, "to": STR, "type": STR, "scope": OPTSTR}, ["from", "to", "type"]),
            _obj({"type": STR, "scope": OPTSTR, "with": parties}, ["type", "with"]),
        ]
    }
    rule = _obj({"scope": STR, "principals": {"anyOf": [STR, STRLIST]}, "roles": {"anyOf": [STR, STRLIST]}}, ["scope"])
    top = _obj(
        {
            "id": ID,
            "risk": {"enum": [*RISKS, IMPORTED_RISK]},
            "tier": {"enum": [*TIERS, IMPORTED_TIER]},
            "domain": STR,
            "title": STR,
            "tags": {"anyOf": [STR, STRLIST]},
            "principals": {"type": "array", "items": principal},
            "groups": {"anyOf": [{"type": "null"}, {"type": "array", "items": _obj({"id": ID, "names": {"anyOf": [STR, STRLIST]}}, ["id"])}]},
            "relationships": {"anyOf": [{"type": "null"}, {"type": "array", "items": relationship}]},
            "policy": {"anyOf": [{"type": "null"}, {"type": "array", "items": rule}]},
            "events": {"type": "array", "minItems": 1, "items": {"oneOf": events}},
        },
        ["id", "risk", "tier", "domain", "title", "principals", "events"],
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "memriskbench/episode.schema.json",
        "title": "memriskbench episode",
        "description": "Structure of one episode file. Graph rules (unique ids, acyclic, tiers) are checked by `memriskbench validate`.",
        **top,
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(render(), end="")
