"""One description of the format and of each closed set: the loader, the JSON Schema, the lint and
the risk table read the same tables, so they cannot drift apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from memriskbench import risks
from memriskbench.cli.main import main
from memriskbench.episodes import format as fmt
from memriskbench.episodes.lint import lint_episode
from memriskbench.episodes.loader import load_episode
from memriskbench.episodes.schema import build_schema
from memriskbench.vocab import CHECK_PARAMS, RECORD_CHECKS

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "episodes" / "R4" / "r4-coding-deploy-key-passphrase.yaml"


def test_the_schema_and_the_loader_read_the_same_episode_fields() -> None:
    schema = build_schema()
    assert set(schema["properties"]) == set(fmt.EPISODE.allowed)
    assert set(schema["required"]) == set(fmt.EPISODE.required)
    for variant in schema["properties"]["events"]["items"]["oneOf"]:
        kind = variant["properties"]["kind"]["const"]
        obj = fmt.EVENTS[kind]
        assert set(variant["properties"]) == set(obj.allowed), kind
        assert set(variant.get("required", [])) == set(obj.required), kind


def test_an_enum_parameter_outside_its_values_is_refused_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "R4" / SAMPLE.name
    bad.parent.mkdir()
    bad.write_text(SAMPLE.read_text().replace("status: deleted", "status: vanished", 1))
    assert main(["validate", str(tmp_path)]) == 1
    err = capsys.readouterr()
    text = err.out + err.err
    assert "status" in text and "vanished" in text and SAMPLE.stem in text


def test_record_checks_are_the_vocabularys_checks_that_name_a_record() -> None:
    named = {t for t, ps in CHECK_PARAMS.items() if "record" in ps and ps["record"].required}
    assert set(RECORD_CHECKS) == named and "memory_status" in named
    statuses = CHECK_PARAMS["memory_status"]["status"]
    assert statuses.kind == "enum" and "revoked" in statuses.values


def test_the_risk_table_drives_the_lint_and_the_counts() -> None:
    assert tuple(r.id for r in risks.REGISTRY) == risks.RISKS
    assert set(risks.SCORED_RISKS) | set(risks.TRACK_RISKS) == set(risks.RISKS)
    assert risks.span(risks.SCORED_RISKS) == "R1–R5" and risks.span(("R3", "R5")) == "R3, R5"
    ep = load_episode(SAMPLE)
    assert not lint_episode(ep)
    assert risks.EPISODE_ID.fullmatch(ep.id) and not risks.EPISODE_ID.fullmatch("r9-coding-x")
    # A tag outside the risk's taxonomy is refused, with the taxonomy read from the table.
    import dataclasses

    errors = lint_episode(dataclasses.replace(ep, tags=("superseded_once",)))
    assert any("tags" in str(e) and "post_delete_direct" in str(e) for e in errors)
