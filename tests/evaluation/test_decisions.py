"""What the gate's decisions rest on (gate.decisions, evaluation.significance): relevance_alpha bounds a whole
test's chance of a false regression verdict (max-T over its strata x metrics, Holm where a set-level metric is
gated), `relevance_alpha_scope = comparison` keeps the per-row test, every delta has an interval, and every row a
minimum detectable effect. Rates are measured on simulated exchangeable pairs: two rankers, each query's ranking
given to the baseline or the candidate by a coin flip, so no change is real."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from report_model import default_settings, report_of

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.evaluation.significance import holm, intervals, max_t, mde
from pytest_relevance.gate.entry import make_entry
from pytest_relevance.gate.verdict import decide
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

METRICS = parse_metrics("ndcg@10 mrr@10 p@10 recall@20")
QUERIES = 48
JUDGMENTS = Judgments(
    tuple(
        Query(f"q{i}", f"text {i}", ("head", "torso", "tail")[i % 3], {}, {f"d{i}-{j}": 1 + j % 3 for j in range(6)})
        for i in range(QUERIES)
    ),
    "v1",
    "judgments.yaml",
)


def _ranker(seed: int) -> dict[str, list[str]]:
    """A ranker that places each query's relevant documents at random among 20."""
    rnd = random.Random(seed)
    run = {}
    for i in range(QUERIES):
        docs = [f"d{i}-{j}" for j in range(6)] + [f"x{i}-{j}" for j in range(14)]
        rnd.shuffle(docs)
        run[f"q{i}"] = docs
    return run


def _exchangeable(x: dict[str, list[str]], y: dict[str, list[str]], seed: int) -> tuple[dict, dict]:
    rnd = random.Random(seed)
    baseline, candidate = {}, {}
    for qid in x:
        first, second = (x[qid], y[qid]) if rnd.random() < 0.5 else (y[qid], x[qid])
        baseline[qid], candidate[qid] = first, second
    return baseline, candidate


def _sunk(docs: list[str]) -> list[str]:
    """The ranking with its relevant documents moved below all the others."""
    return [d for d in docs if d.startswith("x")] + [d for d in docs if d.startswith("d")]


def _false_fails(scope: str, draws: int) -> float:
    x, y = _ranker(1), _ranker(2)
    settings = default_settings(alpha=0.05, alpha_scope=scope, tolerance=Tolerance(0.0))
    failed = 0
    for seed in range(draws):
        baseline, candidate = _exchangeable(x, y, seed)
        entry = make_entry(evaluate(baseline, JUDGMENTS, METRICS), "v1", "custom", Tolerance(0.0), "")
        verdict = decide("t", entry, evaluate(candidate, JUDGMENTS, METRICS), JUDGMENTS, "custom", settings)
        failed += verdict.status == "regressed"
    return failed / draws


def test_alpha_bounds_a_whole_tests_false_regressions_and_comparison_scope_does_not() -> None:
    """16 rows (4 strata x 4 metrics) on exchangeable pairs: per comparison, one false drop anywhere fails the test
    far more often than alpha; over the test, at most alpha (within the simulation's error)."""
    per_test, per_comparison = _false_fails("test", 100), _false_fails("comparison", 30)
    assert per_test <= 0.07
    assert per_comparison >= 2 * max(per_test, 0.05)


def test_max_t_controls_the_family_wise_rate_of_correlated_rows() -> None:
    """Simulated nulls of 40 queries, 4 metrics that move together, in 4 overlapping strata: the share of draws
    where any row's adjusted p is below 0.05 is at most 0.05 (give or take the simulation's error), while testing
    each row at 0.05 rejects somewhere far more often."""
    rng = np.random.default_rng(1)
    strata = [np.ones(40, bool)] + [np.arange(40) % 3 == k for k in range(3)]
    adjusted, unadjusted = 0, 0
    for seed in range(400):
        shared = rng.normal(0, 0.2, (40, 1)) + rng.normal(0, 0.05, (40, 4))
        deltas = np.hstack([shared * member[:, None] for member in strata])
        result = max_t(deltas, [-1] * 16, 0.05, seed=seed, rounds=999)
        adjusted += min(result.adjusted) < 0.05
        unadjusted += min(result.raw) < 0.05
    assert adjusted / 400 <= 0.06
    assert unadjusted / 400 >= 0.1


