"""--agent openai against a server that misbehaves (tests/fakeserver.py, on 127.0.0.1): the run
survives, an interrupted run resumes to the uninterrupted trace, and a transient fault never
becomes a verdict. Each test names the item of issue 28 it covers."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memriskbench.cli.main import main
from memriskbench.play.systems.backends import openai_compat
from memriskbench.traces.compare import compare
from memriskbench.traces.trace import read_trace

from .fakeserver import MODEL, FakeServer

EPISODES = ["r1-travel-gate-reassigned", "r4-household-spare-key", "r2-household-cashew-allergist"]


@pytest.fixture
def server() -> Iterator[FakeServer]:
    s = FakeServer()
    try:
        yield s
    finally:
        s.close()


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Backoff is real in production; here it is cut to nothing, except where a test times it."""
    if "real_backoff" not in request.keywords:
        monkeypatch.setattr(openai_compat, "_wait", lambda state: 0.0)


def _run(server: FakeServer, tmp: Path, out: Path, *extra: str, episodes: list[str] | None = None) -> int:
    subset = tmp / "subset.txt"
    subset.write_text("\n".join(episodes or EPISODES) + "\n")
    return main(
        ["run", "--agent", "openai", "--base-url", server.url, "--model", MODEL]
        + ["--subset", str(subset), "--out", str(out), "--quiet", *extra]
    )


def _terminations(path: Path) -> dict[str, str]:
    return {r.episode: r.termination for r in read_trace(path).records if getattr(r, "type", "") == "episode_end"}


def _reference(server: FakeServer, tmp: Path) -> Path:
    whole = tmp / "whole.jsonl"
    assert _run(server, tmp, whole) == 0
    return whole


def _same(a: Path, b: Path) -> None:
    result = compare(a, b)
    assert result.same and result.common == len(EPISODES), result.lines()


