"""The cost gate: today's counted work per stratum against the baseline entry's, under relevance_max_cost.

A change that keeps every metric within tolerance can still multiply the work each query costs (a `fuzziness: 2`
on a long field, a rescore window of 1000, a script on every hit). The entry keeps each query's counts
(`evaluation.cost`) and, per stratum, their median and 95th percentile; a rule `docs_scored=1.5x p95` fails the
test when a stratum's p95 of documents scored rises beyond 1.5 times the baseline's. The failure names the queries
whose count rose most and, for each, the clause of the query template that does most of that work today, so that a
reviewer sees which clause to look at. Wall-clock is reported beside the counts and never gated: it measures the
runner as much as the query.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_relevance.evaluation.cost import COUNTERS, CostLimit, QueryCost, summarise, wall_clock

#: queries listed as the largest risers of a counter that exceeded its rule
RISERS = 5


def cost_record(
    costs: Mapping[str, QueryCost],
    groups: Mapping[str, Sequence[str]],
    limits: Sequence[CostLimit] = (),
    template: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a baseline entry keeps of a counted run: each query's counts, each stratum's median and p95, and for the
    counters a rule gates, each query's count per clause, keyed by the clause as the template writes it (so that a
    clause keeps its key when the template wraps it in another) or, where the template has no such path, by the
    engine's name for it."""
    queries = {qid: {c: int(costs[qid].counters.get(c, 0)) for c in COUNTERS} for qid in sorted(costs)}
    gated = sorted({limit.counter for limit in limits}, key=COUNTERS.index)
    clauses = {qid: {counter: by_clause(costs[qid], counter, template) for counter in gated} for qid in sorted(costs)}
    return {"queries": queries, "strata": summarise(queries, groups), **({"clauses": clauses} if gated else {})}


def by_clause(cost: QueryCost, counter: str, template: Mapping[str, Any] | None) -> dict[str, int]:
    """One query's count of `counter` per clause (those with any), keyed as `cost_record` says."""
    out: dict[str, int] = {}
    for path, counts in sorted(cost.clauses.items()):
        if counts.get(counter):
            key = quoted(template, path) or path
            out[key] = out.get(key, 0) + int(counts[counter])
    return out


def inconsistency(recorded: Any, groups: Mapping[str, Sequence[str]]) -> str | None:
    """Why an entry's `cost` is not what its own per-query counts give (edited or merged by hand), or None."""
    if not isinstance(recorded, dict) or not isinstance(recorded.get("queries"), dict):
        return "its cost has no per-query counts"
    queries = recorded["queries"]
    for qid, counts in queries.items():
        if not isinstance(counts, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts.values()
        ):
            return f"the cost of query {qid!r} is not a mapping of counter to count"
    if recorded.get("strata") != summarise(queries, groups):
        return "its cost per stratum is not the median and p95 of its per-query counts"
    return None


@dataclass(frozen=True)
class CostCheck:
    """The cost side of one check: the rows each rule compares, the queries that rose most on an exceeded rule
    (each with the clause that does most of that work today), the advisory wall-clock, and what kept cost from being
    compared (`note`)."""

    limits: tuple[CostLimit, ...]
    rows: tuple[dict[str, Any], ...] = ()
    risers: tuple[dict[str, Any], ...] = ()
    wall_clock: dict[str, Any] | None = None
    note: str | None = None

    @property
    def exceeded(self) -> list[dict[str, Any]]:
        return [row for row in self.rows if row["exceeded"]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "limits": [limit.text() for limit in self.limits],
            "rows": list(self.rows),
            "risers": list(self.risers),
            "wall_clock": self.wall_clock,
            "note": self.note,
        }


