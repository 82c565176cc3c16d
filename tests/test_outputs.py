"""Output paths never destroy files (issue 28, item 5): no command writes over a trace or over a
file it reads, outputs are written atomically, and the trace lock holds through symlinks and for
`merge`. Each test is an input that lost data before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memriskbench.cli.main import main
from memriskbench.common.jsonsafe import write_lines
from memriskbench.errors import MemRiskError
from memriskbench.traces.trace import TraceLock, holds_trace, read_trace

from .conftest import EPISODES

SAMPLE = EPISODES / "R1" / "r1-office-server-room-code.yaml"
OTHER = EPISODES / "R4" / "r4-household-spare-key.yaml"


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _refused(code: int, err: str, path: Path, *words: str) -> None:
    """Exit 2 with one `error:` line naming the path, and no traceback."""
    assert code == 2, (code, err)
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert str(path) in lines[0], (path, err)
    for w in words:
        assert w in lines[0], (w, err)


@pytest.fixture
def trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "oracle.jsonl"
    assert _cli(["run", "--agent", "oracle", "--episodes", str(SAMPLE), "--out", str(out), "--quiet"], capsys)[0] == 0
    return out


# --pending ---------------------------------------------------------------------------------------


def test_pending_equal_to_out_is_refused_and_the_trace_survives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers, out = tmp_path / "answers.jsonl", tmp_path / "replay.jsonl"
    answers.write_text("")
    base = ["run", "--agent", "replay", "--episodes", str(SAMPLE), "--answers", str(answers), "--quiet"]
    assert _cli([*base, "--out", str(out)], capsys)[0] == 0
    before = out.read_bytes()
    code, _, err = _cli([*base, "--out", str(out), "--pending", str(out)], capsys)
    _refused(code, err, out, "--pending", "--out")
    assert out.read_bytes() == before and holds_trace(out)


def test_pending_equal_to_answers_is_refused_and_the_answers_survive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"key": "x/y/0", "reply": "{}"}) + "\n")
    before = answers.read_bytes()
    args = ["run", "--agent", "replay", "--episodes", str(SAMPLE), "--answers", str(answers), "--quiet"]
    code, _, err = _cli([*args, "--out", str(tmp_path / "t.jsonl"), "--pending", str(answers)], capsys)
    _refused(code, err, answers, "--pending", "--answers")
    assert answers.read_bytes() == before


def test_a_finished_round_removes_only_a_pending_file(tmp_path: Path) -> None:
    """With no step left open, the old pending file goes; a file of notes at --pending stays."""
    from types import SimpleNamespace

    from memriskbench.cli.run import _report_pending

    done = SimpleNamespace(backend=SimpleNamespace(pending=[]))  # a replay system with nothing pending
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    _report_pending(done, notes)
    assert notes.read_text() == "my notes\n"
    pending = tmp_path / "old.pending.jsonl"
    pending.write_text(json.dumps({"key": "a/b/0", "messages": [], "schema": {}}) + "\n")
    _report_pending(done, pending)
    assert not pending.exists()


# outputs never go over a trace -----------------------------------------------------------------------


def test_prompts_select_decisions_and_export_refuse_to_write_over_a_trace(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaky = tmp_path / "leaky.jsonl"
    assert _cli(["run", "--agent", "leaky", "--episodes", str(SAMPLE), "--out", str(leaky), "--quiet"], capsys)[0] == 0
    victim = tmp_path / "victim.jsonl"  # a trace that is no input of the command
    victim.write_bytes(trace.read_bytes())
    before = victim.read_bytes()
    eps = ["--episodes", str(SAMPLE)]
    commands = [
        (["prompts", *eps, "--out", str(victim)], "--out"),
        (["select", str(trace), str(leaky), *eps, "--out", str(victim)], "--out"),
        (["score", str(trace), *eps, "--decisions", str(victim)], "--decisions"),
        (["export-gatemem", str(trace), *eps, "--out", str(victim)], "--out"),
    ]
    for args, flag in commands:
        code, _, err = _cli(args, capsys)
        _refused(code, err, victim, flag, "would overwrite a trace")
        assert victim.read_bytes() == before, args
    packed = tmp_path / "victim.jsonl.gz"  # a packed trace is a trace too
    import gzip

    packed.write_bytes(gzip.compress(before, mtime=0))
    code, _, err = _cli(["score", str(trace), *eps, "--decisions", str(packed)], capsys)
    _refused(code, err, packed, "would overwrite a trace")


def test_outputs_refuse_an_input_of_the_same_command_even_through_a_symlink(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "link.jsonl"
    link.symlink_to(trace)
    before = trace.read_bytes()
    code, _, err = _cli(["score", str(trace), "--episodes", str(SAMPLE), "--decisions", str(link)], capsys)
    _refused(code, err, link, "--decisions", "a trace")
    subset = tmp_path / "subset.txt"
    subset.write_text("r1-office-server-room-code\n")
    code, _, err = _cli(["prompts", "--subset", str(subset), "--out", str(subset)], capsys)
    _refused(code, err, subset, "--subset")
    episode = tmp_path / "ep.yaml"
    episode.write_bytes(SAMPLE.read_bytes())
    code, _, err = _cli(["prompts", "--episodes", str(tmp_path), "--out", str(episode)], capsys)
    _refused(code, err, episode, "an episode file")
    code, _, err = _cli(
        ["run", "--agent", "oracle", "--episodes", str(SAMPLE), "--subset", str(subset), "--out", str(subset)], capsys
    )
    _refused(code, err, subset, "--subset")
    assert trace.read_bytes() == before and subset.read_text() == "r1-office-server-room-code\n"
    assert episode.read_bytes() == SAMPLE.read_bytes()


def test_prompts_and_decisions_still_write_over_their_own_earlier_output(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts, decisions = tmp_path / "prompts.jsonl", tmp_path / "decisions.jsonl"
    for _ in range(2):
        assert _cli(["prompts", "--episodes", str(SAMPLE), "--out", str(prompts)], capsys)[0] == 0
        assert _cli(["score", str(trace), "--episodes", str(SAMPLE), "--decisions", str(decisions)], capsys)[0] == 0
    assert json.loads(prompts.read_text().splitlines()[0])["key"].startswith("r1-office-server-room-code/")
    assert json.loads(decisions.read_text().splitlines()[0])["episode"] == "r1-office-server-room-code"
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# atomic writes -----------------------------------------------------------------------------------------


def test_a_failed_export_gatemem_leaves_its_out_as_it_was(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "predictions.jsonl"
    out.write_text('{"checkpoint_id": "c1", "response": "kept"}\n')
    code, _, err = _cli(["export-gatemem", str(trace), "--episodes", str(SAMPLE), "--out", str(out)], capsys)
    assert code == 2 and "no imported GateMem checkpoint" in err
    assert out.read_text() == '{"checkpoint_id": "c1", "response": "kept"}\n'


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")

    def lines() -> object:
        yield "new 1\n"
        raise ValueError("the producer failed")

    with pytest.raises(ValueError):
        write_lines(out, lines())  # type: ignore[arg-type]
    assert out.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    (tmp_path / "file").write_text("x")  # a file where a folder should be: the write cannot start
    with pytest.raises(MemRiskError, match="file/x.jsonl: cannot write"):
        write_lines(tmp_path / "file" / "x.jsonl", ["a\n"])


def test_write_lines_writes_through_a_symlink_and_keeps_the_usual_permissions(tmp_path: Path) -> None:
    target, link = tmp_path / "target.txt", tmp_path / "link.txt"
    target.write_text("old\n")
    link.symlink_to(target)
    write_lines(link, ["new\n"])
    assert link.is_symlink() and target.read_text() == "new\n"
    mask = os.umask(0)
    os.umask(mask)
    write_lines(tmp_path / "fresh.txt", ["x\n"])
    assert (tmp_path / "fresh.txt").stat().st_mode & 0o777 == 0o666 & ~mask


# run --out -------------------------------------------------------------------------------------------------


def test_run_refuses_a_one_line_file_without_a_final_newline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "notes.jsonl"
    out.write_text('{"key": "my only answer", "reply": "keep me"}')  # no newline at its end
    before = out.read_bytes()
    code, _, err = _cli(["run", "--agent", "oracle", "--episodes", str(SAMPLE), "--out", str(out), "--quiet"], capsys)
    _refused(code, err, out, "not a trace of this run")
    assert out.read_bytes() == before


def test_run_resumes_over_its_own_torn_header(trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run killed while writing its header left part of it: that part is ours to write over."""
    first = trace.read_bytes().split(b"\n")[0]
    out = tmp_path / "torn.jsonl"
    out.write_bytes(first[: len(first) // 2])
    code, _, _ = _cli(["run", "--agent", "oracle", "--episodes", str(SAMPLE), "--out", str(out), "--quiet"], capsys)
    assert code == 0 and len(read_trace(out).episodes()) == 1


def test_a_symlink_to_a_running_runs_out_meets_its_lock(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "elsewhere" / "link.jsonl"
    link.parent.mkdir()
    link.symlink_to(trace)
    before = trace.read_bytes()
    lock = TraceLock(trace)  # a run in progress on the real path
    try:
        code, _, err = _cli(
            ["run", "--agent", "oracle", "--episodes", str(OTHER), "--out", str(link), "--quiet"], capsys
        )
    finally:
        lock.release()
    _refused(code, err, link, "another run is writing this trace")
    assert trace.read_bytes() == before


# merge ------------------------------------------------------------------------------------------------------


@pytest.fixture
def shards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[Path]:
    parts = []
    for i in range(2):
        part = tmp_path / f"part-{i}.jsonl"
        args = ["run", "--agent", "oracle", "--episodes", str(SAMPLE), str(OTHER), "--shard", f"{i}/2"]
        assert _cli([*args, "--out", str(part), "--quiet"], capsys)[0] == 0
        parts.append(part)
    return parts


def test_merge_takes_the_lock_on_its_out(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "merged.jsonl"
    lock = TraceLock(out)  # another merge (or a run) writing it
    try:
        code, _, err = _cli(
            ["merge", *map(str, shards), "--episodes", str(SAMPLE), str(OTHER), "--out", str(out)], capsys
        )
    finally:
        lock.release()
    _refused(code, err, out, "another run is writing this trace")
    assert not out.exists()


# Each process imports everything first, then starts the merge at one shared instant, so that the
# merges really overlap (a plain Popen staggers them by interpreter start-up, and the race hides).
_AT_ONCE = """
import sys, time
from memriskbench.cli.main import main
import memriskbench.traces.merge
start = float(sys.argv[1])
time.sleep(max(0.0, start - time.time()))
sys.exit(main(sys.argv[2:]))
"""


def test_two_concurrent_merges_give_one_trace_not_a_doubled_one(shards: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "merged.jsonl"
    args = ["merge", *map(str, shards), "--episodes", str(SAMPLE), str(OTHER), "--out", str(out)]
    start = time.time() + 3.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _AT_ONCE, str(start), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    assert sorted(code for code, _ in results) == [0, 2, 2, 2], results
    assert all("Traceback" not in err for _, err in results)
    assert len(read_trace(out).episodes()) == 2  # a strict read: one header, every episode once


def test_merge_refuses_an_out_that_is_one_of_its_shards(shards: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    before = shards[0].read_bytes()
    code, _, err = _cli(
        ["merge", *map(str, shards), "--episodes", str(SAMPLE), str(OTHER), "--out", str(shards[0])], capsys
    )
    _refused(code, err, shards[0], "a shard")
    assert shards[0].read_bytes() == before
