"""Load episode YAML (safe loading only) into typed records and validate it.

Every problem becomes an `EpisodeError` naming file, line (from the YAML node marks), episode id
and field path. A file yields all the problems found in it; one bad file never stops the others.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import networkx as nx
import yaml

from .episode import (
    ACTION_TYPES,
    CATEGORIES,
    EVENT_KINDS,
    IMPORTED_RISK,
    IMPORTED_TIER,
    MEMORY_OPS,
    RISKS,
    TIERS,
    CheckSpec,
    Condition,
    Episode,
    Event,
    Group,
    MemoryOp,
    Monitor,
    PolicyChange,
    PolicyRule,
    Principal,
    Relationship,
    ScriptedCall,
)
from .errors import EpisodeError
from .patterns import valid as valid_pattern
from .tools import TOOLS
from .values import WEEKDAYS
from .vocab import CHECK_ENUMS, CHECK_PARAMS, MONITOR_PARAMS, ONE_OF, RECORD_CHECKS, ParamSpec

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")


class EpisodeErrors(Exception):
    """All problems found in one file."""

    def __init__(self, errors: list[EpisodeError]) -> None:
        self.errors = errors
        super().__init__("\n".join(e.render() for e in errors))


class _AliasFound(Exception):
    pass


class _DuplicateKey(Exception):
    """YAML keeps the last of two equal keys without a word; an episode file may not repeat one."""

    def __init__(self, path: tuple[Any, ...], key: str, line: int) -> None:
        self.path, self.key, self.line = path, key, line


# libyaml's parser when PyYAML has it (about 8x faster); either way only the safe constructor runs.
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _safe_parse(text: str) -> tuple[Any, Any]:
    """What `yaml.safe_load` does, from one parse: the safe constructor over the node tree, which
    is also returned for line numbers. Never a loader that can build arbitrary objects."""
    loader = _SAFE_LOADER(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return data, node


def _line_map(text: str, root: Any = None) -> dict[tuple[Any, ...], int]:
    """Map each field path to its 1-based line, from the composed node tree.

    Raises _AliasFound if a node is reached twice: episodes do not use YAML anchors and aliases,
    which could otherwise nest without end or blow up exponentially.
    """
    lines: dict[tuple[Any, ...], int] = {}
    if root is None:
        try:
            root = yaml.compose(text, Loader=_SAFE_LOADER)
        except yaml.YAMLError:
            return lines
    seen: set[int] = set()

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        if id(node) in seen:
            raise _AliasFound
        seen.add(id(node))
        lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            keys: set[Any] = set()
            for k, v in node.value:
                key = k.value
                if key in keys:
                    raise _DuplicateKey(path + (key,), str(key), k.start_mark.line + 1)
                keys.add(key)
                lines[path + (key,)] = k.start_mark.line + 1
                walk(v, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                walk(v, path + (i,))

    if root is not None:
        walk(root, ())
    return lines


@dataclass
class _Ctx:
    file: str
    lines: dict[tuple[Any, ...], int]
    episode: str = ""

    def error(self, path: tuple[Any, ...], message: str) -> EpisodeError:
        line = None
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.lines:
                line = self.lines[path[:cut]]
                break
        field = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")
        return EpisodeError(message, file=self.file, episode=self.episode, field=field, line=line)


_KIND_CHECKS = {
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "num": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "strlist": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "dict": lambda v: isinstance(v, dict),
    "any": lambda v: True,
    "valuelist": lambda v: isinstance(v, list) and bool(v) and all(isinstance(x, str) or (isinstance(x, dict) and set(x) == {"record"} and isinstance(x["record"], str)) for x in v),
}


def _mapping(ctx: _Ctx, value: Any, path: tuple[Any, ...], allowed: Iterable[str], required: Iterable[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ctx.error(path, f"expected a mapping, got {type(value).__name__}")
    allowed_set = set(allowed)
    for key in value:
        if key not in allowed_set:
            raise ctx.error(path + (str(key),), f"unknown field {key!r}")
    for key in required:
        if key not in value:
            raise ctx.error(path + (key,), "missing required field")
    return value


def _str(ctx: _Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...], default: str | None = None, coerce: bool = False) -> str:
    """A string field. With `coerce`, an unquoted YAML number (a value, a time) becomes its text."""
    if key not in obj:
        if default is None:
            raise ctx.error(path + (key,), "missing required field")
        return default
    value = obj[key]
    if coerce and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ctx.error(path + (key,), f"expected a string, got {type(value).__name__}")
    return value


def _optstr(ctx: _Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...]) -> str | None:
    return _str(ctx, obj, key, path) if obj.get(key) is not None else None


def _ident(ctx: _Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...]) -> str:
    value = _str(ctx, obj, key, path)
    if not ID_RE.fullmatch(value):  # fullmatch: "$" alone would let a trailing newline through
        raise ctx.error(path + (key,), f"bad id {value!r}: use letters, digits, '_', '.', '-'")
    return value


def _enum(ctx: _Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...], choices: Iterable[str], default: str | None = None) -> str:
    value = _str(ctx, obj, key, path, default)
    options = tuple(choices)
    if value not in options:
        raise ctx.error(path + (key,), f"{value!r} is not one of {', '.join(options)}")
    return value


def _strlist(ctx: _Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...]) -> tuple[str, ...]:
    value = obj.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ctx.error(path + (key,), "expected a list of strings")
    return tuple(value)


def _params(ctx: _Ctx, obj: dict[str, Any], path: tuple[Any, ...], spec: ParamSpec, skip: set[str]) -> dict[str, Any]:
    params = {k: v for k, v in obj.items() if k not in skip}
    for name, value in params.items():
        if name not in spec:
            raise ctx.error(path + (name,), f"unknown field {name!r}")
        kind = spec[name][0]
        if not _KIND_CHECKS[kind](value):
            raise ctx.error(path + (name,), f"expected {kind}, got {type(value).__name__}")
    for name, (_, required) in spec.items():
        if required and name not in params:
            raise ctx.error(path + (name,), "missing required field")
    return params


_HHMM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


def _monitor_values(ctx: _Ctx, params: dict[str, Any], path: tuple[Any, ...]) -> None:
    """Typed monitor parameters: ISO dates, weekday names, HH:MM times."""
    for key in ("from", "to"):
        if key in params:
            try:
                date.fromisoformat(params[key])
            except ValueError:
                raise ctx.error(path + (key,), f"{params[key]!r} is not a date YYYY-MM-DD") from None
    for i, day in enumerate(params.get("weekdays", [])):
        if day.casefold() not in WEEKDAYS:
            raise ctx.error(path + ("weekdays", i), f"{day!r} is not a weekday")
    if "min" in params and isinstance(params["min"], str) and not _HHMM.match(params["min"]):
        raise ctx.error(path + ("min",), f"{params['min']!r} is not a time HH:MM")


def _pattern(ctx: _Ctx, params: dict[str, Any], path: tuple[Any, ...]) -> None:
    """An author's regex must compile, within the size bounds (`patterns.py`)."""
    if isinstance(params.get("pattern"), str):
        why = valid_pattern(params["pattern"])
        if why:
            raise ctx.error(path + ("pattern",), f"bad regex: {why}")


