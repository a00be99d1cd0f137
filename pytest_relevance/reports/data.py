"""One test's results as plain data: what every report (terminal, Markdown, JSON, HTML) renders.

JSON schema of a report file (`--relevance-report out.json`), stable; new keys may be added, none renamed::

    {"pytest-relevance-report": 1,
     "tests": [{
        "test": node id, "engine": str, "judgments": version, "metrics": {spec: definition, as the baseline records
            them}, "tolerance": str, "status": "passed" | "regressed" |
            "updated" (with "against": "new entry" | "not compared" where no entry could be compared, so every
            delta is 0) | "no baseline" (built against an empty entry) | "cannot compare" (with "problems": [str]),
        "rows": [{"stratum", "metric", "n", "baseline" (null if new), "current", "delta" (null if new),
                  "status": "same" | "regression" | "improvement" | "new" | "not significant",
                  "tolerance", "floor" (null: the metric has none, see `beyond`), "floor_exact" (false: the floor
                  is at least this value, a greedy list's score; see `evaluation.EXACT_FLOORS`), "p" (null unless
                  regressed, or for a set-level metric whose baseline keeps too few ids per query), "higher_is_better"
                  (false for age and exposure_gini: a rise is the regression), "set_level" (true for
                  exposure_gini and coverage: one value per stratum, none per query, p by paired bootstrap)}],
        "judged": {"k", "min", "per_stratum": {stratum: share}, "most_unjudged": [[query, count], ...]},
        "coverage": share of the corpus in any top k, or null, "duplicates": {query: count},
        "hints": [str], "warnings": [str],
        "headline": the first metric's spec, whose "all" value stands for the test,
        "movers": {"metric": spec, "stratum": name, "lost": [mover], "gained": [mover]}: the queries of the
            regressed stratum that dropped most on the regressed metric (the largest drop when several did), else
            every query on the first metric (stratum "all"),
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

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_relevance import churn, rankings
from pytest_relevance.baseline import DIGITS, Comparison, Entry, query_movers
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation import (
    Evaluation,
    change_p,
    constant_floor,
    coverage,
    floor_is_exact,
    hints,
    judged_at,
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
        floors, notes = (
            constant_floor(judgments, metrics, depth(metrics), corpus_size, evaluation.corpus),
            hints(evaluation, judgments),
        )
    old_queries = (entry or {}).get("queries", {})
    groups = judgments.groups
    alpha = settings.get("alpha")
    margin = settings.get("floor_margin", 0.05)
    by_spec = {m.spec: m for m in metrics}
    rows, warnings = [], []
    small: dict[str, int] = {}  # stratum -> queries, for strata too small to floor-check: said in one warning
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
            "floor": _round(floors[row.stratum].get(row.metric)),  # None: the metric has no floor (see beyond)
            "floor_exact": not set_answers and floor_is_exact(by_spec[row.metric]),
            "p": None,
            "higher_is_better": row.higher_is_better,
            "set_level": getattr(by_spec[row.metric], "set_level", False),
        }
        if row.status == "regression":
            p = change_p(
                by_spec[row.metric],
                groups[row.stratum],
                evaluation,
                old_queries,
                comparison.rankings,
                comparison.depth,
                DIGITS,
            )
            item["p"] = None if p is None else round(p, 4)
            if alpha is not None and p is not None and p >= alpha:  # the unrounded p: 1/10001 shows as 0.0001
                item["status"] = "not significant"
        if row.n < SMALL:
            small[row.stratum] = row.n
        else:
            warnings += _floor_warning(row.stratum, row.metric, row.after, item, margin)
        rows.append(item)
    if small:
        counted = ", ".join(f"{stratum} {n}" for stratum, n in small.items())
        warnings.insert(
            0,
            f"under {SMALL} queries ({counted}): too few for the floor check, and p-values are coarse; judge more "
            "queries",
        )
    judged, unjudged = ({}, []) if set_answers else judged_at(evaluation, judgments, k)
    minimum = settings.get("min_judged", 0.8)
    for stratum, share in judged.items():
        if share < minimum:
            members = set(groups[stratum])  # a set: a list here made this quadratic in the number of queries
            worst = ", ".join(f"{q} ({n})" for q, n in [u for u in unjudged if u[0] in members][:3])
            warnings.append(
                f"{stratum}: judged@{k} {share:.2f} < {minimum}: unjudged results score 0, so a better ranker can "
                f"look worse; most unjudged: {worst}"
            )
    first = metrics[0].spec
    mover_stratum, mover_metric, moved = "all", first, comparison.movers
    regressed_rows = [r for r in rows if r["status"] == "regression"]
    if regressed_rows:  # the queries that dropped most on what regressed, not on the first metric over all queries
        worst = min(
            regressed_rows,
            key=lambda r: (_worse(r), stratum_key(r["stratum"]), metric_key(r["metric"])),
        )
        mover_stratum, mover_metric = worst["stratum"], worst["metric"]
        moved = query_movers(old_queries, evaluation.per_query, mover_metric, set(groups[mover_stratum]))
    sign = 1 if getattr(by_spec[mover_metric], "higher_is_better", True) else -1  # age: a query that aged lost
    movers = [_mover(m, judgments) for m in moved]
    lost = sorted((m for m in movers if sign * m["delta"] < 0), key=lambda m: (sign * m["delta"], m["query"]))
    gained = sorted((m for m in movers if sign * m["delta"] > 0), key=lambda m: (-sign * m["delta"], m["query"]))
    lost, gained = lost[:MOVERS], gained[:MOVERS]
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
        "metrics": {m.spec: m.definition() for m in metrics},
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
        "headline": first,
        "movers": {"metric": mover_metric, "stratum": mover_stratum, "lost": lost, "gained": gained},
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


def _worse(row: Mapping[str, Any]) -> float:
    """How much worse a row got, as a negative number: its delta, or minus it where lower is better."""
    return row["delta"] if row.get("higher_is_better", True) else -row["delta"]


def _floor_warning(stratum: str, metric: str, value: float, row: Mapping[str, Any], margin: float) -> list[str]:
    """A floor of 0 says nothing (no single list scores at all), so it never warns. A floor that is a bound (at
    least its value) warns by that value: the best constant list is at least as close."""
    floor = row["floor"]
    if floor is None or floor <= 0 or value - floor >= margin:
        return []
    said = f"{floor:.4f}" if row["floor_exact"] else f"(at least {floor:.4f})"
    if value < floor:
        return [
            f"{stratum}.{metric} {value:.4f} is below the constant-answer floor {said}: one fixed list for every "
            "query scores better"
        ]
    return [
        f"{stratum}.{metric} {value:.4f} is within {margin} of the constant-answer floor {said}: one fixed "
        "list for every query scores nearly as well"
    ]


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


# ---------------------------------------------------------------- files written by others

_STRATA = {"all": 0, "head": 1, "torso": 2, "tail": 3}
_FAMILIES = ("ndcg", "map", "mrr", "p", "recall")


def stratum_key(name: str) -> tuple[int, str]:
    """The pytest reports' order: all, head, torso, tail, then the others by name."""
    return _STRATA.get(name, len(_STRATA)), name


