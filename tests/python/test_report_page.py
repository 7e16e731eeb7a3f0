"""The HTML report as a person sees it, in headless Chromium at 1400 x 1000 pixels: for the H200
recording of set:analysis, what limits each region is the first thing on the page, every
region's verdict and advice are inside the window's width, and the first region's advice is
above the fold. The page itself has no script; the test reads the layout by loading a copy
with one added script that writes the boxes of the elements into the DOM Chromium dumps.
"""

from __future__ import annotations

import json
import re

import kprof
import pytest
from conftest import DATA
from kprof import report
from machine import headless_chromium

ANALYSIS = DATA / "h200-analysis-2026-12-03.json"
FLOP = DATA / "h200-ncu-flop-2026-12-04.json"
WIDTH, HEIGHT = 1400, 1000

# Writes where each element of interest lies (CSS pixels, page coordinates) into <pre id=boxes>.
_MEASURE = """<script>
addEventListener("load", () => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right}; };
  const all = (sel) => [...document.querySelectorAll(sel)].map(box);
  const out = {
    sections: [...document.querySelectorAll("section")].map((s) => [s.id, box(s)]),
    verdicts: all("td.verdict"), advice: all("tr.advice div"),
    width: document.documentElement.scrollWidth };
  const pre = document.createElement("pre"); pre.id = "boxes";
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});
</script>"""


def layout_in_chromium(page: str, tmp_path) -> dict:
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    dom = headless_chromium(probe, tmp_path, WIDTH, HEIGHT, "--dump-dom")
    found = re.search(r'<pre id="boxes">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script did not run"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


@pytest.mark.parametrize("path", [ANALYSIS, FLOP], ids=lambda p: p.name)
def test_verdicts_come_first_and_advice_is_in_view_at_1400_pixels(path, tmp_path):
    pytest.importorskip("matplotlib")
    results = kprof.load(path)
    boxes = layout_in_chromium(report.render_html(results, source=path.name), tmp_path)
    sections = [name for name, _ in boxes["sections"]]
    assert sections[0] == "analysis", sections
    regions = len(results.analysis())
    assert len(boxes["verdicts"]) == regions and len(boxes["advice"]) == regions
    for box in boxes["verdicts"] + boxes["advice"]:
        assert 0 <= box["left"] and box["right"] <= WIDTH, box
    assert boxes["verdicts"][0]["bottom"] <= HEIGHT
    assert boxes["advice"][0]["bottom"] <= HEIGHT, "the first advice is above the fold"
    assert boxes["width"] <= WIDTH, "nothing to scroll sideways"
