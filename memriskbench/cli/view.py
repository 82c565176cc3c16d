"""`memriskbench view`: write the static site of some traces into a folder."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from memriskbench.cli.episodes import EXIT_FAIL, EXIT_OK, load_episodes
from memriskbench.cli.outputs import inputs_of
from memriskbench.errors import MemRiskError

MARK = "data/overview.js"  # what every site made by `view` holds


def _check_folder(out: Path, args: argparse.Namespace) -> None:
    """The site goes into a new, empty or earlier-site folder that holds none of the inputs."""
    if out.exists() and not out.is_dir():
        raise MemRiskError(f"{out}: --out is a file; give a folder")
    root = os.path.realpath(out)
    for what, src in inputs_of(args):
        if os.path.realpath(src).startswith(root + os.sep):
            raise MemRiskError(f"{out}: --out holds {what} ({src}), which this command reads; give another folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARK).is_file():
        raise MemRiskError(f"{out}: --out is a folder that is neither empty nor a site made by view; give another")


def cmd_view(args: argparse.Namespace) -> int:
    from memriskbench.results.view.site import build_site

    out = Path(args.out)
    _check_folder(out, args)
    started = time.monotonic()
    by_id = {e.id: e for e in load_episodes(args.episodes, args.gatemem)}
    got = build_site(args.traces, by_id, out, args.published)
    for w in got["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    print(
        f"{out}: {got['systems']} system(s), {got['files']} file(s), {got['bytes'] / 1e6:.1f} MB "
        f"in {time.monotonic() - started:.1f} s; open {out / 'index.html'}"
    )
    return EXIT_FAIL if got["warnings"] else EXIT_OK
