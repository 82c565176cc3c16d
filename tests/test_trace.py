"""Traces: record layout, tamper evidence, resume after a kill at any byte, determinism."""

from __future__ import annotations

import functools
import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memriskbench.episodes.episode import Episode
from memriskbench.episodes.loader import load_all
from memriskbench.errors import TraceError
from memriskbench.play.runner import run
from memriskbench.play.systems.base import DecisionRequest, Reply
from memriskbench.play.systems.reference import ReferenceAgent
from memriskbench.traces.records import Decision, EpisodeEnd, EpisodeStart, EventRecord
from memriskbench.traces.trace import comparable_lines, read_lines, read_trace, strip_timing

from .conftest import SEEDS

REPO = Path(__file__).resolve().parent.parent
HYPO = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Baseline:
    eps: list[Episode]
    full_bytes: bytes  # one uninterrupted oracle trace
    comparable: list[str]
    near_line_ends: list[int]  # offsets at, just before and just after each line end, and 0


@functools.cache
def baseline() -> Baseline:
    """Made once per module, kept in memory (hypothesis tests take no fixtures, so failures print small)."""
    eps, errors = load_all([REPO / "episodes"])
    assert not errors, [e.render() for e in errors]
    eps = [e for e in eps if e.id in SEEDS]  # the hypothesis tests replay this run hundreds of times
    assert len(eps) == len(SEEDS)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "oracle.jsonl"
        summary = run(ReferenceAgent("oracle"), eps, path)
        assert summary.ran == len(eps) and summary.skipped == 0
        assert summary.terminations == {"completed": len(eps)}
        data = path.read_bytes()
        comparable = comparable_lines(path)
    ends = [e for _, e in _line_spans(data)]
    near = sorted({max(0, min(len(data), e + k)) for e in ends for k in (-1, 0, 1)} | {0})
    return Baseline(eps, data, comparable, near)


@pytest.fixture(scope="module")
def eps() -> list[Episode]:
    return baseline().eps


@pytest.fixture
def full(tmp_path: Path) -> Path:
    """A fresh copy of the uninterrupted oracle trace."""
    path = tmp_path / "oracle.jsonl"
    path.write_bytes(baseline().full_bytes)
    return path


@pytest.fixture(scope="module")
def full_bytes() -> bytes:
    return baseline().full_bytes


@pytest.fixture(scope="module")
def full_comparable() -> list[str]:
    return baseline().comparable


def _line_spans(data: bytes) -> Iterator[tuple[int, int]]:
    start = 0
    while start < len(data):
        nl = data.index(b"\n", start)
        yield start, nl + 1
        start = nl + 1


# --------------------------------------------------------------------------- layout


def test_oracle_trace_layout(eps: list[Episode], full: Path) -> None:
    trace = read_trace(full)
    assert trace.header.system["agent"] == "oracle"
    assert set(trace.header.episodes) == {ep.id for ep in eps}
    assert all(len(h) == 64 for h in trace.header.episodes.values())

    # header, then per episode in the order given: episode_start (event | decision)* episode_end
    order: list[str] = []
    current: str | None = None
    for r in trace.records:
        if isinstance(r, EpisodeStart):
            assert current is None, f"episode_start for {r.episode} inside {current}"
            current = r.episode
            order.append(r.episode)
            assert r.sha256 == trace.header.episodes[r.episode]
        elif isinstance(r, EpisodeEnd):
            assert r.episode == current
            assert r.termination == "completed"
            current = None
        else:
            assert isinstance(r, (EventRecord, Decision)), type(r)
            assert current is not None and r.episode == current
    assert current is None, "trace ends inside an episode"
    assert order == [ep.id for ep in eps]

    # every event that ran is on the path, in order; every decision's steps are 0..k
    eps_by_id = {ep.id: ep for ep in eps}
    for eid, recs in trace.episodes().items():
        end = recs[-1]
        assert isinstance(end, EpisodeEnd)
        seen: list[str] = []
        for r in recs[1:-1]:
            name = r.event if isinstance(r, EventRecord) else r.decision  # type: ignore[union-attr]
            if not seen or seen[-1] != name:
                seen.append(name)
        assert seen == end.path
        ep = eps_by_id[eid]
        assert set(end.final_actions) == {e.id for e in ep.decisions if e.id in end.path}
        steps: dict[str, list[int]] = {}
        for r in recs:
            if isinstance(r, Decision):
                steps.setdefault(r.decision, []).append(r.step)
        assert all(s == list(range(len(s))) for s in steps.values())

    # seq is consecutive and types are what the reader says
    lines = read_lines(full).lines
    assert [o["seq"] for o in lines] == list(range(len(lines)))
    assert lines[0]["type"] == "header"
    assert len(lines) == 1 + len(trace.records)


