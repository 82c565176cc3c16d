"""The commands that read traces and episodes: `validate`, `score`, `report`, `audit`, `select`,
`compare`, `check-suite`, `counts`, and GateMem's `import-gatemem` and `export-gatemem`. None of
them plays a model.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memriskbench.cli.episodes import EXIT_FAIL, EXIT_OK, EXIT_USAGE, load_episodes
from memriskbench.cli.outputs import check_output
from memriskbench.episodes.episode import Episode
from memriskbench.episodes.loader import load_all
from memriskbench.errors import MemRiskError
from memriskbench.risks import RISKS, SCORED_RISKS

if TYPE_CHECKING:
    from selector.estimate import Plan

WEIGHTS_SUFFIX = ".weights.json"  # beside a subset file: what estimates the full suite from it


def _fmt(v: float | None) -> str:
    return "  -  " if v is None else f"{v:5.2f}"


def cmd_validate(args: argparse.Namespace) -> int:
    from memriskbench.episodes.lint import lint

    episodes, errors = load_all(args.paths)
    if not episodes and not errors:
        print(f"no episode files (*.yaml, *.yml) under {', '.join(args.paths)}")
        return EXIT_FAIL
    if not args.no_lint:
        from memriskbench.results.oracle_aliases import oracles_alias_errors

        errors += lint(episodes)
        # Played here, not in the lint: it needs the reference agents, which the lint's stage may
        # not import; and only on episodes the lint accepts, the only ones whose verdicts mean anything.
        flawed = {e.episode for e in errors}
        errors += oracles_alias_errors([ep for ep in episodes if ep.id not in flawed])
    for e in errors:
        print(e.render())
    if not args.no_lint and args.notes:
        from memriskbench.episodes.lint import generic_values, worded_values

        for note in generic_values(episodes) + worded_values(episodes):
            print(f"note: {note}")
    if args.aliases:
        from memriskbench.episodes.aliases import records_needing_aliases

        need = records_needing_aliases(episodes)
        print(f"records that need aliases: {len(need)}")
        for eid, rid, value in need:
            print(f"  {eid} {rid}: {value!r}")
    if not errors:
        print(f"ok: {len(episodes)} episode(s) valid")
        if args.counts:
            from memriskbench.episodes.counts import counts_markdown

            print("\n" + counts_markdown(episodes))
    return EXIT_FAIL if errors else EXIT_OK


def _loaded(
    args: argparse.Namespace, by_id: dict[str, Episode] | None = None
) -> tuple[list[Any], list[str], dict[str, Episode]]:
    """Load traces leniently: sound parts are used, every problem is listed. Also returns the
    episodes by id (loaded here unless given), so that callers need not load them again."""
    from memriskbench.results.tracecheck import load_traces

    if by_id is None:
        by_id = {e.id: e for e in load_episodes(args.episodes, args.gatemem)}
    loaded = load_traces(args.traces, by_id, getattr(args, "rescore", False))
    problems = [p for t in loaded for p in t.problems]
    for note in (n for t in loaded for n in t.notes):
        print(f"note: {note}", file=sys.stderr)
    from memriskbench.results.figures import combine_shards

    runs = combine_shards([t.run for t in loaded if t.run is not None], list(by_id))
    return runs, problems, by_id


def cmd_score(args: argparse.Namespace) -> int:
    from memriskbench.judge.scoring import VARIANTS
    from memriskbench.results.figures import score_entry

    if args.decisions:
        check_output(args.decisions, args, "--decisions")
    by_id = {e.id: e for e in load_episodes(args.episodes, args.gatemem)}
    # The subset and its weights are checked against the suite before any trace is read: a
    # refusal comes at once, not after every trace has been loaded and scored.
    est_plan = _subset_plan(args.subset, by_id) if args.subset else None
    runs, problems, _ = _loaded(args, by_id)
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    systems = [score_entry(run) for run in runs]
    estimates = _subset_estimates(args.subset, est_plan, runs, by_id) if est_plan else None
    if args.decisions:
        from memriskbench.results.verdicts import write_decisions

        n = write_decisions(runs, args.decisions)
        print(f"{args.decisions}: {n} decision verdict(s)", file=sys.stderr)
    incomplete = [run for run in runs if not run.complete]
    failed = bool(problems) or (args.require_complete and bool(incomplete))
    if args.json:
        out: dict[str, Any] = {"systems": systems, "problems": problems}
        if estimates is not None:
            out["subset_estimates"] = estimates
        print(json.dumps(out, indent=2, sort_keys=True))
        return EXIT_FAIL if failed else EXIT_OK
    if estimates is not None:
        _print_estimates(estimates)
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


def _suite(by_id: dict[str, Episode]) -> dict[str, tuple[str, str]]:
    """The episodes a subset estimates: the scored ones, with their stratum (risk, tier)."""
    return {e.id: (e.risk, e.tier) for e in by_id.values() if e.risk in SCORED_RISKS}


def _subset_plan(subset: str, by_id: dict[str, Episode]) -> Plan:
    """The estimator's plan for the subset file, once it and its weights match each other and the
    suite (selector/weights.py); a one-line MemRiskError naming the file otherwise."""
    from memriskbench.cli.episodes import parse_subset
    from selector.weights import load_plan

    return load_plan(subset, subset + WEIGHTS_SUFFIX, parse_subset, _suite(by_id))


def _subset_estimates(subset: str, est_plan: Plan, runs: Sequence[Any], by_id: dict[str, Episode]) -> dict[str, Any]:
    """Each system's pass rates on the subset, and the full suite's estimated from them, each
    risk's and the overall one "not estimated" where the subset does not stand for it."""
    from selector.estimate import ESTIMATOR
    from selector.weights import suite_estimates

    suite = _suite(by_id)
    out: dict[str, Any] = {"subset": subset, "estimator": ESTIMATOR, "systems": []}
    chosen = set(est_plan.weights())
    for run in runs:
        passed = {r.episode: r.success("default") for r in run.results if r.episode in chosen}
        missing = sorted(chosen - set(passed))
        out["systems"].append(
            {
                "name": run.name,
                "trace": run.trace,
                "played": len(passed),
                "missing": missing,
                "estimates": suite_estimates(est_plan, passed, suite),
            }
        )
    return out


