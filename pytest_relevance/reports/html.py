"""One self-contained HTML page per run: inline CSS and SVG, no scripts, nothing fetched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pytest_relevance import rankings
from pytest_relevance.reports.markdown import _delta, _number

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1100px;color:#1f2328}
h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
td:first-child,th:first-child,td.text{text-align:left}.regression{background:#ffebe9}.improvement{background:#dafbe1}
.status{font-weight:600}.passed{color:#1a7f37}.regressed{color:#cf222e}.updated{color:#9a6700}
.charts{display:flex;flex-wrap:wrap;gap:16px}.legend span{display:inline-block;width:10px;height:10px;margin:0 4px}
ul.notes{color:#57606a}
"""
_BASE, _NOW, _UP, _DOWN = "#8c959f", "#0969da", "#1a7f37", "#cf222e"


def _bars(stratum: str, rows: Sequence[Mapping[str, Any]]) -> str:
    """Baseline vs current per metric, for one stratum."""
    width, height, pad = 60 + 70 * len(rows), 180, 24
    parts = [
        f'<svg class="stratum-chart" role="img" aria-label="{escape(stratum)}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(stratum)}</title>',
        f'<text x="4" y="14" font-size="13" font-weight="600">{escape(stratum)}</text>',
        f'<line x1="30" y1="{height - pad}" x2="{width}" y2="{height - pad}" stroke="#d0d7de"/>',
    ]
    scale = height - 2 * pad - 10
    for i, row in enumerate(rows):
        x = 40 + 70 * i
        for offset, value, color in ((0, row["baseline"], _BASE), (24, row["current"], _NOW)):
            if value is None:
                continue
            h = max(1.0, value * scale)
            parts.append(
                f'<rect x="{x + offset}" y="{height - pad - h:.1f}" width="22" height="{h:.1f}" '
                f'fill="{color}"><title>{escape(row["metric"])}: {value:.4f}</title></rect>'
            )
        parts.append(f'<text x="{x}" y="{height - 8}" font-size="11">{escape(row["metric"])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _deltas(report: Mapping[str, Any]) -> str:
    """Per-query delta on the first metric, sorted by change."""
    metric = report["movers"]["metric"]
    deltas = sorted(
        (v[metric]["current"] - v[metric]["baseline"], q)
        for q, v in report["per_query"].items()
        if v.get(metric, {}).get("baseline") is not None
    )
    width, height = 900, 160
    middle = height / 2
    step = width / max(1, len(deltas))
    parts = [
        f'<svg class="delta-chart" role="img" aria-label="per-query delta" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>per-query delta on {escape(metric)}</title>',
        f'<line x1="0" y1="{middle}" x2="{width}" y2="{middle}" stroke="#d0d7de"/>',
    ]
    for i, (delta, query) in enumerate(deltas):
        h = abs(delta) * (middle - 6)
        y = middle - h if delta > 0 else middle
        color = _UP if delta > 0 else _DOWN if delta < 0 else _BASE
        parts.append(
            f'<rect x="{i * step:.2f}" y="{y:.1f}" width="{max(step - 0.5, 0.5):.2f}" height="{max(h, 0.5):.1f}" '
            f'fill="{color}"><title>{escape(query)}: {delta:+.4f}</title></rect>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _churn(churned: Mapping[str, Any]) -> str:
    """Per stratum, how much the rankings changed against the baseline, and the queries that changed most."""
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td>{v['n']}</td><td>{v['rbo']:.4f}</td><td>{v['overlap']:.4f}</td></tr>"
        for name, v in churned["per_stratum"].items()
        if v["n"]
    )
    limit = "" if churned.get("max") is None else f"; relevance_max_churn {churned['max']:g}"
    parts = [
        f"<h3>Rankings against the baseline (top {churned['k']})</h3>",
        f"<p>RBO with p={churned['p']}, {escape(churned['variant'])}{escape(limit)}</p>",
        '<table class="churn"><tr><th>stratum</th><th>n</th><th>mean RBO</th>'
        f"<th>top-{churned['k']} overlap</th></tr>{rows}</table>",
    ]
    if churned["most_changed"]:
        parts.append(
            '<table class="changed"><tr><th>query</th><th>text</th><th>RBO</th><th>new</th><th>unjudged</th></tr>'
            + "".join(
                f'<tr><td>{escape(c["query"])}</td><td class="text">{escape(c["text"])}</td><td>{c["rbo"]:.4f}</td>'
                f"<td>{c['new']}</td><td>{c['unjudged']}</td></tr>"
                for c in churned["most_changed"]
            )
            + "</table>"
        )
    return "".join(parts)


def render(reports: Sequence[Mapping[str, Any]]) -> str:
    body = [
        "<h1>Relevance report</h1>",
        f'<p class="legend"><span style="background:{_BASE}"></span>baseline '
        f'<span style="background:{_NOW}"></span>current</p>',
    ]
    for report in reports:
        body.append(
            f'<section class="test"><h2>{escape(report["test"])} '
            f'<span class="status {escape(report["status"])}">{escape(report["status"])}</span></h2>'
        )
        body.append(
            f"<p>engine {escape(report['engine'])}, judgments {escape(report['judgments'])}, "
            f"tolerance {escape(report['tolerance'])}</p>"
        )
        strata = list(dict.fromkeys(r["stratum"] for r in report["rows"]))
        body.append('<div class="charts">')
        body += [_bars(s, [r for r in report["rows"] if r["stratum"] == s]) for s in strata]
        body.append("</div>")
        body.append(
            '<table class="metrics"><tr><th>stratum</th><th>n</th><th>metric</th><th>baseline</th>'
            "<th>current</th><th>delta</th><th>floor</th><th>p</th></tr>"
        )
        for row in report["rows"]:
            p = "" if row.get("p") is None else f"{row['p']:.3f}"
            body.append(
                f'<tr class="{escape(row["status"])}"><td>{escape(row["stratum"])}</td><td>{row["n"]}</td>'
                f"<td>{escape(row['metric'])}</td><td>{_number(row['baseline'])}</td>"
                f"<td>{_number(row['current'])}</td><td>{_delta(row['delta'])}</td>"
                f"<td>{_number(row['floor'])}</td><td>{p}</td></tr>"
            )
        body.append("</table>")
        body.append(f"<h3>Per-query change on {escape(report['movers']['metric'])}</h3>")
        body.append(_deltas(report))
        movers = report["movers"]["lost"] + report["movers"]["gained"]
        body.append(
            '<table class="movers"><tr><th>query</th><th>text</th><th>stratum</th><th>baseline</th>'
            "<th>current</th><th>delta</th><th>what moved</th></tr>"
        )
        for m in movers:
            moved = "<br>".join(escape(line) for line in rankings.render(m.get("change") or {}))
            body.append(
                f'<tr><td>{escape(m["query"])}</td><td class="text">{escape(m["text"])}</td>'
                f"<td>{escape(m['stratum'] or '')}</td><td>{m['baseline']:.4f}</td><td>{m['current']:.4f}</td>"
                f'<td>{m["delta"]:+.4f}</td><td class="text moved">{moved}</td></tr>'
            )
        body.append("</table>")
        if report.get("churn"):
            body.append(_churn(report["churn"]))
        notes = [f"hint: {h}" for h in report["hints"]] + [f"warning: {w}" for w in report["warnings"]]
        if notes:
            body.append('<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>")
        body.append("</section>")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Relevance report</title>'
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )
