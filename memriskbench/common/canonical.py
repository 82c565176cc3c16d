"""Canonical JSON and hashing: the byte form of every trace line (so of the hash chain) and of
the reference agents' context hashes. Episode digests (`episode.episode_digest`) hash the loaded
YAML with dates written as strings instead, so they do not go through `dumps`."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(obj: Any) -> str:
    """Sorted keys, no spaces, UTF-8 characters as they are. A lone surrogate (a model can emit
    "\\ud83d" alone) cannot be UTF-8: it stays a JSON escape, which reads back as the same string,
    so any text a model produces can be recorded and re-verified."""
    return escape_surrogates(
        json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    )


def escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as its escape: valid UTF-8, the same string."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_obj(obj: Any) -> str:
    return sha256_text(dumps(obj))
