"""Harness overhead: wall time of a llama system through the full harness, over the wall time of
a bare llama-cpp-python loop that evaluates exactly the same prompts, in the same process.

    python benchmarks/harness_overhead.py [--episodes N] [--pairs 3] [--strategy full] [--model default]

The two loops are interleaved (harness, bare, harness, bare, ...; at least 3 pairs) and the
median ratio is printed with its range: run one after the other, a change in the machine's load
shows up as harness "overhead" (or, as seen once, as a harness faster than the bare loop).
Target: ratio <= 1.10. Also prints the prefix-cache hit share (cached / prompt tokens).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pairs import interleaved, summary  # noqa: E402
from llama_cpp import Llama  # noqa: E402

from memriskbench.episodes.loader import load_all  # noqa: E402
from memriskbench.play.runner import run  # noqa: E402
from memriskbench.play.systems.agent import ModelSystem  # noqa: E402
from memriskbench.play.systems.backends.base import Completion  # noqa: E402
from memriskbench.play.systems.backends.greedy import GrammarFirst  # noqa: E402
from memriskbench.play.systems.backends.llama_cpp import LlamaCppBackend, LlamaSettings  # noqa: E402
from memriskbench.play.systems.grammar import schema_gbnf  # noqa: E402
from memriskbench.traces.records import Decision, MemoryOpRecord  # noqa: E402
from memriskbench.traces.trace import read_trace  # noqa: E402


class Recording(LlamaCppBackend):
    """The real backend, also keeping each prompt and schema it generated from, per episode."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[list[tuple[str, dict[str, Any]]]] = []

    def reset(self) -> None:
        self.calls.append([])
        super().reset()

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        self.calls[-1].append((self._render(messages), schema))
        return super().complete(messages, schema, key)


def load_bare(system: Recording) -> Llama:
    s = system.settings
    return Llama(
        model_path=str(system.info.path),
        n_ctx=s.n_ctx,
        n_threads=s.n_threads,
        n_threads_batch=s.n_threads,
        n_gpu_layers=s.n_gpu_layers,
        n_batch=s.n_batch,
        flash_attn=s.flash_attn,
        seed=s.seed,
        verbose=False,
    )


def bare_loop(llm: Llama, system: Recording, calls: list[list[tuple[str, dict[str, Any]]]]) -> list[str]:
    """The same prompts, one episode at a time from a reset state, with the same grammars and the
    same decoding (grammar-first greedy, `greedy.py`): what is left is the harness itself."""
    s = system.settings
    outputs: list[str] = []
    grammars: dict[str, str] = {}
    decoder = GrammarFirst(llm)
    for episode in calls:
        llm.reset()
        for prompt, schema in episode:
            key = json.dumps(schema)
            if key not in grammars:
                # the backend's own grammar (JSON-safe strings), or the loops would not decode alike
                grammars[key] = schema_gbnf(schema)
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            outputs.append(decoder.complete(tokens, grammars[key], s.max_tokens).text)
    return outputs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=4)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--strategy", default="full")
    ap.add_argument("--model", default="default")
    args = ap.parse_args()
    if args.pairs < 3:
        ap.error("--pairs must be at least 3")
    episodes, errors = load_all([ROOT / "episodes"])
    assert not errors
    episodes = sorted(episodes, key=lambda e: e.id)[: args.episodes]
    backend = Recording(args.model, LlamaSettings())
    system = ModelSystem(backend, args.strategy)
    with tempfile.TemporaryDirectory() as tmp:
        # Warm-up, untimed: the first evaluation pays the mmap page faults of the weights, which
        # would otherwise count against whichever loop runs first.
        run(system, episodes[:1], Path(tmp) / "warmup.jsonl")
        backend.calls.clear()
        out = Path(tmp) / "t.jsonl"
        run(system, episodes, out)  # records the prompts the bare loop replays
        calls = list(backend.calls)
        records = read_trace(out).records
        llm = load_bare(backend)
        outputs: list[list[str]] = []
        rounds = iter(range(args.pairs))

        def harness() -> None:
            run(system, episodes, Path(tmp) / f"h{next(rounds)}.jsonl")

        times = interleaved(harness, lambda: outputs.append(bare_loop(llm, backend, calls)), args.pairs)
        llm.close()
    system.close()
    raws = [r.raw_output for r in records if isinstance(r, (Decision, MemoryOpRecord))]
    prompt = sum(r.tokens["prompt"] for r in records if isinstance(r, (Decision, MemoryOpRecord)))
    cached = sum(r.tokens["cached"] for r in records if isinstance(r, (Decision, MemoryOpRecord)))
    print(f"episodes {len(episodes)}  completions {len(raws)}  strategy {args.strategy}  model {args.model}")
    print(f"same outputs in both loops: {all(o == raws for o in outputs)}")
    print(summary(times, 1.10))
    print(f"prefix-cache hit share {cached / prompt:.3f}  ({cached} of {prompt} prompt tokens)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
