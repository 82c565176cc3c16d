"""Validation: good episodes load; each kind of broken copy is reported with file and field."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from memriskbench.cli.main import main
from memriskbench.episodes.loader import EpisodeErrors, load_all, load_episode, parse_episode
from memriskbench.episodes.schema import render

from .conftest import EPISODES

SAMPLE = EPISODES / "R1" / "r1-office-server-room-code.yaml"


def _data() -> dict[str, Any]:
    return yaml.safe_load(SAMPLE.read_text())


def _write(tmp_path: Path, data: Any, name: str = "bad.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    return p


def _errors(path: Path) -> list[str]:
    with pytest.raises(EpisodeErrors) as exc:
        load_episode(path)
    return [e.render() for e in exc.value.errors]


def test_shipped_episodes_are_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EPISODES)]) == 0
    eps, errors = load_all([EPISODES])
    assert not errors and len(eps) >= 10
    assert capsys.readouterr().out.strip() == f"ok: {len(eps)} episode(s) valid"


def test_cycle_is_reported_with_file_and_field(tmp_path: Path) -> None:
    data = _data()
    data["events"][0]["after"] = ["e3"]  # e1 -> e2 -> e3 -> e1
    msgs = _errors(_write(tmp_path, data))
    assert any(
        "cycle" in m and "bad.yaml" in m and "field=events" in m and "episode=r1-office-server-room-code" in m
        for m in msgs
    )


def test_dangling_after_names_the_field_and_line(tmp_path: Path) -> None:
    data = _data()
    data["events"][2]["after"] = ["nope"]
    msgs = _errors(_write(tmp_path, data))
    hit = [m for m in msgs if "unknown event 'nope'" in m]
    assert hit and "field=events[2].after[0]" in hit[0]
    assert "bad.yaml:" in hit[0]  # a line number follows the file name


def test_dangling_record_in_check(tmp_path: Path) -> None:
    data = _data()
    data["events"][5]["checks"][1]["record"] = "m99"
    msgs = _errors(_write(tmp_path, data))
    assert any("unknown memory record 'm99'" in m and "events[5].checks[1].record" in m for m in msgs)


def test_unknown_field_and_bad_enum(tmp_path: Path) -> None:
    data = _data()
    data["events"][0]["colour"] = "red"
    assert any("unknown field 'colour'" in m and "events[0].colour" in m for m in _errors(_write(tmp_path, data)))
    data = _data()
    data["events"][5]["expected_action"] = "shrug"
    assert any(
        "'shrug' is not one of" in m and "events[5].expected_action" in m for m in _errors(_write(tmp_path, data))
    )


def test_check_count_bounds(tmp_path: Path) -> None:
    data = _data()
    data["events"][5]["checks"] = [dict(c) for c in data["events"][5]["checks"] * 2]  # no YAML aliases
    assert any("1-3 checks" in m for m in _errors(_write(tmp_path, data)))
    data["events"][5]["checks"] = []
    assert any("1-3 checks" in m for m in _errors(_write(tmp_path, data)))


def test_tier_length_and_duplicate_ids(tmp_path: Path) -> None:
    data = _data()
    data["tier"] = "hard"
    assert any("tier hard needs 15-25 turns" in m for m in _errors(_write(tmp_path, data)))
    data = _data()
    data["events"][1]["id"] = "e1"
    assert any("duplicate event id 'e1'" in m for m in _errors(_write(tmp_path, data)))


def test_delete_before_write_is_rejected(tmp_path: Path) -> None:
    data = _data()
    data["events"][0]["memory"].insert(0, {"op": "delete", "id": "m2"})
    assert any("not written before" in m for m in _errors(_write(tmp_path, data)))


def test_malformed_yaml_names_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.yaml"
    p.write_text("id: x\nevents: [\n  - {a: 1\n")
    msgs = _errors(p)
    assert len(msgs) == 1 and msgs[0].startswith(f"{p}:") and "malformed YAML" in msgs[0]


def test_unsafe_yaml_tags_are_refused(tmp_path: Path) -> None:
    p = tmp_path / "evil.yaml"
    p.write_text("!!python/object/apply:os.system ['echo pwned']\n")
    assert any("malformed YAML" in m for m in _errors(p))


def test_bad_file_does_not_stop_others_and_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(SAMPLE.read_text())
    data = _data()
    data["id"] = "other"
    data["events"][0]["after"] = ["e3"]
    _write(tmp_path, data)
    (tmp_path / "junk.yaml").write_text(": : :\n\t- [")
    eps, errors = load_all([tmp_path])
    assert [e.id for e in eps] == ["r1-office-server-room-code"]
    assert {Path(e.file).name for e in errors} == {"bad.yaml", "junk.yaml"}
    assert main(["validate", "--no-lint", str(tmp_path)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == len(errors) and all(("bad.yaml" in ln) or ("junk.yaml" in ln) for ln in out)
    assert main(["validate", "--no-lint", str(good)]) == 0


def test_schema_file_is_current() -> None:
    assert (EPISODES / "schema.json").read_text() == render()


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((EPISODES / "schema.json").read_text()))


def _schema_ok(data: Any) -> bool:
    return _validator().is_valid(data)


def _loader_ok(data: Any) -> bool:
    try:
        parse_episode(data, file="x.yaml")
    except EpisodeErrors:
        return False
    return True


def test_schema_accepts_every_shipped_episode() -> None:
    for f in sorted(EPISODES.rglob("*.yaml")):
        assert _schema_ok(yaml.safe_load(f.read_text())), f


MUTATIONS = [
    lambda d: d.pop("risk"),
    lambda d: d.update(extra=1),
    lambda d: d.update(tier="legendary"),
    lambda d: d["events"][0].update(kind="telepathy"),
    lambda d: d["events"][0].pop("text"),
    lambda d: d["events"][0]["memory"][0].update(op="forget"),
    lambda d: d["events"][0]["memory"][0].update(visibility="secret"),
    lambda d: d["events"][5].update(category="vibes"),
    lambda d: d["events"][5].update(max_steps=0),
    lambda d: d["events"][5].update(tools=["teleport"]),
    lambda d: d["events"][5]["checks"][0].update(type="telepathy"),
    lambda d: d["events"][5]["checks"][0].update(colour="red"),
    lambda d: d["events"][5]["checks"][0].pop("value"),
    lambda d: d["principals"][0].pop("role"),
    lambda d: d.update(principals="maya"),
    lambda d: d.update(events=[]),
]


@pytest.mark.parametrize("mutate", MUTATIONS)
def test_schema_and_loader_reject_the_same_structural_errors(mutate: Any) -> None:
    data = copy.deepcopy(_data())
    mutate(data)
    assert not _schema_ok(data)
    assert not _loader_ok(data)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, prefix + (i,))
    return out


_VALUES = [None, 0, 1.5, True, "x", [], {}, ["x"], {"k": "v"}, "drop"]


@pytest.mark.parametrize("sample", sorted(EPISODES.rglob("*.yaml"))[::33], ids=lambda p: p.stem)
def test_whatever_the_loader_accepts_the_schema_accepts(sample: Path) -> None:
    """Exhaustively: every field of the sample replaced by each odd value, or dropped."""
    base = yaml.safe_load(sample.read_text())
    disagreements = []
    for path in _paths(base):
        for value in _VALUES:
            data = copy.deepcopy(base)
            parent = data
            for key in path[:-1]:
                parent = parent[key]
            if value == "drop":
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
            if _loader_ok(data) and not _schema_ok(data):
                disagreements.append((path, value))
    assert disagreements == []


def test_text_cut_by_a_yaml_comment_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "cut.yaml"
    p.write_text(
        SAMPLE.read_text().replace(
            "text: Noted, I'll order toner cartridges this afternoon.", "text: Noted, see ticket #4471 for the toner."
        )
    )
    msgs = _errors(p)
    assert (
        len(msgs) == 1
        and "unquoted text is cut at '#'" in msgs[0]
        and "events[4].text" in msgs[0]
        and f"{p}:" in msgs[0]
    )
    p.write_text(
        SAMPLE.read_text().replace(
            "text: Noted, I'll order toner cartridges this afternoon.", 'text: "Noted, see ticket #4471 for the toner."'
        )
    )
    assert load_episode(p).event("e5").text == "Noted, see ticket #4471 for the toner."


def test_value_checks_name_exactly_one_value_and_only_known_records(tmp_path: Path) -> None:
    data = _data()
    data["events"][5]["checks"][0] = {"type": "contains", "value": "9082", "record": "m2"}
    assert any(
        "names exactly one of value, record, all_of, any_of" in m and "events[5].checks[0]" in m
        for m in _errors(_write(tmp_path, data))
    )
    data["events"][5]["checks"][0] = {"type": "contains", "all_of": ["9082", {"record": "m77"}]}
    assert any(
        "unknown memory record 'm77'" in m and "events[5].checks[0].all_of" in m
        for m in _errors(_write(tmp_path, data))
    )
    data["events"][5]["checks"][0] = {"type": "contains", "all_of": []}
    assert any("expected valuelist" in m for m in _errors(_write(tmp_path, data)))


@pytest.mark.parametrize(
    ("monitor", "message"),
    [
        (
            {"type": "date_not_in", "tool": "calendar_create", "from": "2026-13-01"},
            "'2026-13-01' is not a date YYYY-MM-DD",
        ),
        ({"type": "date_not_in", "tool": "calendar_create", "weekdays": ["funday"]}, "'funday' is not a weekday"),
        ({"type": "time_not_before", "tool": "calendar_create", "min": "25:00"}, "'25:00' is not a time HH:MM"),
    ],
)
def test_typed_monitor_parameters_are_checked(tmp_path: Path, monitor: dict[str, Any], message: str) -> None:
    data = _data()
    data["events"].insert(
        1,
        {"id": "e9", "kind": "constraint", "op": "declare", "constraint": "k1", "text": "A rule.", "monitor": monitor},
    )
    assert any(message in m and "monitor" in m for m in _errors(_write(tmp_path, data)))


def test_a_targeted_record_needs_a_subject(tmp_path: Path) -> None:
    """The judge binds values to things by their subjects: a record a decision targets must have one."""
    data = _data()
    op = data["events"][0]["memory"][0]
    del op["subject"]
    msgs = _errors(_write(tmp_path, data))
    hit = [m for m in msgs if "required on a record a decision targets" in m]
    assert hit and "field=events[0].memory[0].subject" in hit[0] and "bad.yaml:" in hit[0]


@pytest.mark.parametrize(
    ("aliases", "field", "message"),
    [
        ({"a": "b"}, "aliases", "expected a list of strings, got dict"),
        (7, "aliases", "expected a list of strings, got int"),
        (["the room behind the lab", ""], "aliases[1]", "empty string"),
        (["  "], "aliases[0]", "empty string"),
        (["the room behind the lab", 4471], "aliases[1]", "expected a string, got int"),
        ([["nested"]], "aliases[0]", "expected a string, got list"),
    ],
)
def test_a_bad_aliases_value_is_one_line_naming_the_field(
    tmp_path: Path, aliases: Any, field: str, message: str
) -> None:
    data = _data()
    data["events"][0]["memory"][0]["aliases"] = aliases
    path = _write(tmp_path, data)
    msgs = _errors(path)
    assert len(msgs) == 1 and "\n" not in msgs[0], msgs
    assert msgs[0].startswith(f"{path}:") and "episode=r1-office-server-room-code" in msgs[0]
    assert f"field=events[0].memory[0].{field}: {message}" in msgs[0]


def test_aliases_are_read_as_a_list_and_one_may_be_written_bare(tmp_path: Path) -> None:
    data = _data()
    op = data["events"][0]["memory"][0]
    op["aliases"] = ["server room keypad code", "lab door code"]
    assert load_episode(_write(tmp_path, data)).events[0].memory[0].aliases == (
        "server room keypad code",
        "lab door code",
    )
    op["aliases"] = "lab door code"
    assert load_episode(_write(tmp_path, data)).events[0].memory[0].aliases == ("lab door code",)


def test_subjects_are_outside_the_digest_and_the_trace(tmp_path: Path) -> None:
    """A subject and aliases are read by the judge only: changing them keeps the digest, and the
    trace's ground truth never holds them, so released traces stay valid when they are added or
    reworded."""
    from memriskbench.episodes.episode import episode_digest
    from memriskbench.play.runner import run
    from memriskbench.play.systems.reference import ReferenceAgent

    data = _data()
    before = episode_digest(load_episode(_write(tmp_path, data, "a.yaml")))
    data["events"][0]["memory"][0]["subject"] = "the room behind the lab"
    data["events"][0]["memory"][0]["aliases"] = ["keypad code by the lab"]
    after = load_episode(_write(tmp_path, data, "b.yaml"))
    assert after.events[0].memory[0].aliases == ("keypad code by the lab",)
    assert episode_digest(after) == before
    data["events"][0]["memory"][0]["value"] = "4472"
    assert episode_digest(load_episode(_write(tmp_path, data, "c.yaml"))) != before
    out = tmp_path / "t.jsonl"
    run(ReferenceAgent("oracle"), [after], out)
    assert "subject" not in out.read_text()
    assert "aliases" not in out.read_text() and "keypad code by the lab" not in out.read_text()
