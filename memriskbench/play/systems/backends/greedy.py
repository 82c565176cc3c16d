"""Grammar-first greedy decoding on llama-cpp-python's low-level API: the same tokens as
`Llama.create_completion(temperature=0, grammar=...)`, without applying the grammar to the whole
vocabulary at every step.

Under greedy decoding the token with the highest logit among those the grammar allows is the
overall highest whenever the grammar allows the overall highest. So each step takes the argmax of
the raw logits and asks the grammar about that one token; only when the grammar refuses it is
the grammar applied to the 1,024 highest-scoring tokens, and if it allows none of them, to every
candidate; the argmax of what is left is taken (llama-server's own sampler also asks about the
argmax first). Where the whole vocabulary had to be asked and the grammar allowed only a few
tokens (a schema's keys, spelled token by token), the answer is kept for that grammar state, so
the next completion that reaches it takes the argmax over those few directly. Ties go to the lowest token id, as llama.cpp's greedy sampler breaks
them. The grammar's cost per token drops from the vocabulary's size to one token on most steps.

Everything else is what `create_completion` does, step for step, so that the key-value cache and
every logit are the same: the longest cached prefix is kept (one token is replayed when the whole
prompt is cached), the rest of the prompt is evaluated in `n_batch` chunks, each sampled token is
evaluated alone before the next is sampled, the last one is never evaluated, an end-of-generation
token stops without being part of the text, and the text is the completion's tokens detokenized
after the prompt's, decoded from UTF-8 with errors ignored.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

# When the grammar refuses the raw argmax, it is asked about this many of the highest-scoring
# tokens before the whole vocabulary: the allowed continuation is nearly always among them.
TOP = 1024
# Grammar states whose allowed tokens are remembered: those allowing at most SMALL tokens, at most
# STATES of them per model. A state is the grammar and the tokens it accepted, so the same state
# always allows the same tokens, whatever the prompt.
SMALL = 4096
STATES = 20_000


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    tokens: int  # completion tokens, as create_completion counts them
    cut: bool  # stopped by max_tokens


class GrammarFirst:
    """Greedy decoding under a GBNF grammar for one `Llama`; a fresh grammar state per completion."""

    def __init__(self, llm: Any) -> None:
        import llama_cpp.llama_cpp as lib

        self.lib = lib
        self.llm = llm
        self.vocab = lib.llama_model_get_vocab(llm.model)
        self.n_vocab = int(llm.n_vocab())
        self._one = lib.llama_token_data_array()
        self._one_data = (lib.llama_token_data * 1)()
        self._all_data = (lib.llama_token_data * self.n_vocab)()
        self._all = lib.llama_token_data_array()
        ids = np.arange(self.n_vocab, dtype=np.intc)
        self._view = np.ctypeslib.as_array(self._all_data)  # a structured view: id, logit, p
        self._view["id"] = ids
        self.refusals = 0  # steps where the grammar refused the raw argmax (for benchmarks)
        self._allowed: dict[Any, np.ndarray] = {}  # grammar state -> its few allowed token ids
        self._near_data = (lib.llama_token_data * (TOP * 4))()
        self._near = lib.llama_token_data_array()
        self._near_view = np.ctypeslib.as_array(self._near_data)

    def _prefix(self, tokens: list[int]) -> list[int]:
        """Keep the cached prefix, as `Llama.generate` does; the tokens still to evaluate."""
        llm = self.llm
        if llm.n_tokens == 0:
            return tokens
        longest = 0
        for a, b in zip(llm._input_ids, tokens, strict=False):
            if a != b:
                break
            longest += 1
        consumed = longest == len(tokens)
        if consumed and llm.n_tokens == len(tokens) and not llm._requires_eval:
            return []  # the whole prompt is cached with live logits: sample at once
        reuse = longest - 1 if consumed else longest
        if reuse > 0 and llm._ctx.kv_cache_seq_rm(-1, reuse, -1):
            llm.n_tokens = reuse
            return tokens[reuse:]
        llm.reset()
        return tokens

    def logits(self) -> np.ndarray:
        """The last evaluated token's logits, without a copy."""
        ptr = self.lib.llama_get_logits_ith(self.llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))

    def _pick(self, grammar: Any, state: Any = None) -> int:
        """The raw argmax if the grammar allows it, else the argmax of what it allows. `state` names
        the grammar's state (its text and the tokens it has accepted): where the grammar allowed
        only a few tokens before, in that very state, the argmax is taken over them directly."""
        logits = self.logits()
        allowed = self._allowed.get(state) if state is not None else None
        if allowed is not None:
            return int(allowed[int(np.argmax(logits[allowed]))])  # ids ascending: ties to the lowest
        best = int(np.argmax(logits))
        one = self._one_data[0]
        one.id = best  # type: ignore[assignment]
        one.logit = float(logits[best])
        one.p = 0.0
        self._one.data = self._one_data
        self._one.size = 1
        self._one.selected = -1
        self._one.sorted = False
        self.lib.llama_sampler_apply(grammar, ctypes.byref(self._one))
        if np.isfinite(one.logit):
            return best
        self.refusals += 1
        return self._pick_near_top(grammar, logits, state)

    def _pick_near_top(self, grammar: Any, logits: np.ndarray, state: Any = None) -> int:
        """The grammar over the tokens at or above the TOP-th highest logit (ties included, in id
        order): if it allows any, the best of them is the best it allows at all, since every
        other token scores strictly lower. Else the whole vocabulary."""
        kth = np.partition(logits, self.n_vocab - TOP)[self.n_vocab - TOP]
        near = np.flatnonzero(logits >= kth)
        if near.size > len(self._near_data):
            return self.pick_allowed(grammar, logits, state)
        view = self._near_view[: near.size]
        view["id"] = near
        view["logit"] = logits[near]
        view["p"] = 0.0
        self._near.data = self._near_data
        self._near.size = near.size
        self._near.selected = -1
        self._near.sorted = False
        self.lib.llama_sampler_apply(grammar, ctypes.byref(self._near))
        kept = view["logit"][: self._near.size]
        if not np.isfinite(kept).any():
            return self.pick_allowed(grammar, logits, state)
        return int(view["id"][int(np.argmax(kept))])

    def pick_allowed(self, grammar: Any, logits: np.ndarray, state: Any = None) -> int:
        """The grammar over every candidate, then the argmax of what is left: what llama-cpp-python
        does at every step (and what `benchmarks/grammar_cost.py` times as the old way). A small
        allowed set is remembered for the state (the keys of a schema: `"a" "ction"`)."""
        self._view["logit"] = logits
        self._view["p"] = 0.0
        self._all.data = self._all_data
        self._all.size = self.n_vocab
        self._all.selected = -1
        self._all.sorted = False
        self.lib.llama_sampler_apply(grammar, ctypes.byref(self._all))
        allowed = self._view["logit"][: self._all.size]
        if state is not None and len(self._allowed) < STATES:
            ids = np.flatnonzero(np.isfinite(allowed))
            if ids.size <= SMALL:
                self._allowed[state] = ids.astype(np.intp)
        return int(self._view["id"][int(np.argmax(allowed))])

    def complete(self, prompt: list[int], grammar_text: str, max_tokens: int) -> Decoded:
        lib, llm = self.lib, self.llm
        grammar = lib.llama_sampler_init_grammar(self.vocab, grammar_text.encode("utf-8"), b"root")
        if not grammar:
            raise ValueError("the grammar does not parse")
        try:
            todo = self._prefix(list(prompt))
            completion: list[int] = []
            cut = True
            while True:
                llm.eval(todo)
                token = self._pick(grammar, (grammar_text, tuple(completion)))
                lib.llama_sampler_accept(grammar, token)
                if lib.llama_vocab_is_eog(self.vocab, token):
                    cut = False
                    break
                completion.append(token)
                if len(completion) >= max_tokens:
                    break
                todo = [token]
        finally:
            lib.llama_sampler_free(grammar)
        text = llm.detokenize(completion, prev_tokens=list(prompt)).decode("utf-8", errors="ignore")
        return Decoded(text, len(completion), cut)