def metric_key(spec: str) -> tuple[int, str, int, str]:
    """The default metrics' order (ndcg, map, mrr, p, recall; others by name), shallow cut-offs first: for entries
    written before baselines recorded the configured order (`metric_order`)."""
    name, _, rest = spec.partition("@")
    cut = rest.split(",", 1)[0]
    family = _FAMILIES.index(name) if name in _FAMILIES else len(_FAMILIES)
    return family, name, int(cut) if cut.isdigit() else 0, spec


def read_json(path: Path) -> Any:
    """A baseline file or JSON report, parsed; a missing or malformed one is an error naming it (and the line)."""
    import json

    from pytest_relevance.files import read_text

    if not path.is_file():
        raise RelevanceInputError(path, "no such file")
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise RelevanceInputError(path, f"not valid JSON ({exc.msg})", exc.lineno) from None


def from_file(report: dict[str, Any]) -> dict[str, Any]:
    """A report read back from a JSON report file, whose keys were sorted on writing: strata in the reports'
    order again."""
    for part in (report.get("judged"), report.get("churn")):
        if part and isinstance(part.get("per_stratum"), dict):
            part["per_stratum"] = dict(sorted(part["per_stratum"].items(), key=lambda item: stratum_key(item[0])))
    return report


def from_baseline(test: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """A baseline entry as a report whose values are all baseline values (nothing was measured now)."""
    strata = sorted(entry["strata"].items(), key=lambda item: stratum_key(item[0]))
    specs = [s for s in entry.get("metric_order", []) if s in entry["metrics"]] or sorted(
        entry["metrics"], key=metric_key
    )
    rows = [
        {
            "stratum": stratum,
            "metric": spec,
            "n": values.get("n", 0),
            "baseline": values[spec],
            "current": None,
            "delta": None,
            "status": "recorded",
            "tolerance": None,
            "floor": None,
            "floor_exact": True,
            "p": None,
        }
        for stratum, values in strata
        for spec in specs
        if spec in values
    ]
    return {
        "test": test,
        "engine": entry["engine"],
        "judgments": entry["judgments"],
        "metrics": entry["metrics"],
        "tolerance": entry["tolerance"],
        "status": "baseline",
        "rows": rows,
        "judged": {"k": 10, "min": 0.8, "per_stratum": {}, "most_unjudged": []},
        "coverage": None,
        "duplicates": {},
        "hints": [],
        "warnings": [],
        "headline": specs[0] if specs else "",
        "movers": {"metric": specs[0] if specs else "", "stratum": "all", "lost": [], "gained": []},
        "churn": None,
        "per_query": {
            q: {m: {"baseline": v, "current": None} for m, v in values.items()}
            for q, values in entry["queries"].items()
        },
    }
