"""Fuzzing the loader: whatever the input, the outcome is an Episode or located EpisodeErrors, never a crash."""

from __future__ import annotations

import copy
import functools
import shutil
import tempfile
import traceback
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memriskbench.episodes.episode import Episode
from memriskbench.episodes.loader import EpisodeErrors, load_all, load_episode, parse_episode
from memriskbench.errors import EpisodeError

REPO = Path(__file__).resolve().parent.parent
EPISODE_DIR = REPO / "episodes"
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def shipped() -> tuple[tuple[Path, str], ...]:
    files = sorted(EPISODE_DIR.rglob("*.yaml"))
    assert len(files) >= 2
    return tuple((f, f.read_text(encoding="utf-8")) for f in files)


@functools.cache
def _parsed() -> tuple[dict[str, Any], ...]:
    return tuple(yaml.safe_load(text) for _, text in shipped())


def fresh_docs() -> list[dict[str, Any]]:
    return [copy.deepcopy(d) for d in _parsed()]


def check_outcome(call: Any, file: str) -> Episode | EpisodeErrors:
    """Run `call`; allow only an Episode or EpisodeErrors whose every error names `file` and says something."""
    recursion = ""
    try:
        ep = call()
    except RecursionError as exc:  # pytest would render ~1000 frames; keep the report short
        recursion = "".join(traceback.format_tb(exc.__traceback__)[-2:])
    except EpisodeErrors as exc:
        assert exc.errors, "EpisodeErrors with no errors"
        for e in exc.errors:
            assert isinstance(e, EpisodeError)
            assert file in e.render(), e.render()
            assert e.message.strip(), e.render()
        assert str(exc)  # the summary renders too
        return exc
    if recursion:
        pytest.fail(f"RecursionError escaped the loader:\n{recursion}", pytrace=False)
    assert isinstance(ep, Episode)
    return ep


# --------------------------------------------------------------------------- structural mutations of parsed YAML

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


JSON_BY_KIND = {
    "null": st.none(),
    "bool": st.booleans(),
    "num": st.one_of(st.integers(-(2**40), 2**40), st.floats(allow_nan=False, allow_infinity=False)),
    "str": st.text(max_size=12),
    "list": st.lists(JSON, max_size=3),
    "dict": st.dictionaries(st.text(max_size=8), JSON, max_size=3),
}


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "num"
    return type(v).__name__  # str, list, dict


