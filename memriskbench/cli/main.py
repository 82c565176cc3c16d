"""The `memriskbench` command line: its parser and `main`. The commands that play systems live in
`cli_run`, those that read traces and episodes in `cli_score`.

Exit codes: 0 success; 1 the input was read but found wanting (invalid episodes, a failed suite
check); 2 bad usage or unreadable input (a broken trace, a missing file).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memriskbench.cli.episodes import EXIT_OK, EXIT_USAGE
from memriskbench.cli.run import cmd_merge, cmd_prompts, cmd_run
from memriskbench.cli.score import (
    cmd_audit,
    cmd_check_suite,
    cmd_compare,
    cmd_counts,
    cmd_export_gatemem,
    cmd_import_gatemem,
    cmd_report,
    cmd_score,
    cmd_select,
    cmd_validate,
)
from memriskbench.cli.view import cmd_view
from memriskbench.errors import MemRiskError


def _episode_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--episodes", nargs="+", help="episode files or folders (default: episodes, unless --gatemem is given alone)"
    )
    p.add_argument(
        "--gatemem",
        metavar="DIR",
        help="also import GateMem data (a domain folder or a folder of them) and use its episodes",
    )


def _whole(text: str, least: int, most: int | None = None) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < least:
        raise argparse.ArgumentTypeError(f"{text} must be at least {least}")
    if most is not None and n > most:
        raise argparse.ArgumentTypeError(f"{text} must be at most {most}")
    return n


def _count(text: str) -> int:
    """A whole number of at least 1, for argparse."""
    return _whole(text, 1)


# Episodes in flight at once: each holds a connection and a thread, and a server serves a few
# requests at a time; 100,000 threads never start.
MAX_PARALLEL = 64


def _parallel(text: str) -> int:
    return _whole(text, 1, MAX_PARALLEL)


# Bounds on the sizes of a run and a selection: far beyond any sensible value, and low enough that
# a typo (an extra few zeros) is refused at once rather than taking the machine's memory or hours.
MAX_RESAMPLES = 100_000  # seeds per stochastic baseline in select's method table (default 1000)
# The shortest prompt is some 1,800 characters (about 400 tokens), so 256 tokens hold none; 2**20
# is above any local model's window.
MIN_N_CTX, MAX_N_CTX = 256, 1_048_576
MAX_TOKENS = 65_536  # a reply is one JSON action (the default 256 fits every one)


def _resamples(text: str) -> int:
    return _whole(text, 1, MAX_RESAMPLES)


def _n_ctx(text: str) -> int:
    return _whole(text, MIN_N_CTX, MAX_N_CTX)


def _max_tokens(text: str) -> int:
    return _whole(text, 1, MAX_TOKENS)


def _seed(text: str) -> int:
    """A seed for numpy's generators, which take no negative number."""
    return _whole(text, 0)


# A day: far more than any request takes; a larger number overflows the socket's timer.
MAX_TIMEOUT_S = 86_400.0


def _number(text: str, ok: Callable[[float], bool], rule: str) -> float:
    """A float for argparse that satisfies `ok` (written so that NaN fails it), else `rule`."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not ok(x):
        raise argparse.ArgumentTypeError(f"{text} must be {rule}")
    return x


def _seconds(text: str) -> float:
    """A finite number of seconds above 0 and at most a day."""
    return _number(
        text, lambda x: 0.0 < x <= MAX_TIMEOUT_S, f"a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}"
    )


def _fraction(text: str) -> float:
    """A share in (0, 1]."""
    return _number(text, lambda x: 0.0 < x <= 1.0, "in (0, 1]")


def _weight(text: str) -> float:
    return _number(text, lambda x: math.isfinite(x) and x >= 0, "a finite number >= 0")


def _replay_args(g: Any) -> None:
    g.add_argument(
        "--answers",
        help='JSON lines {"key": "episode/decision/step", "reply": "..."}; steps without one are pending',
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="memriskbench", description=__doc__.splitlines()[0] if __doc__ else None)
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate episode files")
    v.add_argument("paths", nargs="*", default=["episodes"])
    v.add_argument("--no-lint", action="store_true", help="structure and graph only; skip the suite lint")
    v.add_argument("--counts", action="store_true", help="also print the counts by risk, tier and domain")
    v.add_argument(
        "--notes", action="store_true", help="also list record values too generic for the ambient checks (not errors)"
    )
    v.add_argument(
        "--aliases", action="store_true", help="also list the protected records whose description value needs aliases"
    )
    v.set_defaults(fn=cmd_validate)
    r = sub.add_parser("run", help="play a system on episodes and write a trace (resumable)")
    r.add_argument("--agent", required=True)
    _episode_args(r)
    r.add_argument("--limit", type=_count)
    r.add_argument("--subset")
    r.add_argument("--shard")
    r.add_argument("--out", required=True)
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument(
        "--parallel",
        type=_parallel,
        default=1,
        help=f"episodes in flight at once (--agent openai), at most {MAX_PARALLEL}; the trace is in suite order",
    )
    llama = r.add_argument_group("llama", "settings of --agent llama and --agent openai (recorded in the trace header)")
    llama.add_argument(
        "--model",
        default="default",
        help="llama: default (SmolLM2-135M Q4_1), gemma3-270m, or a path to a .gguf; openai: the server's model id",
    )
    llama.add_argument("--strategy", default="full", help="full, recency, rag, rag-policy or managed")
    llama.add_argument("--k", type=_count, default=8, help="events shown by recency / rag / rag-policy")
    llama.add_argument("--n-threads", type=_count, default=2)
    llama.add_argument(
        "--n-ctx", type=_n_ctx, default=4096, help=f"context window in tokens, {MIN_N_CTX} to {MAX_N_CTX:,}"
    )
    llama.add_argument("--n-gpu-layers", type=int, default=0, help="-1 offloads every layer (a CUDA build)")
    llama.add_argument(
        "--max-tokens", type=_max_tokens, default=256, help=f"tokens per reply at most, 1 to {MAX_TOKENS:,}"
    )
    llama.add_argument("--flash-attn", action="store_true")
    server = r.add_argument_group("openai", "--agent openai: any OpenAI-compatible server")
    server.add_argument("--base-url", help="e.g. http://127.0.0.1:8080/v1")
    server.add_argument(
        "--api-key-env", metavar="VAR", help="the environment variable holding the API key (never recorded)"
    )
    server.add_argument(
        "--timeout", type=_seconds, default=120.0, help=f"seconds per request (above 0, at most {MAX_TIMEOUT_S:g})"
    )
    server.add_argument(
        "--structured-output",
        choices=("auto", "json_schema", "json_object"),
        default="auto",
        help="response_format form: auto (from the server's /v1/models entry), json_schema (llama-server, vLLM, Ollama) or json_object (llama-cpp-python's server)",
    )
    replay = r.add_argument_group("replay", "--agent replay: replies recorded elsewhere (a person, a batch API)")
    _replay_args(replay)
    replay.add_argument("--pending", help="where the steps still without a reply go (default: OUT with .pending.jsonl)")
    r.set_defaults(fn=cmd_run)
    pr = sub.add_parser("prompts", help="write the exact messages a model sees at each step that waits for a reply")
    _episode_args(pr)
    pr.add_argument("--limit", type=_count)
    pr.add_argument("--subset")
    pr.add_argument("--shard")
    pr.add_argument("--strategy", default="full", help="full, recency, rag, rag-policy or managed")
    pr.add_argument("--k", type=_count, default=8, help="events shown by recency / rag / rag-policy")
    pr.add_argument("--model", default="default", help=argparse.SUPPRESS)
    _replay_args(pr)
    pr.add_argument("--out", required=True)
    pr.set_defaults(fn=cmd_prompts)
    s = sub.add_parser("score", help="score traces")
    s.add_argument("traces", nargs="+")
    _episode_args(s)
    s.add_argument("--json", action="store_true")
    s.add_argument(
        "--decisions", metavar="FILE", help="write one JSON line per decision reached: every verdict, with evidence"
    )
    s.add_argument(
        "--require-complete",
        action="store_true",
        help="exit 1 if a trace has not finished every episode it set out to play",
    )
    s.add_argument(
        "--subset",
        metavar="FILE",
        help="a subset written by select --out: also print each system's full-suite pass rates estimated from it "
        "(with FILE.weights.json, which must match FILE and the episodes; a risk with no chosen episode is not "
        "estimated, and then neither is the overall rate)",
    )
    s.add_argument(
        "--rescore",
        action="store_true",
        help="score episodes changed since the trace was made against the current files (new checks, old replies)",
    )
    s.set_defaults(fn=cmd_score)
    rp = sub.add_parser("report", help="report.md, results.json and plots, with CIs and tests")
    rp.add_argument("traces", nargs="+")
    _episode_args(rp)
    rp.add_argument("--out", required=True, help="output folder")
    rp.add_argument(
        "--md-name", default="report.md", help="file name of the Markdown report (README.md for a release folder)"
    )
    rp.set_defaults(fn=cmd_report)
    vw = sub.add_parser(
        "view", help="a static site for auditing traces: overview, episodes, one decision, side by side"
    )
    vw.add_argument("traces", nargs="+", metavar="TRACE_OR_FOLDER")
    _episode_args(vw)
    vw.add_argument("--out", required=True, help="output folder; open OUT/index.html in a browser (no server)")
    vw.add_argument(
        "--published",
        help="published results to compare the re-scored ones with (default: results.json beside the traces, if any)",
    )
    vw.set_defaults(fn=cmd_view)
    a = sub.add_parser("audit", help="verify released traces: chain, episode hashes, raw outputs, re-scored results")
    a.add_argument("traces", nargs="+")
    _episode_args(a)
    a.add_argument("--published", help="published results to compare with (score --json or report's results.json)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(fn=cmd_audit)
    cm = sub.add_parser(
        "compare",
        help="is a re-run identical to a released trace (timing aside)? if not, which build or setting differs",
    )
    cm.add_argument("old", help="the released (or first) trace")
    cm.add_argument("new", help="the re-run")
    cm.set_defaults(fn=cmd_compare)
    se = sub.add_parser("select", help="a risk-preserving subset of the episodes, from traces of several systems")
    se.add_argument("traces", nargs="+")
    _episode_args(se)
    se.add_argument("--fraction", type=_fraction, default=0.2)
    se.add_argument("--method", default="greedy")
    se.add_argument("--out", help="write the subset here (one episode id per line)")
    se.add_argument("--seed", type=_seed, default=0, help="seed of the stochastic baselines (0 or more)")
    se.add_argument(
        "--resamples",
        type=_resamples,
        default=1000,
        help=f"seeds per stochastic baseline, 1 to {MAX_RESAMPLES:,}",
    )
    se.add_argument("--alpha", type=_weight, default=1.0)
    se.add_argument("--beta", type=_weight, default=1.0)
    se.add_argument("--gamma", type=_weight, default=1.0)
    se.add_argument(
        "--represent",
        action="store_true",
        help="break ties in Psi toward the stratum (risk x tier) furthest below its share: a subset as good for "
        "the ranking that also represents the suite, for estimating full-suite pass rates from it",
    )
    se.add_argument("--json", action="store_true")
    se.set_defaults(fn=cmd_select)
    g = sub.add_parser(
        "import-gatemem", help="import GateMem's episodes and checkpoints (and export them as YAML with --out)"
    )
    g.add_argument("dir", help="a GateMem domain folder, or a folder of them (e.g. ../shared/gatemem)")
    g.add_argument("--out", help="write one YAML file per episode under this folder")
    g.set_defaults(fn=cmd_import_gatemem)
    mg = sub.add_parser("merge", help="merge the shard traces of one system into one trace")
    mg.add_argument("shards", nargs="+", metavar="SHARD")
    _episode_args(mg)
    mg.add_argument("--out", required=True)
    mg.set_defaults(fn=cmd_merge)
    x = sub.add_parser("export-gatemem", help="write a trace's GateMem replies in GateMem's predictions format")
    x.add_argument("traces", nargs=1, metavar="TRACE")
    _episode_args(x)
    x.add_argument("--out", required=True, help="the predictions JSONL that GateMem's score_predictions.py reads")
    x.set_defaults(fn=cmd_export_gatemem)
    c = sub.add_parser("check-suite", help="self-check the episodes with the reference agents")
    _episode_args(c)
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_check_suite)
    n = sub.add_parser("counts", help="the suite's composition as Markdown tables")
    _episode_args(n)
    n.add_argument("--write", metavar="README", help="replace the generated block in this file")
    n.set_defaults(fn=cmd_counts)
    return p


def trace_paths(paths: Sequence[str]) -> list[str]:
    """Trace arguments with each folder replaced by its *.jsonl and *.jsonl.gz files, sorted."""
    out: list[str] = []
    for p in paths:
        folder = Path(p)
        if folder.is_dir():
            found = sorted(str(f) for f in folder.iterdir() if f.name.endswith((".jsonl", ".jsonl.gz")))
            if not found:
                raise MemRiskError(f"{p}: no *.jsonl or *.jsonl.gz traces in this folder")
            out += found
        elif folder.is_file():
            out.append(p)
        else:
            raise MemRiskError(f"{p}: no such trace file or folder")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "traces", None):
            args.traces = trace_paths(args.traces)
        return int(args.fn(args))
    except MemRiskError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a missing folder, a full disk, a file in the way: one line, naming the path
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted; rerun the same command to resume", file=sys.stderr)
        if __name__ == "__main__" and threading.active_count() > 1:
            # a worker thread still inside a request would hold the interpreter open at exit;
            # every finished episode is already written, and the next run resumes
            sys.stderr.flush()
            sys.stdout.flush()
            os._exit(130)
        return 130
    except BrokenPipeError:  # e.g. `memriskbench score ... | head`
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
