"""Metrics beyond relevance: diversity, freshness, exposure and novelty, read from the committed corpus.

A ranking change can raise NDCG and still fill the first page with one brand, starve the long tail or crowd out new
documents. With the frozen clock and the committed corpus each of these is as deterministic as NDCG, so it is gated
the same way. Pure functions, no pytest.

Conventions (each tested against hand-computed values, alpha_ndcg also against ir-measures / ndeval):

- A document's *value* for a field is the set of its values: a scalar ``brand: "Acme"`` is ``{"Acme"}``, a list
  ``tags: ["a", "b"]`` is ``{"a", "b"}``. A document without the field (or with null or an empty list) counts as
  its own value, unlike any other document's: two documents lacking a brand are not "the same brand". A document
  the run returns that the corpus lacks is treated the same way. A dotted field (``seller.id``) reaches into objects.
  Strings and numbers compare as themselves (``1`` and ``1.0`` are one number); any other value (a boolean, an
  object, a list inside a list) compares by its canonical JSON, keys sorted: ``true`` is not ``1``, and
  ``{"a": 1, "b": 2}`` is ``{"b": 2, "a": 1}``.
- The top k is the first min(k, returned) documents, repeats included (a repeated document is shown twice); only
  alpha_ndcg gives a repeat nothing, as ndcg does.
- ``distinct@k(field=)``: distinct values among the top k / min(k, returned); an empty list scores 0.
- ``ild@k(field=)``: intra-list diversity, the mean over pairs of the top k of the Jaccard distance of their
  values (1 for two different scalars, 0 for equal ones); fewer than two documents score 0.
- ``alpha_ndcg@k(field=, alpha=0.5, rel=1)`` (Clarke et al. 2008), as ndeval computes it: the subtopics are the
  field's values; a document graded >= rel covers each of its values. The gain at rank r is
  sum over its subtopics of (1 - alpha)^(documents above it covering that subtopic), discounted by 1/log2(r + 1),
  normalized by the same sum for the ideal list built greedily, ties to the largest document id (ndeval's
  approximation: the exact ideal is NP-hard); no relevant document scores 0.
- ``age@k(field=)``: the median age in days of the top k at the frozen instant (the mean of the two middle ones for
  an even count). A document without the date is as old as the corpus's oldest dated document, and so is an empty
  list: returning nothing must not look fresh. A date after the frozen instant is age 0. Lower is better.
- ``fresh@k(field=, within=30d)``: the share of the top k younger than the window (age < within), dividing by
  min(k, returned); undated documents are not fresh; an empty list scores 0.
- ``novelty@k`` (Vargas & Castells 2011): per query the mean of -log2 p(d) over its top k, p(d) the share of the
  run's judged queries whose top k holds d (all queries, so that a query's value does not depend on its stratum);
  an empty list scores 0. In bits, not bounded by 1.
- ``exposure_gini@k(field=)``: per stratum, the exposure of each value, sum over the stratum's queries of
  1/log2(rank + 1) over the top-k positions its documents hold (a list-valued document gives each of its values the
  position's exposure), taken over every value the corpus has (a value never shown has exposure 0), and the Gini
  coefficient of those exposures. A document the corpus lacks exposes no value: its position's exposure goes to
  nobody, so the statistic is over the corpus's values alone, in the gate and in each bootstrap resample. A
  stratum where nothing is shown scores 1, the most concentrated: an empty run must not look fair. Lower is
  better. Set-level: no per-query value.
- ``coverage@k``: per stratum, the share of the corpus's documents in any top k of its queries. Set-level.

Constant-answer floors: coverage's is min(k, N) / N (one list of k documents for every query), novelty's is 0
(every document of a constant list is in every query's top k), alpha_ndcg's at least a greedy list's score (as for
mrr or err); distinct, ild, age and fresh have none (a constant list can reach their best value, so the floor tells
nothing), nor has exposure_gini yet.
"""

from __future__ import annotations

import functools
import json
import math
import statistics
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs.clock import resolve_date
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import Metric, _discounts

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Values = frozenset[object]


@dataclass(frozen=True, slots=True)
class Missing:
    """The value of a document without the field: equal only to itself, so such a document is its own value."""

    doc: str


