"""Run x Judgments -> Evaluation: every judged query scored, then averaged per stratum and over all.

Judged queries absent from the run score 0 on every metric (a ranker that returns nothing must not look better;
age and exposure_gini, where lower is better, score their worst, see `beyond`); query ids in the run that the
judgments do not know are an error (a typo, or a stale judgment file). Set-level metrics (exposure_gini, coverage)
have a value per stratum and none per query.
"""

from __future__ import annotations

import heapq
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import BEYOND, Metric, mean, rank_scored, score_placed, score_query

if TYPE_CHECKING:
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
    ) -> None:
        super().__init__({qid: list(docs) for qid, docs in dict(rankings).items()})
        #: `repeated`: how many times every query ran with identical rankings (--relevance-repeat); `inputs`: the
        #: fingerprints of the files the run was made from (fingerprints.index_inputs), None for a custom ranker's;
        #: `index`: the fixture index that ran it, which explains a failure's movers (None for a custom ranker's)
        self.engine, self.corpus_size, self.repeated = engine, corpus_size, repeated
        self.inputs = dict(inputs) if inputs is not None else None
        self.index = index


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


# ---------------------------------------------------------------- honest numbers


def judged_at(evaluation: Evaluation, judgments: Judgments, k: int) -> tuple[dict[str, float], list[tuple[str, int]]]:
    """judged@k per stratum, and the queries with the most unjudged documents in their top k (most first).

    Unjudged documents score 0 everywhere, so a ranker that surfaces new, good documents can look worse: this says
    how much of each number rests on guesses.
    """
    metric = Metric("judged", k)
    shares = {
        q.id: score_query(q.grades, evaluation.run.get(q.id, []), [metric]).values[metric.spec]
        for q in judgments.queries
    }
    per_stratum = {name: mean(shares[qid] for qid in ids) for name, ids in judgments.groups.items()}
    unjudged = [
        (q.id, sum(1 for d in evaluation.run.get(q.id, [])[:k] if d not in q.grades)) for q in judgments.queries
    ]
    unjudged = sorted((item for item in unjudged if item[1]), key=lambda item: (-item[1], item[0]))
    return per_stratum, unjudged


#: Metrics whose best constant list is found exactly. Each is, for one list L of the metric's length, a mean over
#: queries that regroups as sum_i discount(i) * w(L_i): w(d) the document's per-query gain normalized as the metric
#: normalizes it (gain / IDCG@k for NDCG, 1 / R for recall, 1 / k for P and judged), summed over the queries, and
#: discount(i) non-increasing (1/log2(i + 2) for NDCG, 1 in the top k for the others). By the rearrangement
#: inequality the k largest weights in descending order are optimal. hit, mrr, map, rprec and err do not regroup:
#: what a document adds depends on the documents above it (a query covered twice gains nothing; precision at each
#: relevant rank), a max-coverage problem, so their floor is the score of a greedy list: a lower bound.
EXACT_FLOORS = frozenset({"ndcg", "p", "recall", "judged", "coverage", "novelty"})


def floor_is_exact(metric: Metric) -> bool:
    """Whether `constant_floor` gives the best constant list's score, or the score of a list that the best one
    matches or beats: reports say "at least" (>=) then."""
    return metric.name in EXACT_FLOORS


