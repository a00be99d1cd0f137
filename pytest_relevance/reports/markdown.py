"""The pull-request summary: per test, stratum x metric with baseline, current and signed delta, then the movers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_relevance import rankings

_MARKS = {
    "regression": "**regression**",
    "improvement": "improved (stale baseline)",
    "new": "new",
    "not significant": "drop, not significant",
    "same": "",
}


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _delta(value: float | None) -> str:
    return "—" if value is None else f"{value:+.4f}"


def churn_line(churned: Mapping[str, Any]) -> str:
    """`rankings vs baseline, RBO (p=0.9) / top-10 overlap: all 0.9712/0.9500, ...`, as in the terminal."""
    values = ", ".join(f"{s} {v['rbo']:.4f}/{v['overlap']:.4f}" for s, v in churned["per_stratum"].items() if v["n"])
    limit = f"; max churn {churned['max']:g}" if churned.get("max") is not None else ""
    return f"rankings vs baseline, RBO (p={churned['p']}) / top-{churned['k']} overlap: {values}{limit}"


def render(reports: Sequence[Mapping[str, Any]]) -> str:
    lines = ["## Relevance", ""]
    for report in reports:
        lines += [
            f"### `{report['test']}`: {report['status']}",
            "",
            f"engine `{report['engine']}`, judgments `{report['judgments']}`, tolerance `{report['tolerance']}`",
            "",
            "| stratum | n | metric | baseline | current | delta | floor | |",
            "|---|---:|---|---:|---:|---:|---:|---|",
        ]
        for row in report["rows"]:
            mark = _MARKS.get(row["status"], row["status"])
            if row.get("p") is not None:
                mark += f" (p={row['p']:.3f})"
            lines.append(
                f"| {row['stratum']} | {row['n']} | {row['metric']} | {_number(row['baseline'])} | "
                f"{_number(row['current'])} | {_delta(row['delta'])} | {_number(row['floor'])} | {mark} |"
            )
        judged = report["judged"]
        shares = ", ".join(f"{s} {v:.2f}" for s, v in judged["per_stratum"].items())
        coverage = f"; coverage@{judged['k']}: {report['coverage']:.2f}" if report.get("coverage") is not None else ""
        if shares:
            lines += ["", f"judged@{judged['k']}: {shares}{coverage}", ""]
        if report.get("churn"):
            lines += [churn_line(report["churn"]), ""]
            changed = ", ".join(
                f"{c['query']} (RBO {c['rbo']:.2f}, {c['new']} new, {c['unjudged']} unjudged)"
                for c in report["churn"]["most_changed"]
            )
            if changed:
                lines += [f"most changed rankings: {changed}", ""]
        lines += [f"- hint: {hint}" for hint in report["hints"]]
        lines += [f"- warning: {warning}" for warning in report["warnings"]]
        movers = report["movers"]
        for title, key in (("lost", "lost"), ("gained", "gained")):
            if movers[key]:
                lines += [
                    "",
                    f"Queries that {title} most on {movers['metric']}:",
                    "",
                    "| query | text | stratum | baseline | current | delta | what moved |",
                    "|---|---|---|---:|---:|---:|---|",
                ]
                lines += [
                    f"| {m['query']} | {m['text']} | {m['stratum'] or ''} | {m['baseline']:.4f} | {m['current']:.4f} | "
                    f"{m['delta']:+.4f} | {'<br>'.join(rankings.render(m.get('change') or {}))} |"
                    for m in movers[key]
                ]
        lines.append("")
    return "\n".join(lines) + "\n"
