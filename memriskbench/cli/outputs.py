"""Where commands write their files: never over a trace, and never over a file the same command
reads. Each output path is checked before any work is done, and the check names the path.

Paths are compared resolved (symlinks followed) and by inode where both exist, so a symlink or a
hard link to an input is caught too. Writing itself is atomic (`common.jsonsafe.write_lines`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from memriskbench.errors import MemRiskError

Named = tuple[str, Path]  # what an input is (for the message), and its path


def inputs_of(args: argparse.Namespace) -> list[Named]:
    """Every file the command reads: episode files (YAML and GateMem's), a subset file, an
    answers file, traces, shards and published results."""
    from memriskbench.episodes.loader import episode_files

    out: list[Named] = []
    for flag in ("answers", "subset", "published"):
        value = getattr(args, flag, None)
        if value:
            out.append((f"--{flag}", Path(value)))
    out += [("a trace", Path(t)) for t in getattr(args, "traces", None) or []]
    out += [("a shard", Path(s)) for s in getattr(args, "shards", None) or []]
    gatemem = getattr(args, "gatemem", None)
    if hasattr(args, "episodes") and not (gatemem and args.episodes is None):
        out += [("an episode file", f) for f in episode_files(args.episodes or ["episodes"])]
    if gatemem:
        from memriskbench.gatemem.importer import domain_dirs

        folders = [Path(gatemem)]
        with contextlib.suppress(MemRiskError):
            folders = domain_dirs(gatemem)
        out += [("a GateMem file", f / name) for f in folders for name in ("episodes.jsonl", "checkpoints.jsonl")]
    return out


def _same(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): the resolved paths already differ
        return False


def check_output(
    path: str | Path, args: argparse.Namespace, flag: str, *, more: Sequence[Named] = (), trace_ok: bool = False
) -> None:
    """Refuse (MemRiskError, naming `path`) an output that is an input of this command or one of
    `more`, or, unless `trace_ok` (a run resumes its own trace), that holds a trace."""
    from memriskbench.traces.trace import holds_trace

    out = Path(path)
    for what, src in [*more, *inputs_of(args)]:
        if _same(out, src):
            where = "" if str(src) == str(out) else f" ({src})"
            raise MemRiskError(
                f"{out}: {flag} would overwrite {what}{where}, which this command reads; give another path"
            )
    if out.is_dir():
        raise MemRiskError(f"{out}: {flag} is a folder; give a file path")
    if not trace_ok and holds_trace(out):
        raise MemRiskError(f"{out}: {flag} would overwrite a trace; refusing, give another path")