def constant_floor(
    judgments: Judgments,
    metrics: Sequence[Metric],
    size: int,
    corpus_size: int | None = None,
    corpus: CorpusFields | None = None,
) -> dict[str, dict[str, float]]:
    """Per stratum and metric, the score of the best single ranked list answered to every query of the stratum.

    A metric beyond relevance has a floor only where `beyond` defines one (coverage needs `corpus_size`,
    alpha_ndcg the `corpus`); the others are left out of each stratum's mapping.

    The list is as long as the metric's cut-off, or `size` (the run's depth) for a metric without one. A system
    near this floor is not using the query text much; a metric that cannot tell them apart is not measuring ranking.
    Exact for `EXACT_FLOORS`; for the other metrics the better of two feasible lists (greedy by marginal gain, and
    by the number of queries a document is relevant to), so the floor is at least that.
    """
    from pytest_relevance.evaluation import diversity as beyond

    floors: dict[str, dict[str, float]] = {}
    defined = beyond.floors([m for m in metrics if m.name in BEYOND], corpus_size)
    shares: dict[tuple[Any, ...], dict[str, float]] = {}  # a query's weights per metric: every query is in two groups
    for name, ids in judgments.groups.items():
        queries = [judgments[qid] for qid in ids]
        floors[name] = {}
        for metric in metrics:
            if metric.name == "alpha_ndcg" and corpus is not None:
                values = corpus.values(metric.doc_field or "")
                floors[name][metric.spec] = beyond.alpha_ndcg_floor(queries, metric, values)
            elif metric.spec in defined:
                floors[name][metric.spec] = defined[metric.spec]
            if metric.name in BEYOND:
                continue
            length = size if metric.k is None else metric.k
            if metric.name in EXACT_FLOORS:
                answers = [_by_weight(queries, metric, length, shares)]
            else:
                counted = Metric("p", length, threshold=metric.threshold)
                answers = [_greedy(queries, metric, length), _by_weight(queries, counted, length, shares)]
            floors[name][metric.spec] = max(_score(queries, answer, metric, length) for answer in answers)
    return floors


def _score(queries: Sequence[Query], answer: list[str], metric: Metric, length: int) -> float:
    """The mean score of one list padded to `length` with documents no query judged: a run is that long, and
    judged@k divides by the list's length up to k. A query that judged none of the list scores 0 in every metric
    (no judged position), so only the others are scored: a short list meets few of many queries."""
    placed = {doc: rank for rank, doc in enumerate(answer)}
    met = [query for query in queries if not placed.keys().isdisjoint(query.grades)]
    values = [score_placed(query.grades, placed, length, [metric])[metric.spec] for query in met]
    return math.fsum(values) / len(queries) if queries else 0.0


def _by_weight(
    queries: Sequence[Query], metric: Metric, length: int, shares: dict[tuple[Any, ...], dict[str, float]]
) -> list[str]:
    """The `length` documents of largest weight (see `EXACT_FLOORS`), weight descending, then id ascending.
    `shares` keeps each query's weights for the next group that holds the query."""
    weights: dict[str, float] = {}
    for query in queries:
        key = (query.id, metric.name, metric.k, metric.gain, metric.threshold)
        own = shares.get(key)
        if own is None:
            own = shares[key] = _shares(query, metric)
        for doc, share in own.items():
            weights[doc] = weights.get(doc, 0.0) + share
    return heapq.nsmallest(length, weights, key=lambda d: (-weights[d], d))


def _shares(query: Query, metric: Metric) -> dict[str, float]:
    """What each document of the query adds to the metric's sum when listed (before the position's discount)."""
    if metric.name == "ndcg":
        gains = {d: 2.0**g - 1.0 if metric.gain == "exp" else g for d, g in query.grades.items() if g > 0}
        ideal = sorted(gains.values(), reverse=True)[: metric.k]
        idcg = sum(gain / math.log2(i + 2) for i, gain in enumerate(ideal))
        return {d: gain / idcg for d, gain in gains.items()}
    if metric.name == "judged":
        return dict.fromkeys(query.grades, 1.0)
    relevant = [d for d, g in query.grades.items() if g >= metric.threshold]
    return dict.fromkeys(relevant, 1.0 if metric.name == "p" else 1.0 / len(relevant) if relevant else 0.0)


