"""Plain-text renderings: the assertion failure a reviewer reads, and the `relevance` terminal summary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pytest_relevance.gate.churn import failure_lines
from pytest_relevance.gate.ranking_diff import render
from pytest_relevance.gate.verdict import update_command
from pytest_relevance.reports.formatting import (
    brief,
    changed_inputs,
    churn_line,
    ci_text,
    corrected_evidence,
    cost_row_text,
    delta,
    evidence_text,
    exceeded_cost,
    failed_expectations,
    floor_text,
    judge_correction_lines,
    judged_line,
    mde_text,
    model_line,
    movers_label,
    number,
    online_failure_lines,
    online_lines,
    p_text,
    riser_text,
    set_level_line,
    shallow_moves,
    significance_line,
    stale_line,
    wall_clock_text,
)

if TYPE_CHECKING:
    from pytest_relevance.plugin.session import State


def _signed(value: float) -> str:
    return f"{value:+.4f}"


def regression_line(row: Mapping[str, Any]) -> str:
    corrected = corrected_evidence(row)  # a row gated on its judge-corrected delta: its plain delta, then that
    shown = [f"{_signed(row['delta'])} plain", corrected] if corrected else [_signed(row["delta"]), evidence_text(row)]
    evidence = ", ".join(part for part in shown if part)
    change = f"{row['baseline']:.4f} -> {row['current']:.4f} ({evidence})"
    direction = "" if row.get("higher_is_better", True) else ": lower is better, so this rise is the regression"
    return f"  {row['stratum']}.{row['metric']}: {change}{direction}"


def _cut(text: str, width: int = 60) -> str:
    """A query text on one line of at most `width` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def mover_lines(mover: Mapping[str, Any], indent: str = "  ") -> list[str]:
    """One query that moved, then what moved in it: `fell: p0087 (3) 1 -> 12`, `in: p0999 (?) at 1`, then why, per
    document explained: `why p0087 1 -> 12: 12.31 -> 8.02; ...multi_match[title] ... (boost 3 -> 1)`."""
    stratum = f" [{mover['stratum']}]" if mover["stratum"] else ""
    head = (
        f"{indent}{mover['query']} {_cut(mover['text'])!r}{stratum}: {mover['baseline']:.4f} -> {mover['current']:.4f}"
    )
    lines = [head, *(f"{indent}    {line}" for line in render(mover.get("change") or {}))]
    return lines + [f"{indent}    why {line}" for line in mover.get("why") or []]


CHANCE = 0.05  # a drop with a p-value at least this could be chance: the failure then points at relevance_alpha
SHOWN = 6  # stratum.metric names listed on one line before "+N more"


def _listed(names: list[str]) -> str:
    return ", ".join(names[:SHOWN]) + (f", +{len(names) - SHOWN} more" if len(names) > SHOWN else "")


def failure_text(report: Mapping[str, Any], baseline: str, alpha: float | None = None) -> list[str]:
    """Failing stratum.metric lines (with the p-value of the drop), what the same change improved, a hint at
    relevance_alpha when a drop could be chance and none is set, then for the queries that dropped most what fell and
    what came in, churn beyond relevance_max_churn, and what to do."""
    lines = []
    regressions = [row for row in report["rows"] if row["status"] == "regression"]
    if regressions:
        lines.append(
            f"relevance regression in {baseline} (judgments {report['judgments']}, tolerance {report['tolerance']})"
        )
        lines += [regression_line(row) for row in regressions]
        lines += [f"  {line}" for line in [significance_line(report)] if line]
        lines += [f"  {line}" for line in judge_correction_lines(report)]
        lines += [f"  {report['since_baseline']}"] if report.get("since_baseline") else []
        improved = [
            f"{row['stratum']}.{row['metric']} ({_signed(row['delta'])})"
            for row in report["rows"]
            if row["status"] == "improvement"
        ]
        if improved:
            lines.append(f"the same change improved: {_listed(improved)}")
        chance = [
            f"{row['stratum']}.{row['metric']} ({p_text(row['p'])})"
            for row in regressions
            if row.get("p") is not None and row["p"] >= CHANCE
        ]
        if chance and alpha is None:
            lines.append(
                f"hint: {_listed(chance)} may be chance; relevance_alpha = 0.05 fails only on drops that are also "
                "significant"
            )
        lost = report["movers"]["lost"]
        if lost:
            lines.append(f"queries that dropped most on {movers_label(report)}:")
            for mover in lost:
                lines += mover_lines(mover)
            shallow = shallow_moves(report)
            lines += [f"  {shallow}"] if shallow else []
            lines += [report["explained"]] if report.get("explained") else []
    lines += online_failure_lines(report)
    churned = report.get("churn")
    if churned and churned["exceeded"]:
        lines += failure_lines(churned, baseline)
    lines.append(
        f"if the change is intended: {update_command(report['test'], '<why>')}, then commit {baseline} in a commit "
        "of its own"
    )
    return lines


