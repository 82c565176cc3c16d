"""Read episode YAML safely, keeping the line of every field.

One parse gives both the data (the safe constructor only, never one that builds arbitrary objects)
and a map from each field path to its line, for error messages. Refused here: YAML anchors and
aliases, repeated keys, unquoted text that a `#` silently cut, and values JSON cannot hold.
"""

from __future__ import annotations

import math
from typing import Any

import yaml


class AliasFound(Exception):
    """A node reached twice: an anchor's alias, which could nest without end or blow up exponentially."""


class DuplicateKey(Exception):
    """YAML keeps the last of two equal keys without a word; an episode file may not repeat one."""

    def __init__(self, path: tuple[Any, ...], key: str, line: int) -> None:
        self.path, self.key, self.line = path, key, line


# libyaml's parser when PyYAML has it (about 8x faster); either way only the safe constructor runs.
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_parse(text: str) -> tuple[Any, Any]:
    """What `yaml.safe_load` does, from one parse: the safe constructor over the node tree, which
    is also returned for line numbers. Never a loader that can build arbitrary objects."""
    loader = _SAFE_LOADER(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return data, node


def line_map(text: str, root: Any = None) -> dict[tuple[Any, ...], int]:
    """Map each field path to its 1-based line, from the composed node tree.

    Raises AliasFound if a node is reached twice: episodes do not use YAML anchors and aliases,
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
            raise AliasFound
        seen.add(id(node))
        lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            keys: set[Any] = set()
            for k, v in node.value:
                key = k.value
                if key in keys:
                    raise DuplicateKey(path + (key,), str(key), k.start_mark.line + 1)
                keys.add(key)
                lines[path + (key,)] = k.start_mark.line + 1
                walk(v, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                walk(v, path + (i,))

    if root is not None:
        walk(root, ())
    return lines


def cut_texts(root: Any, text: str) -> list[tuple[tuple[Any, ...], int]]:
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


def not_json(value: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], str] | None:
    """The first value that JSON cannot hold (YAML's .nan, .inf, unquoted dates, !!binary, sets,
    non-string keys), with its path: a trace must be able to record every part of an episode."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, f"{value} is not a JSON number")
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = not_json(v, path + (i,))
            if found:
                return found
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return path + (str(k),), f"key {k!r} is not a string (quote it)"
            found = not_json(v, path + (k,))
            if found:
                return found
        return None
    return path, f"a {type(value).__name__} is not a JSON value (quote it)"
