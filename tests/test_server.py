"""--agent openai against a real OpenAI-compatible server: llama-cpp-python's own (its `server`
extra), started on 127.0.0.1 on a free port with SmolLM2, and stopped afterwards even when a test
fails. Nothing is mocked: the requests, the retries and the resume go over real HTTP."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memriskbench.cli.main import main
from memriskbench.play.localserver import ALIAS, LocalServer
from memriskbench.traces.compare import compare
from memriskbench.traces.trace import read_trace

from .conftest import SEEDS, needs_model

pytestmark = pytest.mark.model
SECRET = "sk-memriskbench-test-0123456789"


class Server(LocalServer):
    def start(self, wait_s: float = 120.0) -> None:
        pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python's server extra is not installed")
        super().start(wait_s)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    needs_model("default")
    from memriskbench.play.systems.models import resolve_model

    s = Server(resolve_model("default"))
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _run(server: Server, out: Path, limit: int, *extra: str) -> int:
    args = [
        "run",
        "--agent",
        "openai",
        "--base-url",
        server.url,
        "--model",
        ALIAS,
    ]
    return main(
        [*args, "--subset", str(out.parent / "subset.txt"), "--limit", str(limit), "--out", str(out), "--quiet", *extra]
    )


def _subset(tmp: Path) -> None:
    (tmp / "subset.txt").write_text("\n".join(SEEDS[:2]) + "\n")


def test_openai_agent_plays_two_episodes_the_trace_audits_and_holds_no_key(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _subset(tmp_path)
    monkeypatch.setenv("MEMRISK_TEST_KEY", SECRET)
    out = tmp_path / "openai.jsonl"
    assert _run(server, out, 2, "--api-key-env", "MEMRISK_TEST_KEY") == 0
    trace = read_trace(out)
    assert len(trace.episodes()) == 2
    assert main(["audit", str(out)]) == 0
    header = trace.header
    assert header.system["kind"] == "openai" and header.system["name"] == f"openai:{ALIAS}:full"
    assert header.model["server"] == server.url and header.model["model"]["id"] == ALIAS
    assert SECRET not in out.read_text() and "MEMRISK_TEST_KEY" not in out.read_text()


def test_killing_the_server_mid_run_and_restarting_it_loses_nothing(server: Server, tmp_path: Path) -> None:
    _subset(tmp_path)
    whole = tmp_path / "whole.jsonl"
    assert _run(server, whole, 2) == 0
    out = tmp_path / "resumed.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "memriskbench.cli.main",
        "run",
        "--agent",
        "openai",
        "--base-url",
        server.url,
        "--model",
        ALIAS,
    ]
    cmd += ["--structured-output", "json_object", "--subset", str(tmp_path / "subset.txt"), "--limit", "2"]
    cmd += ["--out", str(out), "--quiet", "--timeout", "5"]
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and run.poll() is None:
        if out.exists() and '"type":"episode_end"' in out.read_text():
            break
        time.sleep(0.2)
    server.stop()  # the server dies after the first episode: the run retries with backoff, then stops
    _, err = run.communicate(timeout=120)
    assert run.returncode == 2, err
    assert "gave up after" in err and len(err.strip().splitlines()) == 1
    assert out.read_text().count('"type":"episode_end"') == 1
    server.start()
    assert _run(server, out, 2) == 0  # resumes: the finished episode is kept, the cut one re-run
    assert compare(whole, out).same


def test_parallel_two_against_this_server_finishes_and_audits(server: Server, tmp_path: Path) -> None:
    """llama-cpp-python's server keeps the previous request's KV cache, so a reply can depend on
    which request came before it: it does not promise that two in flight give the serial trace
    (README, "Which servers give reproducible traces"). What it must give is a complete trace that
    audits. The parallel-equals-serial claim is tested against a stateless server
    (tests/test_hostile_server.py)."""
    _subset(tmp_path)
    parallel = tmp_path / "parallel.jsonl"
    assert _run(server, parallel, 2, "--parallel", "2") == 0
    assert main(["audit", str(parallel)]) == 0
    assert read_trace(parallel).header.system["decoding"]["structured_output"] == "json_object"
