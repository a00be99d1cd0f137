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
                  is at least this value, a greedy list's score; see `evaluation.EXACT_FLOORS`), "p" (unrounded;
                  null unless regressed, or for a set-level metric whose baseline keeps too few ids per query;
                  one-sided, a drop, where relevance_alpha bounds the test), "p_adjusted" (p adjusted over the
                  test's rows, see "significance"; null otherwise), "ci" ([low, high]: the 95% paired-bootstrap
                  interval of the delta; null for a set-level metric, a new row or a stratum of one query), "mde"
                  (the smallest drop flagged 80% of the time, see `gate.decisions`; null where unknown),
                  "higher_is_better"
                  (false for age and exposure_gini: a rise is the regression), "set_level" (true for
                  exposure_gini and coverage: one value per stratum, none per query, p by paired bootstrap),
                  "ppi": null (no judge-corrected estimate: see "judge_correction") or {"value", "ci": [low, high]:
                  the PPI estimate of the current value and its 95% interval, "queries", "human": how many queries
                  it rests on and how many of them people graded, "delta", "delta_ci": the same of the change
                  against the baseline (null: nothing to compare, or the baseline's rankings are too shallow to
                  re-score), "gated": whether the row was decided on it (then "p" and "p_adjusted" are its)}}],
        "significance": {"alpha": relevance_alpha or null, "scope": "test" | "comparison", "adjustment": how the
            p-values were adjusted (max-T or Holm, named) or null},
        "judge_correction": null (no relevance_human_judgments) or {"mode": relevance_judge_correction ("none":
            reported only, "ppi": gated on), "plain": {what: why}: the strata or metrics left without a corrected
            estimate, which are gated on the plain numbers},
        "judged": {"k", "min", "per_stratum": {stratum: share}, "most_unjudged": [[query, count], ...]},
        "coverage": share of the corpus in any top k, or null, "duplicates": {query: count},
        (p, the judged shares, coverage and model_graded's share and kappa are unrounded: each rendering rounds them
        once, to the digits it prints; values, deltas and floors are rounded to 4 decimals, as the baseline keeps
        them, and printed with 4)
        "hints": [str], "warnings": [str] (the stale-grade warnings last, see `provenance.assess`),
        "model_graded": null (no gain rests on a model-made grade) or {"metric": the first NDCG spec, "share": of its
            "all" value, the part model-made grades give, "judges": [name], "kappa": the judge's unweighted kappa
            from relevance_judge_agreement (null: none known, or undefined), "pairs": its shared pairs or null},
        "since_baseline": which inputs (corpus, index config, query template, judgments) differ from the ones the
            entry was measured on, one line, or null without an entry (see `baseline.since_baseline`),
        "headline": the first metric's spec, whose "all" value stands for the test,
        "movers": {"metric": spec, "stratum": name, "lost": [mover], "gained": [mover]}: the queries of the
            regressed stratum that dropped most on the regressed metric (the largest drop when several did), else
            every query on the first metric (stratum "all"),
            mover = {"query", "text", "stratum", "baseline", "current", "delta", "change"},
            "depth": how many ids per query the baseline keeps, which the changes compare (null: it keeps no
            rankings, or set answers, kept whole; absent from reports written before it was recorded),
            change = {"fell": [move], "rose": [move], "came": [move]} against the baseline's top k, with
                move = {"doc", "grade" (null: unjudged), "before", "after" (1-based; null: not there)};
                or {"missing": [label], "extra": [label]} for set answers;
                or {"top": [{"doc", "grade"}]} when the baseline entry has no rankings,
        "churn": null (no baseline rankings, or set answers) or {"k", "p", "variant", "max" (null: off),
            "per_stratum": {stratum: {"rbo", "overlap", "n"}}, "exceeded": [stratum],
            "most_changed": [{"query", "text", "stratum", "rbo", "overlap", "new", "unjudged"}]},
        "rankings": {query: [doc id, ...]}: the current run to the depth the metrics need (set answers: whole),
        "per_query": {query: {metric: {"baseline": value or null, "current": value}}},
        "expectations": [{"query", "kind": "rank" | "within" | "above" | "absent", "docs": [doc id], "n": the rank
            or cut-off (null for above and absent), "expected": what, in words, "passed", "reason": one line,
            "ranks": {doc: 1-based rank now or null}, "line": where the judgments file says it, and for a failed
            one "why": [line] (each document's explanation, as a mover's) and "explained" when its trees are
            today's only}]: the judgments' known-item expectations, checked with or without a baseline,
        "cost" (only under relevance_max_cost): {"limits": [rule], "rows": [{"stratum", "counter", "stat": "median" |
            "p95", "baseline" (null: no entry to compare), "current", "ratio" (null: no baseline, or 0), "factor",
            "exceeded"}], "risers": [{"query", "text", "counter", "baseline", "current", "clause" (the template's
            clause or the engine's name for it), "clause_baseline" (null: the entry has no counts per clause),
            "clause_current"}], "wall_clock": {"median", "low", "high" (seconds), "repeats", "queries"} or null,
            "note": why cost was not compared, or null},
        "online" (only with relevance_clicks_log, when the run was compared with an entry): {"line": what the
            failure text, -v and every report print, "estimable", "failed": the drop is beyond
            relevance_online_tolerance, and unless the entry keeps no rankings or no query is in the log
            "estimator": "dr", "assumes", "k", "baseline" and
            "current" (clicks per search), "delta", "ci" ([low, high]), "relative" and "relative_ci" (shares of the
            baseline's clicks), "support": {"slots", "ess", "max_weight"}, "queries", "searches", "propensity",
            "log": [file], "problems": [the log's validation findings], "tolerance" (null: not gated),
            "min_support"}}]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_relevance.gate.decisions import as_dict
from pytest_relevance.gate.entry import metric_key, stratum_key
from pytest_relevance.metrics.ranking import DIGITS, depth

if TYPE_CHECKING:
    from pytest_relevance.evaluation.diagnostics import Diagnostics
    from pytest_relevance.gate.verdict import Compared, Verdict


def build(
    nodeid: str,
    verdict: Verdict,
    diagnostics: Diagnostics,
    expectations: Sequence[dict[str, Any]] = (),
    online: Mapping[str, Any] | None = None,
    cost: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything a reviewer needs about one relevance test, JSON-serializable: the verdict and the diagnostics
    side by side, nothing computed again; `expectations`, `online` and `cost` as the check made them (see
    `pipeline.expectation_report`, `pipeline.online_section` and `pipeline.cost_of`)."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    evaluation = verdict.evaluation
    metrics = evaluation.metrics
    set_answers = isinstance(metrics[0], SetMetric)
    by_spec = {m.spec: m for m in metrics}
    old_queries = (verdict.reference or {}).get("queries", {})
    rows = [
        {
            "stratum": c.row.stratum,
            "metric": c.row.metric,
            "n": c.row.n,
            "baseline": c.row.before,
            "current": c.row.after,
            "delta": c.row.delta,
            "status": c.status,
            "tolerance": c.row.tolerance,
            # None: it has none (see beyond), or the stratum's queries are not known (a record, see gate.recorded)
            "floor": _round(diagnostics.floors.get(c.row.stratum, {}).get(c.row.metric)),
            "floor_exact": diagnostics.exact[c.row.metric],
            "p": c.p,
            **(as_dict(c.evidence) if c.evidence else {"p_adjusted": None, "ci": None, "mde": None}),
            "higher_is_better": c.row.higher_is_better,
            "set_level": getattr(by_spec[c.row.metric], "set_level", False),
            "ppi": _ppi(c, verdict),
        }
        for c in verdict.rows
    ]
    missing = [diagnostics.missing] if diagnostics.missing else []
    warnings = [*diagnostics.warnings, *verdict.warnings, *missing, *diagnostics.stale]
    report: dict[str, Any] = {
        "test": nodeid,
        "engine": verdict.engine,
        "judgments": verdict.judgments,
        "metrics": {m.spec: m.definition() for m in metrics},
        "tolerance": verdict.tolerance,
        "status": verdict.status,
        "rows": rows,
        "significance": {
            "alpha": verdict.alpha,
            "scope": verdict.scope,
            "adjustment": verdict.adjustment,
        },
        "judge_correction": (
            None
            if verdict.correction is None
            else {"mode": verdict.judge_correction, "plain": dict(verdict.correction.plain)}
        ),
        "judged": {
            "k": diagnostics.k,
            "min": diagnostics.min_judged,
            "per_stratum": dict(diagnostics.judged),
            "most_unjudged": [list(item) for item in diagnostics.unjudged[:10]],
        },
        "coverage": diagnostics.coverage,
        "duplicates": dict(evaluation.duplicates),
        "hints": diagnostics.hints,
        "warnings": list(dict.fromkeys(warnings)),
        "model_graded": diagnostics.model_graded,
        "since_baseline": verdict.since,
        "headline": metrics[0].spec,
        "movers": verdict.movers,
        "churn": verdict.churn,
        "rankings": {qid: docs[: None if set_answers else depth(metrics)] for qid, docs in evaluation.run.items()},
        "per_query": {
            qid: {
                spec: {"baseline": old_queries.get(qid, {}).get(spec), "current": round(value, DIGITS)}
                for spec, value in values.items()
            }
            for qid, values in evaluation.per_query.items()
        },
        "expectations": list(expectations),
    }
    if verdict.against:
        report["against"] = verdict.against
    if verdict.explained:
        report["explained"] = verdict.explained
    if verdict.problems:
        report["problems"] = verdict.problems
    if verdict.notes:
        report["notes"] = verdict.notes
    if online is not None:
        report["online"] = dict(online)
    if cost is not None:
        report["cost"] = dict(cost)
    return report


def _ppi(compared: Compared, verdict: Verdict) -> dict[str, Any] | None:
    """A row's judge-corrected estimates as report data, or None where there are none."""
    found = verdict.correction.get(compared.row.stratum, compared.row.metric) if verdict.correction else None
    if found is None:
        return None
    value = found.value
    delta = found.delta if compared.row.before is not None else None  # a new row has nothing to compare with
    return {
        "value": round(value.value, DIGITS),
        "ci": [round(value.low, DIGITS), round(value.high, DIGITS)],
        "queries": value.queries,
        "human": value.human,
        "delta": None if delta is None else round(delta.value, DIGITS),
        "delta_ci": None if delta is None else [round(delta.low, DIGITS), round(delta.high, DIGITS)],
        "gated": delta is not None and verdict.judge_correction == "ppi",  # as `decisions.judge_corrected` decides
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


# ---------------------------------------------------------------- files written by others


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
