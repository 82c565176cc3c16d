"""Canonical JSON and hashing: the byte form of every trace line (so of the hash chain) and of
the reference agents' context hashes. Episode digests (`episode.episode_digest`) hash the loaded
YAML with dates written as strings instead, so they do not go through `dumps`."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_obj(obj: Any) -> str:
    return sha256_text(dumps(obj))