def _print_estimates(est: dict[str, Any]) -> None:
    print(f"full-suite pass rates estimated from the subset {est['subset']}")
    print(f"estimator: {est['estimator']}")
    for s in est["systems"]:
        print(f"\n{s['name']} ({s['played']} subset episode(s) scored)")
        print(f"  {'risk':<5} {'n':>3} {'subset':>7} {'estimate':>9} {'95% interval':>15}")
        for key, e in s["estimates"].items():
            if not e["estimated"]:
                why = e["reason"] if e["reason"].startswith("withheld") else f"not estimated: {e['reason']}"
                print(f"  {key:<5} {e['n']:>3} {_fmt(e['subset_rate']):>7}   {why}")
                continue
            ci = "-" if e["ci95"] is None else f"[{e['ci95'][0]:.2f}, {e['ci95'][1]:.2f}]"
            print(f"  {key:<5} {e['n']:>3} {_fmt(e['subset_rate']):>7} {_fmt(e['value']):>9} {ci:>15}")
        if s["missing"]:
            print(f"  not in this trace: {len(s['missing'])} subset episode(s), e.g. {', '.join(s['missing'][:3])}")


def cmd_export_gatemem(args: argparse.Namespace) -> int:
    from memriskbench.results.verdicts import write_predictions

    check_output(args.out, args, "--out")
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
    from memriskbench.results.figures import MODES, gatemem_metrics
    from memriskbench.risks import IMPORTED_RISK

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
    from memriskbench.gatemem.importer import domain_dirs, export_yaml, load_gatemem

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
    from memriskbench.results.analysis import analyze
    from memriskbench.results.report import write_report

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
    from memriskbench.results.figures import is_reference

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
    from memriskbench.results.audit import audit_trace, load_published

    if args.published:
        load_published(args.published)  # a bad file is refused before any trace is audited
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

    if args.out:
        check_output(args.out, args, "--out")
        check_output(args.out + WEIGHTS_SUFFIX, args, "--out")
    runs, problems, by_id = _loaded(args)
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    if len({r.name for r in runs}) < 2:
        raise MemRiskError("select needs traces of at least two systems")
    data = build(runs, by_id)
    for note in data.notes:
        print(f"note: {note}", file=sys.stderr)
    chosen = select(
        data,
        args.method,
        args.fraction,
        Weights(args.alpha, args.beta, args.gamma),
        args.seed,
        args.resamples,
        args.represent,
    )
    if args.out:
        from memriskbench.common.jsonsafe import write_text

        write_text(args.out, chosen.subset_file())
        weights = chosen.weights_file(args.out)
        write_text(args.out + WEIGHTS_SUFFIX, json.dumps(weights, indent=2, sort_keys=True) + "\n")
    if args.json:
        print(json.dumps({**chosen.to_json(), "notes": data.notes, "problems": problems}, indent=2))
        return EXIT_OK
    print(chosen.summary())
    if args.out:
        print(
            f"subset written to {args.out} (memriskbench run --subset {args.out}), its estimator's weights to "
            f"{args.out}{WEIGHTS_SUFFIX} (memriskbench score TRACES --subset {args.out})"
        )
    print("\n" + chosen.details())
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from memriskbench.traces.compare import compare

    result = compare(args.old, args.new)
    for line in result.lines():
        print(line)
    return EXIT_OK if result.same else EXIT_FAIL


def cmd_check_suite(args: argparse.Namespace) -> int:
    from memriskbench.results.suite import check_suite

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
    from memriskbench.episodes.counts import counts_markdown, write_counts

    episodes = load_episodes(args.episodes, args.gatemem)
    if args.write:
        changed = write_counts(Path(args.write), episodes)
        print(f"{args.write}: {'updated' if changed else 'already current'}")
    else:
        print(counts_markdown(episodes))
    return EXIT_OK
