"""The commands that play systems: `run` (any agent, serial or with episodes in flight on a
server), `prompts` (what a model would see, for replay) and `merge` (shard traces into one); and
how a system is built from the `run` options.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memriskbench.cli.episodes import EXIT_OK, load_episodes, select_episodes
from memriskbench.cli.outputs import check_output
from memriskbench.errors import MemRiskError


def make_system(args: argparse.Namespace) -> Any:
    from memriskbench.play.systems.backends import BACKENDS, backend_from_args
    from memriskbench.play.systems.reference import AGENTS, ReferenceAgent

    if args.agent in AGENTS:
        return ReferenceAgent(args.agent)
    if args.agent not in BACKENDS:
        raise MemRiskError(f"unknown agent {args.agent!r}; choose from {', '.join([*BACKENDS, *AGENTS])}")
    from memriskbench.play.systems.agent import ModelSystem
    from memriskbench.play.systems.strategies import STRATEGIES

    if args.strategy not in STRATEGIES:  # checked before a model is loaded or a server asked
        raise MemRiskError(f"unknown strategy {args.strategy!r}; choose from {', '.join(STRATEGIES)}")
    return ModelSystem(backend_from_args(args.agent, args), args.strategy, k=args.k)


def replay_system(args: argparse.Namespace) -> Any:
    args.agent = "replay"
    return make_system(args)


def _pending_path(args: argparse.Namespace) -> Path:
    if args.pending:
        return Path(args.pending)
    out = Path(args.out)
    return out.with_name(out.name.removesuffix(".jsonl") + ".pending.jsonl")


def _report_pending(system: Any, path: Path) -> None:
    """Write the steps that wait for a reply (replay), or remove an old pending file (only one:
    whatever else sits at that path is left alone)."""
    from memriskbench.play.systems.backends.replay import is_pending_file, write_pending

    pending = system.backend.pending
    if pending:
        write_pending(path, pending)
        print(f"{path}: {len(pending)} step(s) wait for a reply; add them to the answers and run again")
    elif path.is_file() and is_pending_file(path):
        path.unlink()


def cmd_run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from memriskbench.play.runner import run

    episodes = select_episodes(load_episodes(args.episodes, args.gatemem), args.subset, args.shard, args.limit)
    if args.parallel > 1 and args.agent != "openai":
        raise MemRiskError(
            "--parallel needs a server backend (--agent openai): one in-process model runs one episode at a time"
        )
    if args.answers and args.agent != "replay":
        raise MemRiskError("--answers goes with --agent replay")
    # Checked before anything runs: the trace resumes in place, but is no input's path, and the
    # pending file is written over (or removed) at the end, so it is neither the trace nor an input.
    check_output(args.out, args, "--out", trace_ok=True)
    if args.agent == "replay":
        check_output(_pending_path(args), args, "--pending", more=[("--out", Path(args.out))])
    system = make_system(args)
    more: list[Any] = []
    try:
        more.extend(make_system(args) for _ in range(args.parallel - 1))
        with tqdm(total=len(episodes), desc=system.name, unit="ep", disable=args.quiet, mininterval=1.0) as bar:
            summary = run(system, episodes, args.out, progress=bar.update, more=more)
    finally:
        for s in (system, *more):
            s.close()
    print(f"{args.out}: ran {summary.ran}, already done {summary.skipped}, terminations {summary.terminations}")
    if args.agent == "replay":
        _report_pending(system, _pending_path(args))
    return EXIT_OK


def cmd_prompts(args: argparse.Namespace) -> int:
    """The messages a model would see at each step that waits for a reply, without a trace."""
    from memriskbench.play.runner import play_buffered
    from memriskbench.play.systems.backends.replay import write_pending

    episodes = select_episodes(load_episodes(args.episodes, args.gatemem), args.subset, args.shard, args.limit)
    check_output(args.out, args, "--out")
    system = replay_system(args)
    done = sum(play_buffered(ep, system) is not None for ep in episodes)
    write_pending(args.out, system.backend.pending)
    print(f"{args.out}: {len(system.backend.pending)} step(s) wait for a reply; {done} episode(s) fully answered")
    return EXIT_OK


def cmd_merge(args: argparse.Namespace) -> int:
    from memriskbench.traces.merge import merge

    order = [e.id for e in load_episodes(args.episodes, args.gatemem)]
    check_output(args.out, args, "--out")
    n = merge(args.out, args.shards, order)
    print(f"{args.out}: {n} episode(s) from {len(args.shards)} shard(s)")
    return EXIT_OK
