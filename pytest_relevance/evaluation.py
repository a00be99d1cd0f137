"""Run x Judgments -> Evaluation: every judged query scored, then averaged per stratum and over all.

Judged queries absent from the run score 0 on every metric (a ranker that returns nothing must not look better);
query ids in the run that the judgments do not know are an error (a typo, or a stale judgment file).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments import Judgments
from pytest_relevance.metrics import Metric, mean, rank_scored, score_query

ALL = "all"


class Run(dict[str, list[str]]):
    """query id -> ranked doc ids, plus the identity of what produced them (an engine, or `custom`)."""

    def __init__(self, rankings: Mapping[str, Sequence[str]] = (), engine: str = "custom") -> None:
        super().__init__({qid: list(docs) for qid, docs in dict(rankings).items()})
        self.engine = engine


@dataclass
class Evaluation:
    """Per-query values, per-stratum means with counts, and the diagnostics reports show."""

    metrics: list[Metric]
    per_query: dict[str, dict[str, float]]
    strata: dict[str, dict[str, float]]
    counts: dict[str, int]
    run: dict[str, list[str]]
    missing: list[str] = field(default_factory=list)
    duplicates: dict[str, int] = field(default_factory=dict)


def as_rankings(run: object, source: str = "the run") -> dict[str, list[str]]:
    """Accept query id -> ranked ids, or query id -> {doc: score} (ordered as trec_eval would)."""
    if not isinstance(run, Mapping):
        raise RelevanceInputError(source, f"a run maps query id -> ranked doc ids; got {type(run).__name__}")
    rankings: dict[str, list[str]] = {}
    for qid, docs in run.items():
        if isinstance(docs, Mapping):
            rankings[str(qid)] = rank_scored({str(d): float(s) for d, s in docs.items()})
        elif isinstance(docs, str) or not isinstance(docs, Sequence):
            raise RelevanceInputError(
                source, f"query {qid!r}: expected a ranked list of doc ids, got {type(docs).__name__}"
            )
        else:
            rankings[str(qid)] = [str(d) for d in docs]
    return rankings


def evaluate(run: Mapping[str, object], judgments: Judgments, metrics: Sequence[Metric]) -> Evaluation:
    """Score every judged query; strata are averaged separately so that no average hides one of them."""
    rankings = as_rankings(run)
    unknown = sorted(q for q in rankings if q not in judgments)
    if unknown:
        shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
        raise RelevanceInputError(
            judgments.source,
            f"the run has query ids that are not judged here: {shown}. Fix the ids, or add the queries to the "
            "judgments (a judgment refresh is re-baselined in a commit of its own)",
        )
    per_query: dict[str, dict[str, float]] = {}
    duplicates: dict[str, int] = {}
    missing = []
    for query in judgments.queries:
        ranking = rankings.get(query.id)
        if ranking is None:
            missing.append(query.id)
            ranking = []
        score = score_query(query.grades, ranking, metrics)
        per_query[query.id] = score.values
        if score.duplicates:
            duplicates[query.id] = score.duplicates
    groups: dict[str, list[str]] = {ALL: [q.id for q in judgments.queries]}
    for stratum in judgments.strata:
        groups[stratum] = [q.id for q in judgments.queries if q.stratum == stratum]
    strata = {
        name: {m.spec: mean(per_query[qid][m.spec] for qid in ids) for m in metrics} for name, ids in groups.items()
    }
    counts = {name: len(ids) for name, ids in groups.items()}
    return Evaluation(list(metrics), per_query, strata, counts, rankings, missing, duplicates)
