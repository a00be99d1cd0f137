"""The pull-request summary: one headline, failing tests in full, passing tests collapsed."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_relevance.gate import ranking_diff as rankings
from pytest_relevance.gate.verdict import update_command
from pytest_relevance.reports.formatting import (
    brief,
    churn_line,
    ci_text,
    cost_row_text,
    cost_shown,
    delta,
    exceeded_cost,
    failed_expectations,
    failing_first,
    floor_text,
    headline,
    mde_text,
    movers_label,
    note_lines,
    number,
    online_lines,
    p_text,
    riser_text,
    significance_line,
)

_MARKS = {
    "regression": "**regression**",
    "improvement": "improved (stale baseline)",
    "new": "new",
    "not significant": "drop, not significant",
    "same": "",
    "recorded": "",
}


def _text(text: object) -> str:
    """A string from the user's files (an id, a stratum, query text, a message naming them) as Markdown text: on
    one line, with & and < as entities (the step summary renders inline HTML, so an id `<b>` made bold text and an
    `<img>` loaded; without a `<` nothing is a tag, so `3 -> 2` stays readable), and a `|` that does not end a table
    cell."""
    return " ".join(str(text).split()).replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")


def _code(text: str) -> str:
    """A code span showing `text` as is: entities are not decoded inside one, so nothing is escaped; the fence is one
    backtick longer than any run of backticks in the text (a node id `test[`x`]` cannot end the span early)."""
    longest = max(map(len, re.findall("`+", text)), default=0)
    pad = " " if longest else ""
    return f"{'`' * (longest + 1)}{pad}{text}{pad}{'`' * (longest + 1)}"


def render(reports: Sequence[Mapping[str, Any]], compact: bool = False) -> str:
    """Failing tests in full; passing ones in `<details>`: in full for a report file, one line each when `compact`
    (the GitHub step summary, which a green run should not fill)."""
    shown, rest = failing_first(reports)
    lines = [f"## {headline(reports)}", ""]
    for report in shown:
        lines += _section(report)
    if rest:
        label = "tests" if len(rest) != 1 else "test"
        statuses = ", ".join(dict.fromkeys(r["status"] for r in rest))
        lines += ["<details>", f"<summary>{len(rest)} {statuses} {label}</summary>", ""]
        if compact:
            lines += [f"- {_code(r['test'])}: {_text(brief(r))}" for r in rest]
            lines.append("")
        else:
            for report in rest:
                lines += _section(report)
        lines += ["</details>", ""]
    return "\n".join(lines) + "\n"


def _section(report: Mapping[str, Any]) -> list[str]:
    lines = [
        f"### {_code(report['test'])}: {report['status']}",
        "",
        f"engine {_code(report['engine'])}, judgments {_code(report['judgments'])}, "
        f"tolerance {_code(report['tolerance'])}",
        "",
    ]
    if report["status"] == "cannot compare":
        lines += ["Cannot compare with the baseline entry:", ""]
        lines += [f"- {_text(problem)}" for problem in report.get("problems", [])]
        lines += ["", "Measured now:", ""]
    elif report["status"] == "no baseline":
        lines += [
            f"No baseline entry yet; create it with {_code(update_command(report['test'], 'first baseline'))}. "
            "Measured now:",
            "",
        ]
    lines += [
        "| stratum | n | metric | baseline | current | delta | floor | 95% CI | MDE | |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in report["rows"]:
        mark = _MARKS.get(row["status"], row["status"])
        if row.get("p") is not None:
            adjusted = f", adjusted {p_text(row['p_adjusted'])}" if row.get("p_adjusted") is not None else ""
            mark += f" ({p_text(row['p'])}{adjusted})"
        lines.append(
            f"| {_text(row['stratum'])} | {row['n']} | {row['metric']} | {number(row['baseline'])} | "
            f"{number(row['current'])} | {delta(row['delta'])} | {floor_text(row)} | {ci_text(row)} | "
            f"{mde_text(row)} | {mark} |"
        )
    lines.append("")
    lines += [_text(line) + "\n" for line in [significance_line(report)] if line]
    notes = note_lines(report)
    if report.get("churn"):
        notes.append(churn_line(report["churn"]))
        changed = ", ".join(
            f"{c['query']} (RBO {c['rbo']:.4f}, {c['new']} new, {c['unjudged']} unjudged)"
            for c in report["churn"]["most_changed"]
        )
        if changed:
            notes.append(f"most changed rankings: {changed}")
    for note in notes:
        lines += [_text(note), ""]
    lines += _online(report)
    lines += [f"- hint: {_text(hint)}" for hint in report["hints"]]
    lines += [f"- warning: {_text(warning)}" for warning in report["warnings"]]
    lines += _movers(report)
    if report.get("explained"):
        lines += ["", _text(report["explained"])]
    lines += _expectations(report)
    lines += _cost(report)
    lines.append("")
    return lines


def _cost(report: Mapping[str, Any]) -> list[str]:
    """Each counter relevance_max_cost gates, per stratum (beyond its rule first), the queries whose count rose
    most with the clause that did it, and the advisory wall-clock."""
    cost = report.get("cost")
    if not cost:
        return []
    exceeded = exceeded_cost(report)
    state = f"**{len(exceeded)} beyond the rule**" if exceeded else "within the rule"
    lines = ["", f"Cost ({_text(', '.join(cost['limits']))}): {state}", ""]
    rows, notes = cost_shown(report)
    lines += [f"- {'**exceeded**' if row['exceeded'] else 'ok'}: {_text(cost_row_text(row))}" for row in rows]
    lines += [f"- rose: {_text(riser_text(riser))}" for riser in cost["risers"]]
    return lines + [f"- {_text(note)}" for note in notes]


def _online(report: Mapping[str, Any]) -> list[str]:
    """The estimated change in clicks, bold when it failed the test, with where it comes from beneath."""
    found = online_lines(report)
    if not found:
        return []
    line = _text(found[0])
    head = f"**{line}** (beyond relevance_online_tolerance)" if report["online"]["failed"] else line
    return [head, "", *(f"- {_text(more.strip())}" for more in found[1:]), *([""] if found[1:] else [])]


def _expectations(report: Mapping[str, Any]) -> list[str]:
    """The known-item expectations, one list item each (failed first), why under a failed one's."""
    listed = report.get("expectations") or []
    if not listed:
        return []
    failed = failed_expectations(report)
    lines = ["", f"Expectations: {len(listed) - len(failed)} of {len(listed)} met", ""]
    for item in [*failed, *(item for item in listed if item["passed"])]:
        lines.append(f"- {'met' if item['passed'] else '**failed**'}: {_text(item['reason'])}")
        lines += [f"  - why {_text(line)}" for line in item.get("why") or []]
    notes = dict.fromkeys(item["explained"] for item in failed if item.get("explained"))
    return lines + [f"\n{_text(note)}" for note in notes]


