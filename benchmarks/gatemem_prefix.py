"""Prefix reuse on a long GateMem episode: tokens the model evaluates when each checkpoint's
prompt extends the previous one (what the runner does: one pass, the `full` strategy's history
growing append-only, llama-cpp-python keeping the evaluated prefix), against the tokens it would
evaluate if every checkpoint's prompt were evaluated from scratch.

    python benchmarks/gatemem_prefix.py [--gatemem ../shared/gatemem/medical] [--episode ID]

Both counts come from one real run (SmolLM2, `full`, n_ctx 8192): the trace records, per
decision, the prompt's length and how many of its leading tokens were already evaluated. The
default episode is the shortest medical one, so that its whole history fits SmolLM2's context.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memriskbench.gatemem.importer import load_gatemem  # noqa: E402
from memriskbench.play.runner import run  # noqa: E402
from memriskbench.play.systems.backends.llama_cpp import LlamaSettings  # noqa: E402
from memriskbench.play.systems.llama import llama_system  # noqa: E402
from memriskbench.traces.records import Decision, EpisodeEnd  # noqa: E402
from memriskbench.traces.trace import read_trace  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gatemem", default=str(ROOT.parent / "shared" / "gatemem" / "medical"))
    ap.add_argument("--episode", help="episode id (default: the one with the least text)")
    ap.add_argument("--model", default="default")
    ap.add_argument("--n-ctx", type=int, default=8192)
    args = ap.parse_args()
    episodes = load_gatemem(args.gatemem)
    if args.episode:
        chosen = [e for e in episodes if e.id == args.episode]
        if not chosen:
            ap.error(f"no episode {args.episode!r} under {args.gatemem}")
        ep = chosen[0]
    else:
        ep = min(episodes, key=lambda e: (sum(len(x.text) for x in e.events), e.id))
    system = llama_system(args.model, "full", LlamaSettings(n_ctx=args.n_ctx))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "trace.jsonl"
        t0 = time.perf_counter()
        try:
            run(system, [ep], out)
        finally:
            system.close()
        wall = time.perf_counter() - t0
        records = read_trace(out).records
    decisions = [r for r in records if isinstance(r, Decision)]
    end = next(r for r in records if isinstance(r, EpisodeEnd))
    prompt = sum(d.tokens["prompt"] for d in decisions)
    evaluated = sum(d.tokens["prompt"] - d.tokens["cached"] for d in decisions)
    generated = sum(d.tokens["completion"] for d in decisions)
    longest = max(d.tokens["prompt"] for d in decisions)
    errors = sum(1 for d in decisions if d.action is None)
    print(f"episode {ep.id}: {ep.turns} turns, {len(decisions)} checkpoints, termination {end.termination}")
    print(f"prompt tokens, every checkpoint from scratch : {prompt}")
    print(f"prompt tokens evaluated with prefix reuse    : {evaluated}")
    print(f"longest prompt (the episode's token count)   : {longest}")
    print(f"generated tokens                             : {generated}")
    print(f"decisions without a parsed action            : {errors}")
    print(f"wall time                                    : {wall:.1f} s")
    print(f"evaluated-token ratio, from scratch / reuse  : {prompt / max(evaluated, 1):.1f}x")
    print(f"evaluated with reuse / longest prompt        : {evaluated / max(longest, 1):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
