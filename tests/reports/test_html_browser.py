"""The HTML report in a real browser: headless Chromium renders it, and the DOM has what a reviewer needs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_relevance.reports.html import render

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

REPORT = {
    "test": "tests/test_search.py::test_quality",
    "engine": "embedded tantivy",
    "judgments": "v7",
    "tolerance": "0.005",
    "status": "regressed",
    "rows": [
        {
            "stratum": s,
            "metric": m,
            "n": 3,
            "baseline": b,
            "current": c,
            "delta": round(c - b, 4),
            "status": "regression" if c < b - 0.005 else "same",
            "tolerance": 0.005,
            "floor": 0.1,
            "p": 0.25,
        }
        for s in ("all", "head")
        for m, b, c in (("ndcg@10", 0.74, 0.61), ("mrr@10", 0.81, 0.80))
    ],
    "judged": {"k": 10, "min": 0.8, "per_stratum": {"all": 0.9, "head": 0.9}, "most_unjudged": []},
    "coverage": 0.4,
    "duplicates": {},
    "hints": [],
    "warnings": ["tail has 3 queries: its p-values are coarse"],
    "movers": {
        "metric": "ndcg@10",
        "lost": [
            {"query": "q1", "text": "usb <cable>", "stratum": "head", "baseline": 0.9, "current": 0.3, "delta": -0.6}
        ],
        "gained": [],
    },
    "per_query": {
        "q1": {"ndcg@10": {"baseline": 0.9, "current": 0.3}},
        "q2": {"ndcg@10": {"baseline": 0.5, "current": 0.6}},
    },
}


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package chromium; .ci/run installs it)")
def test_chromium_renders_the_report(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render([REPORT]))
    shot = tmp_path / "shot.png"
    common = [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1200,1400", page.as_uri()],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000  # a real page, not a blank one
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()], check=True, capture_output=True, text=True, timeout=120
    ).stdout
    assert dom.count('class="stratum-chart"') == 2
    assert 'class="delta-chart"' in dom
    assert '<table class="movers">' in dom
    assert "usb &lt;cable&gt;" in dom  # query text is escaped
    assert 'class="regression"' in dom
    assert "<h1>1 relevance test, 1 regressed, 0 need a baseline, 0 could not compare</h1>" in dom
    assert dom.count('class="tick"') == 2 * 5 + 5  # two stratum charts and the per-query chart, 5 ticks each
    assert ">0.7400</text>" in dom and ">-0.1300</text>" in dom  # value and delta labels
