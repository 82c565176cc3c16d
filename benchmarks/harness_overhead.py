"""Harness overhead: wall time of a llama system through the full harness, over the wall time of
a bare llama-cpp-python loop that evaluates exactly the same prompts, in the same process.

    python benchmarks/harness_overhead.py [--episodes N] [--strategy full] [--model default]

Target: ratio <= 1.10. Also prints the prefix-cache hit share (cached / prompt tokens).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llama_cpp import Llama, LlamaGrammar  # noqa: E402

from memriskbench.loader import load_all  # noqa: E402
from memriskbench.runner import run  # noqa: E402
from memriskbench.systems.agent import ModelSystem  # noqa: E402
from memriskbench.systems.backends.base import Completion  # noqa: E402
from memriskbench.systems.backends.llama_cpp import LlamaCppBackend, LlamaSettings  # noqa: E402
from memriskbench.trace import Decision, MemoryOpRecord, read_trace  # noqa: E402


class Recording(LlamaCppBackend):
    """The real backend, also keeping each prompt and schema it generated from, per episode."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[list[tuple[str, dict[str, Any]]]] = []

    def reset(self) -> None:
        self.calls.append([])
        super().reset()

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Completion:
        self.calls[-1].append((self._render(messages), schema))
        return super().complete(messages, schema)


def bare_loop(system: Recording, calls: list[list[tuple[str, dict[str, Any]]]]) -> tuple[float, list[str]]:
    s = system.settings
    llm = Llama(
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
    outputs: list[str] = []
    t0 = time.perf_counter()
    grammars: dict[str, LlamaGrammar] = {}
    for episode in calls:
        llm.reset()
        for prompt, schema in episode:
            key = json.dumps(schema)
            if key not in grammars:
                grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            out = llm.create_completion(
                prompt=tokens,
                max_tokens=s.max_tokens,
                temperature=0.0,
                repeat_penalty=1.0,
                grammar=grammars[key],
                seed=s.seed,
            )
            outputs.append(out["choices"][0]["text"])  # type: ignore[index]
    elapsed = time.perf_counter() - t0
    llm.close()
    return elapsed, outputs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=4)
    ap.add_argument("--strategy", default="full")
    ap.add_argument("--model", default="default")
    args = ap.parse_args()
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
        t0 = time.perf_counter()
        run(system, episodes, out)
        harness = time.perf_counter() - t0
        records = read_trace(out).records
    system.close()
    bare, outputs = bare_loop(backend, backend.calls)
    raws = [r.raw_output for r in records if isinstance(r, (Decision, MemoryOpRecord))]
    prompt = sum(r.tokens["prompt"] for r in records if isinstance(r, (Decision, MemoryOpRecord)))
    cached = sum(r.tokens["cached"] for r in records if isinstance(r, (Decision, MemoryOpRecord)))
    print(f"episodes {len(episodes)}  completions {len(outputs)}  strategy {args.strategy}  model {args.model}")
    print(f"same outputs in both loops: {raws == outputs}")
    print(f"harness {harness:.2f} s   bare {bare:.2f} s   ratio harness/bare {harness / bare:.3f}  (target <= 1.10)")
    print(f"prefix-cache hit share {cached / prompt:.3f}  ({cached} of {prompt} prompt tokens)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
