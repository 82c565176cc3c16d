"""The suite run as shards (`run --shard i/n`) is one system: `merge` writes the trace one run
would have written, and `score` / `report` on the shard traces count them as one system."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memriskbench.cli.main import main
from memriskbench.traces.compare import compare


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("shards")
    whole = root / "whole.jsonl"
    assert main(["run", "--agent", "stale", "--out", str(whole), "--quiet"]) == 0
    parts = []
    for i in range(3):
        part = root / "parts" / f"stale-{i}.jsonl"
        part.parent.mkdir(exist_ok=True)
        assert main(["run", "--agent", "stale", "--shard", f"{i}/3", "--out", str(part), "--quiet"]) == 0
        parts.append(part)
    return whole, parts


def _scores(capsys: pytest.CaptureFixture[str], *traces: Path) -> list[dict]:
    capsys.readouterr()
    assert main(["score", *map(str, traces), "--json"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    for s in systems:
        s.pop("trace")
    return systems


def test_three_shards_merged_give_the_trace_and_the_scores_of_one_run(
    shards: tuple[Path, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, parts = shards
    merged = tmp_path / "merged.jsonl"
    assert main(["merge", *map(str, parts), "--out", str(merged)]) == 0
    assert compare(whole, merged).same
    assert _scores(capsys, merged) == _scores(capsys, whole)


def test_score_and_report_on_the_shard_folder_show_one_system(
    shards: tuple[Path, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, parts = shards
    assert _scores(capsys, parts[0].parent) == _scores(capsys, whole)
    assert main(["report", str(parts[0].parent), "--out", str(tmp_path / "rep")]) == 0
    results = json.loads((tmp_path / "rep" / "results.json").read_text())
    assert [s["name"] for s in results["systems"]] == ["stale"] and results["pass_k"] == {}


def test_merge_refuses_overlapping_or_foreign_shards(
    shards: tuple[Path, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, parts = shards
    capsys.readouterr()
    assert main(["merge", str(parts[0]), str(whole), "--out", str(tmp_path / "m.jsonl")]) == 2
    assert "in two shards" in capsys.readouterr().err
    other = tmp_path / "oracle-0.jsonl"
    assert main(["run", "--agent", "oracle", "--shard", "1/3", "--out", str(other), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["merge", str(parts[0]), str(other), "--out", str(tmp_path / "m2.jsonl")]) == 2
    assert "not a shard of the same run" in capsys.readouterr().err
    assert not (tmp_path / "m.jsonl").exists() and not (tmp_path / "m2.jsonl").exists()
