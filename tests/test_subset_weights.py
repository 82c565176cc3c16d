"""`score --subset` checks the subset file and its weights before it estimates (selector/weights.py).

A subset is selected once from the released reference traces; each test copies it, breaks it the
way a stale, hand-edited or hostile file would, and expects one line naming the file and what
differs, with exit 2. A risk with no chosen episode is "not estimated", and the overall rate is
then withheld rather than printed as the suite's.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memriskbench.cli.main import main

from .conftest import EPISODES, REPO

REFERENCE = sorted(str(p) for p in (REPO / "traces").glob("ref-*.jsonl.gz"))
STALE = str(REPO / "traces" / "ref-stale.jsonl.gz")
Weights = dict[str, Any]


def _select(folder: Path, *extra: str) -> Path:
    subset = folder / "subset.txt"
    args = ["select", *REFERENCE, "--episodes", str(EPISODES), "--out", str(subset), "--resamples", "2", *extra]
    assert main(args) == 0
    return subset


@pytest.fixture(scope="module")
def selected(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A subset at the default 20 %: it has a stratum per tier for R2 and a pooled one for R1."""
    return _select(tmp_path_factory.mktemp("selected"))


def _score(subset: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["score", STALE, "--episodes", str(EPISODES), "--subset", str(subset), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _copy(selected: Path, folder: Path) -> tuple[Path, Weights]:
    subset = folder / selected.name
    shutil.copy(selected, subset)
    shutil.copy(f"{selected}.weights.json", f"{subset}.weights.json")
    return subset, json.loads(Path(f"{subset}.weights.json").read_text())


def _write(subset: Path, w: Weights, raw: str | None = None) -> None:
    Path(f"{subset}.weights.json").write_text(raw if raw is not None else json.dumps(w, indent=2))


def _rehash(subset: Path, w: Weights) -> None:
    """What a hostile (or careful) editor does after changing the subset file: fix the hash."""
    w["subset_sha256"] = hashlib.sha256(subset.read_bytes()).hexdigest()


def _stratum(w: Weights, risk: str, tier: str = "*") -> dict[str, Any]:
    return next(s for s in w["strata"] if s["risk"] == risk and s["tier"] == tier)


def _reweigh(w: Weights) -> None:
    """Make the derived weights agree with the strata, so that only the fault under test differs."""
    w["weights"] = {}
    for s in w["strata"]:
        s["weight"] = s["size"] / len(s["chosen"])
        w["weights"].update(dict.fromkeys(s["chosen"], s["weight"]))


# Each: how the files are broken, then what the one-line error must say and which file it names.
def _inflated(subset: Path, w: Weights) -> None:
    _stratum(w, "R2", "easy")["size"] += 1
    _reweigh(w)


def _size_800(subset: Path, w: Weights) -> None:
    _stratum(w, "R2", "hard")["size"] = 800
    _reweigh(w)


def _dup_in_subset(subset: Path, w: Weights) -> None:
    first = _stratum(w, "R1")["chosen"][0]
    subset.write_text(subset.read_text() + first + "\n")
    _rehash(subset, w)


def _dup_in_stratum(subset: Path, w: Weights) -> None:
    s = _stratum(w, "R1")
    s["chosen"].append(s["chosen"][0])
    _reweigh(w)


def _dup_across_strata(subset: Path, w: Weights) -> None:
    _stratum(w, "R3")["chosen"].append(_stratum(w, "R1")["chosen"][0])
    _reweigh(w)


def _missing_subset(subset: Path, w: Weights) -> None:
    subset.unlink()


def _edited_subset(subset: Path, w: Weights) -> None:
    subset.write_text(subset.read_text().replace("# systems:", "# systems (edited):"))


def _unknown_risk(subset: Path, w: Weights) -> None:
    _stratum(w, "R4")["risk"] = "R9"


def _unknown_tier(subset: Path, w: Weights) -> None:
    _stratum(w, "R2", "medium")["tier"] = "extreme"


def _episode_not_in_suite(subset: Path, w: Weights) -> None:
    _stratum(w, "R5")["chosen"] = ["r5-no-such-episode"]
    _reweigh(w)


def _subset_episode_not_in_suite(subset: Path, w: Weights) -> None:
    subset.write_text(subset.read_text() + "r5-no-such-episode\n")
    _rehash(subset, w)


def _episode_in_another_stratum(subset: Path, w: Weights) -> None:
    a, b = _stratum(w, "R4"), _stratum(w, "R5")
    a["chosen"], b["chosen"] = b["chosen"], a["chosen"]
    _reweigh(w)


def _tier_left_out(subset: Path, w: Weights) -> None:
    medium = _stratum(w, "R2", "medium")
    w["strata"].remove(medium)
    subset.write_text("".join(ln for ln in subset.read_text().splitlines(True) if ln.strip() not in medium["chosen"]))
    _rehash(subset, w)
    _reweigh(w)


def _subset_lacks_a_chosen(subset: Path, w: Weights) -> None:
    gone = _stratum(w, "R4")["chosen"][0]
    subset.write_text("".join(ln for ln in subset.read_text().splitlines(True) if ln.strip() != gone))
    _rehash(subset, w)


def _weights_stale(subset: Path, w: Weights) -> None:
    w["weights"][_stratum(w, "R1")["chosen"][0]] = 99.0


def _no_hash(subset: Path, w: Weights) -> None:
    del w["subset_sha256"], w["subset_file"]


def _renamed(subset: Path, w: Weights) -> None:
    w["subset_file"] = "other.txt"


FAULTS: list[tuple[str, Callable[[Path, Weights], None], str, str]] = [
    ("inflated stratum size", _inflated, "(R2 easy): size 8, but the suite has 7 episode(s)", "weights"),
    ("stratum size 800", _size_800, "size 800 is not a whole number from 0 to the suite's 120", "weights"),
    ("episode twice in the subset file", _dup_in_subset, "is listed 2 times", "subset"),
    ("episode twice in a stratum", _dup_in_stratum, "is chosen twice (also in strata[0])", "weights"),
    ("episode in two strata", _dup_across_strata, "is chosen twice (also in strata[0])", "weights"),
    ("subset file missing", _missing_subset, "cannot read the subset file: No such file or directory", "subset"),
    ("subset file changed", _edited_subset, "has changed since these weights were written (sha256", "weights"),
    ("risk not in the suite", _unknown_risk, "risk 'R9' has no scored episode in the suite", "weights"),
    ("tier not in the suite", _unknown_tier, "the suite has no R2 episode of tier 'extreme'", "weights"),
    ("episode not in the suite", _episode_not_in_suite, "'r5-no-such-episode' is not a scored episode", "weights"),
    ("subset id not in the suite", _subset_episode_not_in_suite, "'r5-no-such-episode' is not a scored", "subset"),
    ("episode in another stratum", _episode_in_another_stratum, "is R5 ", "weights"),
    ("a tier of a risk left out", _tier_left_out, "R2: strata for tiers easy, hard, but", "weights"),
    ("subset lacks a chosen episode", _subset_lacks_a_chosen, "that the subset file", "weights"),
    ("weights map disagrees", _weights_stale, "99.0, but its stratum gives", "weights"),
    ("weights without subset hash", _no_hash, "names no subset file and sha256", "weights"),
    ("weights for another subset file", _renamed, "written for the subset file 'other.txt'", "weights"),
]


def test_the_selected_subset_scores_and_its_weights_name_it(
    selected: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The untouched copy is accepted: every refusal below is the fault's doing."""
    subset, w = _copy(selected, tmp_path)
    assert w["subset_file"] == "subset.txt"
    assert w["subset_sha256"] == hashlib.sha256(subset.read_bytes()).hexdigest()
    code, out, err = _score(subset, capsys, "--json")
    assert code == 0, err
    est = json.loads(out)["subset_estimates"]["systems"][0]["estimates"]
    assert set(est) == {"R1", "R2", "R3", "R4", "R5", "all"} and all(e["estimated"] for e in est.values())
    assert est["all"]["size"] == 120 and est["all"]["value"] is not None


@pytest.mark.parametrize(("fault", "apply", "says", "names"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_broken_subset_or_weights_file_is_one_line(
    selected: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fault: str,
    apply: Callable[[Path, Weights], None],
    says: str,
    names: str,
) -> None:
    subset, w = _copy(selected, tmp_path)
    apply(subset, w)
    _write(subset, w)
    code, out, err = _score(subset, capsys)
    assert code == 2 and "Traceback" not in err, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], err
    named = f"{subset}.weights.json:" if names == "weights" else f"{subset}:"
    assert lines[0].startswith(f"error: {named}"), err
    assert "estimated from the subset" not in out


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ('"size": 24,', "size 10000000... (401 digits) is not a whole number"),
        ('"suite_episodes": 120', "suite_episodes 10000000... (401 digits)"),
        ('"weight": 24.0', "weight inf is not its size over"),
    ],
)
def test_a_401_digit_number_is_one_line(
    selected: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, says: str
) -> None:
    subset, w = _copy(selected, tmp_path)
    text = json.dumps(w, indent=2, sort_keys=True)
    key = where.split(":")[0]
    # An integer of 401 digits (a float of 401 digits, 1e400, reads as inf), in place of the first such field.
    huge = "1" + "0" * 400 + (".0" if "." in where else "")
    assert where in text
    _write(subset, w, text.replace(where, f"{key}: {huge}" + ("," if where.endswith(",") else ""), 1))
    code, _, err = _score(subset, capsys)
    assert code == 2 and "Traceback" not in err and "OverflowError" not in err, err
    assert len(err.strip().splitlines()) == 1 and says in err and len(err) < 400, err


def test_weights_for_another_suite_are_refused(
    selected: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scoring against fewer episodes than select saw: the strata no longer describe the suite."""
    subset, _ = _copy(selected, tmp_path)
    capsys.readouterr()
    code = main(["score", STALE, "--episodes", str(EPISODES / "R1"), "--subset", str(subset)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "select saw another suite than the 24" in err, err


def test_a_risk_with_no_chosen_episode_is_not_estimated_and_all_is_withheld(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At --fraction 0.02 the subset holds 2 of 120 episodes, of R1 and R2: R3-R5 have no stratum.
    `stale` passes 0.45 of the suite; an "all" read from R1 and R2 alone would say 0.00."""
    subset = _select(tmp_path, "--fraction", "0.02")
    w = json.loads(Path(f"{subset}.weights.json").read_text())
    assert sorted(s["risk"] for s in w["strata"]) == ["R1", "R2"]
    code, out, err = _score(subset, capsys, "--json")
    assert code == 0, err
    est = json.loads(out)["subset_estimates"]["systems"][0]["estimates"]
    for risk in ("R3", "R4", "R5"):
        assert est[risk]["estimated"] is False and est[risk]["value"] is None and est[risk]["ci95"] is None
        assert est[risk]["reason"] == f"no episode of {risk} was chosen"
    assert est["R1"]["estimated"] and est["R1"]["value"] == 0.0
    assert est["all"]["estimated"] is False and est["all"]["value"] is None and est["all"]["ci95"] is None
    assert est["all"]["reason"] == "withheld: R3, R4, R5 not estimated (the estimates cover R1, R2 only)"
    code, out, err = _score(subset, capsys)
    assert code == 0, err
    rows = {ln.split()[0]: ln for ln in out.splitlines() if re.match(r"  (R\d|all) ", ln)}
    assert "not estimated: no episode of R4 was chosen" in rows["R4"]
    assert "withheld: R3, R4, R5 not estimated" in rows["all"] and "0.00    [" not in rows["all"]
