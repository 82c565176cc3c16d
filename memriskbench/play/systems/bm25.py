"""Okapi BM25 ranking in numpy, for the retrieval strategies."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

TOKEN = re.compile(r"[a-z0-9]+")
K1, B = 1.5, 0.75


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def bm25_scores(query: str, docs: Sequence[str]) -> np.ndarray:
    """One score per document; documents sharing no term with the query score 0."""
    if not docs:
        return np.zeros(0)
    doc_tokens = [tokens(d) for d in docs]
    vocab = {t: i for i, t in enumerate(sorted({t for d in doc_tokens for t in d}))}
    tf = np.zeros((len(docs), max(len(vocab), 1)))
    for row, toks in enumerate(doc_tokens):
        for t in toks:
            tf[row, vocab[t]] += 1
    q = [vocab[t] for t in dict.fromkeys(tokens(query)) if t in vocab]
    if not q:
        return np.zeros(len(docs))
    lengths = tf.sum(axis=1)
    avg = lengths.mean() if lengths.mean() > 0 else 1.0
    df = (tf[:, q] > 0).sum(axis=0)
    n = len(docs)
    idf = np.log((n - df + 0.5) / (df + 0.5) + 1.0)
    f = tf[:, q]
    denom = f + K1 * (1 - B + B * lengths[:, None] / avg)
    return np.asarray((idf * f * (K1 + 1) / denom).sum(axis=1))


def top_k(query: str, docs: Sequence[str], k: int) -> list[int]:
    """Indices of the k best documents with a positive score, ties broken by position."""
    scores = bm25_scores(query, docs)
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], i))
    return [i for i in order[:k] if scores[i] > 0]