def check_cost(
    limits: Sequence[CostLimit],
    costs: Mapping[str, QueryCost] | None,
    recorded: Mapping[str, Any] | None,
    groups: Mapping[str, Sequence[str]],
    texts: Mapping[str, str],
    template: Mapping[str, Any] | None = None,
) -> CostCheck:
    """Compare today's counts (`costs`; None: the run was not counted) with the entry's (`recorded`; None: the
    entry has none, or there is no entry). `template` is the query template, whose clause at a counted path is
    quoted beside a riser."""
    limits = tuple(limits)
    if costs is None:
        return CostCheck(limits, note="this run has no cost counters (a custom ranker's run, or an engine without "
                                      "profile()), so relevance_max_cost does not gate it")  # fmt: skip
    timed = wall_clock(costs)
    today = cost_record(costs, groups)
    if recorded is None:
        return CostCheck(limits, _rows(limits, today["strata"], None), wall_clock=timed)
    rows = _rows(limits, today["strata"], recorded["strata"])
    exceeded = {row["counter"] for row in rows if row["exceeded"]}
    risers = [
        riser
        for counter in sorted(exceeded, key=COUNTERS.index)
        for riser in _risers(counter, costs, recorded, texts, template)
    ]
    return CostCheck(limits, rows, tuple(risers), timed)


def _rows(
    limits: Sequence[CostLimit], today: Mapping[str, Any], before: Mapping[str, Any] | None
) -> tuple[dict[str, Any], ...]:
    rows = []
    for limit in limits:
        for stratum, counters in today.items():
            current = counters.get(limit.counter, {}).get(limit.stat, 0)
            baseline = None if before is None else before.get(stratum, {}).get(limit.counter, {}).get(limit.stat)
            # a baseline of 0 allows no rise at all: any work where there was none is a rise beyond every factor
            exceeded = baseline is not None and current > limit.factor * baseline
            rows.append({
                "stratum": stratum, "counter": limit.counter, "stat": limit.stat, "baseline": baseline,
                "current": current, "ratio": current / baseline if baseline else None, "factor": limit.factor,
                "exceeded": exceeded,
            })  # fmt: skip
    return tuple(rows)


def _risers(
    counter: str,
    costs: Mapping[str, QueryCost],
    recorded: Mapping[str, Any],
    texts: Mapping[str, str],
    template: Mapping[str, Any] | None,
) -> list[dict[str, Any]]:
    """The queries whose `counter` rose most, each with the clause whose count rose most (against the entry's count
    of the same clause; the largest today where the entry has no counts per clause)."""
    before = recorded["queries"]
    rises = []
    for qid, cost in costs.items():
        was = before.get(qid, {}).get(counter)
        now = int(cost.counters.get(counter, 0))
        if was is not None and now > was:
            rises.append((now - was, qid, was, now))
    rises.sort(key=lambda rise: (-rise[0], rise[1]))
    out = []
    for _, qid, was, now in rises[:RISERS]:
        today = by_clause(costs[qid], counter, template)
        earlier = (recorded.get("clauses") or {}).get(qid, {}).get(counter)
        rose = {key: n - (earlier or {}).get(key, 0) for key, n in today.items()}
        key = max(rose, key=lambda k: (rose[k], k), default=None)
        out.append({
            "query": qid, "text": texts.get(qid, ""), "counter": counter, "baseline": was, "current": now,
            "clause": key, "clause_current": today.get(key) if key else None,
            "clause_baseline": None if earlier is None or key is None else earlier.get(key, 0),
        })  # fmt: skip
    return out


def quoted(template: Mapping[str, Any] | None, path: str) -> str | None:
    """The template's clause at a counted path (`query.bool.should[1].match`) as `match {"description": ...}`
    (compact JSON, keys sorted); None where the path does not lead into the template (an engine's own name)."""
    if template is None:
        return None
    node: Any = template
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("["):
            index = part[1:-1]
            if not (isinstance(node, list) and index.isdigit() and int(index) < len(node)):
                return None
            node = node[int(index)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    name = path.rsplit(".", 1)[-1]
    return f"{name} {json.dumps(node, separators=(',', ':'), ensure_ascii=False, sort_keys=True, default=str)}"