def _nodes(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    out = [(path, node)]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_nodes(v, path + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_nodes(v, path + (i,)))
    return out


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _events(doc: Any) -> list[dict[str, Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
        return []
    return [e for e in doc["events"] if isinstance(e, dict) and isinstance(e.get("id"), str)]


# Field names the loader knows, whether or not a shipped episode uses them (absent optional fields matter too).
KNOWN_FIELDS = (
    "id", "risk", "tier", "domain", "title", "tags", "principals", "relationships", "policy", "events",
    "role", "display_name", "from", "to", "type", "scope", "principals", "roles",
    "kind", "after", "when", "decision", "action", "not_action",
    "speaker", "timestamp", "text", "memory", "op", "key", "value", "owner", "visibility", "supersedes", "source",
    "principal", "tool", "result", "constraint", "monitor", "requester", "query", "tools", "category",
    "expected_action", "target", "oracle", "naive", "checks", "max_steps", "content", "args",
)  # fmt: skip

MUTATIONS = ("delete", "retype", "set_field", "unknown_key", "duplicate_id", "self_loop")


def _pick_node(data: st.DataObject, doc: Any, label: str, *, root: bool) -> tuple[tuple[Any, ...], Any]:
    """Pick a node by its field name first, so that rare fields are hit as often as the many texts."""
    by_name: dict[str, list[tuple[tuple[Any, ...], Any]]] = {}
    for path, node in _nodes(doc):
        if path or root:
            name = "<root>" if not path else path[-1] if isinstance(path[-1], str) else "[i]"
            by_name.setdefault(name, []).append((path, node))
    name = data.draw(st.sampled_from(sorted(by_name)), label=label + " field")
    return data.draw(st.sampled_from(by_name[name]), label=label)


def mutate(data: st.DataObject, doc: Any, what: str) -> Any:
    """Apply one mutation in place where possible; return the (possibly new) root."""
    if what == "delete":
        if isinstance(doc, (dict, list)) and doc:
            path, _ = _pick_node(data, doc, "delete", root=False)
            del _get(doc, path[:-1])[path[-1]]
    elif what == "retype":
        path, old = _pick_node(data, doc, "retype", root=True)
        kind = data.draw(st.sampled_from([k for k in JSON_BY_KIND if k != _kind(old)]), label="new kind")
        value = data.draw(JSON_BY_KIND[kind], label="new value")
        if not path:
            return value
        _get(doc, path[:-1])[path[-1]] = value
    elif what == "set_field":  # a known field, present or not, in any mapping, to any value
        dicts = [p for p, n in _nodes(doc) if isinstance(n, dict)]
        if dicts:
            path = data.draw(st.sampled_from(dicts), label="set in")
            _get(doc, path)[data.draw(st.sampled_from(KNOWN_FIELDS), label="field")] = data.draw(JSON, label="value")
    elif what == "unknown_key":
        dicts = [p for p, n in _nodes(doc) if isinstance(n, dict)]
        if dicts:
            path = data.draw(st.sampled_from(dicts), label="insert into")
            target = _get(doc, path)
            key = "zz_" + data.draw(st.text(max_size=6), label="key")
            if key not in target:
                target[key] = data.draw(JSON, label="value")
    elif what == "duplicate_id":
        evs = _events(doc)
        if len(evs) >= 2:
            i, j = data.draw(
                st.lists(st.integers(0, len(evs) - 1), min_size=2, max_size=2, unique=True), label="dup i,j"
            )
            evs[j]["id"] = evs[i]["id"]
    elif what == "self_loop":
        evs = _events(doc)
        if evs:
            ev = evs[data.draw(st.integers(0, len(evs) - 1), label="self loop at")]
            after = ev.get("after")
            ev["after"] = (after if isinstance(after, list) else [] if after is None else [after]) + [ev["id"]]
    return doc


@FUZZ
@given(data=st.data())
def test_structural_mutations_give_episode_or_located_errors(data: st.DataObject) -> None:
    doc: Any = data.draw(st.sampled_from(fresh_docs()), label="episode")
    for what in data.draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3), label="mutations"):
        doc = mutate(data, doc, what)
    check_outcome(lambda: parse_episode(doc, file="x.yaml"), "x.yaml")


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_duplicate_event_id_is_always_reported(data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(fresh_docs()), label="episode")
    mutate(data, doc, "duplicate_id")
    out = check_outcome(lambda: parse_episode(doc, file="x.yaml"), "x.yaml")
    assert isinstance(out, EpisodeErrors)
    assert any("duplicate event id" in e.message for e in out.errors), str(out)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_self_loop_is_always_reported_as_a_cycle(data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(fresh_docs()), label="episode")
    mutate(data, doc, "self_loop")
    out = check_outcome(lambda: parse_episode(doc, file="x.yaml"), "x.yaml")
    assert isinstance(out, EpisodeErrors)
    assert any("cycle" in e.message and e.field == "events" for e in out.errors), str(out)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_unknown_key_in_episode_or_event_is_reported(data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(fresh_docs()), label="episode")
    where = data.draw(st.sampled_from([()] + [("events", i) for i in range(len(doc["events"]))]), label="where")
    key = "zz_" + data.draw(st.text(max_size=6), label="key")
    _get(doc, where)[key] = data.draw(JSON, label="value")
    out = check_outcome(lambda: parse_episode(doc, file="x.yaml"), "x.yaml")
    assert isinstance(out, EpisodeErrors)
    assert any(e.message == f"unknown field {key!r}" for e in out.errors), str(out)


@pytest.mark.parametrize("key", ["id", "risk", "tier", "domain", "title", "principals", "events"])
def test_missing_required_top_level_field(key: str) -> None:
    for doc in fresh_docs():
        del doc[key]
        out = check_outcome(lambda d=doc: parse_episode(d, file="x.yaml"), "x.yaml")
        assert isinstance(out, EpisodeErrors)
        assert [(e.field, e.message) for e in out.errors] == [(key, "missing required field")]


def test_unmutated_shipped_docs_parse() -> None:
    for doc in fresh_docs():
        assert isinstance(parse_episode(doc, file="x.yaml"), Episode)


# --------------------------------------------------------------------------- exhaustive single mutations
# Random combinations mostly stop at the first structural error; a type bug deep in one field needs that field
# changed alone. So also sweep every field shape once, with each mutation on its own.

SWEEP_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    7,
    -1,
    11,
    2.5,
    "",
    "zz",
    "{zz}",
    [],
    ["zz"],
    [1],
    {},
    {"zz": "zz"},
)


def _shape(doc: Any, path: tuple[Any, ...]) -> tuple[Any, ...]:
    """A field's place with list indices erased, plus the event kind and memory op it sits in."""
    out: list[Any] = []
    node = doc
    for p in path:
        node = node[p]
        out.append("[]" if isinstance(p, int) else p)
        if isinstance(node, dict) and isinstance(p, int):
            out.append(str(node.get("kind", node.get("op", node.get("type", "")))))
    return tuple(out)


@functools.cache
def _shapes() -> tuple[tuple[int, tuple[Any, ...]], ...]:
    """One (doc index, path) per distinct shape across the shipped episodes, root included."""
    seen: dict[tuple[Any, ...], tuple[int, tuple[Any, ...]]] = {}
    for i, doc in enumerate(_parsed()):
        for path, _ in _nodes(doc):
            seen.setdefault(_shape(doc, path), (i, path))
    return tuple(seen.values())


def _sweep(apply: Any) -> int:
    """Apply `apply(doc, path)` on a fresh copy for each shape; it returns False where it does not apply."""
    n = 0
    for i, path in _shapes():
        doc = copy.deepcopy(_parsed()[i])
        new = apply(doc, path)
        if new is None:
            continue
        check_outcome(lambda d=new: parse_episode(d, file="x.yaml"), "x.yaml")
        n += 1
    return n