# --------------------------------------------------------------------------- tamper evidence


@HYPO
@given(data=st.data())
def test_any_single_byte_change_is_detected(data: st.DataObject) -> None:
    full_bytes = baseline().full_bytes
    pos = data.draw(st.integers(0, len(full_bytes) - 1), label="pos")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != full_bytes[pos]), label="byte")
    bad = bytearray(full_bytes)
    bad[pos] = new
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "tampered.jsonl"
        path.write_bytes(bytes(bad))
        with pytest.raises(TraceError):
            read_trace(path)


# --------------------------------------------------------------------------- resume


@HYPO
@given(data=st.data())
def test_resume_after_truncation_at_any_byte(data: st.DataObject) -> None:
    b = baseline()
    cut = data.draw(st.one_of(st.integers(0, len(b.full_bytes)), st.sampled_from(b.near_line_ends)), label="cut")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.jsonl"
        path.write_bytes(b.full_bytes[:cut])
        finished_before = _finished(b.full_bytes[:cut])
        summary = run(ReferenceAgent("oracle"), b.eps, path)
        assert summary.skipped == len(finished_before)
        assert summary.ran == len(b.eps) - len(finished_before)
        assert comparable_lines(path) == b.comparable  # strict read: the chain holds across the seam


def _finished(prefix: bytes) -> set[str]:
    """Episodes whose episode_end line is complete in `prefix` (parsed independently of the library)."""
    out: set[str] = set()
    for raw in prefix.split(b"\n")[:-1]:  # the last piece has no newline: incomplete
        obj = json.loads(raw)
        if obj["type"] == "episode_end":
            out.add(obj["episode"])
    return out


