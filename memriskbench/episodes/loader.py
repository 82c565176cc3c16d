"""Load episode files into typed records, validated: every problem an `EpisodeError`.

Each error names file, line, episode id and field path. A file yields all the problems found in
it; one bad file never stops the others. YAML is read by `yamlsafe.py`, each field by `readers.py`
against the format tables (`format.py`, `vocab.py`), and rules across fields are `crossref.py`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from memriskbench.episodes import readers as read
from memriskbench.episodes.categories import with_families
from memriskbench.episodes.crossref import cross_errors
from memriskbench.episodes.episode import (
    ACTION_TYPES,
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
from memriskbench.episodes.format import (
    CHECK,
    EPISODE,
    EVENTS,
    GROUP,
    MEMORY,
    MONITOR,
    POLICY_CHANGE,
    PRINCIPAL,
    RELATIONSHIP,
    RULE,
    SCRIPTED,
    WHEN,
    Field,
)
from memriskbench.episodes.yamlsafe import AliasFound, DuplicateKey, cut_texts, line_map, not_json, safe_parse
from memriskbench.errors import EpisodeError
from memriskbench.vocab import CHECK_PARAMS, MONITOR_PARAMS


class EpisodeErrors(Exception):
    """All problems found in one file."""

    def __init__(self, errors: list[EpisodeError]) -> None:
        self.errors = errors
        super().__init__("\n".join(e.render() for e in errors))


def _memory_op(ctx: read.Ctx, raw: Any, path: tuple[Any, ...]) -> MemoryOp:
    m = read.mapping(ctx, raw, path, MEMORY)
    op = read.choice(ctx, m, "op", path, MEMORY["op"].values)
    if op in ("write", "update"):
        for key in ("key", "value"):
            if key not in m:
                raise ctx.error(path + (key,), f"required for op {op}")
    if op == "update" and "supersedes" not in m:
        raise ctx.error(path + ("supersedes",), "an update must name the record it supersedes")
    categories = read.phrases(ctx, m, "categories", path)
    return MemoryOp(
        op=op,
        id=read.ident(ctx, m, "id", path),
        key=read.string(ctx, m, "key", path, ""),
        value=read.string(ctx, m, "value", path, "", coerce=True),
        scope=read.string(ctx, m, "scope", path, "public"),
        owner=read.string(ctx, m, "owner", path, ""),
        visibility=read.choice(ctx, m, "visibility", path, MEMORY["visibility"].values, "public"),
        supersedes=read.optstring(ctx, m, "supersedes", path),
        source=read.string(ctx, m, "source", path, ""),
        subject=read.string(ctx, m, "subject", path, ""),
        # the judge reads a category, and its family's words (categories.with_families), as it
        # reads an alias (episode.MemoryOp)
        aliases=tuple(dict.fromkeys(read.phrases(ctx, m, "aliases", path) + categories)),
        categories=categories if "categories" in m else None,
    )


def _relationship(ctx: read.Ctx, raw: Any, rp: tuple[Any, ...]) -> Relationship:
    """`from`/`to`/`type`, or (imported data) `type` plus `with`: the parties by their own keys.
    These are RELATIONSHIP's two forms (format.py)."""
    rm = read.mapping(ctx, raw, rp, RELATIONSHIP)
    if "with" in rm and ("from" in rm or "to" in rm):
        raise ctx.error(rp + ("with",), "give `from` and `to`, or `with`, not both")
    if "with" not in rm:
        for key in ("from", "to"):
            if key not in rm:
                raise ctx.error(rp + (key,), "missing required field (or give `with`)")
        return Relationship(
            read.string(ctx, rm, "from", rp),
            read.string(ctx, rm, "to", rp),
            read.string(ctx, rm, "type", rp),
            read.optstring(ctx, rm, "scope", rp),
        )
    parties = rm["with"]
    if not isinstance(parties, dict) or not parties:
        raise ctx.error(rp + ("with",), "expected a non-empty mapping of role key to value")
    attrs = tuple((str(k), read.string(ctx, parties, k, rp + ("with",), coerce=True)) for k in parties)
    return Relationship("", "", read.string(ctx, rm, "type", rp), read.optstring(ctx, rm, "scope", rp), attrs)


def _scripted(ctx: read.Ctx, raw: Any, path: tuple[Any, ...]) -> ScriptedCall:
    m = read.mapping(ctx, raw, path, SCRIPTED)
    action = read.choice(ctx, m, "action", path, SCRIPTED["action"].values)
    tool = read.choice(ctx, m, "tool", path, SCRIPTED["tool"].values) if action == "tool_call" or "tool" in m else None
    args = m.get("args", {})
    if not isinstance(args, dict):
        raise ctx.error(path + ("args",), "expected a mapping")
    return ScriptedCall(action=action, content=read.string(ctx, m, "content", path, ""), tool=tool, args=args)


def _range(f: Field) -> tuple[int, int]:
    assert f.bounds is not None and f.bounds[1] is not None, f
    return f.bounds[0], f.bounds[1]