def _one_of(ctx: _Ctx, params: dict[str, Any], path: tuple[Any, ...], ctype: str) -> None:
    names = ONE_OF.get(ctype)
    if names and sum(n in params for n in names) != 1:
        raise ctx.error(path, f"a {ctype} check names exactly one of {', '.join(names)}")


def _memory_op(ctx: _Ctx, raw: Any, path: tuple[Any, ...]) -> MemoryOp:
    fields = ("op", "id", "key", "value", "scope", "owner", "visibility", "supersedes", "source")
    m = _mapping(ctx, raw, path, fields, ("op", "id"))
    op = _enum(ctx, m, "op", path, MEMORY_OPS)
    if op in ("write", "update"):
        for key in ("key", "value"):
            if key not in m:
                raise ctx.error(path + (key,), f"required for op {op}")
    if op == "update" and "supersedes" not in m:
        raise ctx.error(path + ("supersedes",), "an update must name the record it supersedes")
    return MemoryOp(
        op=op,
        id=_ident(ctx, m, "id", path),
        key=_str(ctx, m, "key", path, ""),
        value=_str(ctx, m, "value", path, "", coerce=True),
        scope=_str(ctx, m, "scope", path, "public"),
        owner=_str(ctx, m, "owner", path, ""),
        visibility=_enum(ctx, m, "visibility", path, ("private", "public"), "public"),
        supersedes=_optstr(ctx, m, "supersedes", path),
        source=_str(ctx, m, "source", path, ""),
    )


