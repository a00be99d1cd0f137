"""What every rendering (terminal, Markdown, HTML) shows the same way: numbers, deltas, p-values, floors, the
headline and one-line summaries of a report model. The renderers import this module and no other renderer."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_relevance.gate.verdict import update_command as update_command  # the renderers take it from here


def number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def delta(value: float | None) -> str:
    return "—" if value is None else f"{value:+.4f}"


def movers_label(report: Mapping[str, Any]) -> str:
    """What the movers were ranked on: `ndcg@10` over all queries, or `medium.map@100` when that regressed."""
    movers = report["movers"]
    stratum = movers.get("stratum", "all")
    return movers["metric"] if stratum == "all" else f"{stratum}.{movers['metric']}"


def shallow_moves(report: Mapping[str, Any]) -> str | None:
    """Said under the movers when what moved in them is shallower than their metric counts: the baseline keeps each
    query's top `depth` (relevance_snapshot_depth), so a recall@100 drop shows the moves of the top 10 alone."""
    movers = report["movers"]
    depth, spec = movers.get("depth"), movers["metric"]
    k = (report.get("metrics", {}).get(spec) or {}).get("k")
    if depth is None or (k is not None and k <= depth):
        return None
    counts = f"counts to {k}: relevance_snapshot_depth = {k} keeps that deep" if k else "counts the whole ranking"
    return f"what moved: in each query's top {depth} only, as deep as the baseline keeps; {spec} {counts}"


def value(row: Mapping[str, Any]) -> float:
    """A row's value: the current one, or for a baseline entry the recorded one."""
    shown: float = row["current"] if row["current"] is not None else row["baseline"]
    return shown


FAILING = ("regressed", "cannot compare", "no baseline")


def headline(reports: Sequence[Mapping[str, Any]]) -> str:
    """The one line every report starts with: how many tests, and how many of them failed in each way."""
    statuses = [r["status"] for r in reports]
    if statuses and all(s == "baseline" for s in statuses):
        return f"{len(statuses)} baseline {'entry' if len(statuses) == 1 else 'entries'} (the values they record)"
    parts = [
        f"{len(statuses)} relevance test{'' if len(statuses) == 1 else 's'}",
        f"{statuses.count('regressed')} regressed",
        f"{statuses.count('no baseline')} need a baseline",
        f"{statuses.count('cannot compare')} could not compare",
    ]
    if "updated" in statuses:
        parts.append(f"{statuses.count('updated')} updated")
    return ", ".join(parts)


