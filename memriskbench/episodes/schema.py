"""Build the published JSON Schema of an episode (`episodes/schema.json`) from the format tables.

Each mapping's properties and required fields come from `format.py`, and a check's or monitor's
parameters from `vocab.py`: the tables the loader reads too. The schema covers structure (fields,
types, enums). Graph rules (ids, cycles, tiers) need the loader. `python -m memriskbench.episodes.schema >
episodes/schema.json` regenerates the file; a test keeps it in sync and checks that the schema
accepts everything the loader accepts.
"""

from __future__ import annotations

import json
from typing import Any

from memriskbench.episodes.format import CHECK, EPISODE, EVENTS, ID_RE, MONITOR, OBJECTS, Field, Obj
from memriskbench.vocab import CHECK_PARAMS, MONITOR_PARAMS, ONE_OF, Params

STR = {"type": "string"}
OPTSTR = {"type": ["string", "null"]}  # optional fields the loader also accepts as null
SCALAR = {"type": ["string", "number"]}  # the loader reads unquoted numbers as strings
ID = {"type": "string", "pattern": ID_RE.pattern}
STRLIST = {"type": "array", "items": STR}

# Field kinds (format.py) that need no more than their kind to be written as JSON Schema.
_FIELD_KIND: dict[str, dict[str, Any]] = {
    "id": ID,
    "scalar": SCALAR,
    "strs": {"anyOf": [STR, STRLIST]},
    "any": {},
    "mapping": {"type": "object"},
    "parties": {"type": "object", "minProperties": 1, "additionalProperties": SCALAR},
}
# Parameter kinds (vocab.py). Those the loader reads for meaning are plain strings or lists here:
# a date's spelling or a regex's bounds are beyond a schema, and enum parameters have always been
# published as open strings (their values are the loader's to check).
_PARAM_KIND: dict[str, dict[str, Any]] = {
    "str": STR,
    "bool": {"type": "boolean"},
    "num": {"type": "number"},
    "int": {"type": "integer"},
    "strlist": STRLIST,
    "dict": {"type": "object"},
    "any": {},
    "valuelist": {
        "type": "array",
        "minItems": 1,
        "items": {
            "anyOf": [
                STR,
                {
                    "type": "object",
                    "properties": {"record": STR},
                    "required": ["record"],
                    "additionalProperties": False,
                },
            ]
        },
    },
    "record": STR,
    "enum": STR,
    "regex": STR,
    "date": STR,
    "time": STR,
    "weekdays": STRLIST,
}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _field(f: Field) -> dict[str, Any]:
    if f.kind == "str":
        return OPTSTR if f.nullable else STR
    if f.kind == "enum":
        return {"enum": list(f.values)}
    if f.kind == "enumlist":
        return {"type": "array", "items": {"enum": list(f.values)}}
    if f.kind == "int":
        assert f.bounds is not None and f.bounds[1] is not None
        return {"type": "integer", "minimum": f.bounds[0], "maximum": f.bounds[1]}
    if f.kind == "object":
        return _object(f.of)
    if f.kind == "list":
        out: dict[str, Any] = {"type": "array", "items": _object(f.of)}
        if f.bounds is not None:
            out["minItems"] = f.bounds[0]
            if f.bounds[1] is not None:
                out["maxItems"] = f.bounds[1]
        return {"anyOf": [{"type": "null"}, out]} if f.nullable else out
    return _FIELD_KIND[f.kind]


def _plain(obj: Obj, tag: str = "", value: str = "") -> dict[str, Any]:
    """`obj` as a closed JSON object; with `tag`, that field holds the constant `value`."""
    props = {f.name: ({"const": value} if f.name == tag else _field(f)) for f in obj.fields}
    return _obj(props, list(obj.required))


def _forms(obj: Obj) -> dict[str, Any]:
    """One variant per form: its fields required, the other forms' fields absent."""
    variants = []
    for form in obj.forms:
        others = {name for other in obj.forms if other != form for name in other}
        fields = [f for f in obj.fields if f.name not in others]
        variants.append(
            _obj({f.name: _field(f) for f in fields}, [f.name for f in fields if f.required or f.name in form])
        )
    return {"anyOf": variants}


def _typed(obj: Obj, types: dict[str, Params]) -> dict[str, Any]:
    """A check or monitor: one variant per type, its fixed fields plus that type's parameters."""
    variants = []
    for t, params in types.items():
        variant = _plain(obj, "type", t)
        variant["properties"].update({p.name: _PARAM_KIND[p.kind] for p in params.values()})
        variant["required"] += [p.name for p in params.values() if p.required]
        if t in ONE_OF:
            variant["oneOf"] = [{"required": [name]} for name in ONE_OF[t]]
        variants.append(variant)
    return {"title": obj.name, "oneOf": variants}


def _object(name: str) -> dict[str, Any]:
    if name == "event":
        return {"oneOf": [_plain(obj, "kind", kind) for kind, obj in EVENTS.items()]}
    if name == CHECK.name:
        return _typed(CHECK, CHECK_PARAMS)
    if name == MONITOR.name:
        return _typed(MONITOR, MONITOR_PARAMS)
    obj = OBJECTS[name]
    return _forms(obj) if obj.forms else _plain(obj)


def build_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "memriskbench/episode.schema.json",
        "title": "memriskbench episode",
        "description": "Structure of one episode file. Graph rules (unique ids, acyclic, tiers) are checked by `memriskbench validate`.",
        **_plain(EPISODE),
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(render(), end="")
