"""Plain-text renderings: the assertion failure a reviewer reads, and the `relevance` terminal summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_relevance.baseline import Comparison, Row
from pytest_relevance.evaluation import Evaluation
from pytest_relevance.judgments import Judgments

MOVERS_SHOWN = 5


def _signed(value: float) -> str:
    return f"{value:+.4f}"


def _grade(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def regression_line(row: Row) -> str:
    return f"  {row.stratum}.{row.metric}: {row.before:.4f} -> {row.after:.4f} ({_signed(row.delta or 0.0)})"


def failure_text(
    comparison: Comparison,
    evaluation: Evaluation,
    judgments: Judgments,
    baseline: str,
    tolerance: str,
) -> list[str]:
    """Failing stratum.metric lines, the queries that dropped most, then what to do."""
    lines = [f"relevance regression in {baseline} (judgments {judgments.version}, tolerance {tolerance})"]
    lines += [regression_line(row) for row in comparison.regressions]
    drops = [m for m in comparison.movers if m.delta < 0][:MOVERS_SHOWN]
    if drops:
        lines.append(f"queries that dropped most on {evaluation.metrics[0].spec}:")
        for mover in drops:
            query = judgments[mover.query]
            top = evaluation.run.get(mover.query, [])[:3]
            shown = ", ".join(f"{doc} ({_grade(query.grades[doc]) if doc in query.grades else '?'})" for doc in top)
            stratum = f" [{query.stratum}]" if query.stratum else ""
            lines.append(
                f"  {query.id} {query.text!r}{stratum}: {mover.before:.4f} -> {mover.after:.4f}; "
                f"top 3: {shown or 'nothing returned'}"
            )
    lines.append(
        f"if the change is intended: pytest --relevance-update --relevance-reason '<why>' and commit {baseline} "
        "in a commit of its own"
    )
    return lines


def summary_lines(nodeid: str, result: Mapping[str, Any]) -> list[str]:
    """One test's table: stratum x metric with the current value and the signed delta against the baseline."""
    lines = [f"{nodeid}  (engine {result['engine']}, judgments {result['judgments']})"]
    rows: Sequence[Mapping[str, Any]] = result["rows"]
    if not rows:
        return lines
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    strata = list(dict.fromkeys(r["stratum"] for r in rows))
    cells = {(r["stratum"], r["metric"]): r for r in rows}
    width = max(19, *(len(m) + 2 for m in metrics))
    swidth = max(8, *(len(s) + 2 for s in strata))
    lines.append(f"  {'stratum':<{swidth}}{'n':>5}  " + "".join(f"{m:<{width}}" for m in metrics))
    for stratum in strata:
        row = [f"  {stratum:<{swidth}}{cells[stratum, metrics[0]]['n']:>5}  "]
        for metric in metrics:
            cell = cells[stratum, metric]
            text = f"{cell['after']:.4f}"
            if cell["delta"] is not None:
                text += f" ({_signed(cell['delta'])})"
            mark = {"regression": "!", "improvement": "^"}.get(cell["status"], "")
            row.append(f"{text + mark:<{width}}")
        lines.append("".join(row).rstrip())
    stale = [c for c in rows if c["status"] == "improvement"]
    if stale and not result.get("updated"):
        improved = ", ".join(f"{c['stratum']}.{c['metric']} {_signed(c['delta'])}" for c in stale)
        lines.append(f"  stale baseline: improved beyond tolerance ({improved}); raise it with --relevance-update")
    for change in result.get("changes", []):
        name, old, new = change
        old_text = "new" if old is None else f"{old:.4f}"
        lines.append(f"  updated {name}: {old_text} -> {new:.4f}")
    return lines
