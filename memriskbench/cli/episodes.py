"""Episodes for the command line: loaded from YAML and/or imported from GateMem, then chosen by
`--subset`, `--shard` and `--limit`; and the exit codes every command uses.

Exit codes: 0 success; 1 the input was read but found wanting (invalid episodes, a failed suite
check); 2 bad usage or unreadable input (a broken trace, a missing file).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memriskbench.common import jsonsafe
from memriskbench.episodes.episode import Episode
from memriskbench.episodes.loader import load_all
from memriskbench.errors import MemRiskError

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def load_episodes(paths: Sequence[str] | None, gatemem: str | None = None) -> list[Episode]:
    """Episodes from YAML paths and/or imported from a GateMem data folder (`--gatemem`)."""
    imported: list[Episode] = []
    if gatemem:
        from memriskbench.gatemem.importer import load_gatemem

        imported = load_gatemem(gatemem)
        if paths is None:
            return imported
    paths = paths or ["episodes"]
    episodes, errors = load_all(paths)
    episodes += imported
    if errors:
        for e in errors:
            print(e.render(), file=sys.stderr)
        raise SystemExit(EXIT_FAIL)
    if not episodes:
        print(f"no episodes found under {', '.join(paths)}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    return episodes


def _read_subset(path: str) -> list[str]:
    """Episode ids, one a line (`#` comments), or JSON {"episodes": [...]}; a one-line error
    naming the file for anything else."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MemRiskError(f"{path}: cannot read the subset file: {exc}") from None
    return parse_subset(path, text)


def parse_subset(path: str, text: str) -> list[str]:
    """The episode ids of a subset file's `text`, in order and as listed (a caller that must
    refuse an id listed twice sees it twice)."""
    if text.lstrip().startswith("{"):
        try:
            data = jsonsafe.loads(text)
        except jsonsafe.JSONError as exc:
            raise MemRiskError(f"{path}: subset file is not valid JSON: {exc}") from None
        ids = data.get("episodes") if isinstance(data, dict) else None
        if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids):
            raise MemRiskError(f'{path}: a JSON subset file holds {{"episodes": [list of episode ids]}}')
        wanted = ids
    else:
        wanted = [ln.split("#")[0].strip() for ln in text.splitlines() if ln.split("#")[0].strip()]
    if not wanted:
        raise MemRiskError(f"{path}: the subset file names no episode")
    return wanted


def select_episodes(episodes: list[Episode], subset: str | None, shard: str | None, limit: int | None) -> list[Episode]:
    episodes = sorted(episodes, key=lambda e: e.id)
    if subset:
        wanted = _read_subset(subset)
        known = {e.id for e in episodes}
        missing = [w for w in wanted if w not in known]
        if missing:
            raise MemRiskError(f"{subset}: unknown episode id(s): {', '.join(missing[:5])}")
        keep = set(wanted)
        episodes = [e for e in episodes if e.id in keep]
    if shard:
        try:
            i, n = (int(x) for x in shard.split("/"))
            assert 0 <= i < n
        except (ValueError, AssertionError):
            raise MemRiskError(f"--shard must be i/n with 0 <= i < n, got {shard!r}") from None
        episodes = episodes[i::n]
    if limit is not None:
        episodes = episodes[:limit]
    if not episodes:
        raise MemRiskError("no episode selected (check --subset, --shard and --limit)")
    return episodes
