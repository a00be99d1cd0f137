"""One test's results as plain data: what every report (terminal, Markdown, JSON, HTML) renders.

JSON schema of a report file (`--relevance-report out.json`), stable; new keys may be added, none renamed::

    {"pytest-relevance-report": 1,
     "tests": [{
        "test": node id, "engine": str, "judgments": version, "tolerance": str, "status": "passed" | "regressed" |
            "updated" | "failed",
        "rows": [{"stratum", "metric", "n", "baseline" (null if new), "current", "delta" (null if new),
                  "status": "same" | "regression" | "improvement" | "new" | "not significant",
                  "tolerance", "floor", "p" (null unless regressed)}],
        "judged": {"k", "min", "per_stratum": {stratum: share}, "most_unjudged": [[query, count], ...]},
        "coverage": share of the corpus in any top k, or null, "duplicates": {query: count},
        "hints": [str], "warnings": [str],
        "movers": {"metric": spec, "lost": [mover], "gained": [mover]},
            mover = {"query", "text", "stratum", "baseline", "current", "delta", "change"},
            change = {"fell": [move], "rose": [move], "came": [move]} against the baseline's top k, with
                move = {"doc", "grade" (null: unjudged), "before", "after" (1-based; null: not there)};
                or {"missing": [label], "extra": [label]} for set answers;
                or {"top": [{"doc", "grade"}]} when the baseline entry has no rankings,
        "churn": null (no baseline rankings, or set answers) or {"k", "p", "variant", "max" (null: off),
            "per_stratum": {stratum: {"rbo", "overlap", "n"}}, "exceeded": [stratum],
            "most_changed": [{"query", "text", "stratum", "rbo", "overlap", "new", "unjudged"}]},
        "rankings": {query: [doc id, ...]}: the current run to the depth the metrics need (set answers: whole),
        "per_query": {query: {metric: {"baseline": value or null, "current": value}}}}]}
"""

from __future__ import annotations

from typing import Any

from pytest_relevance import churn, rankings
from pytest_relevance.baseline import DIGITS, Comparison, Entry
from pytest_relevance.evaluation import (
    Evaluation,
    constant_floor,
    coverage,
    hints,
    judged_at,
    sign_flip_p,
)
from pytest_relevance.judgments import Judgments
from pytest_relevance.metrics import depth

MOVERS = 5
SMALL = 10