_DECISION = EVENTS["decision"]
_CHECKS = _range(_DECISION["checks"])
_MAX_STEPS = _range(_DECISION["max_steps"])


def _event(ctx: read.Ctx, raw: Any, path: tuple[Any, ...], previous: str | None) -> Event:
    if not isinstance(raw, dict):
        raise ctx.error(path, "expected a mapping")
    kind = read.choice(ctx, raw, "kind", path, tuple(EVENTS))
    m = read.mapping(ctx, raw, path, EVENTS[kind])
    eid = read.ident(ctx, m, "id", path)
    after = read.strlist(ctx, m, "after", path) if "after" in m else ((previous,) if previous else ())
    when = None
    if "when" in m:
        w = read.mapping(ctx, m["when"], path + ("when",), WHEN)
        if ("action" in w) == ("not_action" in w):
            raise ctx.error(path + ("when",), "give exactly one of action, not_action")
        key = "action" if "action" in w else "not_action"
        actions = read.strlist(ctx, w, key, path + ("when",))
        for a in actions:
            if a not in ACTION_TYPES:
                raise ctx.error(path + ("when", key), f"{a!r} is not an action")
        when = Condition(
            decision=read.string(ctx, w, "decision", path + ("when",)), actions=actions, negate=key == "not_action"
        )
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
            pm = read.mapping(ctx, p, pp, POLICY_CHANGE)
            changes.append(
                PolicyChange(
                    op=read.choice(ctx, pm, "op", pp, POLICY_CHANGE["op"].values),
                    scope=read.string(ctx, pm, "scope", pp),
                    principal=read.optstring(ctx, pm, "principal", pp),
                    role=read.optstring(ctx, pm, "role", pp),
                )
            )
        return Event(
            **base,
            speaker=read.string(ctx, m, "speaker", path),
            timestamp=read.string(ctx, m, "timestamp", path, "", coerce=True),
            text=read.string(ctx, m, "text", path, coerce=True),
            turn_kind=read.optstring(ctx, m, "turn_kind", path),
            memory=tuple(_memory_op(ctx, x, path + ("memory", i)) for i, x in enumerate(memory)),
            policy=tuple(changes),
        )
    if kind == "tool_return":
        return Event(**base, tool=read.choice(ctx, m, "tool", path, EVENTS[kind]["tool"].values), result=m["result"])
    if kind == "constraint":
        op = read.choice(ctx, m, "op", path, EVENTS[kind]["op"].values)
        monitor = None
        if op == "declare":
            if "monitor" not in m:
                raise ctx.error(path + ("monitor",), "a declared constraint needs a monitor")
            mp = path + ("monitor",)
            mm = m["monitor"]
            if not isinstance(mm, dict):
                raise ctx.error(mp, "expected a mapping")
            mtype = read.choice(ctx, mm, "type", mp, MONITOR["type"].values)
            monitor = Monitor(type=mtype, params=read.params(ctx, mm, mp, MONITOR_PARAMS[mtype], MONITOR))
            read.param_values(ctx, monitor.params, mp, MONITOR_PARAMS[mtype])
        return Event(
            **base,
            constraint=read.ident(ctx, m, "constraint", path),
            op=op,
            monitor=monitor,
            text=read.string(ctx, m, "text", path, "", coerce=True),
            speaker=read.optstring(ctx, m, "speaker", path),
            timestamp=read.string(ctx, m, "timestamp", path, "", coerce=True),
        )
    # decision
    checks_raw = m["checks"]
    if not isinstance(checks_raw, list) or not _CHECKS[0] <= len(checks_raw) <= _CHECKS[1]:
        raise ctx.error(path + ("checks",), "a decision needs {}-{} checks".format(*_CHECKS))
    checks = []
    for i, c in enumerate(checks_raw):
        cp = path + ("checks", i)
        if not isinstance(c, dict):
            raise ctx.error(cp, "expected a mapping")
        ctype = read.choice(ctx, c, "type", cp, CHECK["type"].values)
        cid = read.ident(ctx, c, "id", cp) if "id" in c else f"{eid}.c{i + 1}"
        params = read.params(ctx, c, cp, CHECK_PARAMS[ctype], CHECK)
        read.one_of(ctx, params, cp, ctype)
        read.param_values(ctx, params, cp, CHECK_PARAMS[ctype])
        checks.append(CheckSpec(id=cid, type=ctype, params=params))
    max_steps = m.get("max_steps", 3)
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or not _MAX_STEPS[0] <= max_steps <= _MAX_STEPS[1]:
        raise ctx.error(path + ("max_steps",), "expected an integer in {}..{}".format(*_MAX_STEPS))
    tools = read.strlist(ctx, m, "tools", path)
    for i, t in enumerate(tools):
        if t not in _DECISION["tools"].values:
            raise ctx.error(path + ("tools", i), f"unknown tool {t!r}")
    return Event(
        **base,
        requester=read.string(ctx, m, "requester", path),
        query=read.string(ctx, m, "query", path, coerce=True),
        tools=tools,
        category=read.choice(ctx, m, "category", path, _DECISION["category"].values),
        expected_action=read.choice(ctx, m, "expected_action", path, _DECISION["expected_action"].values),
        target=read.optstring(ctx, m, "target", path),
        oracle=_scripted(ctx, m["oracle"], path + ("oracle",)) if "oracle" in m else None,
        naive=_scripted(ctx, m["naive"], path + ("naive",)) if "naive" in m else None,
        checks=tuple(checks),
        max_steps=max_steps,
        attack_type=read.optstring(ctx, m, "attack_type", path),
    )


