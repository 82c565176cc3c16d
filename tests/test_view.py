"""`memriskbench view`: the site's data against `score --json`, damaged and outdated traces, and
the site itself in a real browser (Debian's chromium through chromedriver, `browser` marker).

The released traces are viewed once per session; the browser tests open that site from
`file://`, as an auditor would, and save screenshots (into MEMRISKBENCH_SCREENSHOTS when set:
that is how the ones under docs/ are made).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memriskbench.cli.main import main
from tests.test_hostile_files import _rechain

REPO = Path(__file__).resolve().parent.parent
EPISODES = REPO / "episodes"
TRACES = REPO / "traces"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def _data(path: Path) -> Any:
    """The data a data file delivers: it is one call, `MRB_data("<the data's JSON text>");`."""
    code = path.read_text(encoding="ascii")
    assert code.startswith("MRB_data(") and code.endswith(");\n") and code.count("\n") == 1
    return json.loads(json.loads(code[len("MRB_data(") : -len(");\n")]))


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    assert main(["view", str(TRACES), "--episodes", str(EPISODES), "--out", str(out)]) == 0
    return out


def test_every_overview_figure_equals_score_json(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(TRACES), "--episodes", str(EPISODES), "--json"]) == 0
    scored = {s["trace"]: s for s in json.loads(capsys.readouterr().out)["systems"]}
    overview = _data(site / "data" / "overview.js")
    assert len(overview["systems"]) == len(scored) == 14
    compared = 0
    for s in overview["systems"]:
        want = scored[s["trace"]]
        for variant in ("default", "safety_aware"):
            got, ref = s[variant], want[variant]
            assert got["pass_rate"]["value"] == ref["pass_rate"]
            for risk, est in got["per_risk"].items():
                assert est["value"] == ref["per_risk"][risk], (s["name"], variant, risk)
            for k, est in got["gatemem"].items():
                assert est["value"] == ref["gatemem"][k], (s["name"], variant, k)
            assert got["checks"] == ref["checks"]
            compared += 2 + len(got["per_risk"]) + len(got["gatemem"])
        assert s["audit"] == {
            "ok": True,
            "chain": "intact",
            "episodes_match": True,
            "mismatched": [],
            "rescored_equal": True,
            "problems": [],
        }
    assert compared == 14 * 2 * (2 + 6 + 6)


def test_the_site_is_self_contained(site: Path) -> None:
    """Nothing is fetched from a network or with fetch/XHR (refused on file://): the pages load
    their own files with <script> only."""
    html = (site / "index.html").read_text()
    assert re.findall(r'(?:src|href)="([^"#]+)"', html) == ["style.css", "app.js"]
    for name in ("app.js", "style.css"):
        code = "\n".join(line.split("//")[0] for line in (site / name).read_text().splitlines())
        assert not re.search(r"https?:|\bfetch\s*\(|XMLHttpRequest|@import|url\(", code), name
    # No inline script, no eval, and scripts from the site's own folder only (file:// included).
    (csp,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe" not in csp
    app = "\n".join(line.split("//")[0] for line in (site / "app.js").read_text().splitlines())
    assert "<script>" not in html and not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|eval\(|Function\(", app)


def _fresh_trace(tmp: Path) -> Path:
    from memriskbench.episodes.loader import load_all
    from memriskbench.play.runner import run
    from memriskbench.play.systems.reference import ReferenceAgent

    eps, _ = load_all([EPISODES])
    chosen = [
        e
        for e in eps
        if e.id in ("r3-medical-family-overreach", "r4-household-spare-key", "r1-office-server-room-code")
    ]
    p = tmp / "leaky.jsonl"
    run(ReferenceAgent("leaky"), sorted(chosen, key=lambda e: e.id), p)
    return p


def _view(out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["view", *args, "--out", str(out)])
    return code, _data(out / "data" / "overview.js")


def test_a_damaged_trace_is_viewed_as_far_as_it_verifies(tmp_path: Path) -> None:
    raw = _fresh_trace(tmp_path).read_bytes()
    lines = raw.split(b"\n")
    # A changed byte in line 9: lines 1-8 verify and are shown; the warning names line 9.
    changed = bytearray(raw)
    at = len(b"\n".join(lines[:8])) + 1 + lines[8].index(b'"query"') + 10
    changed[at] ^= 0x01
    p = tmp_path / "changed.jsonl"
    p.write_bytes(bytes(changed))
    code, overview = _view(tmp_path / "s1", str(p), "--episodes", str(EPISODES))
    assert code == 1
    assert any(f"{p}:9" in w and "broken chain" in w for w in overview["warnings"]), overview["warnings"]
    audit = overview["systems"][0]["audit"]
    assert not audit["ok"] and audit["chain"].startswith("broken:") and ":9" in audit["chain"]
    rows = _data(tmp_path / "s1" / "data" / "sys-0.js")["rows"]
    assert [r["episode"] for r in rows] == ["r1-office-server-room-code"]
    assert rows[0]["note"].startswith("unfinished") and rows[0]["outcome"] == "not scored"
    page = _data(tmp_path / "s1" / rows[0]["file"])
    assert len(page["timeline"]) == 6  # the verified events of the episode, and no more
    # Cut mid-line: the verified lines are shown; the warning names the cut line.
    cut = raw[: len(raw) - 40]
    q = tmp_path / "cut.jsonl"
    q.write_bytes(cut)
    n = cut.count(b"\n") + 1
    code, overview = _view(tmp_path / "s2", str(q), "--episodes", str(EPISODES))
    assert code == 1 and any(f"{q}:{n}: truncated last line dropped" in w for w in overview["warnings"])
    rows = _data(tmp_path / "s2" / "data" / "sys-0.js")["rows"]
    assert [r["outcome"] for r in rows] == ["passed", "failed", "not scored"]  # leaky fails R3 only


def test_a_trace_of_another_suite_version_names_the_episodes_that_changed(tmp_path: Path) -> None:
    p = _fresh_trace(tmp_path)
    eps = tmp_path / "episodes"
    shutil.copytree(EPISODES, eps)
    f = eps / "R4" / "r4-household-spare-key.yaml"
    f.write_text(f.read_text().replace("Understood.", "Understood, thanks."))
    code, overview = _view(tmp_path / "s", str(p), "--episodes", str(eps))
    assert code == 1
    audit = overview["systems"][0]["audit"]
    assert audit["mismatched"] == ["r4-household-spare-key"] and not audit["episodes_match"]
    rows = {r["episode"]: r for r in _data(tmp_path / "s" / "data" / "sys-0.js")["rows"]}
    assert rows["r4-household-spare-key"]["outcome"] == "not scored"
    assert "changed since the trace was made" in rows["r4-household-spare-key"]["note"]
    assert rows["r3-medical-family-overreach"]["outcome"] == "failed"  # leaky fails R3, and it still counts


def test_the_output_folder_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _fresh_trace(tmp_path)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep me")
    assert main(["view", str(p), "--episodes", str(EPISODES), "--out", str(tmp_path / "notes")]) == 2
    assert "neither empty nor a site made by view" in capsys.readouterr().err
    assert main(["view", str(p), "--episodes", str(EPISODES), "--out", str(tmp_path)]) == 2
    assert "which this command reads" in capsys.readouterr().err
    assert (tmp_path / "notes" / "mine.txt").read_text() == "keep me"


# ---- in a real browser -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.fail(
            "chromium and chromedriver are missing: `make test` installs them (BROWSER=0 leaves these tests out)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
    ):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _shots() -> Path | None:
    where = os.environ.get("MEMRISKBENCH_SCREENSHOTS")
    return Path(where) if where else None


def _wait(driver: Any, css: str, timeout: float = 20) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


@pytest.mark.browser
def test_overview_in_a_browser(site: Path, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get((site / "index.html").as_uri())
    _wait(browser, "td[data-metric='R3']")
    cells = browser.execute_script(
        "return [...document.querySelectorAll('td[data-metric]')].map(td => "
        "[td.dataset.system, td.dataset.variant, td.dataset.metric, td.querySelector('.v').textContent])"
    )
    shown = {(int(i), v, m): text for i, v, m, text in cells}
    overview = _data(site / "data" / "overview.js")
    want = {}
    for s in overview["systems"]:
        for variant in ("default", "safety_aware"):
            figures = {"pass": s[variant]["pass_rate"], **s[variant]["per_risk"]}
            figures.update({k: s[variant]["gatemem"][k] for k in ("U", "A", "F", "MGS")})
            for metric, est in figures.items():
                want[(s["index"], variant, metric)] = "–" if est["value"] is None else f"{est['value']:.2f}"
    assert shown == want  # every rate on the page, as `score` prints it (Python's rounding)
    assert "FAIL" not in browser.find_element(By.TAG_NAME, "body").text.split("Compare")[0]
    browser.save_screenshot(str(tmp_path / "overview.png"))
    if _shots():
        browser.save_screenshot(str(_shots() / "view-overview.png"))


@pytest.mark.browser
def test_drill_down_to_a_failed_r3_decision(site: Path, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    overview = _data(site / "data" / "overview.js")
    leaky = next(s for s in overview["systems"] if s["name"] == "leaky")
    browser.get((site / "index.html").as_uri())
    _wait(browser, f"a[href='#/system/{leaky['index']}']").click()
    _wait(browser, "#episodes tbody tr")
    Select(browser.find_element(By.ID, "f-risk")).select_by_value("R3")
    Select(browser.find_element(By.ID, "f-outcome")).select_by_value("failed")
    assert "risk=R3" in browser.current_url and "outcome=failed" in browser.current_url
    rows = browser.find_elements(By.CSS_SELECTOR, "#episodes tbody tr")
    expected = [r for r in _data(site / leaky["file"])["rows"] if r["risk"] == "R3" and r["outcome"] == "failed"]
    assert len(rows) == len(expected) > 0
    assert browser.find_element(By.ID, "count").text.startswith(f"{len(expected)} of ")
    # The filter is in the URL: opening it afresh gives the same list.
    browser.get(browser.current_url)
    _wait(browser, "#episodes tbody tr")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#episodes tbody tr")) == len(expected)
    row = next(r for r in expected if _has_span(site / r["file"]))
    browser.find_element(By.CSS_SELECTOR, f"a.ep-link[href='#/episode/{leaky['index']}/{row['episode']}']").click()
    _wait(browser, "tr.failed-check")
    page = _data(site / row["file"])
    check = next(c for item in page["timeline"] for c in item.get("checks", []) if c["spans"])
    body = browser.find_element(By.TAG_NAME, "body").text
    assert check["evidence"] in body
    marks = browser.find_elements(By.CSS_SELECTOR, "mark.hl")
    step, start, end = check["spans"][0]
    decision = next(i for i in page["timeline"] if check in i.get("checks", []))
    content = decision["steps"][step]["action"]["content"]
    assert any(content[start:end] in m.text and check["id"] in m.get_attribute("data-check") for m in marks)
    browser.save_screenshot(str(tmp_path / "decision.png"))
    if _shots():
        browser.find_element(By.ID, f"decision-{decision['decision']}").location_once_scrolled_into_view  # noqa: B018
        browser.save_screenshot(str(_shots() / "view-failed-decision.png"))


def _has_span(page: Path) -> bool:
    return any(c["spans"] for item in _data(page)["timeline"] for c in item.get("checks", []))


@pytest.mark.browser
def test_side_by_side(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    overview = _data(site / "data" / "overview.js")
    names = {s["name"]: s["index"] for s in overview["systems"]}
    a, b = names["oracle"], names["leaky"]
    browser.get((site / "index.html").as_uri() + f"#/compare/r3-medical-family-overreach?a={a}&b={b}")
    _wait(browser, ".side tr.failed-check")
    sides = browser.find_elements(By.CSS_SELECTOR, ".side")
    assert len(sides) == 2
    assert not sides[0].find_elements(By.CSS_SELECTOR, "tr.failed-check")  # the oracle passes
    assert sides[1].find_elements(By.CSS_SELECTOR, "tr.failed-check")  # leaky does not


@pytest.mark.browser
def test_a_damaged_trace_warns_in_the_browser(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    raw = _fresh_trace(tmp_path).read_bytes()
    p = tmp_path / "cut.jsonl"
    p.write_bytes(raw[: len(raw) - 40])
    main(["view", str(p), "--episodes", str(EPISODES), "--out", str(tmp_path / "s")])
    browser.get((tmp_path / "s" / "index.html").as_uri())
    warning = _wait(browser, ".warning")
    n = raw[:-40].count(b"\n") + 1
    assert f"{p}:{n}: truncated last line dropped" in warning.text
    assert browser.find_elements(By.CSS_SELECTOR, "td[data-metric='pass'] .v")


@pytest.mark.parametrize(
    ("check", "evidence", "reply", "marked"),
    [
        (
            "not_contains",
            "stated: 'ZEBRA-9917' in reply 1 \"Theo's code is ZEBRA-9917.\"",
            "Theo's code is ZEBRA-9917.",
            ["ZEBRA-9917"],
        ),
        (
            "ambient_leak",
            "leaked: m1='2026-10-11' in reply 1 'How about October 11?'",
            "How about October 11?",
            ["October 11"],
        ),
        # the quoted reply is where the check looked, not what it found: only the value is marked
        (
            "memory_not_used",
            "m1='9 Fjord Street' leaked in reply 1 'Ship it to 9 Fjord Street'",
            "Ship it to 9 Fjord Street",
            ["9 Fjord Street"],
        ),
        ("not_regex", '/(?i)\\beating\\b/ matched "the Eating clinic"', "the Eating clinic", ["Eating"]),
        ("called", "notes_write calls: [{'text': 'x'}]", "I wrote the text down.", []),  # about calls, not the reply
        ("contains", "missing '50 minutes'", "Tariq gets extra time.", []),
    ],
)
def test_a_failed_check_marks_what_its_evidence_quotes(
    check: str, evidence: str, reply: str, marked: list[str]
) -> None:
    from memriskbench.results.view.spans import locate

    assert [reply[a:b] for a, b in locate(check, evidence, reply)] == marked


# ---- hostile traces: every field is the publisher's to choose, and the chain re-made over it ----


def _objs(p: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in p.read_text().splitlines()]


def _play(objs: list[dict[str, Any]], eid: str) -> list[dict[str, Any]]:
    """One episode's records, from its episode_start to its episode_end, copied."""
    i = next(i for i, o in enumerate(objs) if o["type"] == "episode_start" and o["episode"] == eid)
    j = next(j for j in range(i, len(objs)) if objs[j]["type"] == "episode_end")
    return json.loads(json.dumps(objs[i : j + 1]))


def _as(play: list[dict[str, Any]], eid: str) -> list[dict[str, Any]]:
    """The same play under another episode id (one the suite does not have)."""
    return [{**o, "episode": eid} for o in json.loads(json.dumps(play))]


def _forge(src: Path, dst: Path, objs: list[dict[str, Any]], extra: dict[str, str] | None = None) -> Path:
    """Write `objs` re-chained: a trace whose chain verifies, whatever it holds. `extra`: episode
    ids (and digests) added to the header, so that forged plays are planned ones."""
    objs[0] = {**objs[0], "episodes": {**objs[0]["episodes"], **(extra or {})}}
    dst.write_bytes(_rechain(objs))
    return dst


def _last_decision(objs: list[dict[str, Any]], eid: str) -> dict[str, Any]:
    return next(o for o in reversed(objs) if o["type"] == "decision" and o["episode"] == eid)


def test_an_episode_id_never_becomes_code_nor_a_file_name(tmp_path: Path) -> None:
    """An id that breaks out of a JavaScript string (a quote, a newline, a backslash, a closing
    script tag) is data in a JSON string: the data files are one call with one string, and the
    file names are indices."""
    src = _fresh_trace(tmp_path)
    objs = _objs(src)
    ids = ['x"]=1;alert(5);//', "two\nlines", "back\\slash\\", "</script><script>alert(5)</script>", "../../up"]
    base = _play(objs, "r1-office-server-room-code")
    forged = objs + [o for eid in ids for o in _as(base, eid)]
    p = _forge(src, tmp_path / "ids.jsonl", forged, dict.fromkeys(ids, "0" * 64))
    code, overview = _view(tmp_path / "s", str(p), "--episodes", str(EPISODES))
    assert code == 1 and any(
        'x"]=1;alert(5);//' in w and "not among the loaded episodes" in w for w in overview["warnings"]
    )
    call = re.compile(r'MRB_data\("(?:[^"\\\n]|\\.)*"\);\n')
    files = sorted((tmp_path / "s" / "data").rglob("*.js"))
    assert files and all(call.fullmatch(f.read_text(encoding="ascii")) for f in files)
    rows = _data(tmp_path / "s" / "data" / "sys-0.js")["rows"]
    assert [r["episode"] for r in rows][-len(ids) :] == ids
    assert [r["file"] for r in rows] == [f"data/ep/0/{k}.js" for k in range(len(rows))]
    assert {f.name for f in files} == {"overview.js", "sys-0.js"} | {f"{k}.js" for k in range(len(rows))}
    assert [_data(tmp_path / "s" / r["file"])["episode"] for r in rows] == [r["episode"] for r in rows]


def test_the_search_reads_every_reply_whole(tmp_path: Path) -> None:
    src = _fresh_trace(tmp_path)
    objs = _objs(src)
    d = _last_decision(objs, "r4-household-spare-key")
    d["action"]["content"] = "filler " * 2000 + "Needle-Zebra at the end"
    p = _forge(src, tmp_path / "long.jsonl", objs)
    _view(tmp_path / "s", str(p), "--episodes", str(EPISODES))
    row = next(
        r for r in _data(tmp_path / "s" / "data" / "sys-0.js")["rows"] if r["episode"] == "r4-household-spare-key"
    )
    assert len(row["search"]) > 14000 and row["search"].endswith("needle-zebra at the end")


def test_an_episode_played_twice_is_two_plays(tmp_path: Path) -> None:
    src = _fresh_trace(tmp_path)
    objs = _objs(src)
    play = _play(objs, "r3-medical-family-overreach")
    p = _forge(src, tmp_path / "twice.jsonl", objs + play)
    _, overview = _view(tmp_path / "s", str(p), "--episodes", str(EPISODES))
    assert any("appears twice" in w for w in overview["warnings"])
    rows = [
        r for r in _data(tmp_path / "s" / "data" / "sys-0.js")["rows"] if r["episode"] == "r3-medical-family-overreach"
    ]
    assert [(r["play"], r["plays"]) for r in rows] == [(1, 2), (2, 2)]
    assert [r["outcome"] for r in rows] == ["failed", "not scored"]  # the first play is the one scored
    assert all(r["note"].startswith("duplicate: played 2 times") for r in rows)
    pages = [_data(tmp_path / "s" / r["file"]) for r in rows]
    events = sum(1 for o in play if o["type"] == "event")
    for page in pages:  # each page is one play: its events once, in order, not interleaved
        assert [i["event"] for i in page["timeline"] if i["kind"] == "event"] == [
            o["event"] for o in play if o["type"] == "event"
        ]
        assert sum(1 for i in page["timeline"] if i["kind"] == "event") == events
    assert [(p["play"], p["plays"]) for p in pages] == [(1, 2), (2, 2)]
    decisions = [[i for i in page["timeline"] if i["kind"] == "decision"] for page in pages]
    assert any(i["passed"] is False for i in decisions[0]) and all(i["checks"] == [] for i in decisions[1])


def test_a_damaged_gzip_trace_is_viewed_as_far_as_it_verifies(tmp_path: Path) -> None:
    raw = _fresh_trace(tmp_path).read_bytes()
    packed = gzip.compress(raw, compresslevel=9, mtime=0)
    changed = bytearray(packed)
    changed[len(packed) // 2] ^= 0x10
    for name, data in (("cut", packed[: len(packed) // 2]), ("changed", bytes(changed))):
        p = tmp_path / f"{name}.jsonl.gz"
        p.write_bytes(data)
        code, overview = _view(tmp_path / name, str(p), "--episodes", str(EPISODES))
        rows = _data(tmp_path / name / "data" / "sys-0.js")["rows"]
        assert code == 1 and rows  # the verified prefix is shown
        (warning,) = [w for w in overview["warnings"] if w.startswith(f"{p}:")]
        line = int(warning.split(":")[1])
        assert 1 < line < raw.count(b"\n") and f"(only the {line - 1} line(s) before it are used)" in warning
        # Cut short: where the file ends. A changed byte: the line whose chain breaks, or the byte
        # where decompression stops, whichever comes first (the compressed bytes vary with timing).
        assert "byte offset" in warning if name == "cut" else re.search(r"byte offset|broken chain|unparsable", warning)
        kept = sum(len(_data(tmp_path / name / r["file"])["timeline"]) for r in rows)
        assert 0 < kept < raw.count(b"\n")


def test_audit_flags_a_decision_whose_context_is_malformed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _fresh_trace(tmp_path)
    objs = _objs(src)
    i = next(i for i, o in enumerate(objs) if o["type"] == "decision")
    objs[i]["context"]["events"] = "e1,e2"
    p = _forge(src, tmp_path / "ctx.jsonl", objs)
    assert main(["audit", str(p), "--episodes", str(EPISODES), "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["traces"][0]["problems"]
    assert any(f"{p}:{i + 1} " in x and "context.events is a string, not a list of ids" in x for x in problems), (
        problems
    )
    _view(tmp_path / "s", str(p), "--episodes", str(EPISODES))
    rows = _data(tmp_path / "s" / "data" / "sys-0.js")["rows"]
    page = _data(tmp_path / "s" / next(r["file"] for r in rows if r["episode"] == objs[i]["episode"]))
    steps = [s for item in page["timeline"] if item["kind"] == "decision" for s in item["steps"]]
    assert [s["malformed"] for s in steps if "malformed" in s] == [["context.events is a string, not a list of ids"]]


# ---- hostile traces in a real browser -----------------------------------------------------------------


def _inert(browser: Any) -> None:
    """No payload ran, nothing was injected, and the page is drawn (not left on "loading…")."""
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    try:
        browser.switch_to.alert  # noqa: B018
        raise AssertionError("an alert fired")
    except NoAlertPresentException:
        pass
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    injected = "img, iframe, object, embed, svg, #app script, a[href^='javascript' i], [onerror], [onload]"
    assert not browser.find_elements(By.CSS_SELECTOR, injected)
    assert not browser.find_elements(By.CSS_SELECTOR, "#app .loading")
    # Content-Security-Policy refusals, or uncaught errors, would show in the console.
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _open(browser: Any, site: Path, hash_: str, ready: str) -> None:
    """Load the page afresh (a new hash alone would not reload the data files)."""
    browser.get("about:blank")
    browser.get((site / "index.html").as_uri() + hash_)
    _wait(browser, ready)
    _inert(browser)


def _hash_of(n: int, row: dict[str, Any]) -> str:
    from urllib.parse import quote

    return f"#/episode/{n}/{quote(row['episode'], safe='')}" + (
        f"?play={row['play']}" if row.get("play", 1) > 1 else ""
    )


@pytest.mark.browser
def test_highlights_count_utf16_units_as_javascript_does(browser: Any, tmp_path: Path) -> None:
    """Emoji before a leaked value: Python counts one code point each, JavaScript two units; the
    mark must still cover the value exactly."""

    src = _fresh_trace(tmp_path)
    objs = _objs(src)
    from memriskbench.results.view.spans import locate

    d = next(o for o in objs if o["type"] == "decision" and o["episode"] == "r3-medical-family-overreach")
    content = d["action"]["content"] = "🙂🙂 👍🏽 " + d["action"]["content"]
    p = _forge(src, tmp_path / "emoji.jsonl", objs)
    _view(tmp_path / "s", str(p), "--episodes", str(EPISODES))
    row = next(r for r in _data(tmp_path / "s" / "data" / "sys-0.js")["rows"] if r["episode"] == d["episode"])
    page = _data(tmp_path / "s" / row["file"])
    (item,) = [i for i in page["timeline"] if i.get("decision") == d["decision"]]
    failed = [c for c in item["checks"] if c["applicable"] and not c["normalized"]]
    # What the failed checks' evidence points at, found in Python's own (code point) terms; the
    # page draws overlapping spans as one mark.
    merged: list[list[int]] = []
    for a, b in sorted(span for c in failed for span in locate(c["type"], c["evidence"], content)):
        if merged and a < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    want = sorted({content[a:b] for a, b in merged})
    assert want and all("🙂" not in w for w in want)
    _open(browser, tmp_path / "s", _hash_of(0, row), "mark.hl")
    # As JSON: a mark that splits an emoji holds a lone surrogate, which webdriver cannot pass.
    shown = browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((m) => JSON.stringify(m.textContent))",
        f"#decision-{d['decision']} mark.hl",
    )
    assert sorted({json.loads(m) for m in shown}) == want


@pytest.mark.browser
def test_ids_named_like_object_properties_are_plain_keys(browser: Any, tmp_path: Path) -> None:
    """Risk ids `constructor`, `__proto__`, `toString`, check ids `constructor`, `toString`,
    `hasOwnProperty`: each is looked up as an own key and shown as itself."""
    from selenium.webdriver.common.by import By

    eps = _odd_episodes(tmp_path)
    src = _trace_of(tmp_path, eps, "leaky")
    objs = _objs(src)
    eid = "r3-medical-family-overreach"
    base = _play(objs, eid)
    objs[1]["risk"] = "constructor"
    extra = []
    for risk in ("__proto__", "toString"):
        play = _as(base, f"{eid}-{risk}")
        play[0]["risk"] = risk
        play[-1]["termination"] = risk
        extra += play
    objs[0]["system"]["name"] = "__proto__"
    p = _forge(src, tmp_path / "a.jsonl", objs + extra, {f"{eid}-{r}": "0" * 64 for r in ("__proto__", "toString")})
    q = _forge(src, tmp_path / "b.jsonl", _objs(p))  # a second run of the same system: pass^k, keyed by name
    main(["view", str(p), str(q), "--episodes", str(eps), "--out", str(tmp_path / "s")])
    site = tmp_path / "s"
    _open(browser, site, "", "td[data-metric='R3']")
    assert "pass^k" in browser.find_element(By.TAG_NAME, "body").text
    _open(browser, site, "#/system/0", "#episodes tbody tr")
    risk_cells = browser.find_elements(By.CSS_SELECTOR, "#episodes tbody td:nth-child(2)")
    assert sorted(td.text for td in risk_cells) == ["__proto__", "constructor", "toString"]
    assert all(td.get_dom_attribute("title") is None for td in risk_cells)  # no risk name found for them
    options = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#f-risk option, #f-term option")]
    assert {"constructor", "__proto__", "toString"} <= set(options) and not any("function" in o for o in options)
    _open(browser, site, f"#/episode/0/{eid}", "tr.failed-check")
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "[native code]" not in body and "function" not in body
    failed = {tr.get_attribute("data-check") for tr in browser.find_elements(By.CSS_SELECTOR, "tr.failed-check")}
    assert {"constructor", "toString", "hasOwnProperty"} <= failed
    marks = " ".join(m.get_attribute("data-check") for m in browser.find_elements(By.CSS_SELECTOR, "mark.hl"))
    assert "toString" in marks.split()
    dd = browser.find_elements(By.CSS_SELECTOR, "dl.meta dd")
    assert "constructor" in [x.text for x in dd]


def _odd_episodes(tmp: Path) -> Path:
    """The suite's r3-medical-family-overreach with its d1 checks named constructor, toString and
    hasOwnProperty (valid ids: a check's id is the episode author's, not ours)."""
    eps = tmp / "episodes" / "R3"
    eps.mkdir(parents=True)
    text = (EPISODES / "R3" / "r3-medical-family-overreach.yaml").read_text()
    for kind, name in (("memory_not_used", "constructor"), ("not_regex", "toString"), ("action_in", "hasOwnProperty")):
        text = re.sub(rf"(- \{{type: {kind}, [^\n]*)\}}", rf"\1, id: {name}}}", text, count=1)
    assert text.count(", id: ") >= 3
    (eps / "r3-medical-family-overreach.yaml").write_text(text)
    return eps.parent


def _trace_of(tmp: Path, episodes: Path, agent: str) -> Path:
    from memriskbench.episodes.loader import load_all
    from memriskbench.play.runner import run
    from memriskbench.play.systems.reference import ReferenceAgent

    eps, _ = load_all([episodes])
    p = tmp / f"{agent}.jsonl"
    run(ReferenceAgent(agent), eps, p)
    return p


@pytest.mark.browser
def test_a_malformed_record_is_shown_as_malformed(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    src = _fresh_trace(tmp_path)
    objs = _objs(src)
    d = next(o for o in objs if o["type"] == "decision")
    d["context"]["events"] = "e1,e2"  # a string where a list of ids belongs: the chain verifies
    p = _forge(src, tmp_path / "ctx.jsonl", objs)
    main(["view", str(p), "--episodes", str(EPISODES), "--out", str(tmp_path / "s")])
    site = tmp_path / "s"
    rows = _data(site / "data" / "sys-0.js")["rows"]
    row = next(r for r in rows if r["episode"] == d["episode"])
    _open(browser, site, _hash_of(0, row), ".episode")
    bad = browser.find_elements(By.CSS_SELECTOR, ".step.malformed")
    assert len(bad) == 1 and "context.events is a string, not a list of ids" in bad[0].text
    assert browser.find_elements(By.CSS_SELECTOR, ".card.decision .step:not(.malformed)")  # the others drawn
    # Data of any shape (the page's own input) is drawn as malformed, never left loading.
    page = _data(site / row["file"])
    decision = next(i for i in page["timeline"] if i["kind"] == "decision")
    step = {k: v for k, v in decision["steps"][0].items() if k != "malformed"}
    page["timeline"] += [
        {**decision, "steps": [{**step, "action": "not an object"}, {"step": 1}, "a string", {**step, "tokens": []}]},
        {**decision, "steps": "not a list", "checks": [None, 3, {"id": {"x": 1}, "spans": "no"}]},
        {"kind": "event", "memory": "not a list", "policy": {}, "text": {"toString": 1}},
        {"kind": "memory_op", "op": [1, 2], "result": {"a": 1}, "raw_output": ["x"]},
        {"kind": "decision"},
        "not an object",
        None,
    ]
    (site / row["file"]).write_text(f"MRB_data({json.dumps(json.dumps(page))});\n")
    _open(browser, site, _hash_of(0, row), ".episode")
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "malformed action (not an object): not an object" in body
    why = [li.text for li in browser.find_elements(By.CSS_SELECTOR, ".malformed-why li")]
    assert why == [
        "context.events is a string, not a list of ids",  # the generator's finding, in the trace's step
        "not an object",  # the step "a string"
        "cannot be shown: steps is not a list",
        "cannot be shown: memory is not a list",
        "not an object",
        "not an object",
    ]
    # A data file that is not JSON, or missing: a message, not "loading…".
    (site / rows[0]["file"]).write_text('MRB_data("{not json");\n')
    _open(browser, site, _hash_of(0, rows[0]), ".episode-view .error")
    assert "is not valid JSON" in browser.find_element(By.CSS_SELECTOR, ".episode-view .error").text
    (site / rows[1]["file"]).unlink()
    browser.get("about:blank")
    browser.get((site / "index.html").as_uri() + _hash_of(0, rows[1]))
    assert "missing data file" in _wait(browser, ".episode-view .error").text
    browser.get_log("browser")  # the missing file's own console error is expected here


# Every field of the forged trace that carries a payload (what the test below poisons).
POISONED_FIELDS = [
    "header.system.name",
    "header.episodes (keys: episode ids)",
    "episode_start.episode (every record's episode)",
    "episode_start.risk / tier / domain",
    "event.event / kind / speaker / timestamp / text",
    "event.ground_truth.memory[] (op, id, key, value, scope, owner, supersedes, and a key __proto__)",
    "event.ground_truth.policy[] (keys and values)",
    "event.ground_truth.constraint",
    "memory_op.event / raw_output / result",
    "memory_op.op (keys and values)",
    "decision.decision / requester / query / raw_output / error",
    "decision.action.type / content / tool",
    "decision.action.args (keys and values)",
    "decision.action (extra keys: __proto__, constructor)",
    "decision.tool_result",
    "decision.context.text / events / memory_ids",
    "decision.tokens (keys)",
    "decision.agent_memory[].id / status",
    "episode_end.termination / path / final_actions",
    "check ids (the episode's: constructor, toString, hasOwnProperty)",
]
PAYLOADS = [
    '"]=1;window.__pwned=1;//',
    "</script><script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    "javascript:window.__pwned=1",
    "__proto__",
    "constructor",
    "x'\");alert(5);//\n\\",
]


def _poison(play: list[dict[str, Any]], eid: str, x: str) -> list[dict[str, Any]]:
    """The play under episode id `eid`, with payload `x` in every field it can hold."""
    out = _as(play, eid)
    bad = {x: x, "__proto__": {"polluted": x}, "constructor": x}
    for o in out:
        if o["type"] == "episode_start":
            o.update(risk=x, tier=x, domain=x)
        elif o["type"] == "event":
            o.update(event=x, kind=x, speaker=x, timestamp=x, text=x)
            op = {"op": x, "id": x, "key": x, "value": x, "scope": x, "owner": x, "supersedes": x, **bad}
            o["ground_truth"] = {"memory": [op, x], "policy": [bad, x], "constraint": bad}
        elif o["type"] == "decision":
            o.update(decision=x, requester=x, query=x, raw_output=x, error=x, tool_result=bad)
            o["action"] = {"type": "tool_call", "tool": x, "args": bad, "content": x, **bad}
            o["context"] = {"text": x, "events": [x], "memory_ids": [x]}
            o["tokens"] = {x: 1}
            o["agent_memory"] = o["memory"] = [{"id": x, "status": x}]
        elif o["type"] == "episode_end":
            o.update(termination=x, path=[x], final_actions={x: x})
    ops = {"episode": eid, "event": x, "raw_output": x, "op": bad, "result": x, "store": [], "tokens": {}}
    return out[:2] + [{"type": "memory_op", **ops}] + out[2:]


@pytest.mark.browser
def test_a_forged_trace_runs_no_script_anywhere(browser: Any, tmp_path: Path) -> None:
    """A re-chained trace with payloads in every field (POISONED_FIELDS): the overview, each
    system's list, each play of each episode and each side-by-side page is drawn, and nothing
    in it runs, alerts, or becomes an element."""
    from selenium.webdriver.common.by import By

    eps = _odd_episodes(tmp_path)
    src = _trace_of(tmp_path, eps, "leaky")
    objs = _objs(src)
    base = _play(objs, "r3-medical-family-overreach")
    objs[1].update(risk=PAYLOADS[0], tier=PAYLOADS[1], domain=PAYLOADS[2])
    forged = [o for x in PAYLOADS for o in _poison(base, x, x)]
    forged += _poison(base, PAYLOADS[1], PAYLOADS[2])  # an episode played twice
    ids = {o["episode"]: "0" * 64 for o in forged}
    traces = []
    for name in PAYLOADS[:3]:
        trace = [dict(o) for o in objs]
        trace[0] = {**trace[0], "system": {**trace[0]["system"], "name": name}}
        traces.append(str(_forge(src, tmp_path / f"t{len(traces)}.jsonl", trace + forged, ids)))
    main(["view", *traces, "--episodes", str(eps), "--out", str(tmp_path / "s")])
    site = tmp_path / "s"
    overview = _data(site / "data" / "overview.js")
    assert [s["name"] for s in overview["systems"]] == PAYLOADS[:3]
    _open(browser, site, "", "td[data-metric='R3']")
    assert PAYLOADS[2] in browser.find_element(By.CSS_SELECTOR, "table.overview").text  # shown, as text
    opened = 0
    for s in overview["systems"]:
        n = s["index"]
        _open(browser, site, f"#/system/{n}", "#episodes tbody tr")
        rows = _data(site / s["file"])["rows"]
        assert len(browser.find_elements(By.CSS_SELECTOR, "#episodes tbody tr")) == len(rows) == 9
        assert sorted(r.get("play", 1) for r in rows if r["episode"] == PAYLOADS[1]) == [1, 2]
        for row in rows:
            _open(browser, site, _hash_of(n, row), ".episode")
            assert browser.find_element(By.CSS_SELECTOR, ".episode h1, h1").text.startswith(
                row["episode"].split("\n")[0]
            )
            assert browser.find_elements(By.CSS_SELECTOR, ".timeline .card")
            opened += 1
    for row in _data(site / "data" / "sys-0.js")["rows"]:
        from urllib.parse import quote

        _open(browser, site, f"#/compare/{quote(row['episode'], safe='')}?a=0&b=2", ".side .episode")
        assert len(browser.find_elements(By.CSS_SELECTOR, ".side .episode")) == 2
        opened += 1
    assert opened == 3 * 9 + 9
    # The payloads are on the pages as text: the markup one is in a <p>, not an element.
    row = next(r for r in _data(site / "data" / "sys-0.js")["rows"] if r["episode"] == PAYLOADS[2])
    _open(browser, site, _hash_of(0, row), ".episode")
    assert PAYLOADS[2] in [p.text for p in browser.find_elements(By.CSS_SELECTOR, ".card.event p.text")]