def expectation_lines(report: Mapping[str, Any]) -> list[str]:
    """The failed known-item expectations (none: no lines): each reason, then why, per document, as a mover's
    documents are explained; they fail the test with or without a baseline, and an update does not baseline them."""
    failed = failed_expectations(report)
    if not failed:
        return []
    lines = [f"relevance: {len(failed)} of {len(report['expectations'])} expectations failed:"]
    for item in failed:
        lines.append(f"  {item['reason']}")
        lines += [f"      why {line}" for line in item.get("why") or []]
    notes = [item["explained"] for item in failed if item.get("explained")]
    lines += list(dict.fromkeys(notes))
    return lines


def cost_lines(report: Mapping[str, Any], baseline: str) -> list[str]:
    """The counters beyond relevance_max_cost (none: no lines), the queries whose count rose most with the clause
    doing most of it today, and what to do; they fail the test whatever its metrics did."""
    exceeded = exceeded_cost(report)
    if not exceeded:
        return []
    cost = report["cost"]
    lines = [f"relevance: cost rose beyond relevance_max_cost ({', '.join(cost['limits'])}) in {baseline}:"]
    lines += [f"  {cost_row_text(row)}" for row in exceeded]
    for counter in dict.fromkeys(riser["counter"] for riser in cost["risers"]):
        lines.append(f"queries whose {counter} rose most:")
        lines += [f"  {riser_text(riser)}" for riser in cost["risers"] if riser["counter"] == counter]
    lines.append(
        f"if the cost is intended: {update_command(report['test'], '<why>')}, then commit {baseline} in a commit of "
        "its own"
    )
    return lines


def _cost_summary(report: Mapping[str, Any]) -> list[str]:
    """With -v: each gated counter per stratum against the baseline, the advisory wall-clock, and why cost was not
    compared, if it was not."""
    cost = report.get("cost")
    if not cost:
        return []
    lines = [f"  cost ({', '.join(cost['limits'])}):"]
    lines += [f"    {cost_row_text(row)}{' !' if row['exceeded'] else ''}" for row in cost["rows"]]
    lines += [f"  {wall_clock_text(cost['wall_clock'])}"] if cost.get("wall_clock") else []
    lines += [f"  cost: {cost['note']}"] if cost.get("note") else []
    return lines


def _measured(report: Mapping[str, Any]) -> list[str]:
    """The values measured now, stratum x metric, for a test that has nothing to compare them with."""
    metrics = list(dict.fromkeys(r["metric"] for r in report["rows"]))
    strata = list(dict.fromkeys(r["stratum"] for r in report["rows"]))
    cells = {(r["stratum"], r["metric"]): r for r in report["rows"]}
    width = max(8, *(len(s) + 2 for s in strata))
    lines = [f"  {'stratum':<{width}}{'n':>5}  " + "".join(f"{m:>12}" for m in metrics)]
    for stratum in strata:
        values = "".join(f"{cells[stratum, m]['current']:>12.4f}" for m in metrics)
        lines.append(f"  {stratum:<{width}}{cells[stratum, metrics[0]]['n']:>5}  {values}")
    return lines


def no_baseline_text(report: Mapping[str, Any], nodeid: str, baseline: str) -> list[str]:
    """A first run: the numbers it measured (so a user sees them before committing anything), then how to create
    the entry. `report` is built against an empty entry; its warnings are the plugin's RelevanceWarnings."""
    lines = [f"relevance: no baseline entry for {nodeid} in {baseline}; measured (judgments {report['judgments']}):"]
    lines += _measured(report)
    lines.append(f"create it with: {update_command(nodeid, 'first baseline')} (then commit {baseline})")
    return lines


def cannot_compare_text(report: Mapping[str, Any], nodeid: str, baseline: str) -> list[str]:
    """Numbers that cannot be compared with the entry (judgments or a metric definition changed): why, then the
    numbers measured now, so a re-baseline is not blind. `report` is built against an empty entry."""
    lines = [f"relevance: cannot compare with {baseline} for {nodeid}"]
    lines += [f"  {problem}" for problem in report.get("problems", [])]
    lines += [f"  {report['since_baseline']}"] if report.get("since_baseline") else []
    lines.append(f"measured now (judgments {report['judgments']}):")
    lines += _measured(report)
    lines.append(
        f"if the change is intended: re-baseline with {update_command(nodeid, '<why>')}, then commit {baseline} in a "
        "commit of its own"
    )
    return lines