def _greedy(queries: Sequence[Query], metric: Metric, length: int) -> list[str]:
    """A list built one position at a time, each time the document that adds most to the summed score given the
    documents above it (ties by id); it stops when none adds anything.

    What a document adds at a position is a sum over the queries it can gain in, each query's term depending only on
    that query's state (covered yet, relevant documents above, ERR's chance of going on) and for rprec on whether the
    position is still within R. So after each pick only the documents sharing a query with it are re-scored, and a
    heap with stale entries skipped finds the best: the build costs the judgments' size, not positions x documents.
    """
    name, threshold = metric.name, metric.threshold
    scale = 2.0**metric.max_grade
    members: dict[str, list[tuple[int, float]]] = {}  # doc -> (query index, grade) where it can gain
    docs_of: list[list[str]] = []
    total: list[int] = []  # R per query
    for index, query in enumerate(queries):
        useful = [(d, g) for d, g in query.grades.items() if (g > 0 if name == "err" else g >= threshold)]
        docs_of.append([d for d, _ in useful])
        total.append(sum(1 for g in query.grades.values() if g >= threshold))
        for doc, grade in useful:
            members.setdefault(doc, []).append((index, grade))
    found = [0] * len(queries)  # relevant documents listed so far
    going = [1.0] * len(queries)  # ERR: the chance that a reader gets past the documents listed so far

    def adds(doc: str, position: int) -> float:
        if name in ("hit", "mrr"):  # mrr's 1 / rank is the same for every document at a position
            return float(sum(1 for i, _ in members[doc] if not found[i]))
        if name == "map":
            return sum((found[i] + 1) / total[i] for i, _ in members[doc])
        if name == "rprec":
            return sum(1 / total[i] for i, _ in members[doc] if position < total[i])
        gained: float = sum(going[i] * (2.0 ** min(g, metric.max_grade) - 1.0) / scale for i, g in members[doc])
        return gained

    current = {doc: adds(doc, 0) for doc in members}
    heap = [(-value, doc) for doc, value in current.items()]
    heapq.heapify(heap)
    answer: list[str] = []

    def rescore(docs: Iterable[str], position: int) -> None:
        for doc in docs:
            if doc in current:
                current[doc] = adds(doc, position)
                heapq.heappush(heap, (-current[doc], doc))

    leaving: dict[int, list[int]] = {}  # rprec: position -> the queries whose R it passes
    for index, r in enumerate(total):
        leaving.setdefault(r, []).append(index)
    for position in range(length):
        if name == "rprec" and position:
            rescore({d for i in leaving.get(position, []) for d in docs_of[i]}, position)
        while heap and (heap[0][1] not in current or -heap[0][0] != current[heap[0][1]]):
            heapq.heappop(heap)
        if not heap or heap[0][0] >= 0:
            break
        doc = heapq.heappop(heap)[1]
        answer.append(doc)
        del current[doc]
        for index, grade in members[doc]:
            found[index] += grade >= threshold
            going[index] *= 1.0 - (2.0 ** min(grade, metric.max_grade) - 1.0) / scale
        rescore({d for i, _ in members[doc] for d in docs_of[i]}, position + 1)
    return answer


def hints(evaluation: Evaluation, judgments: Judgments) -> list[str]:
    """The NDCG@1 versus NDCG@k diagnosis: where the relevant documents are, and so where to look."""
    cut = next((m for m in evaluation.metrics if m.name == "ndcg" and (m.k or 0) > 1), None)
    if cut is None:
        return []
    first = Metric("ndcg", 1, gain=cut.gain)
    top = {  # each query once, though it is in two groups
        q.id: score_query(q.grades, evaluation.run.get(q.id, [])[:1], [first]).values[first.spec]
        for q in judgments.queries
    }
    out = []
    for name, ids in judgments.groups.items():
        at_k = evaluation.strata[name][cut.spec]
        at_1 = mean(top[q] for q in ids)
        if at_k >= 0.5 and at_1 < 0.6 * at_k:
            out.append(
                f"{name}: ndcg@1 {at_1:.4f} vs {cut.spec} {at_k:.4f}: the relevant documents are retrieved "
                "but not on top; look at re-ranking (boosts, function scores)"
            )
        elif at_k < 0.3 and at_1 < 0.3:
            out.append(
                f"{name}: ndcg@1 {at_1:.4f} and {cut.spec} {at_k:.4f}: the relevant documents are not "
                "retrieved; look at retrieval (analyzers, fields, synonyms)"
            )
    return out


def coverage(evaluation: Evaluation, k: int, corpus_size: int | None) -> float | None:
    """The share of the corpus that appears in any top k: a ranker showing the same few documents shows up here."""
    if not corpus_size:
        return None
    return len({doc for docs in evaluation.run.values() for doc in docs[:k]}) / corpus_size
