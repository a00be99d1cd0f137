"""Judge-corrected estimates: prediction-powered inference (PPI) of a metric's mean, and of its change against the
baseline, when some grades come from a model (the judge hook) and people graded the judge's documents of a sample
of the same queries too.

A metric computed on a model's grades inherits the model's bias (a judge that calls too many documents relevant
inflates NDCG), and kappa beside the number does not say by how much. PPI (Angelopoulos, Bates, Fannjiang, Jordan
& Zrnic, Science 2023) measures the bias on the queries people graded and removes it:

    estimate = mean over all N queries of the metric on the judgments (the judge's grades among them)
             + (J / N) * mean over the n human-graded queries of (metric on human grades - metric on the judgments)

with variance var(values) / N + (J / N)^2 * var(human - judgments) / n, so a 95% interval of estimate +- 1.96 sd.
J is the number of the N queries that hold any judge-made grade: on the others the judgments already are human
grades and the correction is exactly 0, so the n human-graded queries only have to be a sample of those J (people
re-grade the judge's documents, not the queries it never touched). It is unbiased for the human-graded metric
whatever the judge's errors, and narrower than the human-only mean of the n queries when the judge's values track
the human ones (the correction varies less than the metric).

The human-graded subset, concretely: a second judgments file (`relevance_human_judgments`) of people's grades. A
query is in it when that file grades *every* document the judge graded for the query; its human grades are the
judgments' grades with the file's grades put over them (documents only the file grades are added), so people need
re-grade only the judge's documents. A query whose judge-graded documents people graded only in part still holds
model-made grades and is left out. A change against the baseline is corrected the same way, on per-query deltas:
the baseline's ranking of each human-graded query, re-scored on its human grades, gives the human delta.

Assumptions: the human-graded queries are a uniform random sample of the stratum's queries that hold judge grades (a
subset chosen for being hard, or easy, biases the correction); human grades are the truth the metric is meant to
measure; N and n are large enough for the normal approximation (tens of queries).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_relevance.evaluation.evaluation import Evaluation
    from pytest_relevance.judgments.model import Judgments
    from pytest_relevance.metrics.ranking import Metric

LEVEL = 0.95
MODES = ("none", "ppi")  # relevance_judge_correction: report the PPI estimates only, or gate on them


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval, and how many queries it rests on (all of them, human-graded)."""

    value: float
    low: float
    high: float
    queries: int
    human: int

    def worse_p(self, higher_is_better: bool = True, two_sided: bool = False) -> float:
        """The normal p-value of a change for the worse (a drop; a rise where lower is better) when this estimates
        a delta: the chance of one at least this far from 0 if nothing changed. Two-sided on request."""
        half = self.high - self.value
        if half <= 0:
            return 1.0 if (self.value >= 0) == higher_is_better else 0.0
        z = self.value / (half / NormalDist().inv_cdf((1 + LEVEL) / 2))
        one = NormalDist().cdf(z if higher_is_better else -z)
        return min(1.0, 2 * min(one, 1 - one)) if two_sided else one