def test_line(nodeid: str, result: Mapping[str, Any]) -> str:
    """`relevance: tests/x.py::test_y passed, ndcg@10 0.6028 (+0.0000)`: one line per test at default verbosity."""
    report = result.get("report")
    if not report:
        return f"relevance: {nodeid} not scored (see its failure)"
    return f"relevance: {nodeid} {brief(report)}"


_COUNTED = ("passed", "updated", "regressed", "no baseline", "cannot compare", "not scored")


def count_line(results: Iterable[Mapping[str, Any]]) -> str:
    """`relevance: 4 tests: 3 passed, 1 regressed`, the whole run in one line (what `-q` shows)."""
    results = list(results)
    statuses = [result["report"]["status"] if result.get("report") else "not scored" for result in results]
    counts = {status: statuses.count(status) for status in dict.fromkeys([*_COUNTED, *statuses])}
    parts = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    unmet = sum(bool(failed_expectations(result["report"])) for result in results if result.get("report"))
    parts += f" ({unmet} with failed expectations)" if unmet else ""
    costly = sum(bool(exceeded_cost(result["report"])) for result in results if result.get("report"))
    parts += f" ({costly} over relevance_max_cost)" if costly else ""
    return f"relevance: {len(statuses)} test{'' if len(statuses) == 1 else 's'}: {parts or 'none'}"


def summary_lines(nodeid: str, result: Mapping[str, Any]) -> list[str]:
    """One test's table: stratum x metric with the current value, the signed delta and the constant-answer floor,
    then what keeps the numbers honest (judged@k, coverage, churn, a stale baseline, hints) and its warnings in
    full: the plugin's RelevanceWarning only counts them, so that pytest's summary stays one short line a test."""
    lines = [f"{nodeid}  (engine {result['engine']}, judgments {result['judgments']})"]
    report = result.get("report")
    if not report:
        return lines
    if report["status"] == "cannot compare":
        lines += [f"  cannot compare: {problem}" for problem in report.get("problems", [])]
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
            row.append(f"{cell['current']:.4f} ({delta}{mark}) floor {floor_text(cell)}".ljust(width))
        lines.append("".join(row).rstrip())
    lines += _decision_lines(report)
    lines += [f"  {line}" for line in judge_correction_lines(report)]
    lines += [f"  {line}" for line in (judged_line(report), report.get("since_baseline")) if line]
    if report.get("churn"):
        lines.append(f"  {churn_line(report['churn'])}")
    lines += [f"  {line}" for line in online_lines(report)]
    lines += [f"  {line}" for line in (stale_line(report), model_line(report), set_level_line(report)) if line]
    lines += [f"  hint: {hint}" for hint in report["hints"]]
    lines += [f"  warning: {warning}" for warning in report["warnings"]]
    if report.get("expectations"):
        failed = failed_expectations(report)
        lines.append(
            f"  expectations: {len(report['expectations']) - len(failed)} of {len(report['expectations'])} met"
        )
        lines += [f"  expectation failed: {item['reason']}" for item in failed]
    lines += _cost_summary(report)
    return [*lines, *change_lines(result)]


def _decision_lines(report: Mapping[str, Any]) -> list[str]:
    """Each stratum x metric's 95% interval of its delta and its minimum detectable effect, one line a stratum."""
    rows = [row for row in report["rows"] if row.get("ci") or row.get("mde") is not None]
    if not rows:
        return []
    lines = ["  95% CI of each delta, and MDE (the smallest drop flagged 80% of the time):"]
    for stratum in dict.fromkeys(row["stratum"] for row in rows):
        cells = [f"{r['metric']} {ci_text(r)} MDE {mde_text(r)}" for r in rows if r["stratum"] == stratum]
        lines.append(f"    {stratum}: " + "; ".join(cells))
    lines += [f"  {line}" for line in [significance_line(report)] if line]
    return lines


def change_lines(result: Mapping[str, Any]) -> list[str]:
    """What an update changed, one stratum.metric a line (shown whatever the verbosity: the contract of an update)."""
    return [
        f"  updated {name}: {'new' if old is None else f'{old:.4f}'} -> {new:.4f}"
        for name, old, new in result.get("changes", [])
    ]