def test_max_t_is_exact_for_few_changed_queries_and_adjusted_p_is_never_below_raw() -> None:
    result = max_t(np.array([[-0.1, -0.1], [-0.2, 0.0], [-0.3, -0.3]]), [-1, -1], 0.05)
    assert result.exact and result.rounds == 8
    assert result.raw[0] == pytest.approx(1 / 8)  # every query dropped: only the observed signs reach it
    assert all(a >= r for a, r in zip(result.adjusted, result.raw, strict=True))
    rise = max_t(np.array([[0.1], [0.2], [0.3]]), [-1], 0.05)
    assert rise.raw == [1.0]  # a rise is no drop: one-sided


def test_holm_matches_a_hand_computed_adjustment_and_counts_unknown_rows_as_one() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.01, None, 0.04, 0.03]) == pytest.approx([0.04, None, 0.09, 0.09])


def test_comparison_scope_keeps_the_per_row_two_sided_p_values() -> None:
    """relevance_alpha_scope = comparison: each row's p-value is the two-sided sign-flip test of its own deltas,
    exactly as before the test-level bound, and nothing is adjusted."""
    from pytest_relevance.evaluation.significance import sign_flip_p

    x, y = _ranker(1), _ranker(2)
    baseline, candidate = _exchangeable(x, y, 3)
    entry = make_entry(evaluate(baseline, JUDGMENTS, METRICS), "v1", "custom", Tolerance(0.0), "")
    current = evaluate(candidate, JUDGMENTS, METRICS)
    settings = default_settings(alpha=0.05, alpha_scope="comparison", tolerance=Tolerance(0.0))
    verdict = decide("t", entry, current, JUDGMENTS, "custom", settings)
    assert verdict.adjustment is None
    checked = 0
    for compared in verdict.rows:
        if compared.row.status != "regression":
            assert compared.p is None
            continue
        ids = JUDGMENTS.groups[compared.row.stratum]
        spec = compared.row.metric
        deltas = [round(current.per_query[q][spec], 4) - entry["queries"][q][spec] for q in ids]
        assert compared.p == sign_flip_p(deltas)
        assert compared.status == ("regression" if compared.p < 0.05 else "not significant")
        assert compared.evidence is not None and compared.evidence.adjusted is None
        checked += 1
    assert checked


def test_a_real_drop_still_fails_over_the_test_with_its_adjusted_p_value_in_every_report() -> None:
    x = _ranker(1)
    worse = {q: _sunk(docs) if int(q[1:]) % 2 else docs for q, docs in x.items()}  # half the queries sink
    entry = make_entry(evaluate(x, JUDGMENTS, METRICS), "v1", "custom", Tolerance(), "")
    report = report_of("t", evaluate(worse, JUDGMENTS, METRICS), JUDGMENTS, entry, alpha=0.05)
    assert report["status"] == "regressed"
    assert report["significance"]["scope"] == "test"
    assert report["significance"]["adjustment"].startswith("max-T (Westfall-Young step-down) over 16")
    regressed = [row for row in report["rows"] if row["status"] == "regression"]
    assert regressed and all(row["p_adjusted"] < 0.05 and row["p_adjusted"] >= row["p"] for row in regressed)
    assert all(row["ci"][0] <= row["delta"] <= row["ci"][1] for row in report["rows"])