class Counting:
    """Wraps a system, counts calls, and can raise KeyboardInterrupt on the Nth decide()."""

    def __init__(self, inner: ReferenceAgent, fail_at: int | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.metadata_aware = inner.metadata_aware
        self.fail_at = fail_at
        self.decides = 0
        self.started: list[str] = []

    def identity(self) -> dict[str, Any]:
        return self.inner.identity()

    def model_identity(self) -> dict[str, Any] | None:
        return self.inner.model_identity()

    def start_episode(self, episode: Episode) -> None:
        self.started.append(episode.id)
        self.inner.start_episode(episode)

    def observe(self, event: Any) -> Any:
        return self.inner.observe(event)

    def decide(self, request: DecisionRequest) -> Reply:
        self.decides += 1
        if self.decides == self.fail_at:
            raise KeyboardInterrupt
        return self.inner.decide(request)

    def close(self) -> None:
        self.inner.close()


def test_keyboard_interrupt_mid_episode_then_resume(
    eps: list[Episode], full: Path, full_comparable: list[str], tmp_path: Path
) -> None:
    calls_per_episode = Counter(o["episode"] for o in read_lines(full).lines if o["type"] == "decision")
    per_ep = [calls_per_episode[ep.id] for ep in eps]
    assert all(n >= 1 for n in per_ep)
    tried = 0
    before = 0  # decide calls in the episodes before index k
    for k, n in enumerate(per_ep):
        if k >= 1:
            for j in sorted({1, n}):  # first and last decide() of episode k: both mid-episode
                fail_at = before + j
                path = tmp_path / f"k{k}-j{j}.jsonl"
                crashing = Counting(ReferenceAgent("oracle"), fail_at=fail_at)
                with pytest.raises(KeyboardInterrupt):
                    run(crashing, eps, path)
                assert crashing.decides == fail_at
                # the file holds whole episodes only: episode k was cut, and none of it is written
                partial = read_trace(path)
                assert list(partial.episodes()) == [ep.id for ep in eps[:k]]
                assert isinstance(partial.records[-1], EpisodeEnd) and partial.records[-1].episode == eps[k - 1].id

                resumer = Counting(ReferenceAgent("oracle"))
                summary = run(resumer, eps, path)
                assert summary.skipped == k and k >= 1
                assert summary.ran == len(eps) - k
                assert resumer.started == [ep.id for ep in eps[k:]]  # finished ones never re-run
                assert resumer.decides == sum(per_ep[k:])
                assert comparable_lines(path) == full_comparable
                tried += 1
        before += n
    assert tried >= 1


def test_resume_of_a_finished_trace_runs_nothing(eps: list[Episode], full_bytes: bytes, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(full_bytes)
    agent = Counting(ReferenceAgent("oracle"))
    summary = run(agent, eps, path)
    assert (summary.ran, summary.skipped) == (0, len(eps))
    assert agent.started == [] and agent.decides == 0
    assert path.read_bytes() == full_bytes


# --------------------------------------------------------------------------- determinism


def _diff_paths(a: Any, b: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[tuple[Any, ...]] = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(path + (k,))
            else:
                out.extend(_diff_paths(a[k], b[k], path + (k,)))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _diff_paths(x, y, path + (i,))]
    return [] if a == b and type(a) is type(b) else [path]


def test_two_runs_are_identical_except_timing(eps: list[Episode], tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run(ReferenceAgent("oracle"), eps, a)
    run(ReferenceAgent("oracle"), eps, b)
    assert comparable_lines(a) == comparable_lines(b)
    la = [json.loads(x) for x in a.read_bytes().splitlines()]
    lb = [json.loads(x) for x in b.read_bytes().splitlines()]
    assert len(la) == len(lb)
    for x, y in zip(la, lb, strict=True):
        assert strip_timing(x) == strip_timing(y)
        assert all("timing" in p or "chain" in p for p in _diff_paths(x, y)), _diff_paths(x, y)
    # a run started fresh in between does not carry state into the next: same again with another agent first
    c = tmp_path / "c.jsonl"
    agent = ReferenceAgent("oracle")
    run(ReferenceAgent("leaky"), eps, tmp_path / "leaky.jsonl")
    run(agent, list(reversed(eps)), tmp_path / "rev.jsonl")
    run(agent, eps, c)
    assert comparable_lines(c) == comparable_lines(a)


def test_resume_with_a_different_header_is_refused(eps: list[Episode], full_bytes: bytes, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    for cut in (len(full_bytes), full_bytes.index(b"\n") + 1):  # finished, and header only
        path.write_bytes(full_bytes[:cut])
        with pytest.raises(TraceError) as exc:
            run(ReferenceAgent("leaky"), eps, path)
        assert "header differs in system)" in exc.value.message
        assert "episodes" not in exc.value.message
        assert path.read_bytes() == full_bytes[:cut], "a refused resume must not touch the file"

    path.write_bytes(full_bytes)
    with pytest.raises(TraceError) as exc:
        run(ReferenceAgent("oracle"), eps[:-1], path)
    assert "header differs in episodes)" in exc.value.message
    with pytest.raises(TraceError) as exc:
        run(ReferenceAgent("leaky"), eps[1:], path)
    assert "header differs in episodes, system)" in exc.value.message
    assert path.read_bytes() == full_bytes


# --------------------------------------------------------------------------- truncation


def test_truncated_mid_line(full: Path, full_bytes: bytes, tmp_path: Path) -> None:
    full_lines = read_lines(full).lines
    spans = list(_line_spans(full_bytes))
    assert len(spans) == len(full_lines)
    path = tmp_path / "t.jsonl"
    for k in sorted({0, 1, len(spans) // 2, len(spans) - 1}):
        start, end = spans[k]
        for cut in sorted({start + 1, (start + end) // 2, end - 1}):  # inside line k (k lines survive whole)
            path.write_bytes(full_bytes[:cut])
            with pytest.raises(TraceError) as exc:
                read_trace(path)
            assert "truncated" in exc.value.message
            with pytest.raises(TraceError, match="truncated"):
                read_lines(path)  # strict by default
            got = read_lines(path, strict=False)
            assert got.partial_tail is True
            assert got.lines == full_lines[:k]
            assert got.ends == [e for _, e in spans[:k]]
        # at the line boundary nothing is partial
        path.write_bytes(full_bytes[:end])
        got = read_lines(path, strict=False)
        assert got.partial_tail is False and got.lines == full_lines[: k + 1]
        assert read_lines(path).lines == got.lines