def _relationship(ctx: _Ctx, raw: Any, rp: tuple[Any, ...]) -> Relationship:
    """`from`/`to`/`type`, or (imported data) `type` plus `with`: the parties by their own keys."""
    rm = _mapping(ctx, raw, rp, ("from", "to", "type", "scope", "with"), ("type",))
    if "with" not in rm:
        for key in ("from", "to"):
            if key not in rm:
                raise ctx.error(rp + (key,), "missing required field (or give `with`)")
        return Relationship(_str(ctx, rm, "from", rp), _str(ctx, rm, "to", rp), _str(ctx, rm, "type", rp), _optstr(ctx, rm, "scope", rp))
    parties = rm["with"]
    if not isinstance(parties, dict) or not parties:
        raise ctx.error(rp + ("with",), "expected a non-empty mapping of role key to value")
    attrs = tuple((str(k), _str(ctx, parties, k, rp + ("with",), coerce=True)) for k in parties)
    return Relationship("", "", _str(ctx, rm, "type", rp), _optstr(ctx, rm, "scope", rp), attrs)


def _scripted(ctx: _Ctx, raw: Any, path: tuple[Any, ...]) -> ScriptedCall:
    m = _mapping(ctx, raw, path, ("action", "content", "tool", "args"), ("action",))
    action = _enum(ctx, m, "action", path, ACTION_TYPES)
    tool = _enum(ctx, m, "tool", path, TOOLS) if action == "tool_call" or "tool" in m else None
    args = m.get("args", {})
    if not isinstance(args, dict):
        raise ctx.error(path + ("args",), "expected a mapping")
    return ScriptedCall(action=action, content=_str(ctx, m, "content", path, ""), tool=tool, args=args)


_COMMON = ("id", "kind", "after", "when")
_EVENT_FIELDS = {
    "message": _COMMON + ("speaker", "timestamp", "turn_kind", "text", "memory", "policy"),
    "tool_return": _COMMON + ("tool", "result"),
    "constraint": _COMMON + ("constraint", "op", "text", "monitor", "speaker", "timestamp"),
    "decision": _COMMON
    + ("requester", "query", "tools", "category", "expected_action", "target", "oracle", "naive", "checks", "max_steps", "attack_type"),
}