# item 1 ------------------------------------------------------------------------------------------
def test_a_models_entry_that_changes_per_request_does_not_stop_resume_or_merge(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = _reference(server, tmp_path)
    cut = tmp_path / "cut.jsonl"
    server.fail_from = server.chats() + 3  # the server goes down a few requests into the run
    assert _run(server, tmp_path, cut) == 2
    assert 0 < len(_terminations(cut)) < len(EPISODES)
    server.fail_from = None
    assert _run(server, tmp_path, cut) == 0, capsys.readouterr().err  # `created` moved on meanwhile
    _same(whole, cut)
    header = read_trace(cut).header
    assert "created" not in json.dumps(header.system) and "modelperm" not in json.dumps(header.system)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert _run(server, tmp_path, a, "--shard", "0/2") == 0
    assert _run(server, tmp_path, b, "--shard", "1/2") == 0
    capsys.readouterr()
    assert main(["score", str(a), str(b), "--json"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert len(systems) == 1, [s["name"] for s in systems]


# item 2 ------------------------------------------------------------------------------------------
def test_a_prompt_too_long_for_the_context_ends_that_episode_and_the_run_goes_on(
    server: FakeServer, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    server.faults.append("context400")
    assert _run(server, tmp_path, out) == 0
    ends = _terminations(out)
    assert ends[EPISODES[0]] == "model_error" and set(ends) == set(EPISODES)
    before = server.chats()
    assert _run(server, tmp_path, out) == 0  # resume: nothing left, nothing re-asked
    assert server.chats() == before


# item 3 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fault", ["500", "html200", "empty200", "no_choices", "empty_choices"])
def test_a_transient_fault_is_retried_and_never_becomes_a_verdict(
    server: FakeServer, tmp_path: Path, fault: str
) -> None:
    whole = _reference(server, tmp_path)
    out = tmp_path / "t.jsonl"
    server.faults.extend([fault, fault])
    assert _run(server, tmp_path, out) == 0
    _same(whole, out)
    assert set(_terminations(out).values()) <= set(_terminations(whole).values())


@pytest.mark.parametrize("fault", ["500", "html200", "empty_choices"])
def test_a_lasting_fault_stops_the_run_with_one_line_and_resume_completes_it(
    server: FakeServer, tmp_path: Path, fault: str, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = _reference(server, tmp_path)
    out = tmp_path / "t.jsonl"
    server.always = fault
    assert _run(server, tmp_path, out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "gave up after" in err and "Traceback" not in err
    assert not _terminations(out)  # no verdict was recorded for a fault of the server's
    server.always = None
    assert _run(server, tmp_path, out) == 0
    _same(whole, out)


@pytest.mark.parametrize(
    ("fault", "words"), [("redirect", "HTTP 307"), ("stream", "streamed"), ("schema500", "refuses")]
)
def test_what_will_not_change_is_not_retried(
    server: FakeServer, tmp_path: Path, fault: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.jsonl"
    server.always = fault
    assert _run(server, tmp_path, out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err
    assert server.chats() == 1  # asked once
    assert not _terminations(out)


def test_junk_token_counts_are_recorded_as_zero_not_a_traceback(server: FakeServer, tmp_path: Path) -> None:
    """Item 12: `usage` holding a string or a list."""
    out = tmp_path / "t.jsonl"
    server.faults.append("bad_usage")
    assert _run(server, tmp_path, out) == 0
    first = next(r for r in read_trace(out).records if getattr(r, "type", "") == "decision")
    assert first.tokens["prompt"] == 0 and first.tokens["completion"] == 0


# item 4 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fault", ["surrogate", "nan"])
def test_whatever_the_model_writes_is_recorded_and_the_trace_audits(
    server: FakeServer, tmp_path: Path, fault: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.jsonl"
    server.faults.append(fault)
    assert _run(server, tmp_path, out) == 0
    assert _run(server, tmp_path, out) == 0  # and resumes (nothing left)
    capsys.readouterr()
    assert main(["audit", str(out)]) == 0, capsys.readouterr()
    first = next(r for r in read_trace(out).records if getattr(r, "type", "") == "decision")
    if fault == "surrogate":
        assert first.action is not None and first.action["content"] == "on its way \ud83d"
    else:
        assert first.action is None and "NaN" in first.error


# item 11 -----------------------------------------------------------------------------------------
@pytest.mark.real_backoff
def test_a_rate_limit_is_waited_out_as_the_server_asks(server: FakeServer, tmp_path: Path) -> None:
    whole = _reference(server, tmp_path)
    out = tmp_path / "t.jsonl"
    server.faults.extend(["429", "429"])
    t0 = time.monotonic()
    assert _run(server, tmp_path, out) == 0
    assert time.monotonic() - t0 >= 2.0  # Retry-After: 1, twice
    _same(whole, out)


def test_a_trickling_server_cannot_hold_a_request_past_the_timeout(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.jsonl"
    server.always = "trickle"  # one byte every 0.4 s: each read is on time, the whole never is
    t0 = time.monotonic()
    assert _run(server, tmp_path, out, "--timeout", "1") == 2
    elapsed = time.monotonic() - t0
    assert elapsed < 6 * 2.0, elapsed  # six tries of about one second each, not minutes
    assert "within --timeout" in capsys.readouterr().err


def test_a_parallel_run_equals_a_serial_one_on_a_stateless_server(server: FakeServer, tmp_path: Path) -> None:
    """The fake server answers from the request alone, as llama-server does with cache_prompt
    false: episodes in flight at once cannot change any reply."""
    whole = _reference(server, tmp_path)
    par = tmp_path / "par.jsonl"
    assert _run(server, tmp_path, par, "--parallel", "3") == 0
    _same(whole, par)
    bodies = [b for m, _, b in server.seen if m == "POST"]
    assert bodies and all(b.get("cache_prompt") is False for b in bodies)
    assert read_trace(par).header.system["decoding"]["cache_prompt"] is False


# item 10 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["sk-test-1234\n", "sk-test 1234", "sk-test-1234\r", "sk-tést-1234"])
def test_a_malformed_api_key_is_refused_without_printing_it(
    server: FakeServer, tmp_path: Path, key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MRB_TEST_KEY", key)
    assert _run(server, tmp_path, tmp_path / "t.jsonl", "--api-key-env", "MRB_TEST_KEY") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "MRB_TEST_KEY" in err and "1234" not in err, err


def test_credentials_in_the_base_url_are_sent_and_never_recorded(server: FakeServer, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    url = server.url.replace("http://", "http://alice:s3cret-pass@")
    subset = tmp_path / "subset.txt"
    subset.write_text(EPISODES[0] + "\n")
    args = ["run", "--agent", "openai", "--base-url", url, "--model", MODEL, "--subset", str(subset)]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert "s3cret-pass" not in text and "alice" not in text
    header = read_trace(out).header
    assert header.model is not None and header.model["server"] == server.url


# item 12 (the server's side) ---------------------------------------------------------------------
@pytest.mark.parametrize("body", [b"[1, 2]", b'{"data": "nope"}', b"<html>hi</html>", b'{"data": [7, null]}'])
def test_a_junk_models_list_is_a_one_line_error(
    server: FakeServer, tmp_path: Path, body: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    server.models_body = body
    assert _run(server, tmp_path, tmp_path / "t.jsonl") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err


@pytest.mark.parametrize("url", ["http://[::1", "ftp://127.0.0.1/v1", "http://127.0.0.1:99999/v1", "not a url"])
def test_a_bad_base_url_is_a_one_line_error(tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    subset = tmp_path / "subset.txt"
    subset.write_text(EPISODES[0] + "\n")
    args = ["run", "--agent", "openai", "--base-url", url, "--model", MODEL, "--subset", str(subset)]
    assert main([*args, "--out", str(tmp_path / "t.jsonl"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_a_managed_memory_operation_that_is_a_list_is_the_models_error(server: FakeServer, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    server.faults.extend(["list", "list"])
    assert _run(server, tmp_path, out, "--strategy", "managed", episodes=EPISODES[:1]) == 0
    assert main(["audit", str(out)]) == 0


def test_ctrl_c_under_parallel_ends_the_run_at_once(server: FakeServer, tmp_path: Path) -> None:
    """Item 11: requests in flight are cut when the run is interrupted, not left to --timeout."""
    import signal
    import subprocess
    import sys

    server.always = "trickle"
    subset = tmp_path / "subset.txt"
    subset.write_text("\n".join(EPISODES) + "\n")
    cmd = [sys.executable, "-m", "memriskbench.cli.main", "run", "--agent", "openai", "--base-url", server.url]
    cmd += ["--model", MODEL, "--subset", str(subset), "--out", str(tmp_path / "t.jsonl"), "--quiet"]
    proc = subprocess.Popen([*cmd, "--parallel", "2", "--timeout", "60"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while server.chats() < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.chats() >= 2, "both episodes must be in flight"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert time.monotonic() - t0 < 5.0
    assert proc.returncode != 0 and "Traceback" not in err, err


# item 13 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("owner", "form"), [("me", "json_object"), ("llamacpp", "json_schema"), ("vllm", "json_schema")]
)
def test_the_schema_form_is_chosen_from_the_server_and_recorded(tmp_path: Path, owner: str, form: str) -> None:
    """llama-cpp-python's server (`owned_by: me`) reads only json_object; the others json_schema."""
    s = FakeServer(owned_by=owner)
    try:
        out = tmp_path / "t.jsonl"
        assert _run(s, tmp_path, out, episodes=EPISODES[:1]) == 0
        assert read_trace(out).header.system["decoding"]["structured_output"] == form
        bodies = [b for m, _, b in s.seen if m == "POST"]
        assert bodies and all(b["response_format"]["type"] == form for b in bodies)
        assert all(("cache_prompt" in b) == (owner == "llamacpp") for b in bodies)
    finally:
        s.close()


# the property test over server bodies --------------------------------------------------------
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
_BODIES = st.one_of(
    st.binary(max_size=200),
    _JSON.map(lambda o: json.dumps(o).encode()),
    _JSON.map(lambda o: json.dumps({"choices": [{"message": {"content": o}}], "usage": o}).encode()),
    _JSON.map(lambda o: json.dumps({"choices": o}).encode()),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=_BODIES)
def test_any_server_body_is_recorded_or_a_one_line_error(
    server: FakeServer, tmp_path_factory: pytest.TempPathFactory, body: bytes
) -> None:
    """Whatever a server answers with a 200, the run records the model's reply (exit 0) or stops
    with one line (exit 2): never a traceback, and the trace always audits."""
    import contextlib
    import io

    tmp = tmp_path_factory.mktemp("body")
    server.chat_body = body
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = _run(server, tmp, tmp / "t.jsonl", episodes=EPISODES[:1])
    assert code in (0, 2), err.getvalue()
    assert "Traceback" not in err.getvalue()
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    else:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["audit", str(tmp / "t.jsonl")]) == 0
