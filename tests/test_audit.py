"""Audit of released traces, and scoring what is sound in damaged ones."""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memriskbench.cli.main import main
from memriskbench.common.canonical import dumps
from memriskbench.episodes.loader import load_all
from memriskbench.play.runner import run
from memriskbench.play.systems.reference import ReferenceAgent
from memriskbench.results.audit import audit_trace
from memriskbench.traces.trace import GENESIS, chain_of

from .conftest import EPISODES

SOME = ["r1-office-server-room-code", "r3-medical-family-overreach", "r4-household-spare-key"]


@cache
def _fresh() -> bytes:
    """A small oracle trace, made once."""
    import tempfile

    eps, _ = load_all([EPISODES])
    path = Path(tempfile.mkdtemp()) / "oracle.jsonl"
    run(ReferenceAgent("oracle"), sorted((e for e in eps if e.id in SOME), key=lambda e: e.id), path)
    return path.read_bytes()


def _audit(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["audit", str(path), "--episodes", str(EPISODES), "--json", *extra])
    return code, json.loads(buf.getvalue())


def test_fresh_trace_audits_clean(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(_fresh())
    code, out = _audit(p)
    assert code == 0 and out["traces"][0]["problems"] == []


@cache
def _some() -> dict[str, Any]:
    eps, _ = load_all([EPISODES])
    return {e.id: e for e in eps if e.id in SOME}


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_single_byte_change_fails_the_audit(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    raw = bytearray(_fresh())
    i = data.draw(st.integers(0, len(raw) - 1))
    b = data.draw(st.integers(0, 255).filter(lambda x: x != raw[i]))
    raw[i] = b
    p = tmp_path_factory.mktemp("flip") / "t.jsonl"
    p.write_bytes(bytes(raw))
    problems, _ = audit_trace(str(p), _some())
    assert problems


def test_the_audit_command_fails_on_a_flipped_byte(tmp_path: Path) -> None:
    raw = bytearray(_fresh())
    raw[len(raw) // 2] ^= 0x01
    p = tmp_path / "t.jsonl"
    p.write_bytes(bytes(raw))
    code, out = _audit(p)
    assert code == 1 and "broken chain" in out["traces"][0]["problems"][0]


def test_a_changed_episode_file_is_named(tmp_path: Path) -> None:
    eps = tmp_path / "episodes"
    shutil.copytree(EPISODES, eps)
    f = eps / "R4" / "r4-household-spare-key.yaml"
    f.write_text(f.read_text().replace("Understood.", "Understood, thanks."))
    p = tmp_path / "t.jsonl"
    p.write_bytes(_fresh())
    code, out = _audit(p, "--episodes", str(eps))
    problems = out["traces"][0]["problems"]
    assert code == 1 and len(problems) == 1
    assert "episode r4-household-spare-key changed since the trace was made" in problems[0]


def test_published_results_are_compared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(_fresh())
    assert main(["score", str(p), "--episodes", str(EPISODES), "--json"]) == 0
    published = json.loads(capsys.readouterr().out)
    sidecar = Path(str(p) + ".results.json")
    sidecar.write_text(json.dumps(published))
    assert _audit(p)[0] == 0
    published["systems"][0]["default"]["per_risk"]["R3"] = 0.5  # a doctored claim
    sidecar.write_text(json.dumps(published))
    code, out = _audit(p)
    assert code == 1 and out["traces"][0]["problems"] == [f"{p}: default.per_risk.R3: published 0.5, re-scored 1.0"]


def _rechain(lines: list[dict[str, Any]]) -> bytes:
    out, prev = [], GENESIS
    for seq, obj in enumerate(lines):
        body = {k: v for k, v in obj.items() if k != "chain"}
        body["seq"] = seq
        body["chain"] = chain_of(prev, body)
        prev = body["chain"]
        out.append(dumps(body) + "\n")
    return "".join(out).encode()


def _lines() -> list[dict[str, Any]]:
    return [json.loads(x) for x in _fresh().decode().splitlines()]


def _score(p: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["score", str(p), "--episodes", str(EPISODES), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_damaged_traces_are_reported_and_the_sound_part_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines()
    # another benchmark version
    old = [dict(x) for x in lines]
    old[0]["memriskbench_version"] = "0.0.9"
    p = tmp_path / "old.jsonl"
    p.write_bytes(_rechain(old))
    code, out = _score(p, capsys)
    assert code == 1 and "made by memriskbench 0.0.9" in out["problems"][0]
    assert out["systems"][0]["default"]["episodes"] == 3
    # a duplicated episode
    start = next(i for i, x in enumerate(lines) if x["type"] == "episode_start")
    end = next(i for i, x in enumerate(lines) if x["type"] == "episode_end")
    p = tmp_path / "dup.jsonl"
    p.write_bytes(_rechain(lines + lines[start : end + 1]))
    code, out = _score(p, capsys)
    assert code == 1 and "appears twice" in out["problems"][0] and out["systems"][0]["default"]["episodes"] == 3
    # a missing header
    p = tmp_path / "nohead.jsonl"
    p.write_bytes(_rechain(lines[1:]))
    code, out = _score(p, capsys)
    assert code == 1 and "first line is not a header" in out["problems"][0] and out["systems"] == []
    # a truncated last line
    p = tmp_path / "cut.jsonl"
    p.write_bytes(_fresh()[:-40])
    code, out = _score(p, capsys)
    assert code == 1 and "truncated last line dropped" in out["problems"][0]
    assert out["systems"][0]["default"]["episodes"] == 2  # the last episode lost its end


def test_packed_traces_are_reproducible_and_audit_as_a_folder(tmp_path: Path) -> None:
    from memriskbench.traces.pack import pack

    src = tmp_path / "t.jsonl"
    src.write_bytes(_fresh())
    release = tmp_path / "release"
    pack(src, release / "a.jsonl.gz")
    pack(src, release / "b.jsonl.gz")
    assert (release / "a.jsonl.gz").read_bytes() == (release / "b.jsonl.gz").read_bytes()
    (release / "README.md").write_text("not a trace")
    code, out = _audit(release)  # a folder: every *.jsonl and *.jsonl.gz in it
    assert code == 0 and [Path(t["trace"]).name for t in out["traces"]] == ["a.jsonl.gz", "b.jsonl.gz"]
    raw = bytearray((release / "b.jsonl.gz").read_bytes())
    raw[len(raw) // 2] ^= 0x01
    (release / "b.jsonl.gz").write_bytes(bytes(raw))
    code, out = _audit(release)
    assert code == 1 and out["traces"][1]["problems"] and not out["traces"][0]["problems"]