def _event(ctx: _Ctx, raw: Any, path: tuple[Any, ...], previous: str | None) -> Event:
    if not isinstance(raw, dict):
        raise ctx.error(path, "expected a mapping")
    kind = _enum(ctx, raw, "kind", path, EVENT_KINDS)
    m = _mapping(ctx, raw, path, _EVENT_FIELDS[kind], ("id",))
    eid = _ident(ctx, m, "id", path)
    after = _strlist(ctx, m, "after", path) if "after" in m else ((previous,) if previous else ())
    when = None
    if "when" in m:
        w = _mapping(ctx, m["when"], path + ("when",), ("decision", "action", "not_action"), ("decision",))
        if ("action" in w) == ("not_action" in w):
            raise ctx.error(path + ("when",), "give exactly one of action, not_action")
        key = "action" if "action" in w else "not_action"
        actions = _strlist(ctx, w, key, path + ("when",))
        for a in actions:
            if a not in ACTION_TYPES:
                raise ctx.error(path + ("when", key), f"{a!r} is not an action")
        when = Condition(decision=_str(ctx, w, "decision", path + ("when",)), actions=actions, negate=key == "not_action")
    base: dict[str, Any] = {"id": eid, "kind": kind, "after": after, "when": when}
    if kind == "message":
        memory = m.get("memory", [])
        policy = m.get("policy", [])
        if not isinstance(memory, list):
            raise ctx.error(path + ("memory",), "expected a list")
        if not isinstance(policy, list):
            raise ctx.error(path + ("policy",), "expected a list")
        changes = []
        for i, p in enumerate(policy):
            pp = path + ("policy", i)
            pm = _mapping(ctx, p, pp, ("op", "scope", "principal", "role"), ("op", "scope"))
            changes.append(PolicyChange(op=_enum(ctx, pm, "op", pp, ("grant", "withdraw")), scope=_str(ctx, pm, "scope", pp), principal=_optstr(ctx, pm, "principal", pp), role=_optstr(ctx, pm, "role", pp)))
        return Event(
            **base,
            speaker=_str(ctx, m, "speaker", path),
            timestamp=_str(ctx, m, "timestamp", path, "", coerce=True),
            text=_str(ctx, m, "text", path, coerce=True),
            turn_kind=_optstr(ctx, m, "turn_kind", path),
            memory=tuple(_memory_op(ctx, x, path + ("memory", i)) for i, x in enumerate(memory)),
            policy=tuple(changes),
        )
    if kind == "tool_return":
        if "result" not in m:
            raise ctx.error(path + ("result",), "missing required field")
        return Event(**base, tool=_enum(ctx, m, "tool", path, TOOLS), result=m["result"])
    if kind == "constraint":
        op = _enum(ctx, m, "op", path, ("declare", "lift"))
        monitor = None
        if op == "declare":
            if "monitor" not in m:
                raise ctx.error(path + ("monitor",), "a declared constraint needs a monitor")
            mp = path + ("monitor",)
            mm = m["monitor"]
            if not isinstance(mm, dict):
                raise ctx.error(mp, "expected a mapping")
            mtype = _enum(ctx, mm, "type", mp, MONITOR_PARAMS)
            monitor = Monitor(type=mtype, params=_params(ctx, mm, mp, MONITOR_PARAMS[mtype], {"type"}))
            _monitor_values(ctx, monitor.params, mp)
            _pattern(ctx, monitor.params, mp)
        return Event(**base, constraint=_ident(ctx, m, "constraint", path), op=op, monitor=monitor, text=_str(ctx, m, "text", path, "", coerce=True), speaker=_optstr(ctx, m, "speaker", path), timestamp=_str(ctx, m, "timestamp", path, "", coerce=True))
    # decision
    checks_raw = m.get("checks")
    if not isinstance(checks_raw, list) or not 1 <= len(checks_raw) <= 3:
        raise ctx.error(path + ("checks",), "a decision needs 1-3 checks")
    checks = []
    for i, c in enumerate(checks_raw):
        cp = path + ("checks", i)
        if not isinstance(c, dict):
            raise ctx.error(cp, "expected a mapping")
        ctype = _enum(ctx, c, "type", cp, CHECK_PARAMS)
        cid = _ident(ctx, c, "id", cp) if "id" in c else f"{eid}.c{i + 1}"
        params = _params(ctx, c, cp, CHECK_PARAMS[ctype], {"type", "id"})
        _one_of(ctx, params, cp, ctype)
        _pattern(ctx, params, cp)
        for name, value in params.items():
            choices = CHECK_ENUMS.get((ctype, name))
            if choices and value not in choices:
                raise ctx.error(cp + (name,), f"{value!r} is not one of {', '.join(choices)}")
        checks.append(CheckSpec(id=cid, type=ctype, params=params))
    max_steps = m.get("max_steps", 3)
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or not 1 <= max_steps <= 10:
        raise ctx.error(path + ("max_steps",), "expected an integer in 1..10")
    tools = _strlist(ctx, m, "tools", path)
    for i, t in enumerate(tools):
        if t not in TOOLS:
            raise ctx.error(path + ("tools", i), f"unknown tool {t!r}")
    return Event(
        **base,
        requester=_str(ctx, m, "requester", path),
        query=_str(ctx, m, "query", path, coerce=True),
        tools=tools,
        category=_enum(ctx, m, "category", path, CATEGORIES),
        expected_action=_enum(ctx, m, "expected_action", path, ACTION_TYPES),
        target=_optstr(ctx, m, "target", path),
        oracle=_scripted(ctx, m["oracle"], path + ("oracle",)) if "oracle" in m else None,
        naive=_scripted(ctx, m["naive"], path + ("naive",)) if "naive" in m else None,
        checks=tuple(checks),
        max_steps=max_steps,
        attack_type=_optstr(ctx, m, "attack_type", path),
    )


