"""The weights file beside a subset (`select --out FILE` writes FILE.weights.json): what `score
--subset FILE` checks before it estimates, and the estimates it then reports.

The file, like every input, may be hand-edited, stale or hostile, and every number in it is used
as given by the estimator: a stratum size of 800 for a stratum of 8 episodes multiplies its weight
by 100, and an episode listed twice counts twice. So nothing is taken on trust: the file must name
the subset file and its sha256, its strata must be the suite's own (each size the number of suite
episodes in that risk and tier, each chosen episode in the suite and in its stated stratum, every
tier of a risk covered), and its chosen episodes must be the subset file's, each once. Anything
else is one line naming the file and what differs.

A risk of the suite with no chosen episode is "not estimated", and the overall rate is then
withheld with the reason rather than shown as the suite's: a mean over the estimated risks alone
is not the suite's pass rate (0.00 against a true 0.45 for `stale` at `--fraction 0.02`).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeGuard

from memriskbench.common.jsonsafe import JSONError, loads
from memriskbench.errors import MemRiskError

from .estimate import ESTIMATOR, Plan, Stratum, estimate

POOLED = "*"  # the tier of a risk's one stratum once its tiers are pooled (estimate.plan)


def digest(data: bytes) -> str:
    """The subset file's hash, as the weights file records it."""
    return hashlib.sha256(data).hexdigest()