class CorpusFields:
    """The corpus as each metric reads it: per field, doc id -> its set of values (or age in days), read once."""

    def __init__(
        self,
        documents: Iterable[Mapping[str, Any]],
        id_field: str = "id",
        source: str | Path = "the corpus",
        lines: Sequence[int | None] | None = None,
    ) -> None:
        self.documents = list(documents)
        self.ids = [str(doc[id_field]) for doc in self.documents]
        self.source, self.lines = source, lines
        self._values: dict[str, dict[str, Values]] = {}
        self._populations: dict[str, frozenset[object]] = {}
        self._ages: dict[tuple[str, datetime], tuple[dict[str, float], float]] = {}

    def __len__(self) -> int:
        return len(self.ids)

    @functools.cached_property
    def id_set(self) -> frozenset[str]:
        return frozenset(self.ids)

    def population(self, name: str) -> frozenset[object]:
        """Every value the corpus has for the field (each document without it adding its own)."""
        found = self._populations.get(name)
        if found is None:
            found = self._populations[name] = frozenset().union(*self.values(name).values())
        return found

    def has(self, name: str) -> bool:
        """Whether any document has the field (a null or an empty list is not having it)."""
        return any(_present(_get(doc, name)) for doc in self.documents)

    def values(self, name: str) -> dict[str, Values]:
        """doc id -> the set of its values for the field, `Missing(doc)` for a document without it."""
        found = self._values.get(name)
        if found is None:
            found = self._values[name] = {
                doc: _as_values(doc, _get(d, name)) for doc, d in zip(self.ids, self.documents, strict=True)
            }
        return found

    def ages(self, metric: Metric, now: datetime) -> tuple[dict[str, float], float]:
        """doc id -> age in days at `now` for the dated documents, and the oldest age (what undated ones count as)."""
        name = metric.doc_field or ""
        key = (name, now)
        if key not in self._ages:
            ages: dict[str, float] = {}
            for index, (doc, document) in enumerate(zip(self.ids, self.documents, strict=True)):
                value = _get(document, name)
                if not _present(value):
                    continue
                try:
                    moment = resolve_date(value)
                except (TypeError, ValueError, OverflowError):
                    line = self.lines[index] if self.lines else None
                    raise RelevanceInputError(
                        self.source,
                        f"document {doc!r}: {name}={value!r} is not a date, which {metric.spec} reads; write an ISO "
                        "8601 date (2026-01-15 or 2026-01-15T12:00:00Z) or epoch milliseconds",
                        line,
                    ) from None
                ages[doc] = max(0.0, (now - moment).total_seconds() / 86400)
            self._ages[key] = (ages, max(ages.values(), default=0.0))
        return self._ages[key]


def _get(document: Mapping[str, Any], name: str) -> object:
    value: object = document
    for part in name.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _present(value: object) -> bool:
    return value is not None and value != []


@dataclass(frozen=True, slots=True)
class Canonical:
    """A value that is neither a string nor a number (a boolean, an object, a list inside a list) as its canonical
    JSON, keys sorted: JSON `true` is not the number 1 (Python's True == 1 would make them one value), and two
    objects with the same keys in another order are the same value."""

    json: str


def _hashable(value: object) -> object:
    if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    return Canonical(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str))


def _as_values(doc: str, value: object) -> Values:
    if not _present(value):
        return frozenset({Missing(doc)})
    if isinstance(value, list):
        return frozenset(map(_hashable, value))
    return frozenset({_hashable(value)})


def check_fields(metrics: Iterable[Metric], corpus: CorpusFields) -> None:
    """A metric naming a field no document has is one error naming both: a typo would otherwise make every
    document its own value, a perfectly diverse and meaningless number."""
    for metric in metrics:
        if metric.doc_field is not None and not corpus.has(metric.doc_field):
            known = sorted({key for doc in corpus.documents[:1000] for key in doc})
            raise RelevanceInputError(
                corpus.source,
                f"metric {metric.spec} reads field {metric.doc_field!r}, which no document of the corpus has; "
                f"fields it has: {', '.join(known)}. Fix the field in relevance_metrics",
            )


