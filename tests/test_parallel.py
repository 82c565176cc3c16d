"""Episodes in flight at once (`run --parallel N`): whatever order they finish in, the trace holds
them in suite order, the same records as a serial run, and a resumed parallel run loses nothing."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from memriskbench.episodes.episode import Episode
from memriskbench.play.runner import run
from memriskbench.play.systems.base import DecisionRequest, Reply
from memriskbench.play.systems.reference import ReferenceAgent
from memriskbench.traces.compare import compare


class Slow(ReferenceAgent):
    """The oracle, slower on earlier episodes, so later ones finish first; records who ran what."""

    log: list[tuple[str, str]] = []

    def __init__(self, delays: dict[str, float]) -> None:
        super().__init__("oracle")
        self.delays = delays

    def start_episode(self, episode: Episode) -> None:
        super().start_episode(episode)
        self._current = episode.id

    def decide(self, request: DecisionRequest) -> Reply:
        time.sleep(self.delays.get(self._current, 0.0))
        Slow.log.append((self._current, threading.current_thread().name))
        return super().decide(request)


def _copies(n: int, delays: dict[str, float]) -> list[Any]:
    return [Slow(delays) for _ in range(n)]


def test_episodes_finishing_out_of_order_are_written_in_suite_order(episodes: list[Episode], tmp_path: Path) -> None:
    some = episodes[:6]
    delays = {e.id: 0.3 - 0.05 * i for i, e in enumerate(some)}  # the first episode is the slowest
    serial, parallel = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    run(ReferenceAgent("oracle"), some, serial)
    Slow.log.clear()
    first, *more = _copies(3, delays)
    summary = run(first, some, parallel, more=more)
    assert summary.ran == len(some)
    assert len({thread for _, thread in Slow.log}) > 1, "episodes must have run on several threads"
    finished_first = [eid for eid, _ in Slow.log]
    assert finished_first != sorted(finished_first, key=[e.id for e in some].index), "some must finish out of order"
    result = compare(serial, parallel)
    assert result.common == len(some) and result.same, result.lines()


def test_a_parallel_run_resumes_a_cut_trace(episodes: list[Episode], tmp_path: Path) -> None:
    some = episodes[:5]
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    run(ReferenceAgent("oracle"), some, whole)
    lines = whole.read_text().splitlines(keepends=True)
    ends = [i for i, line in enumerate(lines) if '"type":"episode_end"' in line]
    cut.write_text("".join(lines[: ends[1] + 1]) + lines[ends[1] + 1][:40])  # killed in episode 3
    first, *more = _copies(2, {})
    summary = run(first, some, cut, more=more)
    assert (summary.ran, summary.skipped) == (3, 2)
    assert compare(whole, cut).same
