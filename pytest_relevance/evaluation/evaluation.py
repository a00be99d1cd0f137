"""Run x Judgments -> Evaluation: every judged query scored, then averaged per stratum and over all.

Judged queries absent from the run score 0 on every metric (a ranker that returns nothing must not look better;
age and exposure_gini, where lower is better, score their worst, see `beyond`); query ids in the run that the
judgments do not know are an error (a typo, or a stale judgment file). Set-level metrics (exposure_gini, coverage)
have a value per stratum and none per query.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.model import Judgments
from pytest_relevance.metrics.ranking import BEYOND, Metric, mean, rank_scored, score_query

if TYPE_CHECKING:
    from pytest_relevance.evaluation.cost import QueryCost
    from pytest_relevance.evaluation.diversity import CorpusFields


class Run(dict[str, list[str]]):
    """query id -> ranked doc ids, plus the identity of what produced them (an engine, or `custom`)."""

    def __init__(
        self,
        rankings: Mapping[str, Sequence[str]] | Iterable[tuple[str, Sequence[str]]] = (),
        engine: str = "custom",
        corpus_size: int | None = None,
        repeated: int = 1,
        inputs: Mapping[str, object] | None = None,
        index: Any = None,
        cost: Mapping[str, QueryCost] | None = None,
    ) -> None:
        super().__init__({qid: list(docs) for qid, docs in dict(rankings).items()})
        #: `repeated`: how many times every query ran with identical rankings (--relevance-repeat); `inputs`: the
        #: fingerprints of the files the run was made from (fingerprints.index_inputs), None for a custom ranker's;
        #: `index`: the fixture index that ran it, which explains a failure's movers (None for a custom ranker's);
        #: `cost`: query id -> the work the engine did for it (`cost`), when the run was counted
        self.engine, self.corpus_size, self.repeated = engine, corpus_size, repeated
        self.inputs = dict(inputs) if inputs is not None else None
        self.index = index
        self.cost = dict(cost) if cost is not None else None


@dataclass
class Evaluation:
    """Per-query values, per-stratum means with counts, and the diagnostics reports show."""

    metrics: list[Metric]
    per_query: dict[str, dict[str, float]]
    strata: dict[str, dict[str, float]]
    counts: dict[str, int]
    run: dict[str, list[str]]
    duplicates: dict[str, int] = field(default_factory=dict)
    #: the corpus the beyond-relevance metrics read (None without them): their significance test reads it again
    corpus: CorpusFields | None = None


def as_rankings(run: object, source: str = "the run") -> dict[str, list[str]]:
    """Accept query id -> ranked ids, or query id -> {doc: score} (ordered as trec_eval would).

    Ids are strings and scores finite numbers: `str(None)` would become a document named "None", and a NaN score
    would rank by document name.
    """
    if not isinstance(run, Mapping):
        raise RelevanceInputError(source, f"a run maps query id -> ranked doc ids; got {type(run).__name__}")
    rankings: dict[str, list[str]] = {}
    for qid, docs in run.items():
        if not isinstance(qid, str):
            raise RelevanceInputError(
                source, f"query {qid!r}: query ids are strings, got {type(qid).__name__} (use str(...) if meant)"
            )
        if isinstance(docs, Mapping):
            check_ids(docs, qid, source)
            rankings[qid] = rank_scored(_scores(docs, qid, source))
        elif isinstance(docs, str) or not isinstance(docs, Sequence):
            raise RelevanceInputError(
                source, f"query {qid!r}: expected a ranked list of doc ids, got {type(docs).__name__}"
            )
        else:
            check_ids(docs, qid, source)
            rankings[qid] = list(docs)
    return rankings


def check_ids(docs: Iterable[object], qid: str, source: str) -> None:
    """Every doc id a string: one C-level pass over the types, and a message naming the first one that is not."""
    if all(issubclass(kind, str) for kind in set(map(type, docs))):
        return
    bad = next(doc for doc in docs if not isinstance(doc, str))
    raise RelevanceInputError(
        source, f"query {qid!r}: document id {bad!r} is not a string; doc ids are strings, as in the judgments"
    )


def _scores(docs: Mapping[str, object], qid: str, source: str) -> dict[str, float]:
    values = list(docs.values())
    if set(map(type, values)) <= {float, int} and math.isfinite(math.fsum(cast("list[float]", values))):
        return {doc: float(score) for doc, score in cast("Mapping[str, float]", docs).items()}
    out = {}
    for doc, score in docs.items():
        if isinstance(score, bool) or not isinstance(score, numbers.Real) or not math.isfinite(score):
            raise RelevanceInputError(
                source, f"query {qid!r}: document {doc!r} has score {score!r}; scores are finite numbers"
            )
        out[doc] = float(score)
    return out


def check_judged(query_ids: Iterable[str], judgments: Judgments) -> None:
    """Query ids the judgments do not know are an error: a typo, or a stale judgment file."""
    unknown = sorted(str(q) for q in query_ids if q not in judgments)
    if unknown:
        shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
        raise RelevanceInputError(
            judgments.source,
            f"the run has query ids that are not judged here: {shown}. Fix the ids, or add the queries to the "
            "judgments (a judgment refresh is re-baselined in a commit of its own)",
        )


def evaluate(
    run: Mapping[str, object],
    judgments: Judgments,
    metrics: Sequence[Metric],
    corpus: CorpusFields | None = None,
    now: datetime | None = None,
) -> Evaluation:
    """Score every judged query; strata are averaged separately so that no average hides one of them.

    Metrics beyond relevance (`metrics.BEYOND`) read `corpus` (and age and fresh the frozen instant `now`); a
    set-level one is computed per stratum from its queries' lists, not averaged."""
    rankings = as_rankings(run)
    check_judged(rankings, judgments)
    ranking_metrics = [m for m in metrics if m.name not in BEYOND]
    beyond_metrics = [m for m in metrics if m.name in BEYOND]
    per_query: dict[str, dict[str, float]] = {}
    duplicates: dict[str, int] = {}
    for query in judgments.queries:
        score = score_query(query.grades, rankings.get(query.id, []), ranking_metrics)
        per_query[query.id] = score.values
        if score.duplicates:
            duplicates[query.id] = score.duplicates
    groups = judgments.groups
    set_values: dict[str, dict[str, float]] = {name: {} for name in groups}
    if beyond_metrics:
        from pytest_relevance.evaluation import diversity as beyond

        if corpus is None:
            raise RelevanceInputError(
                "relevance_metrics", f"{beyond_metrics[0].spec} reads the corpus, and none was given to evaluate"
            )
        beyond.check_fields(beyond_metrics, corpus)
        extra, set_values = beyond.score(judgments, rankings, beyond_metrics, corpus, now)
        for qid, values in extra.items():
            per_query[qid].update(values)
        order = [m.spec for m in metrics if not m.set_level]  # the configured order, which reports keep
        per_query = {qid: {spec: values[spec] for spec in order} for qid, values in per_query.items()}
    strata = {
        name: {
            m.spec: set_values[name][m.spec] if m.set_level else mean(per_query[qid][m.spec] for qid in ids)
            for m in metrics
        }
        for name, ids in groups.items()
    }
    counts = {name: len(ids) for name, ids in groups.items()}
    return Evaluation(
        list(metrics), per_query, strata, counts, rankings, duplicates, corpus if beyond_metrics else None
    )
