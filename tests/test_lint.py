"""The suite lint: it passes on the shipped episodes and catches each kind of authoring mistake."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from memriskbench.cli.main import main
from memriskbench.episodes.aliases import is_description, needs_aliases, records_needing_aliases
from memriskbench.episodes.counts import counts_markdown, write_counts
from memriskbench.episodes.episode import Episode, MemoryOp
from memriskbench.episodes.lint import lint, lint_episode, near_duplicates
from memriskbench.episodes.loader import parse_episode

from .conftest import EPISODES

SAMPLE = EPISODES / "R4" / "r4-household-spare-key.yaml"


def _episode(data: dict[str, Any], name: str | None = None) -> Episode:
    return parse_episode(data, file=str(EPISODES / data["risk"] / f"{name or data['id']}.yaml"))


def _messages(data: dict[str, Any]) -> list[str]:
    return [e.message for e in lint_episode(_episode(data))]


def test_shipped_suite_passes_the_lint(episodes: list[Episode]) -> None:
    assert [e.render() for e in lint(episodes)] == []


def test_a_leak_target_missing_from_the_history_is_caught() -> None:
    data = yaml.safe_load(SAMPLE.read_text())
    assert _messages(data) == []
    d1 = next(e for e in data["events"] if e["id"] == "d1")
    d1["checks"][0] = {"type": "not_contains", "value": "doormat"}  # never said
    assert any("'doormat' appears nowhere before this decision" in m for m in _messages(data))


def test_a_record_written_only_after_the_decision_is_caught() -> None:
    data = yaml.safe_load(SAMPLE.read_text())
    events = data["events"]
    d1 = next(e for e in events if e["id"] == "d1")
    late = {
        "id": "e9",
        "kind": "message",
        "speaker": "nina",
        "text": "The garage code is 5521.",
        "memory": [{"op": "write", "id": "m9", "key": "garage_code", "value": "5521", "subject": "garage code"}],
    }
    events.append(late)
    d1["checks"][0] = {"type": "memory_not_used", "record": "m9"}
    data["tier"] = "easy"
    assert any("record 'm9' is not written before this decision" in m for m in _messages(data))


def test_a_value_not_in_its_message_is_caught() -> None:
    data = yaml.safe_load(SAMPLE.read_text())
    data["events"][0]["memory"][0]["value"] = "under the green flowerpot"
    assert any("does not appear in the message text" in m for m in _messages(data))


def test_deleting_from_another_branch_is_caught() -> None:
    data = yaml.safe_load(SAMPLE.read_text())
    # e4 (the deletion) becomes a root of its own: it no longer follows e1 (the write)
    assert data["events"][3]["id"] == "e4"
    data["events"][3]["after"] = []
    msgs = _messages(data)
    assert any("delete of 'm1', which no earlier event in the graph wrote" in m for m in msgs), msgs


def test_id_scheme_and_file_location() -> None:
    data = yaml.safe_load(SAMPLE.read_text())
    bad = copy.deepcopy(data)
    bad["id"] = "household-spare-key"
    assert any("id must look like r4-household-<slug>" in m for m in _messages(bad))
    assert any(
        "file must be episodes/R4/r4-household-spare-key.yaml" in e.message
        for e in lint_episode(_episode(data, "other-name"))
    )
    bad = copy.deepcopy(data)
    bad["events"][5]["id"] = "q1"
    bad["events"][5]["after"] = ["e5"]
    assert any("decision ids look like d1" in m for m in _messages(bad))


def test_near_duplicates_are_caught_even_with_new_names(episodes: list[Episode]) -> None:
    assert near_duplicates(episodes) == []
    data = yaml.safe_load(SAMPLE.read_text())
    twin = copy.deepcopy(data)
    twin["id"] = "r4-household-spare-key-twin"
    for p in twin["principals"]:
        p["display_name"] = p["display_name"] + "ette"
    found = near_duplicates([_episode(data), _episode(twin)])
    assert [(a, b) for a, b, _ in found] == [("r4-household-spare-key", "r4-household-spare-key-twin")]


def test_readme_counts_are_generated_and_current(episodes: list[Episode], tmp_path: Path) -> None:
    readme = (EPISODES / "README.md").read_text()
    assert counts_markdown(episodes) in readme
    copy_ = tmp_path / "README.md"
    copy_.write_text(readme)
    assert write_counts(copy_, episodes) is False  # already current


def test_tags_come_from_the_taxonomy() -> None:
    data = yaml.safe_load(SAMPLE.read_text())
    data["tags"] = ["post_delete_direct", "vibes"]
    assert any("tags must come from the R4 taxonomy" in m and "vibes" in m for m in _messages(data))
    data["tags"] = []
    assert any("tags must come from the R4 taxonomy" in m for m in _messages(data))


def test_a_contains_on_a_composite_phrase_is_rejected_and_its_values_are_not() -> None:
    data = yaml.safe_load((EPISODES / "R2" / "r2-customer-support-seat-change-latest.yaml").read_text())
    assert _messages(data) == []
    d1 = next(e for e in data["events"] if e["id"] == "d1")
    d1["checks"][0] = {"type": "contains", "value": "22 seats now"}  # a phrasing, not a value
    assert any("'22 seats now' is a phrase, not a value" in m for m in _messages(data))
    for fixed in (
        {"type": "contains", "record": "m4"},
        {"type": "contains", "all_of": ["22", "seats"]},
        {"type": "contains", "value": "22"},
        {"type": "contains", "value": "22 seats"},
    ):
        d1["checks"][0] = fixed
        assert _messages(data) == [], fixed
    d1["checks"][0] = {"type": "contains", "value": "Helix Pro to 22 seats", "phrase": True}  # a phrase on purpose
    assert _messages(data) == []


def test_a_grant_the_prompt_does_not_show_is_rejected() -> None:
    path = EPISODES / "R1" / "r1-medical-home-oxygen-weaning.yaml"
    data = yaml.safe_load(path.read_text())
    assert _messages(data) == []
    grant = next(e for e in data["events"] if e.get("policy"))
    grant["text"] = (
        "Karl can hear about my oxygen settings, he'll be the one adjusting the machine."  # less than the policy gives
    )
    assert any("hidden grant: d3 expects karl to get bettina_review" in m for m in _messages(data))
    grant["text"] = "Sure, that's fine by me."  # names nobody
    assert any("does not name karl" in m for m in _messages(data))


def test_generic_values_are_listed_and_left_out_of_ambient_checks(episodes: list[Episode]) -> None:
    from memriskbench.common.values import is_generic
    from memriskbench.episodes.lint import generic_values

    notes = generic_values(episodes)
    assert notes and all("too generic" in n for n in notes)
    assert is_generic("Friday") and is_generic("42") and is_generic("Tuesday at 3pm")
    assert not is_generic("severe wasp sting allergy") and not is_generic("75 mcg") and not is_generic("Sunday 16:05")


def _alias_errors(data: dict[str, Any]) -> list[str]:
    return [e.render() for e in lint_episode(_episode(data)) if e.field.endswith(".aliases")]


def test_a_protected_description_needs_aliases() -> None:
    """m1 ("under the blue flowerpot") is scoped to the household and later deleted: without
    aliases it is flagged, naming the field; with them it is not."""
    data = yaml.safe_load(SAMPLE.read_text())
    m1 = data["events"][0]["memory"][0]
    assert m1["aliases"] and _alias_errors(data) == []
    del m1["aliases"]
    errs = _alias_errors(data)
    assert len(errs) == 1 and "field=events[0].memory[0].aliases" in errs[0] and "'m1' is protected" in errs[0]
    assert "\n" not in errs[0]
    m1["aliases"] = ["beneath the blue plant pot"]
    assert _alias_errors(data) == []


def test_a_description_is_protected_by_scope_visibility_or_a_later_deletion() -> None:
    data = yaml.safe_load(SAMPLE.read_text())
    e3 = data["events"][2]
    e3["text"] = "I'll be travelling for work next week, the trip is a sales conference."
    op = {"op": "write", "id": "m3", "key": "marco_trip", "value": "a sales conference", "subject": "trip"}
    e3["memory"] = [op]
    assert _alias_errors(data) == []  # public: nothing to protect
    for protect in ({"visibility": "private"}, {"scope": "household"}):
        e3["memory"] = [{**op, **protect}]
        assert any("events[2].memory[0].aliases" in e for e in _alias_errors(data)), protect
    e3["memory"] = [op]
    data["events"][3]["memory"].append({"op": "delete", "id": "m3"})
    assert any("events[2].memory[0].aliases" in e for e in _alias_errors(data))


@pytest.mark.parametrize(
    "value",
    [
        "4471",  # a code
        "May 12 at 9:30",  # a date and time
        "Oakfield Clinic",  # a name
        "TrailCraft Lean salmon",  # a name: CamelCase, and two of its three words capitalized
        "payments/sandbox",  # a path
        "ci/smoke.yaml",  # a file
        "sec/refresh-guard",  # a branch
        "emtricitabine/tenofovir",
        "#inc-payments",  # a channel
        "reception desk B",  # a label
        "B41",
    ],
)
def test_a_private_name_code_or_date_needs_no_aliases(value: str) -> None:
    assert not is_description(value)
    op = MemoryOp(op="write", id="m1", key="thing", value=value, visibility="private")
    assert not needs_aliases(op, set())


@pytest.mark.parametrize(
    "value", ["hallway closet", "positive", "dyslexia", "toe-touch weight bearing", "referred to CAMHS for self-harm"]
)
def test_descriptions_are_told_from_names(value: str) -> None:
    assert is_description(value)
    op = MemoryOp(op="write", id="m1", key="thing", value=value, scope="household")
    assert needs_aliases(op, set())
    assert not needs_aliases(MemoryOp(op="write", id="m1", key="thing", value=value), set())  # public
    assert needs_aliases(MemoryOp(op="write", id="m1", key="thing", value=value), {"m1"})  # deleted later
    assert not needs_aliases(
        MemoryOp(op="write", id="m1", key="thing", value=value, scope="x", aliases=("y z",)), set()
    )


def test_a_password_in_words_is_a_code() -> None:
    op = MemoryOp(op="write", id="m1", key="kai_pickup_password", value="blue heron", scope="kids")
    assert is_description(op.value) and not needs_aliases(op, set())


def test_every_shipped_record_that_needs_aliases_has_them(
    episodes: list[Episode], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert records_needing_aliases(episodes) == []
    assert main(["validate", "--aliases", str(SAMPLE)]) == 0
    assert "records that need aliases: 0" in capsys.readouterr().out
    data = yaml.safe_load(SAMPLE.read_text())
    del data["events"][0]["memory"][0]["aliases"]
    bare = tmp_path / "R4" / SAMPLE.name
    bare.parent.mkdir()
    bare.write_text(yaml.safe_dump(data, sort_keys=False))
    assert main(["validate", "--aliases", str(bare)]) == 1
    out = capsys.readouterr().out
    assert "records that need aliases: 1\n  r4-household-spare-key m1: 'under the blue flowerpot'" in out