def test_a_set_level_metric_makes_the_adjustment_holm_named_as_such() -> None:
    metrics = parse_metrics("ndcg@10 coverage@10")
    x = _ranker(1)
    worse = {q: _sunk(docs) for q, docs in x.items()}
    entry = make_entry(evaluate(x, JUDGMENTS, metrics, corpus=_corpus()), "v1", "custom", Tolerance(), "")
    current = evaluate(worse, JUDGMENTS, metrics, corpus=_corpus())
    verdict = decide("t", entry, current, JUDGMENTS, "custom", default_settings(alpha=0.05, metrics=tuple(metrics)))
    assert verdict.adjustment is not None and verdict.adjustment.startswith("Holm over 8 stratum x metric rows")
    assert verdict.status == "regressed"


def _corpus() -> Any:
    from pytest_relevance.evaluation.diversity import CorpusFields

    ids = sorted({d for docs in _ranker(1).values() for d in docs})
    return CorpusFields([{"id": d} for d in ids])


def test_intervals_cover_the_mean_delta_and_shrink_with_more_queries() -> None:
    rng = np.random.default_rng(3)
    small, large = rng.normal(-0.05, 0.2, (20, 1)), rng.normal(-0.05, 0.2, (400, 1))
    (low_s, high_s), (low_l, high_l) = intervals(small)[0], intervals(large)[0]
    assert low_s <= small.mean() <= high_s and low_l <= large.mean() <= high_l
    assert high_l - low_l < (high_s - low_s) / 2
    assert intervals(np.zeros((5, 2))) == [(0.0, 0.0), (0.0, 0.0)]


def test_mde_is_the_tolerance_or_the_noise_floor_plus_the_powers_margin() -> None:
    # sd 0.2 over 100 queries: standard error 0.02; z(0.8) = 0.8416
    assert mde(0.2, 100, 0.0, 0.005) == pytest.approx(0.005 + 0.8416 * 0.02, abs=1e-4)
    assert mde(0.2, 100, 2.5, 0.005) == pytest.approx(2.5 * 0.02 + 0.8416 * 0.02, abs=1e-4)
    assert mde(0.2, 1, 2.5, 0.005) is None


def test_every_row_has_a_minimum_detectable_effect_and_a_warning_where_noise_hides_drops() -> None:
    x = _ranker(1)
    entry = make_entry(evaluate(x, JUDGMENTS, METRICS), "v1", "custom", Tolerance(), "")
    report = report_of("t", evaluate(x, JUDGMENTS, METRICS), JUDGMENTS, entry, alpha=0.05)
    assert all(row["mde"] is not None and row["mde"] >= row["tolerance"] for row in report["rows"])
    assert all(row["mde"] > row["tolerance"] for row in report["rows"] if row["metric"] == "ndcg@10")
    unseen = [w for w in report["warnings"] if "cannot be told from noise" in w]
    assert any(w.startswith("tail.ndcg@10: drops under ") and "with 16 queries" in w for w in unseen)
    quiet = report_of("t", evaluate(x, JUDGMENTS, METRICS), JUDGMENTS, entry, alpha=0.05, tolerance=Tolerance(0.9))
    assert not [w for w in quiet["warnings"] if "cannot be told from noise" in w]


def test_ppi_matches_a_hand_computed_estimate_and_interval() -> None:
    from pytest_relevance.evaluation.ppi import ppi_mean

    judge = [0.5, 0.7, 0.9, 0.3]
    pairs = [(0.5, 0.4), (0.7, 0.5), (0.9, 0.9)]
    estimate = ppi_mean(judge, pairs)
    # 0.6 + mean(-0.1, -0.2, 0.0); var(judge) = 0.0666..., var(rectifier) = 0.01
    assert estimate.value == pytest.approx(0.5)
    half = 1.959964 * (0.2 / 3 / 4 + 0.01 / 3) ** 0.5
    assert (estimate.low, estimate.high) == pytest.approx((0.5 - half, 0.5 + half))
    with pytest.raises(ValueError, match="at least 2 human-graded queries"):
        ppi_mean(judge, pairs[:1])