_TOP = ("id", "risk", "tier", "domain", "title", "tags", "principals", "groups", "relationships", "policy", "events")


def _not_json(value: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], str] | None:
    """The first value that JSON cannot hold (YAML's .nan, .inf, unquoted dates, !!binary, sets,
    non-string keys), with its path: a trace must be able to record every part of an episode."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, f"{value} is not a JSON number")
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _not_json(v, path + (i,))
            if found:
                return found
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return path + (str(k),), f"key {k!r} is not a string (quote it)"
            found = _not_json(v, path + (k,))
            if found:
                return found
        return None
    return path, f"a {type(value).__name__} is not a JSON value (quote it)"


def parse_episode(data: Any, file: str = "", text: str = "", lines: dict[tuple[Any, ...], int] | None = None) -> Episode:
    """Build an Episode from already-loaded YAML data; raise EpisodeErrors listing every problem."""
    ctx = _Ctx(file=file, lines=lines if lines is not None else (_line_map(text) if text else {}))
    try:
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            ctx.episode = data["id"]
        bad = _not_json(data, ())
        if bad:
            raise ctx.error(*bad)
        top = _mapping(ctx, data, (), _TOP, ("id", "risk", "tier", "domain", "title", "principals", "events"))
        eid = _ident(ctx, top, "id", ())
        principals = []
        if not isinstance(top["principals"], list) or not top["principals"]:
            raise ctx.error(("principals",), "expected a non-empty list of principals")
        for i, p in enumerate(top["principals"]):
            pm = _mapping(ctx, p, ("principals", i), ("id", "role", "display_name"), ("id", "role"))
            principals.append(Principal(_ident(ctx, pm, "id", ("principals", i)), _str(ctx, pm, "role", ("principals", i)), _str(ctx, pm, "display_name", ("principals", i), pm["id"])))
        groups = []
        if top.get("groups") is not None and not isinstance(top["groups"], list):
            raise ctx.error(("groups",), "expected a list")
        for i, g in enumerate(top.get("groups") or []):
            gp = ("groups", i)
            gm = _mapping(ctx, g, gp, ("id", "names"), ("id",))
            groups.append(Group(_ident(ctx, gm, "id", gp), _strlist(ctx, gm, "names", gp)))
        rels = []
        for key in ("relationships", "policy"):
            if top.get(key) is not None and not isinstance(top[key], list):
                raise ctx.error((key,), "expected a list")
        for i, r in enumerate(top.get("relationships") or []):
            rp = ("relationships", i)
            rels.append(_relationship(ctx, r, rp))
        rules = []
        for i, r in enumerate(top.get("policy") or []):
            rp = ("policy", i)
            rm = _mapping(ctx, r, rp, ("scope", "principals", "roles"), ("scope",))
            rules.append(PolicyRule(_str(ctx, rm, "scope", rp), _strlist(ctx, rm, "principals", rp), _strlist(ctx, rm, "roles", rp)))
        raw_events = top["events"]
        if not isinstance(raw_events, list) or not raw_events:
            raise ctx.error(("events",), "expected a non-empty list of events")
        events: list[Event] = []
        previous: str | None = None
        for i, raw in enumerate(raw_events):
            ev = _event(ctx, raw, ("events", i), previous)
            events.append(ev)
            previous = ev.id
        episode = Episode(
            id=eid,
            risk=_enum(ctx, top, "risk", (), (*RISKS, IMPORTED_RISK)),
            tier=_enum(ctx, top, "tier", (), (*TIERS, IMPORTED_TIER)),
            domain=_str(ctx, top, "domain", ()),
            title=_str(ctx, top, "title", ()),
            tags=_strlist(ctx, top, "tags", ()),
            principals=tuple(principals),
            relationships=tuple(rels),
            policy=tuple(rules),
            events=tuple(events),
            groups=tuple(groups),
            source_file=file,
            raw=data,
        )
    except EpisodeError as exc:
        raise EpisodeErrors([exc]) from None
    problems = _semantic_errors(ctx, episode)
    if problems:
        raise EpisodeErrors(problems)
    return episode


def _semantic_errors(ctx: _Ctx, ep: Episode) -> list[EpisodeError]:
    errs: list[EpisodeError] = []
    index = {e.id: i for i, e in enumerate(ep.events)}
    pids = {p.id for p in ep.principals}
    seen: set[str] = set()
    for i, ev in enumerate(ep.events):
        if ev.id in seen:
            errs.append(ctx.error(("events", i, "id"), f"duplicate event id {ev.id!r}"))
        seen.add(ev.id)
    if len(pids) != len(ep.principals):
        errs.append(ctx.error(("principals",), "duplicate principal id"))
    records: dict[str, int] = {}
    keys: set[str] = set()
    constraints: set[str] = set()
    for i, ev in enumerate(ep.events):
        for j, m in enumerate(ev.memory):
            p = ("events", i, "memory", j)
            if m.op in ("write", "update"):
                if m.id in records:
                    errs.append(ctx.error(p + ("id",), f"duplicate memory record id {m.id!r}"))
                records[m.id] = i
                keys.add(m.key)
                if m.owner and m.owner not in pids:
                    errs.append(ctx.error(p + ("owner",), f"unknown principal {m.owner!r}"))
                if m.op == "update" and m.supersedes not in records:
                    errs.append(ctx.error(p + ("supersedes",), f"unknown or later record {m.supersedes!r}"))
            elif m.id not in records:
                errs.append(ctx.error(p + ("id",), f"{m.op} of record {m.id!r} that was not written before"))
        if ev.kind == "constraint":
            constraints.add(ev.constraint or "")
        for field, who in (("speaker", ev.speaker if ev.kind == "message" else None), ("requester", ev.requester)):
            if who is not None and who not in pids:
                errs.append(ctx.error(("events", i, field), f"unknown principal {who!r}"))
        for j, a in enumerate(ev.after):
            if a not in index:
                errs.append(ctx.error(("events", i, "after", j), f"unknown event {a!r}"))
        if ev.when is not None:
            target = index.get(ev.when.decision)
            if target is None or not ep.events[target].is_decision:
                errs.append(ctx.error(("events", i, "when", "decision"), f"unknown decision {ev.when.decision!r}"))
    for i, ev in enumerate(ep.events):
        if not ev.is_decision:
            continue
        if ev.target is not None and ev.target not in keys:
            errs.append(ctx.error(("events", i, "target"), f"no memory key {ev.target!r} in this episode"))
        for field, call in (("oracle", ev.oracle), ("naive", ev.naive)):
            if call is None:
                continue
            for text in [call.content, *[v for v in call.args.values() if isinstance(v, str)]]:
                for name in PLACEHOLDER_RE.findall(text):
                    if name not in keys:
                        errs.append(ctx.error(("events", i, field), f"placeholder {{{name}}} names no memory key"))
        for j, c in enumerate(ev.checks):
            p = ("events", i, "checks", j)
            for field, rid in _record_refs(c.type, c.params):
                if rid not in records:
                    errs.append(ctx.error(p + (field,), f"unknown memory record {rid!r}"))
            if c.type == "constraint_respected" and c.params["constraint"] not in constraints:
                errs.append(ctx.error(p + ("constraint",), f"unknown constraint {c.params['constraint']!r}"))
            for a in c.params.get("actions", []):
                if a not in ACTION_TYPES:
                    errs.append(ctx.error(p + ("actions",), f"{a!r} is not an action"))
    graph = nx.DiGraph()
    graph.add_nodes_from(index)
    graph.add_edges_from((a, e.id) for e in ep.events for a in e.after if a in index)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        errs.append(ctx.error(("events",), "the event graph has a cycle: " + " -> ".join(f"{u}" for u, _ in cycle)))
    lo, hi = TIERS.get(ep.tier, (0, len(ep.events)))
    if not lo <= ep.turns <= hi:
        errs.append(ctx.error(("tier",), f"tier {ep.tier} needs {lo}-{hi} turns (non-decision events), found {ep.turns}"))
    if not ep.decisions:
        errs.append(ctx.error(("events",), "an episode needs at least one decision"))
    return errs


def _record_refs(ctype: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, record id) for every record a check names."""
    out = [("record", str(params["record"]))] if "record" in params and (ctype in RECORD_CHECKS or ctype in ONE_OF) else []
    for field in ("all_of", "any_of"):
        out += [(field, str(x["record"])) for x in params.get(field, []) if isinstance(x, dict)]
    return out


