"""`memriskbench view`: the site's data against `score --json`, damaged and outdated traces, and
the site itself in a real browser (Debian's chromium through chromedriver, `browser` marker).

The released traces are viewed once per session; the browser tests open that site from
`file://`, as an auditor would, and save screenshots (into MEMRISKBENCH_SCREENSHOTS when set:
that is how the ones under docs/ are made).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memriskbench.cli.main import main

REPO = Path(__file__).resolve().parent.parent
EPISODES = REPO / "episodes"
TRACES = REPO / "traces"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def _data(path: Path) -> Any:
    """The object a data file assigns (its last line is `MRB.<name> = <json>;`)."""
    last = path.read_text(encoding="utf-8").rstrip().splitlines()[-1]
    return json.loads(last.split(" = ", 1)[1].rstrip(";"))


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
    import re

    html = (site / "index.html").read_text()
    assert re.findall(r'(?:src|href)="([^"#]+)"', html) == ["style.css", "data/overview.js", "app.js"]
    for name in ("app.js", "style.css"):
        code = "\n".join(line.split("//")[0] for line in (site / name).read_text().splitlines())
        assert not re.search(r"https?:|\bfetch\s*\(|XMLHttpRequest|@import|url\(", code), name


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
