"""Cost counters: the work an engine did for each query, counted rather than timed.

Wall-clock in CI measures the runner as much as the query, so the gate reads counts that are the same on every
machine and every repeat: documents matched, documents scored, postings read, terms a multi-term query expanded to,
documents rescored. The embedded engine counts them exactly as it evaluates a body; the Elasticsearch engine reads
them from the `profile` of each search. Each count is also kept per clause (its template path), so that a rise can be
traced to the clause that does the work. Time is kept beside them, advisory only: the median of repeats and its
spread.

A stratum's cost is summarised by nearest-rank percentiles (the median and the 95th), so that each is a count some
query had, recomputed exactly from the per-query counts a baseline entry keeps.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

#: the counters, in the order reports list them; an engine fills those it can count
COUNTERS = ("docs_matched", "docs_scored", "postings_read", "expansions", "rescored")
#: what each counts, for the documentation of a failure
MEANING = {
    "docs_matched": "documents the query matched (Elasticsearch's hits.total)",
    "docs_scored": "documents a similarity or a script computed a score for, summed over the clauses that score",
    "postings_read": "postings entries read: the document frequency of every term looked up, scoring or filtering",
    "expansions": "terms a fuzzy, prefix, wildcard or regexp clause rewrote to",
    "rescored": "documents a rescorer's query was run on (its window)",
}
STATS = ("median", "p95")


@dataclass(frozen=True)
class QueryCost:
    """The counts of one query's search, in total and per clause (template path -> counter -> count: the innermost
    clause that did the work), and the wall-clock seconds of each repeat (advisory: never compared)."""

    counters: Mapping[str, int]
    clauses: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    seconds: tuple[float, ...] = ()


@dataclass(frozen=True)
class CostLimit:
    """A rule of relevance_max_cost: per stratum, today's `stat` of `counter` at most `factor` x the baseline's."""

    counter: str
    factor: float
    stat: str = "p95"

    def text(self) -> str:
        return f"{self.counter}={self.factor:g}x {self.stat}"


_RULE = re.compile(r"^(?P<counter>[a-z_]+)\s*=\s*(?P<factor>[0-9.]+)\s*x(?:\s+(?P<stat>[a-z0-9]+))?$")


def parse_limits(text: str) -> tuple[CostLimit, ...]:
    """`docs_scored=1.5x p95, postings_read=2x median` (comma or line separated; the statistic defaults to p95).

    Raises ValueError saying what is wrong with which rule."""
    rules = [part.strip() for part in re.split(r"[,\n]", text) if part.strip()]
    limits: list[CostLimit] = []
    for rule in rules:
        match = _RULE.match(rule)
        if match is None:
            raise ValueError(f"{rule!r} is not COUNTER=FACTORx [median|p95]; write e.g. 'docs_scored=1.5x p95'")
        counter, stat = match["counter"], match["stat"] or "p95"
        if counter not in COUNTERS:
            raise ValueError(f"{rule!r}: no counter {counter!r} (the counters: {', '.join(COUNTERS)})")
        if stat not in STATS:
            raise ValueError(f"{rule!r}: {stat!r} is not median or p95")
        try:
            factor = float(match["factor"])
        except ValueError:
            raise ValueError(f"{rule!r}: {match['factor']!r} is not a number") from None
        if not math.isfinite(factor) or factor < 1:
            raise ValueError(f"{rule!r}: the factor must be at least 1 (1.5x allows a rise of half)")
        if any(limit.counter == counter and limit.stat == stat for limit in limits):
            raise ValueError(f"{rule!r}: {counter} {stat} is limited twice")
        limits.append(CostLimit(counter, factor, stat))
    if not limits:
        raise ValueError("no rule; write e.g. 'docs_scored=1.5x p95'")
    return tuple(limits)


def nearest_rank(values: Sequence[int], share: float) -> int:
    """The smallest value at or above which `share` of the values lie (nearest-rank percentile; 0 for none)."""
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summarise(per_query: Mapping[str, Mapping[str, int]], groups: Mapping[str, Sequence[str]]) -> dict[str, dict]:
    """stratum -> counter -> {"median", "p95"} of the queries of that stratum (queries without counts left out)."""
    counters = sorted({c for counts in per_query.values() for c in counts}, key=COUNTERS.index)
    out: dict[str, dict] = {}
    for stratum, queries in groups.items():
        present = [per_query[q] for q in queries if q in per_query]
        if not present:
            continue
        out[stratum] = {
            counter: {
                "median": nearest_rank([c.get(counter, 0) for c in present], 0.5),
                "p95": nearest_rank([c.get(counter, 0) for c in present], 0.95),
            }
            for counter in counters
        }
    return out


def wall_clock(costs: Mapping[str, QueryCost]) -> dict[str, float | int] | None:
    """The run's advisory wall-clock: the sum over queries of each query's median repeat, and the spread of the
    repeats' totals (seconds); None when no query was timed."""
    timed = [cost.seconds for cost in costs.values() if cost.seconds]
    if not timed:
        return None
    repeats = min(len(seconds) for seconds in timed)
    totals = [sum(seconds[i] for seconds in timed) for i in range(repeats)]
    return {
        "median": sum(statistics.median(seconds) for seconds in timed),
        "low": min(totals),
        "high": max(totals),
        "repeats": repeats,
        "queries": len(timed),
    }
