"""Field readers: each reads one field of an episode mapping, or refuses it with an EpisodeError.

An error names file, line (from the YAML node marks), episode id and field path. Which fields a
mapping may and must have comes from `format.py`; a check's or monitor's parameters, their kinds
and an enum's values from `vocab.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from memriskbench.common.patterns import valid as valid_pattern
from memriskbench.common.textrules import pattern_problem
from memriskbench.common.words import WEEKDAYS
from memriskbench.episodes.format import ID_RE, Obj
from memriskbench.errors import EpisodeError
from memriskbench.vocab import ONE_OF, Params


@dataclass
class Ctx:
    """Where reading is: the file, its field lines and the episode's id, for every error raised."""

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


# The JSON shape of each parameter kind (vocab.py): errors name it. A kind read for its meaning
# too is first a plain string or list (its meaning is checked in param_values).
_SHAPE = {"record": "str", "enum": "str", "regex": "str", "date": "str", "time": "str", "weekdays": "strlist"}
_SHAPE_CHECKS = {
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "num": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "strlist": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "dict": lambda v: isinstance(v, dict),
    "any": lambda v: True,
    "valuelist": lambda v: (
        isinstance(v, list)
        and bool(v)
        and all(
            isinstance(x, str) or (isinstance(x, dict) and set(x) == {"record"} and isinstance(x["record"], str))
            for x in v
        )
    ),
}


def mapping(ctx: Ctx, value: Any, path: tuple[Any, ...], obj: Obj) -> dict[str, Any]:
    """`value` as the mapping `obj` describes (format.py): no field it lacks, every field it requires."""
    if not isinstance(value, dict):
        raise ctx.error(path, f"expected a mapping, got {type(value).__name__}")
    allowed = set(obj.allowed)
    for key in value:
        if key not in allowed:
            raise ctx.error(path + (str(key),), f"unknown field {key!r}")
    for key in obj.required:
        if key not in value:
            raise ctx.error(path + (key,), "missing required field")
    return value


def string(
    ctx: Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...], default: str | None = None, coerce: bool = False
) -> str:
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


def optstring(ctx: Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...]) -> str | None:
    return string(ctx, obj, key, path) if obj.get(key) is not None else None


def ident(ctx: Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...]) -> str:
    value = string(ctx, obj, key, path)
    if not ID_RE.fullmatch(value):  # fullmatch: "$" alone would let a trailing newline through
        raise ctx.error(path + (key,), f"bad id {value!r}: use letters, digits, '_', '.', '-'")
    return value


def choice(
    ctx: Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...], choices: Iterable[str], default: str | None = None
) -> str:
    value = string(ctx, obj, key, path, default)
    options = tuple(choices)
    if value not in options:
        raise ctx.error(path + (key,), f"{value!r} is not one of {', '.join(options)}")
    return value


def strlist(ctx: Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...]) -> tuple[str, ...]:
    value = obj.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ctx.error(path + (key,), "expected a list of strings")
    return tuple(value)


def phrases(ctx: Ctx, obj: dict[str, Any], key: str, path: tuple[Any, ...]) -> tuple[str, ...]:
    """A list of strings, none of them blank (a record's aliases). One item may be written bare."""
    value = obj.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ctx.error(path + (key,), f"expected a list of strings, got {type(value).__name__}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise ctx.error(path + (key, i), f"expected a string, got {type(item).__name__}")
        if not item.strip():
            raise ctx.error(path + (key, i), "empty string")
    return tuple(value)


def params(ctx: Ctx, obj: dict[str, Any], path: tuple[Any, ...], spec: Params, fixed: Obj) -> dict[str, Any]:
    """A check's or monitor's parameters: every field but `fixed`'s, each of the shape its kind needs."""
    given = {k: v for k, v in obj.items() if k not in fixed.allowed}
    for name, value in given.items():
        if name not in spec:
            raise ctx.error(path + (name,), f"unknown field {name!r}")
        shape = _SHAPE.get(spec[name].kind, spec[name].kind)
        if not _SHAPE_CHECKS[shape](value):
            raise ctx.error(path + (name,), f"expected {shape}, got {type(value).__name__}")
    for p in spec.values():
        if p.required and p.name not in given:
            raise ctx.error(path + (p.name,), "missing required field")
    return given


_HHMM = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
# The GateMem checks' pattern lists (a strlist in vocab.py): each is read by GateMem's rule, a
# regex when `re` compiles it, so such a pattern must also compile within the size bounds.
_GATEMEM_PATTERNS = ("patterns",)


def param_values(ctx: Ctx, params: dict[str, Any], path: tuple[Any, ...], spec: Params) -> None:
    """What parameters of a typed kind mean: an enum's values, a regex (and each GateMem pattern
    read as one) that compiles within the size bounds (`common/patterns.py`), ISO dates, HH:MM
    times, weekday names."""
    for name, value in params.items():
        p, where = spec[name], path + (name,)
        if p.kind == "enum" and value not in p.values:
            raise ctx.error(where, f"{value!r} is not one of {', '.join(p.values)}")
        why = valid_pattern(value) if p.kind == "regex" else None
        if why:
            raise ctx.error(where, f"bad regex: {why}")
        for i, pattern in enumerate(value if name in _GATEMEM_PATTERNS else []):
            why = pattern_problem(pattern)
            if why:
                raise ctx.error(where + (i,), f"bad regex: {why}")
        if p.kind == "date":
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ctx.error(where, f"{value!r} is not a date YYYY-MM-DD") from None
        if p.kind == "time" and not _HHMM.fullmatch(value):
            raise ctx.error(where, f"{value!r} is not a time HH:MM")
        for i, day in enumerate(value if p.kind == "weekdays" else []):
            if day.casefold() not in WEEKDAYS:
                raise ctx.error(where + (i,), f"{day!r} is not a weekday")


def one_of(ctx: Ctx, params: dict[str, Any], path: tuple[Any, ...], ctype: str) -> None:
    names = ONE_OF.get(ctype)
    if names and sum(n in params for n in names) != 1:
        raise ctx.error(path, f"a {ctype} check names exactly one of {', '.join(names)}")
