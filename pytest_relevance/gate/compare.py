"""An entry against today's evaluation: one row per stratum x metric with its delta and its status under the
tolerance (`Row`), the queries that moved most (`Mover`), and the rankings the entry kept (`Comparison`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.gate.baseline_file import Entry
from pytest_relevance.metrics.ranking import DIGITS

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Row:
    stratum: str
    metric: str
    before: float | None
    after: float
    tolerance: float
    n: int
    #: False for age and exposure_gini: a rise is then the regression
    higher_is_better: bool = True

    @property
    def delta(self) -> float | None:
        return None if self.before is None else round(self.after - self.before, DIGITS)

    @property
    def status(self) -> str:
        """`regression` when the change for the worse is beyond tolerance (a drop, or a rise where lower is better;
        a change of exactly the tolerance passes)."""
        delta = self.delta
        if delta is None:
            return "new"
        better = delta if self.higher_is_better else -delta
        if better < -self.tolerance - 1e-9:
            return "regression"
        if better > self.tolerance + 1e-9:
            return "improvement"
        return "same"


@dataclass(frozen=True)
class Mover:
    query: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return round(self.after - self.before, DIGITS)


@dataclass
class Comparison:
    """Rows per stratum and metric, query movers, and the baseline's rankings (None for entries that predate them;
    `depth` is how many ids per query they keep, None for set answers, which are kept whole)."""

    rows: list[Row]
    added: list[str]
    removed: list[str]
    movers: list[Mover]
    rankings: dict[str, list[str]] | None = None
    depth: int | None = None


def compare(entry: Entry, evaluation: Evaluation, tolerance: Tolerance) -> Comparison:
    """Current values against the entry, stratum by stratum and metric by metric."""
    rows = []
    higher = {m.spec: getattr(m, "higher_is_better", True) for m in evaluation.metrics}  # set answers: all higher
    for stratum, values in evaluation.strata.items():
        recorded = entry.get("strata", {}).get(stratum, {})
        for spec, value in values.items():
            before = recorded.get(spec)
            after = round(value, DIGITS)
            tolerated = tolerance.get(stratum, spec)
            rows.append(Row(stratum, spec, before, after, tolerated, evaluation.counts[stratum], higher[spec]))
    old_queries: dict[str, dict[str, float]] = entry.get("queries", {})
    added = sorted(set(evaluation.per_query) - set(old_queries))
    removed = sorted(set(old_queries) - set(evaluation.per_query))
    movers = query_movers(old_queries, evaluation.per_query, evaluation.metrics[0].spec)
    return Comparison(rows, added, removed, movers, entry.get("rankings"), entry.get("rankings_depth"))


def query_movers(
    old_queries: Mapping[str, Mapping[str, float]],
    per_query: Mapping[str, Mapping[str, float]],
    spec: str,
    members: Collection[str] | None = None,
) -> list[Mover]:
    """The queries whose value of `spec` changed, most dropped first; only `members` (a stratum's queries) when
    given, so that the movers listed for a regressed stratum are that stratum's."""
    movers = [
        Mover(qid, old_queries[qid][spec], round(values[spec], DIGITS))
        for qid, values in per_query.items()
        if (members is None or qid in members) and qid in old_queries and spec in old_queries[qid]
    ]
    movers = [m for m in movers if m.delta != 0]
    movers.sort(key=lambda m: (m.delta, m.query))
    return movers
