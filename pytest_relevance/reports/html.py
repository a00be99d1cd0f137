"""One self-contained HTML page per run: inline CSS and SVG, no scripts, nothing fetched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pytest_relevance.gate import ranking_diff as rankings
from pytest_relevance.gate.verdict import update_command
from pytest_relevance.reports import formatting
from pytest_relevance.reports.formatting import (
    cost_row_text,
    cost_shown,
    exceeded_cost,
    failed_expectations,
    failing_first,
    floor_text,
    headline,
    note_lines,
    p_text,
    riser_text,
)

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1100px;color:#1f2328}
h1{font-size:20px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
td:first-child,th:first-child,.text{text-align:left}.regression{background:#ffebe9}.improvement{background:#dafbe1}
.status{font-weight:600}.passed{color:#1a7f37}.regressed,.cannot.compare,.no.baseline{color:#cf222e}
.updated{color:#9a6700}.charts{display:flex;flex-wrap:wrap;gap:16px}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px}ul.notes,p.notes{color:#57606a}
details>summary{cursor:pointer;font-weight:600;margin:16px 0}svg text{font-family:inherit}
.trees{display:flex;gap:12px}.trees pre{flex:1;overflow:auto;background:#f6f8fa;padding:6px;font-size:12px}
.trees mark{background:#fff8c5}
"""
_BASE, _NOW, _UP, _DOWN, _AXIS, _GRID = "#8c959f", "#0969da", "#1a7f37", "#cf222e", "#57606a", "#eaeef2"
_LABELLED = 40  # changed queries up to which each bar of the per-query chart is labelled
_LABEL_BAND = 64  # room under that chart for the slanted labels
_BAR, _GAP = 44, 22  # bar width and the gap between metrics: wide enough for a "0.8665" label
_TOP, _BOTTOM, _LEFT, _PLOT = 34, 44, 36, 150  # margins and plot height of a stratum chart