def _movers(report: Mapping[str, Any], before: str = "baseline", after: str = "current") -> list[str]:
    """The queries that lost and gained most, a table each (`before`/`after` name the two columns of values), with
    why their documents moved under it."""
    lines: list[str] = []
    movers = report["movers"]
    for title in ("lost", "gained"):
        if movers[title]:
            lines += [
                "",
                f"Queries that {title} most on {_text(movers_label(report))}:",
                "",
                f"| query | text | stratum | {_text(before)} | {_text(after)} | delta | what moved |",
                "|---|---|---|---:|---:|---:|---|",
            ]
            lines += [
                f"| {_text(m['query'])} | {_text(m['text'])} | {_text(m['stratum'] or '')} | {m['baseline']:.4f} | "
                f"{m['current']:.4f} | {m['delta']:+.4f} | "
                f"{'<br>'.join(map(_text, rankings.render(m.get('change') or {})))} |"
                for m in movers[title]
            ]
            lines += _why(movers[title])
    return lines


def _why(movers: Sequence[Mapping[str, Any]]) -> list[str]:
    """Why the documents of each mover moved, one list item per document, under the movers' table."""
    explained = [(m["query"], line) for m in movers for line in m.get("why") or []]
    if not explained:
        return []
    return ["", "Why they moved:", "", *(f"- {_code(qid)} {_text(line)}" for qid, line in explained)]


def render_diff(diff: Mapping[str, Any]) -> str:
    """`pytest-relevance diff --format md`: one pull-request comment, the same content as the text output."""
    report, before, after = diff["report"], diff["before"], diff["after"]
    regressed = sum(row["status"] == "regression" for row in report["rows"])
    verdict = (
        f"{regressed} regression{'' if regressed == 1 else 's'} beyond tolerance"
        if regressed
        else "no regression beyond tolerance"
    )
    lines = [
        f"## Relevance: {_text(before)} → {_text(after)}, {verdict}",
        "",
        f"{diff['queries']} judged queries, judgments {_code(str(report['judgments']))}, engine "
        f"{_code(report['engine'])}, tolerance {_code(report['tolerance'])}",
        "",
    ]
    lines += [_text(report["since_baseline"]), ""] if report.get("since_baseline") else []
    lines += [
        f"| stratum | n | metric | {_text(before)} | {_text(after)} | delta | p | |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for row in report["rows"]:
        mark = {"regression": "**regression**", "improvement": "improved", "same": "", "recorded": ""}.get(
            row["status"], row["status"]
        )
        p = p_text(row["p"]) if row["p"] is not None else ""
        lines.append(
            f"| {_text(row['stratum'])} | {row['n']} | {row['metric']} | {number(row['baseline'])} | "
            f"{number(row['current'])} | {delta(row['delta'])} | {p} | {mark} |"
        )
    lines.append("")
    if report.get("churn"):
        lines += [_text(churn_line(report["churn"]).replace("vs baseline", f"vs {before}")), ""]
    lines += [*_movers(report, before, after), ""]
    if report.get("explained"):
        lines += [_text(report["explained"]), ""]
    came = diff["came_in"]
    if came:
        count = sum(map(len, came.values()))
        lines += [
            f"{count} unjudged documents came into the top {diff['depth']} of {len(came)} queries; grade them with "
            f"{_code('pytest-relevance pool')} before trusting these numbers.",
            "",
        ]
    lines += _cost(report)
    return "\n".join(lines) + "\n"
