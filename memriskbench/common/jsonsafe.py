"""JSON in and out of files that may be hostile: one loader that turns every way a text can be bad
into a `JSONError` (a ValueError with a one-line message), and an atomic writer for output files.

Python's `json.loads` raises more than `JSONDecodeError`: a RecursionError on deep nesting, a
plain ValueError on an integer of more than 4,300 digits (the int max-str-digits limit), and it
reads NaN and Infinity, which no JSON allows. Every reader of a file the user hands us (traces,
answers, published results) goes through `loads`, so none of these becomes a traceback.

`write_lines` writes a temporary file in the target's folder and renames it over the target, so
a failed or interrupted write leaves the old file as it was, never a truncated one.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memriskbench.common.canonical import escape_surrogates
from memriskbench.errors import MemRiskError

# Far deeper than any file this tool writes needs (a trace line nests about ten levels, results
# and GateMem files fewer), and shallow enough that every recursive walk over a loaded value stays
# below Python's recursion limit of 1000 frames: the scorer takes about three frames a level of a
# model's tool arguments, and fails near 330 levels.
MAX_DEPTH = 200
# What a model's reply may nest, for the parser of replies (`play.actions`): a trace record holds
# the reply's JSON a few levels down (decision.action.args, decision.tool_result, memory_op.op),
# so every reply recorded stays readable by `loads`.
MODEL_DEPTH = MAX_DEPTH - 10


class JSONError(ValueError):
    """Text that is not JSON this tool accepts; the message says why, in one line."""


def _no_constant(name: str) -> Any:
    raise JSONError(f"not JSON: {name} is not a JSON number")


def depth(obj: Any) -> int:
    """Nesting depth of a loaded value (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, level + 1)
            stack.extend((v, level + 1) for v in value if isinstance(v, (dict, list)))
    return deepest


def loads(text: str, *, constants: bool = False, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, or JSONError. `constants`: read NaN and Infinity as floats (a caller that
    then names the field that holds one); by default they are refused. `max_depth`: the deepest
    nesting accepted (Python's own parser gives up near 1000 levels, as a RecursionError)."""
    try:
        obj = json.loads(text) if constants else json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}" if "\n" in text.rstrip() else f"column {exc.colno}"
        raise JSONError(f"not JSON: {exc.msg} ({where})") from None
    except RecursionError:
        raise JSONError(f"not JSON this tool reads: nested deeper than {max_depth} levels") from None
    except JSONError:
        raise
    except ValueError as exc:  # the int max-str-digits limit (the message says so) and nothing else known
        raise JSONError(f"not JSON this tool reads: {str(exc).split(';')[0][:160]}") from None
    # Counting brackets is cheap and bounds the depth from above, so almost no text is walked.
    if text.count("[") + text.count("{") > max_depth and depth(obj) > max_depth:
        raise JSONError(f"not JSON this tool reads: nested deeper than {max_depth} levels")
    return obj


def line(obj: Any) -> str:
    """One JSON line (sorted keys, UTF-8 as it is). A lone surrogate (a model's "\\ud83d" alone)
    cannot be UTF-8, so it stays a JSON escape, which reads back as the same string."""
    return escape_surrogates(json.dumps(obj, ensure_ascii=False, sort_keys=True)) + "\n"


def write_lines(path: str | Path, lines: Iterable[str]) -> int:
    """Write `lines` to `path` atomically (through a symlink, to its target); returns how many.
    A failure is a MemRiskError naming `path`, and leaves `path` as it was."""
    target = Path(os.path.realpath(path))
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    n = 0
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # os.open with a mode (not mkstemp's 0600) gives the file the permissions of any new file.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                for text in lines:
                    fh.write(text)
                    n += 1
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()
    except OSError as exc:
        raise MemRiskError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return n


def write_text(path: str | Path, text: str) -> None:
    """`write_lines` for one text."""
    write_lines(path, [text])
