"""What keeps a run's numbers honest, from the run and the judgments alone (no baseline): the constant-answer floor
of every value, judged@k, coverage, the NDCG@1-vs-@k hints and the warnings they raise.

Computed once per evaluation, before any comparison, so the report model reads them and never calls back into
`evaluation` or `sets`; the same numbers stand whatever the baseline says.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.evaluation.floors import constant_floor, floor_is_exact
from pytest_relevance.judgments.model import Judgments
from pytest_relevance.metrics.ranking import DIGITS, Metric, depth, mean, score_query

SMALL = 10  # queries a stratum needs for the floor check and for p-values that are not coarse


@dataclass(frozen=True)
class Diagnostics:
    """`floors[stratum][spec]` is the best constant list's score (absent: the metric has none), `exact[spec]` whether
    that is the floor itself
    (False: a greedy list's score, a lower bound); `warnings` are in the order the reports show them."""

    floors: dict[str, dict[str, float]]
    exact: dict[str, bool]
    k: int
    min_judged: float
    judged: dict[str, float]
    unjudged: list[tuple[str, int]]
    coverage: float | None
    hints: list[str]
    warnings: list[str]
    #: the judged queries the run lacks (they score 0), said after the comparison's warnings
    missing: str | None
    #: grades whose document changed or that are older than relevance_max_judgment_age, said last
    stale: list[str]
    #: the share of the headline's gain that rests on model-made grades (provenance.model_graded), or None
    model_graded: dict[str, Any] | None


def diagnose(
    evaluation: Evaluation,
    judgments: Judgments,
    min_judged: float,
    margin: float,
    corpus_size: int | None,
    stale: Sequence[str] = (),
    model_graded: dict[str, Any] | None = None,
) -> Diagnostics:
    """`stale` and `model_graded` come from provenance.assess, which needs the corpus file and the settings."""
    from pytest_relevance.evaluation.set_answers import SetMetric
    from pytest_relevance.evaluation.set_answers import floors as set_floors

    metrics = evaluation.metrics
    k = next((m.k for m in metrics if m.k), 10)
    set_answers = isinstance(metrics[0], SetMetric)
    if set_answers:
        floors, notes, population = set_floors(judgments, metrics[0].threshold)
        notes = [f"label population: {population} labels", *notes]
    else:
        floors = constant_floor(judgments, metrics, depth(metrics), corpus_size, evaluation.corpus)
        notes = hints(evaluation, judgments)
    exact = {m.spec: not set_answers and floor_is_exact(m) for m in metrics}
    warnings: list[str] = []
    small: dict[str, int] = {}  # stratum -> queries, for strata too small to floor-check: said in one warning
    for stratum, values in evaluation.strata.items():
        n = evaluation.counts[stratum]
        for spec, value in values.items():
            if n < SMALL:
                small[stratum] = n
            else:
                warnings += _floor_warning(
                    f"{stratum}.{spec}", round(value, DIGITS), floors.get(stratum, {}).get(spec), exact[spec], margin
                )
    if small:
        counted = ", ".join(f"{stratum} {n}" for stratum, n in small.items())
        warnings.insert(
            0,
            f"under {SMALL} queries ({counted}): too few for the floor check, and p-values are coarse; judge more "
            "queries",
        )
    judged, unjudged = ({}, []) if set_answers else judged_at(evaluation, judgments, k)
    for stratum, share in judged.items():
        if share < min_judged:
            members = set(judgments.groups[stratum])  # a set: a list here made this quadratic in the queries
            worst = ", ".join(f"{q} ({n})" for q, n in [u for u in unjudged if u[0] in members][:3])
            warnings.append(
                f"{stratum}: judged@{k} {share:.2f} < {min_judged}: unjudged results score 0, so a better ranker can "
                f"look worse; most unjudged: {worst}"
            )
    return Diagnostics(
        floors=floors,
        exact=exact,
        k=k,
        min_judged=min_judged,
        judged=judged,
        unjudged=unjudged,
        coverage=None if set_answers else coverage(evaluation, k, corpus_size),
        hints=notes,
        warnings=warnings,
        missing=None if set_answers else missing_queries(evaluation.run, judgments),
        stale=list(stale),
        model_graded=model_graded,
    )


def _floor_warning(name: str, value: float, floor: float | None, exact: bool, margin: float) -> list[str]:
    """A floor of 0 says nothing (no single list scores at all), so it never warns, nor does a metric without one
    (see beyond). A floor that is a bound (at least its value) warns by that value: the best constant list is at
    least as close."""
    if floor is None:
        return []
    floor = round(floor, DIGITS)
    if floor <= 0 or value - floor >= margin:
        return []
    said = f"{floor:.4f}" if exact else f"(at least {floor:.4f})"
    if value < floor:
        return [
            f"{name} {value:.4f} is below the constant-answer floor {said}: one fixed list for every query "
            "scores better"
        ]
    return [
        f"{name} {value:.4f} is within {margin} of the constant-answer floor {said}: one fixed list for every "
        "query scores nearly as well"
    ]


def missing_queries(run: Collection[str], judgments: Judgments, shown: int = 5) -> str | None:
    """The warning for judged queries absent from a run: they score 0 on every metric, by design, so say so."""
    missing = [q.id for q in judgments.queries if q.id not in run]
    if not missing:
        return None
    more = f" and {len(missing) - shown} more" if len(missing) > shown else ""
    return (
        f"{len(missing)} judged quer{'y is' if len(missing) == 1 else 'ies are'} not in the run and score 0: "
        f"{', '.join(missing[:shown])}{more}"
    )


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