def failed_expectations(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The report's known-item expectations that failed (they fail the test whatever its status)."""
    return [item for item in report.get("expectations") or [] if not item["passed"]]


def exceeded_cost(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The report's cost rows beyond relevance_max_cost (they fail the test whatever its metrics did)."""
    return [row for row in (report.get("cost") or {}).get("rows", []) if row["exceeded"]]


def cost_shown(report: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The report's cost rows, those beyond their rule first, and what is said beneath them: the advisory
    wall-clock and why cost was not compared (the Markdown and HTML reports list them alike)."""
    cost = report["cost"]
    exceeded = exceeded_cost(report)
    rows = [*exceeded, *(row for row in cost["rows"] if not row["exceeded"])]
    notes = [wall_clock_text(cost["wall_clock"])] if cost.get("wall_clock") else []
    return rows, notes + ([cost["note"]] if cost.get("note") else [])


def cost_row_text(row: Mapping[str, Any]) -> str:
    """`all.docs_scored p95: 1204 -> 4380 (3.64x, at most 1.5x)`; without a baseline value, today's alone."""
    name = f"{row['stratum']}.{row['counter']} {row['stat']}"
    if row["baseline"] is None:
        return f"{name}: {row['current']} (no baseline count)"
    ratio = "no work before" if row["ratio"] is None else f"{row['ratio']:.2f}x"
    return f"{name}: {row['baseline']} -> {row['current']} ({ratio}, at most {row['factor']:g}x)"


def riser_text(riser: Mapping[str, Any]) -> str:
    """`q017 'laws of similarity': 980 -> 3912; most of the rise in match {...}: 0 -> 2932`."""
    text = f"{riser['query']} {riser['text']!r}: {riser['baseline']} -> {riser['current']}"
    if riser.get("clause"):
        before = riser.get("clause_baseline")
        if before is None:  # the entry has no counts per clause: today's largest
            text += f"; most of it today in {riser['clause']} ({riser['clause_current']})"
        else:
            text += f"; most of the rise in {riser['clause']}: {before} -> {riser['clause_current']}"
    return text


def wall_clock_text(timed: Mapping[str, Any]) -> str:
    """`wall-clock (advisory, never gated): 12.3 ms for 60 queries, median of 3 repeats (totals 11.9-13.0 ms)`."""
    return (
        f"wall-clock (advisory, never gated): {timed['median'] * 1000:.1f} ms for {timed['queries']} queries, median "
        f"of {timed['repeats']} repeats (totals {timed['low'] * 1000:.1f}-{timed['high'] * 1000:.1f} ms)"
    )


def failing_first(reports: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """(shown, collapsed): regressions, then tests that could not compare, then those without a baseline, then
    baseline entries (read from a file: there is nothing else to see), then passed or updated tests with a failed
    expectation; the other passed and updated tests collapsed."""
    order = (*FAILING, "baseline")

    def rank(report: Mapping[str, Any]) -> int:
        return order.index(report["status"]) if report["status"] in order else len(order)

    shown = [r for r in reports if r["status"] in order or failed_expectations(r) or exceeded_cost(r)]
    return sorted(shown, key=rank), [r for r in reports if r not in shown]


def floor_text(row: Mapping[str, Any]) -> str:
    """`0.2133`, or `≥0.2133` where the floor is a greedy list's score and the best constant list may score more."""
    if row["floor"] is None:
        return "—"
    return f"{'' if row.get('floor_exact', True) else '≥'}{row['floor']:.4f}"


def p_text(p: float) -> str:
    """`p=0.012`, or `p<0.001` where three decimals would print a p-value of 0. Rounded once, here, from the exact
    p the report holds: 0.85546875 prints 0.855 (rounding it to 4 decimals first made it 0.8555, then 0.856)."""
    return "p<0.001" if p < 0.0005 else f"p={p:.3f}"


def ci_text(row: Mapping[str, Any]) -> str:
    """`[-0.0310, +0.0050]`: the 95% interval of a row's delta, or `—` where it has none."""
    interval = row.get("ci")
    return "—" if not interval else f"[{interval[0]:+.4f}, {interval[1]:+.4f}]"


def mde_text(row: Mapping[str, Any]) -> str:
    """`0.0610`: the smallest drop the gate flags 80% of the time, or `—` where it cannot be estimated."""
    return "—" if row.get("mde") is None else f"{row['mde']:.4f}"


def evidence_text(row: Mapping[str, Any]) -> str:
    """`p=0.012, adjusted p=0.040, 95% CI [-0.0310, -0.0050]`: what a row's decision rests on, beside its delta."""
    parts = [p_text(row["p"])] if row.get("p") is not None else []
    parts += [f"adjusted {p_text(row['p_adjusted'])}"] if row.get("p_adjusted") is not None else []
    parts += [f"95% CI {ci_text(row)}"] if row.get("ci") else []
    return ", ".join(parts)


def corrected_evidence(row: Mapping[str, Any]) -> str | None:
    """`judge-corrected -0.0412, p=0.004, 95% CI [-0.0710, -0.0114]`: what a row gated on its judge-corrected delta
    rests on (relevance_judge_correction = ppi), or None for a row decided on the plain numbers."""
    ppi = row.get("ppi")
    if not ppi or not ppi["gated"]:
        return None
    parts = [f"judge-corrected {ppi['delta']:+.4f}"]
    parts += [p_text(row["p"])] if row.get("p") is not None else []
    parts += [f"adjusted {p_text(row['p_adjusted'])}"] if row.get("p_adjusted") is not None else []
    low, high = ppi["delta_ci"]
    return ", ".join([*parts, f"95% CI [{low:+.4f}, {high:+.4f}]"])


def judge_correction_lines(report: Mapping[str, Any]) -> list[str]:
    """The judge-corrected (PPI) estimate of each value beside the plain one, a stratum a line, whether the gate
    decided on them, and, said once, what stayed plain and why; no lines without relevance_human_judgments."""
    corrected = report.get("judge_correction")
    if not corrected:
        return []
    gated = corrected["mode"] == "ppi"
    rows = [row for row in report["rows"] if row.get("ppi")]
    lines = []
    if rows:
        how = (
            "the gate decides on them (relevance_judge_correction = ppi)"
            if gated
            else "beside the plain numbers the gate decides on (relevance_judge_correction = none)"
        )
        lines.append(f"judge-corrected (PPI) estimates with 95% intervals, {how}:")
    for stratum in dict.fromkeys(row["stratum"] for row in rows):
        cells = []
        for row in (r for r in rows if r["stratum"] == stratum):
            ppi = row["ppi"]
            low, high = ppi["ci"]
            cell = f"{row['metric']} {ppi['value']:.4f} [{low:.4f}, {high:.4f}] (plain {row['current']:.4f})"
            if ppi["delta"] is not None:
                low, high = ppi["delta_ci"]
                cell += f", change {ppi['delta']:+.4f} [{low:+.4f}, {high:+.4f}] (plain {row['delta']:+.4f})"
            cells.append(cell)
        first = next(r["ppi"] for r in rows if r["stratum"] == stratum)
        lines.append(f"  {stratum} ({first['human']} of {first['queries']} queries human-graded): " + "; ".join(cells))
    if corrected["plain"]:
        said = "; ".join(f"{what}: {why}" for what, why in corrected["plain"].items())
        lines.append(f"{'gated on the plain numbers' if gated else 'no judge-corrected estimate'} for {said}")
    return lines


def significance_line(report: Mapping[str, Any]) -> str | None:
    """What relevance_alpha bounds in this report, and how its p-values were adjusted; None without alpha."""
    decided = report.get("significance") or {}
    if decided.get("alpha") is None:
        return None
    if decided.get("scope") == "comparison":
        return f"relevance_alpha {decided['alpha']:g} per stratum x metric (relevance_alpha_scope = comparison)"
    how = f": p-values adjusted by {decided['adjustment']}" if decided.get("adjustment") else ""
    return f"relevance_alpha {decided['alpha']:g} bounds the test's chance of any false regression{how}"


def headline_row(report: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The "all" stratum's value of the first metric: the one number that stands for the test."""
    rows = report["rows"]
    metric = report.get("headline") or report["movers"]["metric"]  # reports written before "headline" existed
    return next((r for r in rows if r["stratum"] == "all" and r["metric"] == metric), rows[0] if rows else None)


def brief(report: Mapping[str, Any]) -> str:
    """`passed, ndcg@10 0.6028 (+0.0000)`: the status and the number that stands for the test."""
    status: str = report["status"]
    regressions = sum(r["status"] == "regression" for r in report["rows"])
    if status == "regressed" and regressions:
        status = f"regressed in {regressions} value{'' if regressions == 1 else 's'}"
    elif status == "regressed":
        status = "regressed: churn beyond relevance_max_churn"
    row = headline_row(report)
    if row is None:
        return status
    if report["status"] == "no baseline":
        note = "no baseline yet"
    elif report["status"] == "cannot compare":
        note = "not compared"
    elif report.get("against"):
        note = report["against"]
    elif row["delta"] is None:
        note = "new"
    else:
        note = f"{row['delta']:+.4f}"
    return f"{status}, {row['metric']} {value(row):.4f} ({note})"


def stale_line(report: Mapping[str, Any]) -> str | None:
    """Values that improved beyond tolerance: the baseline no longer guards them (not said after an update)."""
    stale = [r for r in report["rows"] if r["status"] == "improvement"]
    if not stale or report["status"] == "updated":
        return None
    improved = ", ".join(f"{r['stratum']}.{r['metric']} {r['delta']:+.4f}" for r in stale)
    return f"stale baseline: improved beyond tolerance ({improved}); raise it with --relevance-update"


def judged_line(report: Mapping[str, Any]) -> str | None:
    """`judged@10: all 0.98, head 1.00; coverage@10 0.41`, or None when nothing was measured."""
    judged = report["judged"]
    parts = []
    if judged["per_stratum"]:
        parts.append(f"judged@{judged['k']}: " + ", ".join(f"{s} {v:.2f}" for s, v in judged["per_stratum"].items()))
    if report.get("coverage") is not None:
        parts.append(f"coverage@{judged['k']} {report['coverage']:.2f}")
    if report.get("duplicates"):
        parts.append(f"duplicates in {len(report['duplicates'])} queries")
    return "; ".join(parts) or None


def churn_line(churned: Mapping[str, Any]) -> str:
    """`rankings vs baseline, RBO (p=0.9) / top-10 overlap: all 0.9712/0.9500, ...`."""
    values = ", ".join(f"{s} {v['rbo']:.4f}/{v['overlap']:.4f}" for s, v in churned["per_stratum"].items() if v["n"])
    limit = f"; max churn {churned['max']:g}" if churned.get("max") is not None else ""
    return f"rankings vs baseline, RBO (p={churned['p']}) / top-{churned['k']} overlap: {values}{limit}"


def model_line(report: Mapping[str, Any]) -> str | None:
    """`ndcg@10 0.7100, of which 23% of the gain is model-graded; judge kappa 0.62 on 140 shared pairs`."""
    graded = report.get("model_graded")
    if not graded:
        return None
    value = next(
        (r["current"] for r in report["rows"] if r["stratum"] == "all" and r["metric"] == graded["metric"]), None
    )
    shown = f"{graded['metric']} {value:.4f}" if value is not None else graded["metric"]
    line = f"{shown}, of which {graded['share']:.0%} of the gain is model-graded ({', '.join(graded['judges'])})"
    if graded["kappa"] is not None:
        return f"{line}; judge kappa {graded['kappa']:.2f} on {graded['pairs']} shared pairs"
    if graded["pairs"] is not None:
        return f"{line}; judge kappa undefined on {graded['pairs']} shared pairs"
    return f"{line}; no agreement with humans known (relevance_judge_agreement)"


def set_level_line(report: Mapping[str, Any]) -> str | None:
    """Which metrics are one value per stratum rather than a mean over queries (and so tested by a paired
    bootstrap, not the sign-flip test), or None when none is."""
    names = list(dict.fromkeys(r["metric"] for r in report["rows"] if r.get("set_level")))
    if not names:
        return None
    return (
        f"{', '.join(names)}: one value per stratum (set-level), not a mean over queries; a drop's p is a paired "
        "bootstrap over the stratum's queries"
    )


def changed_inputs(report: Mapping[str, Any]) -> str | None:
    """The report's `since the baseline` line when an input changed (or the entry cannot say), else None."""
    since = report.get("since_baseline")
    return since if since and re.search(r"\bchanged\b|not known", since) else None


def note_lines(report: Mapping[str, Any]) -> list[str]:
    """The lines the Markdown and HTML reports put under a test's table, in this order: what changed since the
    baseline, judged@k and coverage, a stale baseline, model-made grades, set-level metrics."""
    lines = (
        report.get("since_baseline"),
        judged_line(report),
        stale_line(report),
        model_line(report),
        set_level_line(report),
    )
    return [line for line in lines if line] + judge_correction_lines(report)


def online_lines(report: Mapping[str, Any]) -> list[str]:
    """The run's estimated change in clicks (relevance_clicks_log), as every rendering shows it: the line, then
    where it comes from and what it assumes, then what the log's validation found (nothing without a log)."""
    online = report.get("online")
    if not online:
        return []
    lines = [online["line"]]
    if online.get("log"):
        gate = (
            f"fails below -{online['tolerance']:g} with support >= {online['min_support']:g}"
            if online.get("tolerance") is not None
            else "not gated (relevance_online_tolerance)"
        )
        lines.append(
            f"  from {online['queries']} queries searched {online['searches']} times in {', '.join(online['log'])}; "
            f"propensities {online['propensity']}; {gate}; DR assumes {online['assumes']}"
        )
    lines += [f"  click log: {problem}" for problem in online.get("problems") or []]
    return lines


def online_failure_lines(report: Mapping[str, Any]) -> list[str]:
    """Said in the failure text: why the estimate failed the test, or just its line when the metrics did."""
    online = report.get("online")
    if not online:
        return []
    if not online["failed"]:
        return [online["line"]]
    return [
        f"relevance: estimated clicks drop beyond relevance_online_tolerance {online['tolerance']:g} (the whole 95% "
        "interval, as a share of the baseline's clicks):",
        *online_lines(report),
    ]