# ---------------------------------------------------------------- per query


def _of(values: Mapping[str, Values], doc: str) -> Values:
    found = values.get(doc)
    return found if found is not None else frozenset({Missing(doc)})


def distinct(top: Sequence[str], values: Mapping[str, Values]) -> float:
    if not top:
        return 0.0
    return len({_of(values, doc) for doc in top}) / len(top)


def ild(top: Sequence[str], values: Mapping[str, Values]) -> float:
    n = len(top)
    if n < 2:
        return 0.0
    sets = [_of(values, doc) for doc in top]
    total = 0.0
    for i in range(n):
        a = sets[i]
        for j in range(i + 1, n):
            b = sets[j]
            if a is not b and a != b:
                total += 1.0 - len(a & b) / len(a | b)
    return total / (n * (n - 1) / 2)


def alpha_ndcg(
    grades: Mapping[str, float], ranking: Sequence[str], values: Mapping[str, Values], metric: Metric
) -> float:
    k, keep, threshold = metric.k or len(ranking), 1.0 - metric.alpha, metric.threshold
    relevant = {doc: _of(values, doc) for doc, grade in grades.items() if grade >= threshold}
    if not relevant:
        return 0.0
    discounts = _discounts(k)
    seen: set[str] = set()
    counts: dict[object, int] = {}
    dcg = 0.0
    for index, doc in enumerate(ranking[:k]):
        if doc in seen:
            continue
        seen.add(doc)
        topics = relevant.get(doc)
        if topics:
            dcg += discounts[index] * _gain(topics, counts, keep)
            for s in topics:
                counts[s] = counts.get(s, 0) + 1
    return dcg / _ideal(relevant, k, keep, discounts) if dcg else 0.0


def _gain(topics: Values, counts: Mapping[object, int], keep: float) -> float:
    """sum over the subtopics of (1 - alpha)^(documents above covering it), summed exactly (fsum): a plain sum
    follows the set's iteration order, which string hashing changes from one process to the next, and a last-bit
    difference flips a tie in the ideal ranking and with it the ideal's later gains."""
    return math.fsum(keep ** counts.get(s, 0) for s in topics)


def _ideal(relevant: Mapping[str, Values], k: int, keep: float, discounts: list[float]) -> float:
    """ndeval's ideal: greedily the document of largest gain given those above it; a tie (equal gains, which
    `_gain` makes exact) goes to the largest id, as ndeval's idealResult does (strcmp > 0; Python compares str by
    code point, which is UTF-8 byte order), which can change the ideal's later gains."""
    left = dict(sorted(relevant.items(), reverse=True))
    counts: dict[object, int] = {}
    total = 0.0
    for index in range(min(k, len(left))):
        best, gain = "", -1.0
        for doc, topics in left.items():
            value = _gain(topics, counts, keep)
            if value > gain:
                best, gain = doc, value
        total += discounts[index] * gain
        for s in left.pop(best):
            counts[s] = counts.get(s, 0) + 1
    return total


def age(top: Sequence[str], ages: Mapping[str, float], oldest: float) -> float:
    if not top:
        return oldest
    return float(statistics.median(ages.get(doc, oldest) for doc in top))


def fresh(top: Sequence[str], ages: Mapping[str, float], within: float) -> float:
    if not top:
        return 0.0
    return sum(1 for doc in top if ages.get(doc, math.inf) < within) / len(top)


def novelty(top: Sequence[str], information: Mapping[str, float]) -> float:
    """Mean self-information of the top k; `information` maps each document shown to -log2 p(d)."""
    return math.fsum(information[doc] for doc in top) / len(top) if top else 0.0


def self_information(rankings: Mapping[str, Sequence[str]], queries: Sequence[str], k: int) -> dict[str, float]:
    """-log2 p(d), p(d) the share of `queries` whose top k holds d."""
    held: dict[str, int] = {}
    for qid in queries:
        for doc in set(rankings.get(qid, ())[:k]):
            held[doc] = held.get(doc, 0) + 1
    n = len(queries)
    return {doc: math.log2(n / count) for doc, count in held.items()}


# ---------------------------------------------------------------- per stratum