def parse_episode(
    data: Any, file: str = "", text: str = "", lines: dict[tuple[Any, ...], int] | None = None
) -> Episode:
    """Build an Episode from already-loaded YAML data; raise EpisodeErrors listing every problem."""
    ctx = read.Ctx(file=file, lines=lines if lines is not None else (line_map(text) if text else {}))
    try:
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            ctx.episode = data["id"]
        bad = not_json(data, ())
        if bad:
            raise ctx.error(*bad)
        top = read.mapping(ctx, data, (), EPISODE)
        eid = read.ident(ctx, top, "id", ())
        principals = []
        if not isinstance(top["principals"], list) or not top["principals"]:
            raise ctx.error(("principals",), "expected a non-empty list of principals")
        for i, p in enumerate(top["principals"]):
            pm = read.mapping(ctx, p, ("principals", i), PRINCIPAL)
            principals.append(
                Principal(
                    read.ident(ctx, pm, "id", ("principals", i)),
                    read.string(ctx, pm, "role", ("principals", i)),
                    read.string(ctx, pm, "display_name", ("principals", i), pm["id"]),
                )
            )
        groups = []
        if top.get("groups") is not None and not isinstance(top["groups"], list):
            raise ctx.error(("groups",), "expected a list")
        for i, g in enumerate(top.get("groups") or []):
            gp = ("groups", i)
            gm = read.mapping(ctx, g, gp, GROUP)
            groups.append(Group(read.ident(ctx, gm, "id", gp), read.strlist(ctx, gm, "names", gp)))
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
            rm = read.mapping(ctx, r, rp, RULE)
            rules.append(
                PolicyRule(
                    read.string(ctx, rm, "scope", rp),
                    read.strlist(ctx, rm, "principals", rp),
                    read.strlist(ctx, rm, "roles", rp),
                )
            )
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
            risk=read.choice(ctx, top, "risk", (), EPISODE["risk"].values),
            tier=read.choice(ctx, top, "tier", (), EPISODE["tier"].values),
            domain=read.string(ctx, top, "domain", ()),
            title=read.string(ctx, top, "title", ()),
            tags=read.strlist(ctx, top, "tags", ()),
            principals=tuple(principals),
            relationships=tuple(rels),
            policy=tuple(rules),
            events=tuple(events),
            groups=tuple(groups),
            source_file=file,
            raw=data,
        )
        episode = with_families(episode)
    except EpisodeError as exc:
        raise EpisodeErrors([exc]) from None
    problems = cross_errors(ctx, episode)
    if problems:
        raise EpisodeErrors(problems)
    return episode


def load_episode(path: str | Path) -> Episode:
    path = Path(path)
    ctx = read.Ctx(file=str(path), lines={})
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EpisodeErrors([ctx.error((), f"cannot read file: {exc}")]) from None
    try:
        data, root = safe_parse(text)
        lines = line_map(text, root)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise EpisodeErrors([EpisodeError(f"malformed YAML: {problem}", file=str(path), line=line)]) from None
    except AliasFound:
        raise EpisodeErrors([ctx.error((), "YAML anchors and aliases are not supported in episodes")]) from None
    except DuplicateKey as dup:
        field = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in dup.path).replace(".[", "[")
        episode = data.get("id", "") if isinstance(data, dict) and isinstance(data.get("id"), str) else ""
        raise EpisodeErrors(
            [
                EpisodeError(
                    f"duplicate key {dup.key!r} (YAML would keep only the last)",
                    file=str(path),
                    episode=episode,
                    field=field,
                    line=dup.line,
                )
            ]
        ) from None
    except RecursionError:
        raise EpisodeErrors([ctx.error((), "YAML nested too deeply")]) from None
    cut = cut_texts(root, text)
    if cut:
        ctx = read.Ctx(
            file=str(path),
            lines=lines,
            episode=data.get("id", "") if isinstance(data, dict) and isinstance(data.get("id"), str) else "",
        )
        raise EpisodeErrors(
            [ctx.error(p, "unquoted text is cut at '#' (YAML reads the rest as a comment); quote it") for p, _ in cut]
        )
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
            errors.append(
                EpisodeError(f"episode id also used by {seen[ep.id]}", file=str(f), episode=ep.id, field="id")
            )
            continue
        seen[ep.id] = str(f)
        episodes.append(ep)
    return episodes, errors