def test_ppi_corrects_a_biased_judge_and_beats_the_human_only_interval() -> None:
    """A judge that adds 0.1 and noise to each query's value: the judge-only mean is off by 0.1, the PPI interval
    holds the truth about 95% of the time and is narrower than the mean of the human-graded queries alone."""
    from pytest_relevance.evaluation.ppi import plain_mean, ppi_mean

    rng = np.random.default_rng(2)
    truth = rng.uniform(0, 1, 300)
    covered, narrower = 0, 0
    for _ in range(400):
        judge = truth + 0.1 + rng.normal(0, 0.05, 300)
        labelled = rng.choice(300, 40, replace=False)
        estimate = ppi_mean(list(judge), [(judge[i], truth[i]) for i in labelled])
        human = plain_mean([truth[i] for i in labelled])
        covered += estimate.low <= truth.mean() <= estimate.high
        narrower += estimate.high - estimate.low < human.high - human.low
    assert covered / 400 >= 0.93 and narrower == 400


def test_judge_corrected_estimates_per_stratum_use_the_human_grades_of_the_shared_queries() -> None:
    """The judgments the gate uses call the unjudged documents of the first 8 queries' top 3 relevant (a lenient
    judge, its grades marked as the judge's); people re-graded those documents of 6 of them (all irrelevant) and
    q9 (no judge grade: its correction is 0 whatever people say, so it is not counted). The corrected all.ndcg@10
    is the judge's mean plus 8/48 of the mean human - judge difference on the 6, each query's human NDCG@10 as
    ir_measures computes it."""
    import ir_measures

    from pytest_relevance.evaluation.ppi import corrected
    from pytest_relevance.judgments.model import Provenance

    run = _ranker(1)
    queries = []
    for q in JUDGMENTS.queries:
        added = [d for d in run[q.id][:3] if d not in q.grades] if int(q.id[1:]) < 8 else []
        provenance = {d: Provenance("judge:lenient") for d in added}
        queries.append(Query(q.id, q.text, q.stratum, {}, {**q.grades, **dict.fromkeys(added, 1)}, provenance))
    lenient = Judgments(tuple(queries), "v1", "judgments.yaml")
    regraded = [q for q in queries if 2 <= int(q.id[1:]) < 8 or q.id == "q9"]
    human = Judgments(
        tuple(Query(q.id, q.text, None, {}, dict.fromkeys(q.judges, 0) or {"d9-0": 1}) for q in regraded),
        "h",
        "human.yaml",
    )
    evaluation = evaluate(run, lenient, parse_metrics("ndcg@10"))
    estimates = corrected(evaluation, lenient, human)
    sample = [q.id for q in regraded if q.judges]
    truth = {q.id: q.grades for q in JUDGMENTS.queries}
    qrels = [ir_measures.Qrel(q, d, int(g)) for q in sample for d, g in truth[q].items()]
    scored = [ir_measures.ScoredDoc(q, d, -r) for q in sample for r, d in enumerate(run[q])]
    people = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, scored)}
    judge = {q: v["ndcg@10"] for q, v in evaluation.per_query.items()}
    assert len(people) == 6
    expected = sum(judge.values()) / QUERIES + 8 / QUERIES * sum(people[q] - judge[q] for q in people) / len(people)
    found = estimates.get("all", "ndcg@10")
    assert found is not None and found.value.value == pytest.approx(expected)
    assert found.value.human == 6 and found.delta is None  # no baseline: no change to estimate
    assert found.value.value < evaluation.strata["all"]["ndcg@10"]  # the judge's lenience removed
    # re-graded: head q3, q6; torso q4, q7; tail q2, q5 (q0 and q1, judged, were not)
    assert {s: estimates.estimates[s]["ndcg@10"].value.human for s in ("head", "torso", "tail")} == {
        "head": 2,
        "torso": 2,
        "tail": 2,
    }