def gini(values: Iterable[float], zeros: int = 0) -> float:
    """The Gini coefficient of non-negative values and `zeros` more zeros: 0 when all are equal, (n - 1) / n when
    one holds everything. All zero (nothing shown) is 1. The zeros are counted, not listed: most of a corpus's
    values are never shown."""
    ordered = sorted(values)
    n, total = len(ordered) + zeros, math.fsum(ordered)
    if not total:
        return 1.0
    weighted = math.fsum(i * x for i, x in enumerate(ordered, zeros + 1))
    return 2 * weighted / (n * total) - (n + 1) / n


def _exposures(ranking: Sequence[str], values: Mapping[str, Values], k: int) -> dict[object, float]:
    """One list's exposure per value shown: 1/log2(rank + 1) for each top-k position a document of it holds. A
    document the corpus lacks (not in `values`) shows no value of the corpus: it would otherwise add a value of its
    own to the population, one that every bootstrap resample missing its query counts as a zero."""
    discounts = _discounts(k)
    exposure: dict[object, float] = {}
    for index, doc in enumerate(ranking[:k]):
        for value in values.get(doc, ()):
            exposure[value] = exposure.get(value, 0.0) + discounts[index]
    return exposure


def exposure_gini(
    rankings: Iterable[Sequence[str]], values: Mapping[str, Values], population: Collection[object], k: int
) -> float:
    """Gini of position-discounted exposure per value over `population`, every value the corpus has (`values` is
    the corpus's, so no other value is ever shown)."""
    exposure: dict[object, float] = {}
    for ranking in rankings:
        for value, shown in _exposures(ranking, values, k).items():
            exposure[value] = exposure.get(value, 0.0) + shown
    return gini(exposure.values(), len(population) - len(exposure))


def coverage(rankings: Iterable[Sequence[str]], ids: Set[str], k: int) -> float:
    if not ids:
        return 0.0
    shown = {doc for ranking in rankings for doc in ranking[:k]}
    return len(shown & ids) / len(ids)


# ---------------------------------------------------------------- a whole evaluation