def build(
    nodeid: str,
    evaluation: Evaluation,
    judgments: Judgments,
    comparison: Comparison,
    entry: Entry | None,
    engine: str,
    tolerance: str,
    settings: dict[str, Any],
    corpus_size: int | None,
) -> dict[str, Any]:
    """Everything a reviewer needs about one relevance test, JSON-serializable."""
    from pytest_relevance.sets import SetMetric
    from pytest_relevance.sets import floors as set_floors

    metrics = evaluation.metrics
    k = next((m.k for m in metrics if m.k), 10)
    set_answers = isinstance(metrics[0], SetMetric)
    if set_answers:
        floors, notes, population = set_floors(judgments, metrics[0].threshold)
        notes = [f"label population: {population} labels", *notes]
    else:
        floors, notes = constant_floor(judgments, metrics, max(k, 10)), hints(evaluation, judgments)
    old_queries = (entry or {}).get("queries", {})
    groups = judgments.groups
    alpha = settings.get("alpha")
    rows, warnings = [], []
    for row in comparison.rows:
        item: dict[str, Any] = {
            "stratum": row.stratum,
            "metric": row.metric,
            "n": row.n,
            "baseline": row.before,
            "current": row.after,
            "delta": row.delta,
            "status": row.status,
            "tolerance": row.tolerance,
            "floor": round(floors[row.stratum][row.metric], DIGITS),
            "p": None,
        }
        if row.status == "regression":
            deltas = [
                round(evaluation.per_query[q][row.metric], DIGITS) - old_queries[q][row.metric]
                for q in groups[row.stratum]
                if q in old_queries and row.metric in old_queries[q]
            ]
            item["p"] = round(sign_flip_p(deltas), 4)
            if alpha is not None and item["p"] >= alpha:
                item["status"] = "not significant"
            if row.n < SMALL:
                warnings.append(f"{row.stratum} has {row.n} queries: its p-values are coarse; judge more queries")
        if row.after - item["floor"] < settings.get("floor_margin", 0.05):
            warnings.append(
                f"{row.stratum}.{row.metric} {row.after:.4f} is within {settings.get('floor_margin', 0.05)} of the "
                f"constant-answer floor {item['floor']:.4f}: one fixed list for every query scores nearly as well"
            )
        rows.append(item)
    judged, unjudged = ({}, []) if set_answers else judged_at(evaluation, judgments, k)
    minimum = settings.get("min_judged", 0.8)
    for stratum, share in judged.items():
        if share < minimum:
            worst = ", ".join(f"{q} ({n})" for q, n in [u for u in unjudged if u[0] in groups[stratum]][:3])
            warnings.append(
                f"{stratum}: judged@{k} {share:.2f} < {minimum}: unjudged results score 0, so a better ranker can "
                f"look worse; most unjudged: {worst}"
            )
    first = metrics[0].spec
    movers = [_mover(m, judgments) for m in comparison.movers]
    lost = [m for m in movers if m["delta"] < 0][:MOVERS]
    gained = sorted((m for m in movers if m["delta"] > 0), key=lambda m: (-m["delta"], m["query"]))[:MOVERS]
    threshold = getattr(metrics[0], "threshold", 1)
    for mover in lost + gained:
        mover["change"] = _change(mover["query"], evaluation, judgments, comparison, set_answers, threshold)
    churned = None
    if comparison.rankings is not None and comparison.depth is not None:
        churned = _churn(evaluation, judgments, comparison, settings.get("max_churn"))
    elif entry is not None and not set_answers:
        warnings.append(
            "the baseline entry has no rankings (written by an older version), so only scores are compared: "
            "re-baseline with --relevance-update to keep each query's top k and see what moved"
        )
    missing = None if set_answers else rankings.missing_queries(evaluation.run, judgments)
    if missing:
        warnings.append(missing)
    regressed = any(r["status"] == "regression" for r in rows) or bool(churned and churned["exceeded"])
    status = "regressed" if regressed else "passed"
    return {
        "test": nodeid,
        "engine": engine,
        "judgments": judgments.version,
        "tolerance": tolerance,
        "status": status,
        "rows": rows,
        "judged": {
            "k": k,
            "min": minimum,
            "per_stratum": {s: round(v, DIGITS) for s, v in judged.items()},
            "most_unjudged": [list(item) for item in unjudged[:10]],
        },
        "coverage": None if set_answers else _round(coverage(evaluation, k, corpus_size)),
        "duplicates": dict(evaluation.duplicates),
        "hints": notes,
        "warnings": list(dict.fromkeys(warnings)),
        "movers": {"metric": first, "lost": lost, "gained": gained},
        "churn": churned,
        "rankings": {qid: docs[: None if set_answers else depth(metrics)] for qid, docs in evaluation.run.items()},
        "per_query": {
            qid: {
                spec: {"baseline": old_queries.get(qid, {}).get(spec), "current": round(value, DIGITS)}
                for spec, value in values.items()
            }
            for qid, values in evaluation.per_query.items()
        },
    }


def _mover(mover: Any, judgments: Judgments) -> dict[str, Any]:
    query = judgments[mover.query]
    return {
        "query": query.id,
        "text": query.text,
        "stratum": query.stratum,
        "baseline": mover.before,
        "current": mover.after,
        "delta": mover.delta,
    }


def _change(
    qid: str,
    evaluation: Evaluation,
    judgments: Judgments,
    comparison: Comparison,
    set_answers: bool,
    threshold: float,
) -> dict[str, Any]:
    """What moved in one query: the before/after of its top k, the labels an answer misses or adds, or (with no
    baseline rankings) the current top 3."""
    grades = judgments[qid].grades
    current = evaluation.run.get(qid, [])
    if set_answers:
        return rankings.set_diff({d for d, g in grades.items() if g >= threshold}, current)
    if comparison.rankings is not None and comparison.depth is not None and qid in comparison.rankings:
        return rankings.diff(comparison.rankings[qid], current, grades, comparison.depth, threshold).as_dict()
    return rankings.top(current, grades)


def _churn(evaluation: Evaluation, judgments: Judgments, comparison: Comparison, limit: float | None) -> dict[str, Any]:
    assert comparison.rankings is not None and comparison.depth is not None
    per_query = churn.per_query(comparison.rankings, evaluation.run, comparison.depth)
    strata = churn.per_stratum(per_query, judgments.groups)
    return {
        "k": comparison.depth,
        "p": churn.P,
        "variant": churn.VARIANT,
        "max": limit,
        "per_stratum": strata,
        "exceeded": churn.exceeded(strata, limit),
        "most_changed": churn.most_changed(per_query, judgments),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def to_json(reports: list[dict[str, Any]]) -> str:
    import json

    return json.dumps({"pytest-relevance-report": 1, "tests": reports}, indent=2, sort_keys=True) + "\n"


def write(path: str, reports: list[dict[str, Any]], append: bool = False) -> None:
    """Write reports in the format the suffix names: .md, .json or .html."""
    from pathlib import Path

    from pytest_relevance.reports import html, markdown

    renderers = {".md": markdown.render, ".json": to_json, ".html": html.render}
    target = Path(path)
    text = renderers[target.suffix.lower()](reports)
    if append:
        with target.open("a", encoding="utf-8") as handle:
            handle.write(text)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
