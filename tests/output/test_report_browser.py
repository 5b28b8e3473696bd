"""``ndbsim report`` opened in a real headless browser (Debian's chromium, driven by
Playwright without a browser download): the page loads with no console error and no request
leaving the file, every image decodes, and a screenshot shows the Gantt chart.

chromium absent on a developer's machine: skipped with the reason; CI (``.ci/run``) installs
it, and under CI a missing browser is a failure, not a skip."""

import os
import shutil

import pytest
from _helpers import ndbsim

CHROMIUM = shutil.which("chromium")
A4_WIDTH_PX = 794
"""A4's width (210 mm) in CSS pixels at 96 per inch, what a browser lays a printed page out on."""


def _browser_or_skip():
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: .ci/run installs it (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium); CI installs it")
    return pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) is not installed")


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    p = ndbsim(
        "report",
        "scenarios/rolling-4-nodes-8.0.yaml",
        "-n",
        "3",
        "--lever",
        "RecoveryWork",
        "--advise-replications",
        "2",
        "-o",
        str(out),
    )
    assert p.returncode == 0, p.stderr
    return out


def test_report_loads_images_decode_and_the_chart_shows(page_file, tmp_path):
    sync_api = _browser_or_skip()
    errors, requests = [], []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_file.as_uri(), wait_until="load")
            images = page.evaluate(
                "Array.from(document.images).map(i => ({id: i.id, complete: i.complete, w: i.naturalWidth}))"
            )
            chart = page.locator("#gantt")
            chart.scroll_into_view_if_needed()
            box = chart.bounding_box()
            shot = tmp_path / "gantt.png"
            chart.screenshot(path=str(shot))
            page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
            # printed on A4 (794 CSS pixels wide at 96 dpi): nothing wider than the paper
            page.set_viewport_size({"width": A4_WIDTH_PX, "height": 1123})
            page.emulate_media(media="print")
            printed_width = page.evaluate("document.documentElement.scrollWidth")
        finally:
            browser.close()
    assert not errors, errors
    outside = [u for u in requests if not u.startswith(("data:", page_file.as_uri()))]
    assert not outside, outside
    assert images and all(i["complete"] and i["w"] > 0 for i in images), images
    assert any(i["id"] == "gantt" for i in images)
    assert box is not None and box["width"] > 400 and box["height"] > 100
    _assert_shows_a_chart(shot)
    assert printed_width <= A4_WIDTH_PX, f"the printed page is {printed_width}px wide, wider than A4"


def _assert_shows_a_chart(png):
    """The screenshot is not blank: coloured bars (not just white and grey text) cover a share of it."""
    import matplotlib.image as mpimg

    px = mpimg.imread(str(png))[..., :3]
    saturation = px.max(axis=2) - px.min(axis=2)
    coloured = float((saturation > 0.15).mean())
    assert coloured > 0.05, f"only {coloured:.1%} of the chart's screenshot is coloured"


def test_the_summary_is_the_first_thing_seen_and_the_figures_are_folded(page_file):
    """The summary opens the page in the first screenful, its accuracy band beside the window; the
    why column's figures start folded (a click opens them) and are left off the printed page."""
    sync_api = _browser_or_skip()
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(page_file.as_uri(), wait_until="load")
            summary = page.locator("section.summary")
            box = summary.bounding_box()
            text = summary.inner_text()
            folded = page.locator("td details ul.figs").first
            hidden_before = not folded.is_visible()
            page.locator("td details summary").first.click()
            shown_after = folded.is_visible()
            page.set_viewport_size({"width": A4_WIDTH_PX, "height": 1123})
            page.emulate_media(media="print")
            printed = page.locator("section.summary").bounding_box()
            details_printed = page.locator("td details").first.is_visible()
        finally:
            browser.close()
    assert box is not None and box["y"] < 300 and box["y"] + box["height"] < 900, box
    assert "Accuracy" in text and "precision, not accuracy" in text and "Top lever" in text
    assert hidden_before and shown_after
    assert printed is not None and printed["y"] + printed["height"] < 1123, "the summary does not fit on page 1"
    assert not details_printed


def test_lever_names_do_not_break_mid_word(page_file):
    """Each lever name in the advise table stays whole on a printed A4 page: it may break only
    after a dot of its key (``cluster.config.`` + the parameter), never inside a word."""
    sync_api = _browser_or_skip()
    script = """() => [...document.querySelectorAll('table.levers code')].map(c => (
        {name: c.textContent, lines: c.getClientRects().length, parts: c.textContent.split('.').length}))"""
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": A4_WIDTH_PX, "height": 1123})
            page.goto(page_file.as_uri(), wait_until="load")
            page.emulate_media(media="print")
            names = page.evaluate(script)
        finally:
            browser.close()
    assert names
    for n in names:
        assert n["lines"] <= n["parts"], n
