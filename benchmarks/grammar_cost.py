"""What the JSON grammar costs per generated token: grammar-first greedy (the backend's way) and
the grammar over the whole vocabulary at every token (llama-cpp-python's way), each over free
greedy decoding with no grammar, on one real prompt.

    python benchmarks/grammar_cost.py [--pairs 3] [--tokens 40] [--models default gemma3-270m]

The prompt is the first decision of `r1-travel-gate-reassigned` as the `full` strategy renders it.
A figure is milliseconds per generated token: the time from the first token's choice to the
last's, over the tokens generated, each run from a reset state with the prompt evaluated
beforehand (untimed). The decoders run
interleaved (free, whole-vocabulary, grammar-first, free, ...; at least 3 rounds) and each ratio
is the median over the rounds, printed with its range. Grammar-first keeps what it learns about
grammar states from one completion to the next, as it does in a run, where every decision spells
the same keys: the first round pays for it, the median is the steady state. Target: grammar-first / free <= 1.15.
Also checked on the way: grammar-first gives the same tokens as the whole-vocabulary grammar and
the same text as llama-cpp-python's `create_completion`.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from llama_cpp import LlamaGrammar  # noqa: E402

from memriskbench.episodes.loader import load_all  # noqa: E402
from memriskbench.play.runner import run  # noqa: E402
from memriskbench.play.systems.agent import ModelSystem  # noqa: E402
from memriskbench.play.systems.backends.base import Completion  # noqa: E402
from memriskbench.play.systems.backends.greedy import GrammarFirst  # noqa: E402
from memriskbench.play.systems.backends.llama_cpp import LlamaCppBackend, LlamaSettings  # noqa: E402
from memriskbench.play.systems.grammar import schema_gbnf  # noqa: E402

EPISODE = "r1-travel-gate-reassigned"


class _Got(Exception):
    """The first prompt is in hand: the run that made it can stop."""


class FirstPrompt(LlamaCppBackend):
    """The real backend; keeps the first prompt and schema it is asked to complete, then stops."""

    prompt: list[int] | None = None
    schema: dict[str, Any] | None = None

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        self.prompt = self.llm.tokenize(self._render(messages).encode("utf-8"), add_bos=False, special=True)
        self.schema = schema
        raise _Got


def free(dec: GrammarFirst, prompt: list[int], n: int) -> tuple[list[int], float]:
    """Greedy with no grammar: the argmax, token after token, as the backend evaluates them.
    Returns the tokens and the seconds spent generating them (the prompt's evaluation aside)."""
    llm, out = dec.llm, []
    llm.reset()
    llm.eval(list(prompt))
    t0 = time.perf_counter()
    while len(out) < n:
        token = int(np.argmax(dec.logits()))
        if dec.lib.llama_vocab_is_eog(dec.vocab, token):
            break
        out.append(token)
        if len(out) < n:
            llm.eval([token])
    return out, time.perf_counter() - t0


def constrained(dec: GrammarFirst, prompt: list[int], grammar: str, n: int, whole: bool) -> tuple[list[int], float]:
    """Greedy under the grammar: grammar-first, or the grammar over every candidate (`whole`)."""
    lib, llm, out = dec.lib, dec.llm, []
    llm.reset()
    llm.eval(list(prompt))
    g = lib.llama_sampler_init_grammar(dec.vocab, grammar.encode("utf-8"), b"root")
    t0 = time.perf_counter()
    try:
        while len(out) < n:
            token = dec.pick_allowed(g, dec.logits()) if whole else dec._pick(g, (grammar, tuple(out)))
            lib.llama_sampler_accept(g, token)
            if lib.llama_vocab_is_eog(dec.vocab, token):
                break
            out.append(token)
            if len(out) < n:
                llm.eval([token])
    finally:
        lib.llama_sampler_free(g)
    return out, time.perf_counter() - t0


def per_token(result: tuple[list[int], float]) -> float:
    tokens, seconds = result
    return 1000 * seconds / max(1, len(tokens))


def measure(model: str, pairs: int, tokens: int) -> list[str]:
    episodes, errors = load_all([ROOT / "episodes"])
    assert not errors
    ep = next(e for e in episodes if e.id == EPISODE)
    backend = FirstPrompt(model, LlamaSettings())
    system = ModelSystem(backend, "full")
    with tempfile.TemporaryDirectory() as tmp, contextlib.suppress(_Got):
        run(system, [ep], Path(tmp) / "t.jsonl")
    assert backend.prompt is not None and backend.schema is not None
    prompt, grammar = backend.prompt, schema_gbnf(backend.schema)
    dec = GrammarFirst(backend.llm)
    first, _ = constrained(dec, prompt, grammar, tokens, whole=False)
    whole, _ = constrained(dec, prompt, grammar, tokens, whole=True)
    backend.llm.reset()
    ref = backend.llm.create_completion(
        prompt=prompt,
        max_tokens=tokens,
        temperature=0.0,
        repeat_penalty=1.0,
        grammar=LlamaGrammar.from_string(grammar, verbose=False),
        seed=0,
    )
    ref_text = ref["choices"][0]["text"]  # type: ignore[index]
    same_text = backend.llm.detokenize(first, prev_tokens=prompt).decode("utf-8", errors="ignore") == ref_text
    rows: dict[str, list[float]] = {"free": [], "whole": [], "first": []}
    dec.refusals = 0
    for _ in range(pairs):
        rows["free"].append(per_token(free(dec, prompt, tokens)))
        rows["whole"].append(per_token(constrained(dec, prompt, grammar, tokens, True)))
        rows["first"].append(per_token(constrained(dec, prompt, grammar, tokens, False)))
    refused = dec.refusals / pairs
    system.close()
    vocab = dec.n_vocab
    r_whole = [w / f for w, f in zip(rows["whole"], rows["free"], strict=True)]
    r_first = [g / f for g, f in zip(rows["first"], rows["free"], strict=True)]
    out = [
        f"{model}: vocabulary {vocab:,}, {len(first)} tokens under the grammar, "
        f"{refused:.0f} of them refused at the raw argmax"
    ]
    out.append(
        f"  same tokens, grammar-first and whole-vocabulary: {first == whole}; same text as create_completion: {same_text}"
    )
    for name in ("free", "whole", "first"):
        out.append(f"  {name:5} ms/token " + " ".join(f"{v:.1f}" for v in rows[name]))
    out.append(
        f"  whole-vocabulary grammar / free: median {statistics.median(r_whole):.2f} (range {min(r_whole):.2f}-{max(r_whole):.2f})"
    )
    out.append(
        f"  grammar-first / free: median {statistics.median(r_first):.2f} (range {min(r_first):.2f}-{max(r_first):.2f}; target <= 1.15)"
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=40)
    ap.add_argument("--models", nargs="+", default=["default", "gemma3-270m"])
    args = ap.parse_args()
    if args.pairs < 3:
        ap.error("--pairs must be at least 3")
    for model in args.models:
        print("\n".join(measure(model, args.pairs, args.tokens)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
