"""Plain-text renderings: the assertion failure a reviewer reads, and the `relevance` terminal summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_relevance.evaluation import Evaluation
from pytest_relevance.judgments import Judgments


def _signed(value: float) -> str:
    return f"{value:+.4f}"


def _grade(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def regression_line(row: Mapping[str, Any]) -> str:
    p = f", p={row['p']:.3f}" if row.get("p") is not None else ""
    change = f"{row['baseline']:.4f} -> {row['current']:.4f} ({_signed(row['delta'])}{p})"
    return f"  {row['stratum']}.{row['metric']}: {change}"


def failure_text(report: Mapping[str, Any], evaluation: Evaluation, judgments: Judgments, baseline: str) -> list[str]:
    """Failing stratum.metric lines (with the p-value of the drop), the queries that dropped most, what to do."""
    lines = [f"relevance regression in {baseline} (judgments {judgments.version}, tolerance {report['tolerance']})"]
    lines += [regression_line(row) for row in report["rows"] if row["status"] == "regression"]
    lost = report["movers"]["lost"]
    if lost:
        lines.append(f"queries that dropped most on {report['movers']['metric']}:")
        for mover in lost:
            query = judgments[mover["query"]]
            top = evaluation.run.get(query.id, [])[:3]
            shown = ", ".join(f"{doc} ({_grade(query.grades[doc]) if doc in query.grades else '?'})" for doc in top)
            stratum = f" [{query.stratum}]" if query.stratum else ""
            lines.append(
                f"  {query.id} {query.text!r}{stratum}: {mover['baseline']:.4f} -> {mover['current']:.4f}; "
                f"top 3: {shown or 'nothing returned'}"
            )
    lines.append(
        f"if the change is intended: pytest --relevance-update --relevance-reason '<why>' and commit {baseline} "
        "in a commit of its own"
    )
    return lines


def summary_lines(nodeid: str, result: Mapping[str, Any]) -> list[str]:
    """One test's table: stratum x metric with the current value, the signed delta and the constant-answer floor."""
    lines = [f"{nodeid}  (engine {result['engine']}, judgments {result['judgments']})"]
    report = result.get("report")
    if not report:
        return lines
    rows = report["rows"]
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    strata = list(dict.fromkeys(r["stratum"] for r in rows))
    cells = {(r["stratum"], r["metric"]): r for r in rows}
    width = max(32, *(len(m) + 2 for m in metrics))
    swidth = max(8, *(len(s) + 2 for s in strata))
    lines.append(f"  {'stratum':<{swidth}}{'n':>5}  " + "".join(f"{m:<{width}}" for m in metrics))
    for stratum in strata:
        row = [f"  {stratum:<{swidth}}{cells[stratum, metrics[0]]['n']:>5}  "]
        for metric in metrics:
            cell = cells[stratum, metric]
            delta = "new" if cell["delta"] is None else _signed(cell["delta"])
            mark = {"regression": "!", "improvement": "^", "not significant": "~"}.get(cell["status"], "")
            row.append(f"{cell['current']:.4f} ({delta}{mark}) floor {cell['floor']:.4f}".ljust(width))
        lines.append("".join(row).rstrip())
    judged = report["judged"]
    shares = ", ".join(f"{s} {v:.2f}" for s, v in judged["per_stratum"].items())
    extra = [f"judged@{judged['k']}: {shares}"] if shares else []
    if report["coverage"] is not None:
        extra.append(f"coverage@{judged['k']} {report['coverage']:.2f}")
    if report["duplicates"]:
        extra.append(f"duplicates in {len(report['duplicates'])} queries")
    if extra:
        lines.append("  " + "; ".join(extra))
    stale = [c for c in rows if c["status"] == "improvement"]
    if stale and not result.get("updated"):
        improved = ", ".join(f"{c['stratum']}.{c['metric']} {_signed(c['delta'])}" for c in stale)
        lines.append(f"  stale baseline: improved beyond tolerance ({improved}); raise it with --relevance-update")
    lines += [f"  hint: {hint}" for hint in report["hints"]]
    lines += [f"  warning: {warning}" for warning in report["warnings"]]
    for name, old, new in result.get("changes", []):
        old_text = "new" if old is None else f"{old:.4f}"
        lines.append(f"  updated {name}: {old_text} -> {new:.4f}")
    return lines