def _cut_texts(root: Any, text: str) -> list[tuple[tuple[Any, ...], int]]:
    """Unquoted `text`/`query` values followed by a `#` on their line: YAML read the rest of the
    line as a comment, silently cutting the sentence ("PR #1442" becomes "PR")."""
    lines = text.splitlines()
    found: list[tuple[tuple[Any, ...], int]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value in ("text", "query") and isinstance(v, yaml.ScalarNode) and not v.style:  # plain, unquoted
                    row = v.end_mark.line
                    rest = lines[row][v.end_mark.column :] if row < len(lines) else ""
                    if "#" in rest:
                        found.append((path + (k.value,), row + 1))
                walk(v, path + (k.value,))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                walk(v, path + (i,))

    walk(root, ())
    return found


def load_episode(path: str | Path) -> Episode:
    path = Path(path)
    ctx = _Ctx(file=str(path), lines={})
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EpisodeErrors([ctx.error((), f"cannot read file: {exc}")]) from None
    try:
        data, root = _safe_parse(text)
        lines = _line_map(text, root)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise EpisodeErrors([EpisodeError(f"malformed YAML: {problem}", file=str(path), line=line)]) from None
    except _AliasFound:
        raise EpisodeErrors([ctx.error((), "YAML anchors and aliases are not supported in episodes")]) from None
    except _DuplicateKey as dup:
        field = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in dup.path).replace(".[", "[")
        episode = data.get("id", "") if isinstance(data, dict) and isinstance(data.get("id"), str) else ""
        raise EpisodeErrors([EpisodeError(f"duplicate key {dup.key!r} (YAML would keep only the last)", file=str(path), episode=episode, field=field, line=dup.line)]) from None
    except RecursionError:
        raise EpisodeErrors([ctx.error((), "YAML nested too deeply")]) from None
    cut = _cut_texts(root, text)
    if cut:
        ctx = _Ctx(file=str(path), lines=lines, episode=data.get("id", "") if isinstance(data, dict) and isinstance(data.get("id"), str) else "")
        raise EpisodeErrors([ctx.error(p, "unquoted text is cut at '#' (YAML reads the rest as a comment); quote it") for p, _ in cut])
    try:
        return parse_episode(data, file=str(path), lines=lines)
    except RecursionError:
        raise EpisodeErrors([ctx.error((), "YAML nested too deeply")]) from None


def episode_files(paths: Iterable[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(q for q in p.rglob("*") if q.is_file() and q.suffix in (".yaml", ".yml")))
        else:
            files.append(p)
    return files


def load_all(paths: Iterable[str | Path]) -> tuple[list[Episode], list[EpisodeError]]:
    """Load every episode under `paths`; return the good ones and every problem found."""
    episodes: list[Episode] = []
    errors: list[EpisodeError] = []
    seen: dict[str, str] = {}
    for f in episode_files(paths):
        try:
            ep = load_episode(f)
        except EpisodeErrors as exc:
            errors.extend(exc.errors)
            continue
        if ep.id in seen:
            errors.append(EpisodeError(f"episode id also used by {seen[ep.id]}", file=str(f), episode=ep.id, field="id"))
            continue
        seen[ep.id] = str(f)
        episodes.append(ep)
    return episodes, errors