def _show(x: Any) -> str:
    """A value for a one-line message: never a 400-digit number, never a line break."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 10**12:
        return f"{str(x)[:8]}... ({len(str(abs(x)))} digits)"
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _count(x: Any, most: int) -> int | None:
    """`x` if it is a whole number from 0 to `most` (a JSON true is not 1), else None."""
    return x if isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= most else None


def _finite(x: Any) -> TypeGuard[float]:
    # A JSON number such as 1e999 reads as inf, which the JSON loader lets through.
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9)


def _stratum(raw: Any, where: str, suite_size: int, fail: Callable[[str], NoReturn]) -> Stratum:
    if not isinstance(raw, dict):
        fail(f"{where}: not an object")
    risk, tier, chosen = (raw.get(k) for k in ("risk", "tier", "chosen"))
    if not isinstance(risk, str) or not isinstance(tier, str):
        fail(f"{where}: risk and tier must be strings")
    size = _count(raw.get("size"), suite_size)
    if size is None:
        fail(
            f"{where}: size {_show(raw.get('size'))} is not a whole number from 0 to the suite's {suite_size} episodes"
        )
    if not isinstance(chosen, list) or not chosen or not all(isinstance(e, str) for e in chosen):
        fail(f"{where}: chosen must be a non-empty list of episode ids")
    weight = raw.get("weight")
    if not _finite(weight) or not _same(weight, size / len(chosen)):
        fail(f"{where}: weight {_show(weight)} is not its size over its chosen episodes ({size}/{len(chosen)})")
    return Stratum(risk, tier, size, tuple(chosen))


def load_plan(
    subset: str, source: str, parse_ids: Callable[[str, str], list[str]], suite: Mapping[str, tuple[str, str]]
) -> Plan:
    """Read the subset file `subset` (`parse_ids(path, text)` gives its episode ids) and its
    weights file `source`, and `check` them against each other and the suite."""
    try:  # read once, as bytes: the hash and the ids are of the same contents
        data = Path(subset).read_bytes()
        text = data.decode("utf-8")
    except OSError as exc:
        raise MemRiskError(f"{subset}: cannot read the subset file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise MemRiskError(f"{subset}: the subset file is not UTF-8 text: {exc.reason}") from None
    try:
        obj = loads(Path(source).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MemRiskError(
            f"{source}: no estimator weights beside the subset; `select --out {subset}` writes them"
        ) from None
    except OSError as exc:
        raise MemRiskError(f"{source}: cannot read estimator weights: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, JSONError) as exc:
        raise MemRiskError(f"{source}: cannot read estimator weights: {exc}") from None
    return check(obj, source, subset, data, parse_ids(subset, text), suite)


def check(
    obj: Any,
    source: str,
    subset: str,
    subset_bytes: bytes,
    subset_ids: Sequence[str],
    suite: Mapping[str, tuple[str, str]],
) -> Plan:
    """The plan in `obj` (the weights file `source`), once it matches the subset file `subset`
    (its bytes and its episode ids) and the suite (scored episode id -> (risk, tier)); else a
    MemRiskError naming the file and what differs."""

    def fail(why: str, path: str = source) -> NoReturn:
        raise MemRiskError(f"{path}: {why}")

    for e, k in Counter(subset_ids).items():
        if k > 1:  # harmless to `run --subset`, but the weights would count the episode k times
            fail(f"episode {_show(e)} is listed {k} times", subset)
    rerun = f"rerun `select --out {subset}`"
    if not isinstance(obj, dict):
        fail("not estimator weights written by select (not a JSON object)")
    if obj.get("estimator") != ESTIMATOR:
        fail(f"written for the estimator {_show(obj.get('estimator'))}, not this version's; {rerun}")
    name, sha = obj.get("subset_file"), obj.get("subset_sha256")
    if not isinstance(name, str) or not isinstance(sha, str):
        fail(f"names no subset file and sha256 (weights written before they were recorded); {rerun}")
    if name != Path(subset).name:
        fail(f"written for the subset file {_show(name)}, not {_show(Path(subset).name)}")
    if sha != digest(subset_bytes):
        fail(f"the subset file {subset} has changed since these weights were written (sha256 differs); {rerun}")
    n = len(suite)
    total = obj.get("suite_episodes")
    if _count(total, n) != n:
        fail(f"suite_episodes {_show(total)}: select saw another suite than the {n} scored episodes loaded here")
    unknown = [e for e in subset_ids if e not in suite]
    if unknown:
        fail(f"{_show(unknown[0])} is not a scored episode of the suite ({len(unknown)} such id(s))", subset)
    raw = obj.get("strata")
    if not isinstance(raw, list) or not raw:
        fail("strata must be a non-empty list")
    strata = [_stratum(s, f"strata[{i}]", n, fail) for i, s in enumerate(raw)]

    tiers: dict[str, Counter[str]] = {}
    for risk, tier in suite.values():
        tiers.setdefault(risk, Counter())[tier] += 1
    seen: dict[tuple[str, str], int] = {}
    where_chosen: dict[str, int] = {}
    for i, s in enumerate(strata):
        label = f"strata[{i}] ({s.risk} {s.tier})"
        if s.risk not in tiers:
            fail(f"strata[{i}]: risk {_show(s.risk)} has no scored episode in the suite")
        if s.tier != POOLED and s.tier not in tiers[s.risk]:
            fail(f"strata[{i}]: the suite has no {s.risk} episode of tier {_show(s.tier)}")
        if (s.risk, s.tier) in seen:
            fail(f"{label}: the same stratum as strata[{seen[s.risk, s.tier]}]")
        seen[s.risk, s.tier] = i
        want = sum(tiers[s.risk].values()) if s.tier == POOLED else tiers[s.risk][s.tier]
        if s.size != want:
            fail(f"{label}: size {s.size}, but the suite has {want} episode(s) in it")
        for e in s.chosen:
            if e in where_chosen:
                fail(f"{label}: episode {_show(e)} is chosen twice (also in strata[{where_chosen[e]}])")
            where_chosen[e] = i
            if e not in suite:
                fail(f"{label}: chosen episode {_show(e)} is not a scored episode of the suite")
            risk, tier = suite[e]
            if risk != s.risk or s.tier not in (POOLED, tier):
                fail(f"{label}: chosen episode {e} is {risk} {tier} in the suite")
    for risk in sorted({s.risk for s in strata}):
        mine = sorted(t for r, t in seen if r == risk)
        if mine != [POOLED] and mine != sorted(tiers[risk]):
            fail(
                f"{risk}: strata for tiers {', '.join(mine)}, but the suite's {risk} has {', '.join(sorted(tiers[risk]))}"
            )

    plan = Plan(tuple(strata))
    weights = obj.get("weights")
    if not isinstance(weights, dict) or set(weights) != set(where_chosen):
        fail("weights must map exactly the chosen episodes of the strata to their weights")
    for e, w in plan.weights().items():
        if not _finite(weights[e]) or not _same(weights[e], w):
            fail(f"weights[{_show(e)}]: {_show(weights[e])}, but its stratum gives {w:g}")

    extra, absent = sorted(set(where_chosen) - set(subset_ids)), sorted(set(subset_ids) - set(where_chosen))
    if extra:
        fail(f"chooses {extra[0]} ({len(extra)} episode(s) in all) that the subset file {subset} does not list")
    if absent:
        fail(f"the subset file {subset} lists {absent[0]} ({len(absent)} episode(s) in all) that it does not choose")
    return plan


def suite_estimates(plan: Plan, passed: Mapping[str, bool], suite: Mapping[str, tuple[str, str]]) -> dict[str, Any]:
    """Per scored risk of the suite and overall ("all"): the estimate as `Estimate.to_json`, with
    `estimated` true; or, where the subset's episodes in this trace do not stand for every
    episode the row is about, `estimated` false, no value or interval, and the `reason`."""
    counts = Counter(risk for risk, _ in suite.values())
    est = estimate(plan, passed)
    out: dict[str, Any] = {}
    for risk in sorted(counts):
        e = est.get(risk)
        if e is None:
            out[risk] = {"subset_rate": None, "n": 0, "size": 0, "reason": f"no episode of {risk} was chosen"}
        elif e.value is None:
            out[risk] = {**e.to_json(), "reason": "none of its chosen episodes is in this trace"}
        elif e.size < counts[risk]:
            why = f"its chosen episodes in this trace stand for {e.size} of its {counts[risk]} episodes"
            out[risk] = {**e.to_json(), "reason": why}
        else:
            out[risk] = {**e.to_json(), "estimated": True}
    missing = [r for r in sorted(counts) if "reason" in out[r]]
    for r in missing:
        out[r].update(estimated=False, value=None, ci95=None)
    whole = est["all"].to_json()
    if missing:
        covered = [r for r in sorted(counts) if r not in missing]
        scope = f"the estimates cover {', '.join(covered)} only" if covered else "no risk is estimated"
        whole.update(estimated=False, value=None, ci95=None)
        whole["reason"] = f"withheld: {', '.join(missing)} not estimated ({scope})"
    else:
        whole["estimated"] = True
    out["all"] = whole
    return out