def _bars(stratum: str, rows: Sequence[Mapping[str, Any]]) -> str:
    """Baseline and current side by side per metric on a 0-1 axis, each bar labelled with its value and the pair
    with its delta, so a 0.03 drop reads as a number even where the bars look alike."""
    width = _LEFT + len(rows) * (2 * _BAR + _GAP) + 8
    height = _TOP + _PLOT + _BOTTOM
    n = rows[0]["n"] if rows else 0

    def y(value: float) -> float:
        return _TOP + _PLOT * (1 - min(max(value, 0.0), 1.0))

    parts = [
        f'<svg class="stratum-chart" role="img" aria-label="{escape(stratum)}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(stratum)} ({n} quer{"y" if n == 1 else "ies"})</title>',
        f'<text x="4" y="14" font-size="13" font-weight="600">{escape(stratum)} '
        f'<tspan font-weight="400" fill="{_AXIS}">({n} quer{"y" if n == 1 else "ies"})</tspan></text>',
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<line x1="{_LEFT}" y1="{y(tick):.1f}" x2="{width}" y2="{y(tick):.1f}" stroke="{_GRID}"/>'
            f'<text class="tick" x="{_LEFT - 4}" y="{y(tick) + 4:.1f}" font-size="10" text-anchor="end" '
            f'fill="{_AXIS}">{tick:g}</text>'
        )
    parts.append(f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{y(0):.1f}" stroke="{_AXIS}"/>')
    for i, row in enumerate(rows):
        x = _LEFT + 6 + i * (2 * _BAR + _GAP)
        current = {"regression": _DOWN, "improvement": _UP}.get(row["status"], _NOW)
        for offset, value, color, label in (
            (0, row["baseline"], _BASE, "baseline"),
            (_BAR, row["current"], current, "current"),
        ):
            if value is None:
                continue
            top = y(value)
            parts.append(
                f'<rect x="{x + offset}" y="{top:.1f}" width="{_BAR - 2}" height="{max(y(0) - top, 1):.1f}" '
                f'fill="{color}"><title>{escape(row["metric"])} {label}: {value:.4f}</title></rect>'
                f'<text class="value" x="{x + offset + (_BAR - 2) / 2:.1f}" y="{top - 3:.1f}" font-size="10" '
                f'text-anchor="middle">{value:.4f}</text>'
            )
        middle = x + _BAR - 1
        parts.append(
            f'<text x="{middle}" y="{y(0) + 14:.1f}" font-size="11" text-anchor="middle">{escape(row["metric"])}</text>'
        )
        if row["delta"] is not None:
            color = {"regression": _DOWN, "improvement": _UP}.get(row["status"], _AXIS)
            parts.append(
                f'<text class="delta" x="{middle}" y="{y(0) + 28:.1f}" font-size="11" text-anchor="middle" '
                f'fill="{color}">{row["delta"]:+.4f}</text>'
            )
    parts.append(f'<line x1="{_LEFT}" y1="{y(0):.1f}" x2="{width}" y2="{y(0):.1f}" stroke="{_AXIS}"/></svg>')
    return "".join(parts)


def _changed(report: Mapping[str, Any]) -> list[tuple[float, str, float, float]]:
    """(delta, query, baseline, current) on the first metric for every query whose value changed, by delta."""
    metric = report["movers"]["metric"]
    found = []
    for query, values in report["per_query"].items():
        value = values.get(metric, {})
        if value.get("baseline") is not None and value.get("current") is not None:
            delta = round(value["current"] - value["baseline"], 4)
            if delta:
                found.append((delta, query, value["baseline"], value["current"]))
    return sorted(found)


def _scale(largest: float) -> float:
    """The smallest of 0.05, 0.1, 0.25, 0.5, 1 that holds the largest change: small changes get a readable axis."""
    return next((s for s in (0.05, 0.1, 0.25, 0.5) if largest <= s), 1.0)


def _deltas(changed: Sequence[tuple[float, str, float, float]], texts: Mapping[str, str]) -> str:
    """One bar per changed query, sorted by change, on a symmetric axis with ticks; hover names the query.

    The bars share the whole width: four changed queries squeezed into a tenth of it read as noise. Up to
    `_LABELLED` bars each carry their query id under the chart, so a reader sees which queries moved without
    hovering; more than that would overlap, and the table below the chart lists them.
    """
    labelled = len(changed) <= _LABELLED
    width, chart, left, pad = 900, 200, 48, 12
    height = chart + (_LABEL_BAND if labelled else 0)
    middle = chart / 2
    scale = _scale(max(abs(d) for d, *_ in changed))
    half = middle - pad
    step = (width - left - 4) / len(changed)
    bar = min(step * 0.8, 48.0)
    parts = [
        f'<svg class="delta-chart" role="img" aria-label="per-query delta" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>per-query change, {len(changed)} queries</title>',
    ]
    for tick in (-scale, -scale / 2, 0, scale / 2, scale):
        ty = middle - tick / scale * half
        parts.append(
            f'<line x1="{left}" y1="{ty:.1f}" x2="{width}" y2="{ty:.1f}" stroke="{_AXIS if tick == 0 else _GRID}"/>'
            f'<text class="tick" x="{left - 4}" y="{ty + 4:.1f}" font-size="10" text-anchor="end" '
            f'fill="{_AXIS}">{tick:+g}</text>'
        )
    parts.append(f'<line x1="{left}" y1="{pad}" x2="{left}" y2="{chart - pad}" stroke="{_AXIS}"/>')
    for i, (delta, query, before, after) in enumerate(changed):
        h = max(abs(delta) / scale * half, 1.0)
        top = middle - h if delta > 0 else middle
        centre = left + 2 + (i + 0.5) * step
        text = texts.get(query)
        label = f"{query} {_one_line(text)!r}" if text else query
        parts.append(
            f'<rect x="{centre - bar / 2:.2f}" y="{top:.1f}" width="{max(bar, 0.5):.2f}" height="{h:.1f}" '
            f'fill="{_UP if delta > 0 else _DOWN}"><title>{escape(label)}: {before:.4f} -&gt; {after:.4f} '
            f"({delta:+.4f})</title></rect>"
        )
        if labelled:
            parts.append(
                f'<text class="bar-label" x="{centre:.2f}" y="{chart + 4:.1f}" font-size="10" text-anchor="end" '
                f'fill="{_AXIS}" transform="rotate(-45 {centre:.2f} {chart + 4:.1f})">'
                f"{escape(_one_line(query, 14))}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _one_line(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


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
            '<table class="changed"><tr><th>query</th><th class="text">text</th><th>RBO</th><th>new</th>'
            "<th>unjudged</th></tr>"
            + "".join(
                f'<tr><td>{escape(c["query"])}</td><td class="text">{escape(c["text"])}</td><td>{c["rbo"]:.4f}</td>'
                f"<td>{c['new']}</td><td>{c['unjudged']}</td></tr>"
                for c in churned["most_changed"]
            )
            + "</table>"
        )
    return "".join(parts)


def _section(report: Mapping[str, Any]) -> list[str]:
    status = escape(report["status"])
    body = [
        f'<section class="test"><h2>{escape(report["test"])} <span class="status {status}">{status}</span></h2>',
        f"<p>engine {escape(report['engine'])}, judgments {escape(report['judgments'])}, "
        f"tolerance {escape(str(report['tolerance']))}</p>",
    ]
    if report["status"] == "cannot compare":
        body.append("<p>Cannot compare with the baseline entry:</p>")
        body.append('<ul class="problems">' + "".join(f"<li>{escape(p)}</li>" for p in report.get("problems", [])))
        body.append("</ul><p>Measured now:</p>")
    elif report["status"] == "no baseline":
        command = update_command(report["test"], "first baseline")
        body.append(f"<p>No baseline entry yet; create it with <code>{escape(command)}</code>. Measured now:</p>")
    strata = list(dict.fromkeys(r["stratum"] for r in report["rows"]))
    body.append('<div class="charts">')
    body += [_bars(s, [r for r in report["rows"] if r["stratum"] == s]) for s in strata]
    body.append("</div>")
    body.append(
        '<table class="metrics"><tr><th>stratum</th><th>n</th><th>metric</th><th>baseline</th>'
        "<th>current</th><th>delta</th><th>floor</th><th>95% CI</th><th>MDE</th><th>p</th><th>adjusted p</th></tr>"
    )
    for row in report["rows"]:
        p = "" if row.get("p") is None else p_text(row["p"])
        adjusted = "" if row.get("p_adjusted") is None else p_text(row["p_adjusted"])
        body.append(
            f'<tr class="{escape(row["status"])}"><td>{escape(row["stratum"])}</td><td>{row["n"]}</td>'
            f"<td>{escape(row['metric'])}</td><td>{formatting.number(row['baseline'])}</td>"
            f"<td>{formatting.number(row['current'])}</td><td>{formatting.delta(row['delta'])}</td>"
            f"<td>{escape(floor_text(row))}</td><td>{escape(formatting.ci_text(row))}</td>"
            f"<td>{escape(formatting.mde_text(row))}</td><td>{escape(p)}</td><td>{escape(adjusted)}</td></tr>"
        )
    body.append("</table>")
    body += [f'<p class="notes">{escape(line)}</p>' for line in [formatting.significance_line(report)] if line]
    body += [f'<p class="notes">{escape(line)}</p>' for line in note_lines(report)]
    movers = report["movers"]["lost"] + report["movers"]["gained"]
    changed = _changed(report)
    if changed:
        texts = {m["query"]: m["text"] for m in movers}
        metric = escape(report["movers"]["metric"])
        body.append(f"<h3>Per-query change on {metric}: {len(changed)} of {len(report['per_query'])} queries</h3>")
        body.append(_deltas(changed, texts))
        body.append(
            f'<details><summary>the {len(changed)} changed queries</summary><table class="deltas"><tr><th>query</th>'
            "<th>baseline</th><th>current</th><th>delta</th></tr>"
            + "".join(
                f'<tr class="{"improvement" if d > 0 else "regression"}"><td>{escape(q)}</td><td>{b:.4f}</td>'
                f"<td>{a:.4f}</td><td>{d:+.4f}</td></tr>"
                for d, q, b, a in changed
            )
            + "</table></details>"
        )
    if movers:
        body.append(
            '<table class="movers"><tr><th>query</th><th class="text">text</th><th>stratum</th><th>baseline</th>'
            '<th>current</th><th>delta</th><th class="text">what moved</th></tr>'
        )
        for m in movers:
            moved = "<br>".join(escape(line) for line in rankings.render(m.get("change") or {}))
            body.append(
                f'<tr><td>{escape(m["query"])}</td><td class="text">{escape(m["text"])}</td>'
                f"<td>{escape(m['stratum'] or '')}</td><td>{m['baseline']:.4f}</td><td>{m['current']:.4f}</td>"
                f'<td>{m["delta"]:+.4f}</td><td class="text moved">{moved}</td></tr>'
            )
        body.append("</table>")
        body += [_trees(m) for m in movers if m.get("why")]
    if report.get("explained"):
        body.append(f'<p class="notes">{escape(report["explained"])}</p>')
    if report.get("churn"):
        body.append(_churn(report["churn"]))
    body += _online(report)
    body += _expectations(report)
    body += _cost(report)
    notes = [f"hint: {h}" for h in report["hints"]] + [f"warning: {w}" for w in report["warnings"]]
    if notes:
        body.append('<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>")
    body.append("</section>")
    return body


def _online(report: Mapping[str, Any]) -> list[str]:
    """The estimated change in clicks under its own heading, marked as a regression when it failed the test."""
    found = formatting.online_lines(report)
    if not found:
        return []
    failed = ' class="regression"' if report["online"]["failed"] else ""
    return [
        "<h3>Estimated clicks (click log)</h3>",
        f"<p{failed}>{escape(found[0])}</p>",
        *(f'<p class="notes">{escape(line.strip())}</p>' for line in found[1:]),
    ]


def _expectations(report: Mapping[str, Any]) -> list[str]:
    """The known-item expectations, one table row each (failed first), why under a failed one's reason."""
    listed = report.get("expectations") or []
    if not listed:
        return []
    failed = failed_expectations(report)
    body = [
        f"<h3>Expectations: {len(listed) - len(failed)} of {len(listed)} met</h3>",
        '<table class="expectations"><tr><th>query</th><th class="text">expected</th><th class="text">now</th></tr>',
    ]
    for item in [*failed, *(item for item in listed if item["passed"])]:
        why = "".join(f"<br>why {escape(line)}" for line in item.get("why") or [])
        body.append(
            f'<tr class="{"improvement" if item["passed"] else "regression"}"><td>{escape(item["query"])}</td>'
            f'<td class="text">{escape(item["expected"])}</td><td class="text">{escape(item["reason"])}{why}</td></tr>'
        )
    body.append("</table>")
    notes = dict.fromkeys(item["explained"] for item in failed if item.get("explained"))
    return body + [f'<p class="notes">{escape(note)}</p>' for note in notes]


def _cost(report: Mapping[str, Any]) -> list[str]:
    """Each counter relevance_max_cost gates, per stratum (beyond its rule first), the queries whose count rose
    most with the clause that did it, and the advisory wall-clock."""
    cost = report.get("cost")
    if not cost:
        return []
    exceeded = exceeded_cost(report)
    state = f"cost rose beyond the rule in {len(exceeded)}" if exceeded else "within the rule"
    body = [f"<h3>Cost ({escape(', '.join(cost['limits']))}): {state}</h3>", '<ul class="cost">']
    rows, notes = cost_shown(report)
    for row in rows:
        body.append(f'<li class="{"regression" if row["exceeded"] else "same"}">{escape(cost_row_text(row))}</li>')
    body += [f"<li>rose: {escape(riser_text(riser))}</li>" for riser in cost["risers"]]
    body.append("</ul>")
    return body + [f'<p class="notes">{escape(note)}</p>' for note in notes]


def _trees(mover: Mapping[str, Any]) -> str:
    """Why a query's documents moved: each document's line, then its baseline and current score trees side by side,
    the clauses whose value changed (or that one side lacks) marked."""
    parts = [f"<details><summary>why the documents of {escape(mover['query'])} moved</summary>"]
    for line in mover["why"]:
        doc = line.split(" ", 1)[0]
        parts.append(f"<p>{escape(line)}</p>")
        trees = (mover.get("trees") or {}).get(doc)
        if trees:
            sides = [
                "\n".join(
                    f"{'  ' * depth}<mark>{escape(text)}</mark>" if changed else f"{'  ' * depth}{escape(text)}"
                    for depth, text, changed in trees[side]
                )
                for side in ("baseline", "current")
            ]
            parts.append(f'<div class="trees"><pre>baseline\n{sides[0]}</pre><pre>current\n{sides[1]}</pre></div>')
    return "".join(parts) + "</details>"


def render(reports: Sequence[Mapping[str, Any]]) -> str:
    """The headline, failing tests in full, then passing tests collapsed in `<details>`."""
    shown, rest = failing_first(reports)
    legend = f'<span style="background:{_BASE}"></span>baseline'
    if any(r["status"] != "baseline" for r in reports):
        legend += (
            f' <span style="background:{_NOW}"></span>current <span style="background:{_DOWN}"></span>regression '
            f'<span style="background:{_UP}"></span>improvement'
        )
    body = [f"<h1>{escape(headline(reports))}</h1>", f'<p class="legend">{legend}</p>']
    for report in shown:
        body += _section(report)
    if rest:
        statuses = ", ".join(dict.fromkeys(r["status"] for r in rest))
        body.append(f"<details><summary>{len(rest)} {escape(statuses)} test{'' if len(rest) == 1 else 's'}</summary>")
        for report in rest:
            body += _section(report)
        body.append("</details>")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Relevance report</title>'
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )
