"""The `memriskbench` command line: validate, run, score, report, audit, select, import-gatemem.

Exit codes: 0 success; 1 the input was read but found wanting (invalid episodes, a failed suite
check); 2 bad usage or unreadable input (a broken trace, a missing file).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cli_episodes import EXIT_FAIL, EXIT_OK, EXIT_USAGE, load_episodes
from .cli_run import cmd_merge, cmd_prompts, cmd_run
from .episode import Episode
from .errors import MemRiskError
from .loader import load_all
from .risks import RISKS, SCORED_RISKS


def _fmt(v: float | None) -> str:
    return "  -  " if v is None else f"{v:5.2f}"


def cmd_validate(args: argparse.Namespace) -> int:
    from .lint import lint

    episodes, errors = load_all(args.paths)
    if not episodes and not errors:
        print(f"no episode files (*.yaml, *.yml) under {', '.join(args.paths)}")
        return EXIT_FAIL
    if not args.no_lint:
        errors += lint(episodes)
    for e in errors:
        print(e.render())
    if not args.no_lint and args.notes:
        from .lint import generic_values

        for note in generic_values(episodes):
            print(f"note: {note}")
    if not errors:
        print(f"ok: {len(episodes)} episode(s) valid")
        if args.counts:
            from .counts import counts_markdown

            print("\n" + counts_markdown(episodes))
    return EXIT_FAIL if errors else EXIT_OK


def _loaded(args: argparse.Namespace) -> tuple[list[Any], list[str], dict[str, Episode]]:
    """Load traces leniently: sound parts are used, every problem is listed. Also returns the
    episodes by id, so that callers need not load (or import) them again."""
    from .tracecheck import load_traces

    by_id = {e.id: e for e in load_episodes(args.episodes, args.gatemem)}
    loaded = load_traces(args.traces, by_id, getattr(args, "rescore", False))
    problems = [p for t in loaded for p in t.problems]
    for note in (n for t in loaded for n in t.notes):
        print(f"note: {note}", file=sys.stderr)
    from .results import combine_shards

    runs = combine_shards([t.run for t in loaded if t.run is not None], list(by_id))
    return runs, problems, by_id


def cmd_score(args: argparse.Namespace) -> int:
    from .results import score_entry
    from .scoring import VARIANTS

    runs, problems, _ = _loaded(args)
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    systems = [score_entry(run) for run in runs]
    if args.decisions:
        from .verdicts import write_decisions

        n = write_decisions(runs, args.decisions)
        print(f"{args.decisions}: {n} decision verdict(s)", file=sys.stderr)
    incomplete = [run for run in runs if not run.complete]
    failed = bool(problems) or (args.require_complete and bool(incomplete))
    if args.json:
        print(json.dumps({"systems": systems, "problems": problems}, indent=2, sort_keys=True))
        return EXIT_FAIL if failed else EXIT_OK
    width = max([22, *(len(s["name"]) for s in systems)])
    for variant in VARIANTS if any(s["default"]["episodes"] for s in systems) else ():
        print(f"\n[{variant}]")
        head = (
            f"{'system':<{width}} {'eps':>4} {'pass':>5} "
            + " ".join(f"{r:>5}" for r in RISKS)
            + "     U     A     F   MGS  over"
        )
        print(head)
        for s in systems:
            m = s[variant]
            g = m["gatemem"]
            print(
                f"{s['name']:<{width}} {m['episodes']:>4} {_fmt(m['pass_rate'])} "
                + " ".join(_fmt(m["per_risk"][r]) for r in RISKS)
                + " "
                + " ".join(_fmt(g[k]) for k in ("U", "A", "F", "MGS", "over_refusal"))
            )
    _print_imported(runs)
    for s in systems:
        if s["strict_differs"]:
            eps = s["strict_differs"]
            print(f"\n{s['name']}: strict and normalized verdicts differ in {len(eps)} episode(s): {', '.join(eps)}")
    for run in incomplete:
        print(f"\nincomplete: {run.name} ({run.trace}): {run.completeness()}")
    return EXIT_FAIL if failed else EXIT_OK


def cmd_export_gatemem(args: argparse.Namespace) -> int:
    from .verdicts import write_predictions

    runs, problems, _ = _loaded(args)
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    if not runs:
        raise MemRiskError(f"{args.traces[0]}: no trace could be read")
    n = write_predictions(runs[0], args.out)
    if not n:
        raise MemRiskError(f"{args.traces[0]}: no imported GateMem checkpoint in this trace (give --gatemem DIR)")
    print(f"{args.out}: {n} prediction(s)")
    return EXIT_FAIL if problems else EXIT_OK


def _print_imported(runs: Sequence[Any]) -> None:
    from .results import MODES, gatemem_metrics
    from .risks import IMPORTED_RISK

    for run in runs:
        imported = [r for r in run.results if r.risk == IMPORTED_RISK]
        if not imported:
            continue
        print(f"\nGateMem episodes (imported) - {run.name}")
        print(f"{'mode':<7} {'scope':<10} {'eps':>4}     U     A     F   MGS  over   e2e")
        for mode in MODES:
            for scope in ["all", *sorted({r.domain for r in imported})]:
                rs = [r for r in imported if scope in ("all", r.domain)]
                g = gatemem_metrics(rs, "default", mode)
                print(
                    f"{mode:<7} {scope:<10} {len(rs):>4} "
                    + " ".join(_fmt(g[k]) for k in ("U", "A", "F", "MGS", "over_refusal", "e2e_leak"))
                )


def cmd_import_gatemem(args: argparse.Namespace) -> int:
    from .gatemem import domain_dirs, export_yaml, load_gatemem

    episodes = load_gatemem(args.dir)
    for folder in domain_dirs(args.dir):
        eps = [e for e in episodes if e.source_file == str(folder / "episodes.jsonl")]
        print(
            f"{folder}: {len(eps)} episode(s), {sum(len(e.decisions) for e in eps)} checkpoint(s), {sum(e.turns for e in eps)} turn(s)"
        )
    print(f"total: {len(episodes)} episode(s), {sum(len(e.decisions) for e in episodes)} checkpoint(s)")
    if args.out:
        written = export_yaml(episodes, args.out)
        print(f"{args.out}: wrote {len(written)} YAML file(s); `memriskbench validate --no-lint {args.out}` loads them")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .analysis import analyze
    from .report import write_report

    runs, problems, by_id = _loaded(args)
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    if not runs:
        print("error: no trace could be read", file=sys.stderr)
        return EXIT_USAGE
    results = analyze(runs)
    results["selector"] = _report_selector(runs, by_id)
    files = write_report(results, problems, Path(args.out), args.md_name)
    print(f"{args.out}: wrote {', '.join(files)}")
    return EXIT_FAIL if problems else EXIT_OK


def _report_selector(runs: list[Any], by_id: dict[str, Episode]) -> dict[str, Any] | None:
    """The selector's method table, over the model systems only (as the Fisher family): the
    scripted reference agents' outcomes are fixed by construction, and with them in the ranking
    even random subsets keep it. Needs three model systems with scored episodes."""
    from .results import is_reference

    models = [r for r in runs if not is_reference(r.header.get("system"))]
    scored = any(e.risk in SCORED_RISKS for r in models for e in r.results)
    names = {r.name for r in models}
    if len(names) < 3 or not scored:
        if any(e.risk in SCORED_RISKS for r in runs for e in r.results):
            return {
                "skipped": f"the selector ranks model systems only, and needs at least 3; these traces hold {len(names)}"
            }
        return None
    from selector.data import build
    from selector.run import report_summary

    return {**report_summary(build(models, by_id)), "family": "model systems"}


def cmd_audit(args: argparse.Namespace) -> int:
    from .audit import audit_trace

    by_id = {e.id: e for e in load_episodes(args.episodes, args.gatemem)}
    report = []
    for path in args.traces:
        problems, _ = audit_trace(path, by_id, args.published)
        report.append({"trace": path, "ok": not problems, "problems": problems})
    if args.json:
        print(json.dumps({"traces": report}, indent=2))
    else:
        for r in report:
            print(f"{'ok  ' if r['ok'] else 'FAIL'} {r['trace']}")
            for p in r["problems"]:
                print(f"     - {p}")
    return EXIT_OK if all(r["ok"] for r in report) else EXIT_FAIL


def cmd_select(args: argparse.Namespace) -> int:
    from selector.data import build
    from selector.objective import Weights
    from selector.run import select

    runs, problems, by_id = _loaded(args)
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    if len({r.name for r in runs}) < 2:
        raise MemRiskError("select needs traces of at least two systems")
    data = build(runs, by_id)
    for note in data.notes:
        print(f"note: {note}", file=sys.stderr)
    chosen = select(
        data, args.method, args.fraction, Weights(args.alpha, args.beta, args.gamma), args.seed, args.resamples
    )
    if args.out:
        Path(args.out).write_text(chosen.subset_file())
    if args.json:
        print(json.dumps({**chosen.to_json(), "notes": data.notes, "problems": problems}, indent=2))
        return EXIT_OK
    print(chosen.summary())
    if args.out:
        print(f"subset written to {args.out} (memriskbench run --subset {args.out})")
    print("\n" + chosen.details())
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare import compare

    result = compare(args.old, args.new)
    for line in result.lines():
        print(line)
    return EXIT_OK if result.same else EXIT_FAIL


def cmd_check_suite(args: argparse.Namespace) -> int:
    from .suite import check_suite

    report = check_suite(load_episodes(args.episodes, args.gatemem))
    if args.json:
        print(json.dumps(report.to_json(), indent=2, sort_keys=True))
    else:
        rates = "   ".join(f"{name} {rate:.3f}" for name, rate in report.oracle_pass_rates.items())
        print(f"oracle pass rate {report.oracle_pass_rate:.3f} ({rates})   liveness {report.liveness:.3f}")
        print(f"{'agent':<18} {'pass':>5} " + " ".join(f"{r:>5}" for r in RISKS))
        for name, a in report.agents.items():
            print(f"{name:<18} {_fmt(a['pass_rate'])} " + " ".join(_fmt(a["per_risk"][r]) for r in RISKS))
        for line in report.oracle_failures:
            print(f"oracle fails {line}")
        for name, fired in report.ambient_fired.items():
            if fired:
                print(f"ambient checks failed by {name}: " + ", ".join(f"{k} {v}" for k, v in fired.items()))
        for d in report.dead_checks:
            print(f"dead check {d}: no reference agent fails it")
        for risk in report.unfailed_risks:
            print(f"{risk}: its flawed agent {report.flawed[risk]['agent']} passes every episode of it")
    return EXIT_OK if report.ok else EXIT_FAIL


def cmd_counts(args: argparse.Namespace) -> int:
    from .counts import counts_markdown, write_counts

    episodes = load_episodes(args.episodes, args.gatemem)
    if args.write:
        changed = write_counts(Path(args.write), episodes)
        print(f"{args.write}: {'updated' if changed else 'already current'}")
    else:
        print(counts_markdown(episodes))
    return EXIT_OK


def _episode_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--episodes", nargs="+", help="episode files or folders (default: episodes, unless --gatemem is given alone)"
    )
    p.add_argument(
        "--gatemem",
        metavar="DIR",
        help="also import GateMem data (a domain folder or a folder of them) and use its episodes",
    )


def _count(text: str) -> int:
    """A whole number of at least 1, for argparse."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return n


def _fraction(text: str) -> float:
    """A share in (0, 1], for argparse."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (0.0 < x <= 1.0):  # also false for nan
        raise argparse.ArgumentTypeError(f"{text} must be in (0, 1]")
    return x


def _weight(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(x) or x < 0:
        raise argparse.ArgumentTypeError(f"{text} must be a finite number >= 0")
    return x


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
        type=_count,
        default=1,
        help="episodes in flight at once (--agent openai); the trace is in suite order",
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
    llama.add_argument("--n-ctx", type=_count, default=4096)
    llama.add_argument("--n-gpu-layers", type=int, default=0, help="-1 offloads every layer (a CUDA build)")
    llama.add_argument("--max-tokens", type=_count, default=256)
    llama.add_argument("--flash-attn", action="store_true")
    server = r.add_argument_group("openai", "--agent openai: any OpenAI-compatible server")
    server.add_argument("--base-url", help="e.g. http://127.0.0.1:8080/v1")
    server.add_argument(
        "--api-key-env", metavar="VAR", help="the environment variable holding the API key (never recorded)"
    )
    server.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    server.add_argument(
        "--structured-output",
        choices=("json_schema", "json_object"),
        default="json_schema",
        help="response_format form: json_schema (llama-server, vLLM, Ollama) or json_object (llama-cpp-python's server)",
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
    se.add_argument("--seed", type=int, default=0)
    se.add_argument("--resamples", type=_count, default=1000, help="seeds per stochastic baseline")
    se.add_argument("--alpha", type=_weight, default=1.0)
    se.add_argument("--beta", type=_weight, default=1.0)
    se.add_argument("--gamma", type=_weight, default=1.0)
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
        return 130
    except BrokenPipeError:  # e.g. `memriskbench score ... | head`
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
