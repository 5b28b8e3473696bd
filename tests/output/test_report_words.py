"""The report speaks to a manager in its summary and to engineers below it (issue 47 item 8): the
summary says the window and its likely range in plain words (no "variance", no "crash moment"),
the variance breakdown follows under its own heading, and every duration is written as DBAs
write it (``13m00s``), never a bare count of seconds beside m/s times."""

from __future__ import annotations

import re

import pytest
from _helpers import ndbsim


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("words") / "r.html"
    p = ndbsim("report", "scenarios/rolling-4-nodes-8.0.yaml", "-n", "2", "--no-advise", "-o", str(out))
    assert p.returncode == 0, p.stderr
    return out.read_text()


def test_the_summary_is_in_plain_words(page):
    summary = page.split('<section class="summary">', 1)[1].split("</section>", 1)[0]
    assert "variance" not in summary and "crash moment" not in summary and "crash-moment" not in summary
    assert re.search(r"9 restarts in 10 like it should take between \d+m\d\ds and \d+m\d\ds", summary)


def test_the_variance_breakdown_is_below_for_engineers(page):
    after = page.split('<section class="summary">', 1)[1].split("</section>", 1)[1]
    assert "The range, for engineers" in after and "its variance comes from" in after


def test_no_bare_seconds_over_a_minute(page):
    text = re.sub(r"<[^>]+>", " ", page)
    assert not re.findall(r"\b\d{3,} s\b", text), re.findall(r".{40}\b\d{3,} s\b.{20}", text)