def score(
    judgments: Judgments,
    rankings: Mapping[str, Sequence[str]],
    metrics: Sequence[Metric],
    corpus: CorpusFields,
    now: datetime | None,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """(per query {spec: value} for the per-query metrics, per stratum {spec: value} for the set-level ones)."""
    per_query: dict[str, dict[str, float]] = {q.id: {} for q in judgments.queries}
    for metric in metrics:
        if metric.set_level:
            continue
        k = metric.k or 0
        if metric.name in ("age", "fresh"):
            if now is None:
                raise RelevanceInputError("relevance_now", f"{metric.spec} needs the frozen instant (relevance_now)")
            ages, oldest = corpus.ages(metric, now)
        elif metric.name == "novelty":
            information = self_information(rankings, [q.id for q in judgments.queries], k)
        else:
            values = corpus.values(metric.doc_field or "")
        for query in judgments.queries:
            ranking = rankings.get(query.id, [])
            top = ranking[:k]
            if metric.name == "distinct":
                value = distinct(top, values)
            elif metric.name == "ild":
                value = ild(top, values)
            elif metric.name == "alpha_ndcg":
                value = alpha_ndcg(query.grades, ranking, values, metric)
            elif metric.name == "age":
                value = age(top, ages, oldest)
            elif metric.name == "fresh":
                value = fresh(top, ages, metric.within or 0.0)
            else:
                value = novelty(top, information)
            per_query[query.id][metric.spec] = value
    strata = {
        name: {m.spec: set_value(m, [rankings.get(q, []) for q in ids], corpus) for m in metrics if m.set_level}
        for name, ids in judgments.groups.items()
    }
    return per_query, strata


def set_value(metric: Metric, rankings: Sequence[Sequence[str]], corpus: CorpusFields) -> float:
    """A set-level metric over one group of queries' rankings (a stratum)."""
    k = metric.k or 0
    if metric.name == "coverage":
        return coverage(rankings, corpus.id_set, k)
    return exposure_gini(rankings, corpus.values(metric.doc_field or ""), corpus.population(metric.doc_field or ""), k)


def statistic(
    metric: Metric, rankings: Sequence[Sequence[str]], corpus: CorpusFields
) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    """The metric for each row of query weights (how many times each query is drawn), as one matrix product, for
    `significance.paired_bootstrap_p`: a query drawn twice adds its exposure twice; for coverage, a query drawn at
    all shows its documents. A row of ones is `set_value` of the lists themselves."""
    import numpy as np

    k = metric.k or 0
    if metric.name == "coverage":
        shown = sorted({doc for ranking in rankings for doc in ranking[:k]} & corpus.id_set)
        column = {doc: j for j, doc in enumerate(shown)}
        held = np.zeros((len(rankings), len(shown)))
        for i, ranking in enumerate(rankings):
            for doc in ranking[:k]:
                if doc in column:
                    held[i, column[doc]] = 1.0
        size = len(corpus.id_set) or 1
        return lambda weights: np.count_nonzero((weights > 0) @ held, axis=1) / size
    values, population = corpus.values(metric.doc_field or ""), corpus.population(metric.doc_field or "")
    lists = [_exposures(ranking, values, k) for ranking in rankings]
    seen = sorted({value for exposure in lists for value in exposure}, key=repr)
    value_column = {value: j for j, value in enumerate(seen)}
    matrix = np.zeros((len(rankings), len(seen)))
    for i, exposure in enumerate(lists):
        for value, exposed in exposure.items():
            matrix[i, value_column[value]] = exposed
    n = len(population)
    ranks = np.arange(n - len(seen) + 1, n + 1)  # the values never shown sort first, as zeros

    def gini_rows(weights: NDArray[np.float64]) -> NDArray[np.float64]:
        exposure = np.sort(weights @ matrix, axis=1)
        total = exposure.sum(axis=1)
        safe = np.where(total > 0, total, 1.0)
        return np.where(total > 0, 2 * (exposure @ ranks) / (n * safe) - (n + 1) / n, 1.0)

    return gini_rows


def floors(metrics: Sequence[Metric], corpus_size: int | None) -> dict[str, float]:
    """The constant-answer floor of each set-independent beyond metric that has one (coverage, novelty): the same
    for every stratum, and exact (see the module docstring)."""
    out = {}
    for metric in metrics:
        if metric.name == "coverage" and corpus_size:
            out[metric.spec] = min(metric.k or 0, corpus_size) / corpus_size
        elif metric.name == "novelty":
            out[metric.spec] = 0.0
    return out


def alpha_ndcg_floor(queries: Sequence[Query], metric: Metric, values: Mapping[str, Values]) -> float:
    """At least the best constant list's mean alpha_ndcg over `queries`: the score of the list built greedily,
    each position taking the document that adds most to the summed score given those above it (ties to the
    smallest id), stopping when none adds anything. The discount is the same for every document at a position, so
    what a document adds is sum over the queries it is relevant to of its new subtopics' (1 - alpha)^(count) divided
    by the query's ideal. A lower bound: as for the other metrics whose gain depends on the documents above, the
    best list is a max-coverage problem."""
    k, keep = metric.k or 0, 1.0 - metric.alpha
    discounts = _discounts(k)
    ideals = []
    members: dict[str, list[int]] = {}  # doc -> the queries it is relevant to
    for index, query in enumerate(queries):
        relevant = {doc: _of(values, doc) for doc, grade in query.grades.items() if grade >= metric.threshold}
        ideals.append(_ideal(relevant, k, keep, discounts) if relevant else 0.0)
        for doc in relevant:
            members.setdefault(doc, []).append(index)
    counts: list[dict[object, int]] = [{} for _ in queries]
    total = 0.0
    for position in range(k):
        best, gain = "", 0.0
        for doc in sorted(members):
            topics = _of(values, doc)
            value = math.fsum(_gain(topics, counts[i], keep) / ideals[i] for i in members[doc])
            if value > gain + 1e-12:
                best, gain = doc, value
        if not best:
            break
        total += discounts[position] * gain
        for i in members.pop(best):
            for s in _of(values, best):
                counts[i][s] = counts[i].get(s, 0) + 1
    return total / len(queries) if queries else 0.0