def test_sweep_delete_each_field_alone() -> None:
    def delete(doc: Any, path: tuple[Any, ...]) -> Any:
        if not path:
            return None
        del _get(doc, path[:-1])[path[-1]]
        return doc

    assert _sweep(delete) > 50


@pytest.mark.parametrize("value", SWEEP_VALUES, ids=repr)
def test_sweep_set_each_field_alone(value: Any) -> None:
    def retype(doc: Any, path: tuple[Any, ...]) -> Any:
        old = _get(doc, path)
        if type(old) is type(value) and old == value:
            return None
        if not path:
            return copy.deepcopy(value)
        _get(doc, path[:-1])[path[-1]] = copy.deepcopy(value)
        return doc

    assert _sweep(retype) > 50


@pytest.mark.parametrize("value", (None, 7, "zz", ["zz"], {"zz": "zz"}), ids=repr)
def test_sweep_add_each_known_field_alone(value: Any) -> None:
    n = 0
    for i, path in _shapes():
        if not isinstance(_get(_parsed()[i], path), dict):
            continue
        for field in KNOWN_FIELDS:
            doc = copy.deepcopy(_parsed()[i])
            target = _get(doc, path)
            if field in target:
                continue
            target[field] = copy.deepcopy(value)
            check_outcome(lambda d=doc: parse_episode(d, file="x.yaml"), "x.yaml")
            n += 1
    assert n > 100


# --------------------------------------------------------------------------- raw text and bytes

YAMLISH = st.sampled_from(
    list(":-[]{}&*!|>'\"#,?%@` \n\t\\") + ["  ", "\n  ", "- ", ": ", "&a ", "*a", "!!str ", "~", "null", "1e3"]
)


@FUZZ
@given(text=st.text(max_size=400))
def test_arbitrary_text_file(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzz.yaml"
        path.write_text(text, encoding="utf-8")
        check_outcome(lambda: load_episode(path), str(path))


@FUZZ
@given(blob=st.binary(max_size=400))
def test_arbitrary_bytes_file(blob: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzz.yaml"
        path.write_bytes(blob)
        check_outcome(lambda: load_episode(path), str(path))


def _edit_text(data: st.DataObject, text: str) -> str:
    """A few random character-level edits (insert, delete, replace) of a real episode's YAML."""
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        pos = data.draw(st.integers(0, len(text)), label="pos")
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]), label="op")
        piece = data.draw(st.one_of(YAMLISH, st.text(min_size=1, max_size=3)), label="piece")
        if op == "insert":
            text = text[:pos] + piece + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + len(piece) :]
        else:
            text = text[:pos] + piece + text[pos + len(piece) :]
    return text


@FUZZ
@given(data=st.data())
def test_edited_episode_text(data: st.DataObject) -> None:
    _, text = data.draw(st.sampled_from(shipped()), label="episode")
    edited = _edit_text(data, text)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzz.yaml"
        path.write_text(edited, encoding="utf-8")
        check_outcome(lambda: load_episode(path), str(path))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_load_all_keeps_the_good_episode_beside_garbage(data: st.DataObject) -> None:
    good_file, text = data.draw(st.sampled_from(shipped()), label="good")
    garbage = data.draw(
        st.one_of(
            st.binary(max_size=200),
            st.text(max_size=200).map(lambda t: t.encode("utf-8")),
            st.just(text).map(lambda t: _edit_text(data, t).encode("utf-8")),
        ),
        label="garbage",
    )
    good_id = yaml.safe_load(text)["id"]
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "sub").mkdir()
        shutil.copy(good_file, root / "a_good.yaml")  # sorts first: wins a duplicate id
        (root / "sub" / "z_garbage.yaml").write_bytes(garbage)
        eps, errors = load_all([root])
        assert good_id in [e.id for e in eps]
        # garbage rejected, or a valid duplicate of the good id rejected, or garbage that is a valid new episode
        assert (len(eps), bool(errors)) in {(1, True), (2, False)}
        for e in errors:
            assert e.file.endswith("z_garbage.yaml") and e.message.strip(), e.render()


# --------------------------------------------------------------------------- inputs that break PyYAML or the line map


HOSTILE = {
    "deep_flow_list": "[" * 1000 + "]" * 1000,
    "deep_block_list": "".join("  " * i + "-\n" for i in range(600)),
    "recursive_alias_list": "a: &x [*x]\n",
    "recursive_alias_map": "a: &x {b: *x}\n",
    "recursive_alias_events": "id: e\nrisk: R1\ntier: easy\ndomain: d\ntitle: t\nprincipals: [{id: p, role: r}]\nevents: &x [*x]\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_yaml_is_an_episode_error(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(HOSTILE[name], encoding="utf-8")
    check_outcome(lambda: load_episode(path), str(path))
    good = shipped()[0][0]
    shutil.copy(good, tmp_path / "good.yaml")
    eps, errors = load_all([tmp_path])
    assert [e.id for e in eps] == [yaml.safe_load(good.read_text())["id"]]
    assert errors and all(e.file == str(path) for e in errors)