def session_lines(state: State, verbosity: int, update: bool, baseline: str) -> list[tuple[str, str | None]]:
    """The `relevance` section of pytest's terminal summary, as (line, colour or None): each test (its table on -v
    or when it did not pass, else one line), the counts, what an update wrote or kept, unused entries, notes,
    errors and warnings."""
    lines: list[tuple[str, str | None]] = []
    for nodeid in sorted(state.results) if verbosity >= 0 else []:
        result = state.results[nodeid]
        report = result.get("report", {})
        if (
            verbosity > 0
            or report.get("status") not in ("passed", "updated", "unchanged")
            or failed_expectations(report)
        ):
            shown = summary_lines(nodeid, result)  # the table: on -v, and always for a test that did not pass
        else:
            since = changed_inputs(report)  # one line a test when nothing changed; the -v table always says
            shown = [test_line(nodeid, result), *([f"  {since}"] if since else []), *change_lines(result)]
        shown += [f"  note: {note}" for note in [*report.get("notes", []), result.get("repeat")] if note]
        lines += [(line, None) for line in shown]
    if state.results:
        lines.append((count_line(state.results.values()), None))
    for nodeid in state.removed:
        lines.append((f"removed baseline entry {nodeid}: no test of this whole-suite run has that id", None))
    if update and state.saved:
        lines.append((f"baseline written: {baseline}", None))
    if update and state.partial and state.results:
        lines.append((f"entries of tests this run did not collect are kept ({state.partial})", None))
    fail = state.settings.unused == "fail"
    for nodeid in state.unused:
        lines.append(
            (
                f"unused baseline entry {nodeid} (no test has that id; a whole-suite --relevance-update removes it)",
                "red" if fail else "yellow",
            )
        )
    if state.unused and fail:
        lines.append((f"relevance_unused = fail: {len(state.unused)} unused baseline entries fail the run", None))
    lines += [(note, None) for note in dict.fromkeys(state.notes)]
    lines += [(f"error: {error}", "red") for error in state.errors]
    lines += [(f"warning: {warning}", "yellow") for warning in state.warnings]
    return lines


def diff_lines(diff: Mapping[str, Any]) -> list[str]:
    """`pytest-relevance diff` as text: both values of every stratum x metric with the delta and its p-value, what
    changed between the sides, churn, the queries that moved most and what moved in them, the unjudged documents
    that came in."""
    report, before, after = diff["report"], diff["before"], diff["after"]
    lines = [
        f"pytest-relevance diff: {before} -> {after}, {diff['queries']} judged queries (judgments "
        f"{report['judgments']}, engine {report['engine']}, tolerance {report['tolerance']})"
    ]
    lines += [f"{report['since_baseline']}"] if report.get("since_baseline") else []
    header = ["stratum", "n", "metric", before, after, "delta", "p", ""]
    rows = [
        [
            row["stratum"],
            str(row["n"]),
            row["metric"],
            number(row["baseline"]),
            number(row["current"]),
            delta(row["delta"]),
            p_text(row["p"]) if row["p"] is not None else "",
            _DIFF_MARKS.get(row["status"], row["status"]),
        ]
        for row in report["rows"]
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for cells in [header, *rows]:
        lines.append(
            "  "
            + "  ".join(
                c.rjust(w) if 2 < i < 7 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )
    if report.get("churn"):
        lines.append(churn_line(report["churn"]).replace("vs baseline", f"vs {before}"))
    movers = report["movers"]
    for title in ("lost", "gained"):
        if movers[title]:
            lines.append(f"queries that {title} most on {movers_label(report)}:")
            for mover in movers[title]:
                lines += mover_lines(mover)
    lines += [report["explained"]] if report.get("explained") else []
    came = diff["came_in"]
    if came:
        count = sum(map(len, came.values()))
        shown = "; ".join(
            f"{qid}: {', '.join(docs[:3])}{', ...' if len(docs) > 3 else ''}" for qid, docs in list(came.items())[:3]
        )
        more = "; ..." if len(came) > 3 else ""
        lines.append(
            f"unjudged documents that came in: {count} in {len(came)} queries ({shown}{more}); grade them: "
            "pytest-relevance pool"
        )
    return lines + _cost_summary(report)


#: a row's status as diff names it: no baseline is involved, so a rise is an improvement, not a stale baseline
_DIFF_MARKS = {
    "regression": "regression",
    "improvement": "improved",
    "not significant": "drop, not significant",
    "same": "",
    "new": "new",
    "recorded": "",
}