def _variance(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    centre = math.fsum(values) / len(values)
    return math.fsum((v - centre) ** 2 for v in values) / (len(values) - 1)


def ppi_mean(
    judge: Sequence[float], pairs: Sequence[tuple[float, float]], level: float = LEVEL, judged: int | None = None
) -> Estimate:
    """The PPI estimate of a metric's mean: `judge` is each query's value on the judge's grades (all N queries of
    the stratum), `pairs` (judge value, human value) for the n queries people graded too (n >= 2), `judged` how
    many of the N queries a judge's grade can move (None: all), the ones the n were sampled from."""
    if len(pairs) < 2 or not judge:
        raise ValueError("prediction-powered inference needs the judge's values and at least 2 human-graded queries")
    share = (len(judge) if judged is None else judged) / len(judge)
    rectifier = [human - model for model, human in pairs]
    value = math.fsum(judge) / len(judge) + share * math.fsum(rectifier) / len(rectifier)
    error = math.sqrt(_variance(judge) / len(judge) + share**2 * _variance(rectifier) / len(rectifier))
    half = NormalDist().inv_cdf((1 + level) / 2) * error
    return Estimate(value, value - half, value + half, len(judge), len(pairs))


def plain_mean(values: Sequence[float], level: float = LEVEL) -> Estimate:
    """The plain mean of `values` with its normal interval: the human-only estimate PPI is compared with."""
    if len(values) < 2:
        raise ValueError("an interval needs at least 2 values")
    value = math.fsum(values) / len(values)
    half = NormalDist().inv_cdf((1 + level) / 2) * math.sqrt(_variance(values) / len(values))
    return Estimate(value, value - half, value + half, len(values), len(values))


def human_grades(judgments: Judgments, human: Judgments) -> tuple[dict[str, dict[str, float]], list[str]]:
    """The queries people graded, each with its human grades (the judgments' grades with `human`'s put over them),
    and the queries with judge grades that `human` grades only in part (left out: model-made grades remain). Only
    queries holding a judge-made grade count: on the others the correction is 0 whatever people say."""
    people, partial = {}, []
    for query in judgments.queries:
        judged = query.judges
        if not judged or query.id not in human:
            continue
        theirs = human[query.id].grades
        if all(doc in theirs for doc in judged):
            people[query.id] = {**query.grades, **theirs}
        else:
            partial.append(query.id)
    return people, partial


@dataclass(frozen=True)
class Corrected:
    """One stratum x metric: the PPI estimate of its value now, and of its change against the baseline (None:
    nothing to compare with, or a baseline that keeps too few ids per query to re-score)."""

    value: Estimate
    delta: Estimate | None = None


@dataclass(frozen=True)
class Correction:
    """The judge-corrected estimates of a test, stratum -> metric -> `Corrected`, and where there are none (a
    stratum, or `stratum.metric`, -> why), so that a report says once which numbers stayed plain."""

    estimates: dict[str, dict[str, Corrected]]
    plain: dict[str, str] = field(default_factory=dict)

    def get(self, stratum: str, metric: str) -> Corrected | None:
        return self.estimates.get(stratum, {}).get(metric)


def corrected(
    evaluation: Evaluation,
    judgments: Judgments,
    human: Judgments,
    old_queries: Mapping[str, Mapping[str, float]] | None = None,
    old_rankings: Mapping[str, Sequence[str]] | None = None,
    old_depth: int | None = None,
    level: float = LEVEL,
) -> Correction:
    """Per stratum and metric with per-query relevance values, the PPI estimate of the metric as people would grade
    it, and with a baseline (its per-query values `old_queries`, its rankings to `old_depth`) of its change: the
    evaluation's values (on `judgments`, partly the judge's grades) corrected by the stratum's queries that `human`
    grades (see `human_grades`), each scored on the human grades against the same ranking. A stratum with fewer
    than 2 such queries has no estimate."""
    from pytest_relevance.metrics.ranking import BEYOND, score_query

    metrics = [m for m in evaluation.metrics if m.name not in BEYOND]
    people, partial = human_grades(judgments, human)
    plain: dict[str, str] = {}
    left = [m.spec for m in evaluation.metrics if m.name in BEYOND]
    if left:
        plain[", ".join(left)] = "not a mean of per-query relevance values"
    if not metrics:
        return Correction({}, plain)
    judge_queries = {q.id for q in judgments.queries if q.judges}
    now = {q: score_query(grades, evaluation.run.get(q, []), metrics).values for q, grades in people.items()}
    before = _before(people, judgments, metrics, old_queries, old_rankings, old_depth)
    deep = {m.spec for m in metrics if old_rankings is not None and _reaches(m, old_depth)}
    if old_queries and old_rankings is None:
        plain["deltas"] = "the baseline keeps no rankings to re-score on human grades; re-baseline to keep them"
    shallow = [m.spec for m in metrics if old_rankings is not None and m.spec not in deep]
    if old_queries and shallow:
        plain[f"{', '.join(shallow)} deltas"] = (
            f"the baseline keeps {old_depth} ids per query, fewer than the cut-off (raise relevance_snapshot_depth)"
        )
    out: dict[str, dict[str, Corrected]] = {}
    for name, ids in judgments.groups.items():
        judged = [q for q in ids if q in judge_queries]
        both = [q for q in judged if q in people]
        if not judged:
            plain[name] = "no judge-made grades"
            continue
        if len(both) < 2:
            cut = sum(q in partial for q in judged)
            why = f" ({cut} more re-graded only in part)" if cut else ""
            plain[name] = f"{len(both)} of its {len(judged)} judge-graded queries human-graded{why}; 2 needed"
            continue
        out[name] = {}
        for m in metrics:
            spec = m.spec
            value = ppi_mean(
                [evaluation.per_query[q][spec] for q in ids],
                [(evaluation.per_query[q][spec], now[q][spec]) for q in both],
                level,
                len(judged),
            )
            out[name][spec] = Corrected(
                value, _delta(spec, ids, judged, both, evaluation, now, before, old_queries, level)
            )
    return Correction(out, plain)


def _reaches(metric: Metric, depth: int | None) -> bool:
    return depth is not None and metric.k is not None and depth >= metric.k


def _before(
    people: Mapping[str, Mapping[str, float]],
    judgments: Judgments,
    metrics: Sequence[Metric],
    old_queries: Mapping[str, Mapping[str, float]] | None,
    old_rankings: Mapping[str, Sequence[str]] | None,
    old_depth: int | None,
) -> dict[str, dict[str, float]]:
    """query -> metric -> (human - judgments) value of the baseline's ranking of each human-graded query, for the
    metrics whose cut-off the kept rankings reach: what the baseline's own values owed the judge."""
    if not old_queries or old_rankings is None:
        return {}
    from pytest_relevance.metrics.ranking import score_query

    deep = [m for m in metrics if _reaches(m, old_depth)]
    out = {}
    for q, grades in people.items():
        if q not in old_queries or q not in old_rankings:
            continue
        ranking = old_rankings[q]
        theirs = score_query(grades, ranking, deep).values
        ours = score_query(judgments[q].grades, ranking, deep).values
        out[q] = {spec: theirs[spec] - ours[spec] for spec in theirs}
    return out


def _delta(
    spec: str,
    ids: Sequence[str],
    judged: Sequence[str],
    both: Sequence[str],
    evaluation: Evaluation,
    now: Mapping[str, Mapping[str, float]],
    before: Mapping[str, Mapping[str, float]],
    old_queries: Mapping[str, Mapping[str, float]] | None,
    level: float,
) -> Estimate | None:
    """The PPI estimate of the stratum's change in `spec`: per query, today's value minus the baseline's, corrected
    on the human-graded queries by how much the judge moved the two differently. None without the baseline's
    per-query values, or fewer than 2 human-graded queries whose baseline ranking could be re-scored."""
    if not old_queries:
        return None
    current = evaluation.per_query
    from pytest_relevance.metrics.ranking import DIGITS

    deltas = {  # today's value rounded as the baseline keeps it, as the plain delta is: unchanged is 0
        q: round(current[q][spec], DIGITS) - old_queries[q][spec]
        for q in ids
        if q in old_queries and spec in old_queries[q]
    }
    scored = [q for q in both if q in deltas and spec in before.get(q, {})]
    if len(scored) < 2:
        return None
    owed = {q: (now[q][spec] - current[q][spec]) - before[q][spec] for q in scored}
    return ppi_mean(
        list(deltas.values()),
        [(deltas[q], deltas[q] + owed[q]) for q in scored],
        level,
        sum(q in deltas for q in judged),
    )
