"""Metrics beyond relevance against hand-computed values on a five-document corpus, and alpha_ndcg against
ir-measures (ndeval): ties, documents without the field, lists shorter than k, empty runs."""

from __future__ import annotations

import json
import math
import random
from datetime import UTC, datetime

import numpy as np
import pytest

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation import diversity as beyond
from pytest_relevance.evaluation.diversity import CorpusFields, Missing
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.evaluation.floors import constant_floor, floor_is_exact
from pytest_relevance.evaluation.significance import paired_bootstrap_p, set_level_p, sign_flip_p
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import MetricSpecError, parse_metric, parse_metrics

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
DOCS = [
    {"id": "a", "brand": "X", "tags": ["t1", "t2"], "released": "2026-01-05", "seller": {"id": "s1"}},  # 10.5 days
    {"id": "b", "brand": "X", "tags": ["t2"], "released": "2025-12-16"},  # 30.5 days
    {"id": "c", "brand": "Y", "tags": ["t1", "t3"], "released": "2025-01-15"},  # 365.5 days, the oldest
    {"id": "d", "brand": None, "tags": []},  # no brand, no tags, no date
    {"id": "e", "brand": "Z", "tags": ["t3"], "released": "2026-02-01"},  # after the frozen instant: age 0
]
CORPUS = CorpusFields(DOCS)
LOG3 = math.log2(3)  # the discount's denominator at rank 2: 1/log2(3)


def _one(spec: str, ranking: list[str], grades: dict[str, float] | None = None) -> float:
    judgments = Judgments((Query("q", "t", "s", {}, grades or {"a": 1}),), "v", "j")
    metric = parse_metric(spec)
    return evaluate({"q": ranking}, judgments, [metric], CORPUS, NOW).per_query["q"][metric.spec]


@pytest.mark.parametrize(
    ("ranking", "expected"),
    [
        (["a", "b", "c"], 2 / 3),  # X, X, Y
        (["a", "b", "c", "e"], 2 / 3),  # cut at 3
        (["a", "d"], 1.0),  # shorter than k: divides by the 2 returned; d, without a brand, is its own value
        (["d", "d"], 1 / 2),  # a repeat is shown twice: one value in two places
        ([], 0.0),
    ],
)
def test_distinct(ranking: list[str], expected: float) -> None:
    assert _one("distinct@3(field=brand)", ranking) == pytest.approx(expected)


def test_distinct_of_a_list_field_compares_whole_sets_and_unknown_documents_are_their_own_value() -> None:
    assert _one("distinct@3(field=tags)", ["a", "b", "c"]) == 1.0  # {t1,t2} {t2} {t1,t3}
    assert _one("distinct@3(field=brand)", ["zz1", "zz2"]) == 1.0  # not in the corpus: each its own value


def test_booleans_are_not_numbers_and_objects_compare_by_canonical_json() -> None:
    documents = json.loads(
        """[{"id": "t", "flag": true, "seller": {"id": 1, "kind": "shop"}, "tags": [true, {"x": 1, "y": [2, 3]}]},
            {"id": "o", "flag": 1, "seller": {"kind": "shop", "id": 1}, "tags": [1, {"y": [2, 3], "x": 1}]},
            {"id": "f", "flag": 1.0, "seller": {"kind": "shop", "id": 2}, "tags": [false, 0]}]"""
    )
    corpus = CorpusFields(documents)
    judgments = Judgments((Query("q", "t", "s", {}, {"t": 1, "o": 1}),), "v", "j")

    def value(spec: str, ranking: list[str]) -> float:
        metric = parse_metric(spec)
        result = evaluate({"q": ranking}, judgments, [metric], corpus, NOW)
        return result.per_query["q"][metric.spec] if not metric.set_level else result.strata["all"][metric.spec]

    assert value("distinct@2(field=flag)", ["t", "o"]) == 1.0  # true and 1: two values
    assert value("distinct@2(field=flag)", ["o", "f"]) == 0.5  # 1 and 1.0: one number
    assert value("distinct@2(field=seller)", ["t", "o"]) == 0.5  # the same object, keys in another order
    assert value("distinct@2(field=seller)", ["o", "f"]) == 1.0
    # tags: t {true, {x, y}}, o {1, {x, y}}: they share one of three values
    assert value("ild@2(field=tags)", ["t", "o"]) == pytest.approx(1 - 1 / 3)
    # the corpus's flags: true, 1 (1.0 is the same number): t and o each shown once at rank 1 of one query
    two = Judgments((Query("q", "t", "s", {}, {"t": 1}), Query("r", "t", "s", {}, {"o": 1})), "v", "j")
    gini = parse_metric("exposure_gini@1(field=flag)")
    assert evaluate({"q": ["t"], "r": ["o"]}, two, [gini], corpus, NOW).strata["all"][gini.spec] == 0.0
    # alpha_ndcg, all three relevant: t {true, {x, y}}, o {1, {x, y}}, f {false, 0}, each two subtopics; the
    # ideal takes t (a three-way tie of 2, to the largest id), then f (2 new) over o (1 new, {x, y} seen: 1.5)
    graded = Judgments((Query("q", "t", "s", {}, {"t": 1, "o": 1, "f": 1}),), "v", "j")
    alpha = parse_metric("alpha_ndcg@2(field=tags)")
    ideal = 2 + 2 / LOG3
    for ranking, dcg in ((["t", "f"], ideal), (["t", "o"], 2 + 1.5 / LOG3)):
        found = evaluate({"q": ranking}, graded, [alpha], corpus, NOW).per_query["q"][alpha.spec]
        assert found == pytest.approx(dcg / ideal), ranking
    assert beyond.Canonical('{"x":1,"y":[2,3]}') in corpus.values("tags")["o"]


def test_ild_is_the_mean_pairwise_distance() -> None:
    assert _one("ild@3(field=brand)", ["a", "b", "c"]) == pytest.approx(2 / 3)  # ab 0, ac 1, bc 1
    # Jaccard: a-b 1 - 1/2, a-c 1 - 1/3, b-c 1 (disjoint)
    assert _one("ild@3(field=tags)", ["a", "b", "c"]) == pytest.approx((0.5 + 2 / 3 + 1) / 3)
    assert _one("ild@3(field=tags)", ["a", "d"]) == 1.0  # d has no tags: its own value, unlike any other
    assert _one("ild@3(field=brand)", ["a"]) == 0.0  # no pair
    assert _one("ild@3(field=brand)", []) == 0.0


def test_alpha_ndcg_by_hand() -> None:
    relevant = {"a": 1, "b": 1, "c": 1}
    # a: X new, gain 1; b: X seen once, gain 1/2 at 1/log2(3); c: Y new, gain 1 at 1/2
    dcg = 1 + 0.5 / LOG3 + 0.5
    # the ideal, greedily: c (a tie with a and b goes to the largest id), then b (X new), then a (X seen)
    ideal = 1 + 1 / LOG3 + 0.25
    assert _one("alpha_ndcg@3(field=brand)", ["a", "b", "c"], relevant) == pytest.approx(dcg / ideal)
    assert _one("alpha_ndcg@3(field=brand)", ["a", "c", "b"], relevant) == pytest.approx(1.0)
    # alpha=0: a repeat of a subtopic is worth as much as a new one, so order among relevant ones does not matter
    assert _one("alpha_ndcg@3(field=brand,alpha=0)", ["a", "b", "c"], relevant) == pytest.approx(1.0)
    assert _one("alpha_ndcg@3(field=brand)", ["a", "a", "c"], relevant) == pytest.approx(
        (1 + 0.5) / ideal  # the repeated a gains nothing, as in ndcg
    )
    assert _one("alpha_ndcg@3(field=brand)", [], relevant) == 0.0
    assert _one("alpha_ndcg@3(field=brand)", ["a"], {"a": 0}) == 0.0  # nothing relevant


def test_alpha_ndcg_matches_ir_measures() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    rnd = random.Random(7)
    docs = [f"d{i}" for i in range(8)]
    checked = 0
    for _ in range(150):
        topics = {d: rnd.sample(["s1", "s2", "s3", "s4"], rnd.randint(1, 3)) for d in docs}
        grades = {d: rnd.choice([0, 1, 2]) for d in rnd.sample(docs, rnd.randint(2, 8))}
        ranking = rnd.sample(docs, rnd.randint(1, 8))
        k, alpha, rel = rnd.choice([3, 5, 10]), rnd.choice([0.0, 0.2, 0.5, 0.9]), rnd.choice([1, 2])
        qrels = [ir_measures.Qrel("q", d, g, s) for d, g in grades.items() for s in topics[d]]
        run = [ir_measures.ScoredDoc("q", d, 100.0 - i) for i, d in enumerate(ranking)]
        measure = ir_measures.alpha_nDCG(cutoff=k, alpha=alpha, rel=rel)
        theirs = {r.query_id: r.value for r in ir_measures.iter_calc([measure], qrels, run)}
        if "q" not in theirs:
            continue
        metric = parse_metric(f"alpha_ndcg@{k}(field=t,alpha={alpha},rel={rel})")
        ours = beyond.alpha_ndcg(grades, ranking, {d: frozenset(t) for d, t in topics.items()}, metric)
        assert ours == pytest.approx(theirs["q"], abs=1e-4), (grades, ranking, topics, k, alpha, rel)
        checked += 1
    assert checked > 100


def test_alpha_ndcg_breaks_ideal_ties_as_ndeval_does() -> None:
    """Three documents tie for the ideal's first place and two for its second; ndeval gives each tie to the largest
    id (strcmp), and the other choice gives another ideal (3.8695 against 3.8041 at alpha 0.5)."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    topics = {"d0": ["s3", "s4"], "d1": ["s1", "s2"], "d2": ["s4"], "d3": ["s2", "s4"]}
    corpus = CorpusFields([{"id": d, "tags": t} for d, t in topics.items()])
    qrels = [ir_measures.Qrel("q", d, 1, s) for d, t in topics.items() for s in t]
    for alpha in (0.5, 0.2, 0.7):
        for ranking in (["d0", "d1", "d2", "d3"], ["d2", "d0"], ["d1", "d3", "d0"]):
            run = [ir_measures.ScoredDoc("q", d, 10.0 - i) for i, d in enumerate(ranking)]
            (theirs,) = ir_measures.iter_calc([ir_measures.alpha_nDCG(cutoff=4, alpha=alpha)], qrels, run)
            metric = parse_metric(f"alpha_ndcg@4(field=tags,alpha={alpha})")
            judgments = Judgments((Query("q", "t", "s", {}, dict.fromkeys(topics, 1)),), "v", "j")
            ours = evaluate({"q": ranking}, judgments, [metric], corpus, NOW).per_query["q"][metric.spec]
            assert ours == pytest.approx(theirs.value, abs=1e-6), (alpha, ranking)


_HASH_SCRIPT = """
import json, random
from pytest_relevance.evaluation.diversity import CorpusFields
from pytest_relevance.evaluation.floors import constant_floor
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.evaluation.significance import set_level_p
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

rnd = random.Random(3)
names = [f"topic-{j}" for j in range(7)]
docs = [{"id": f"d{i}", "tags": rnd.sample(names, rnd.randint(1, 4)), "brand": rnd.choice(names)} for i in range(12)]
corpus = CorpusFields(docs)
ids = [d["id"] for d in docs]
queries = tuple(
    Query(f"q{i}", "t", rnd.choice(["head", "tail"]), {}, {d: rnd.choice([0, 1, 2]) for d in rnd.sample(ids, 8)})
    for i in range(30)
)
judgments = Judgments(queries, "v", "j")
specs = (
    "alpha_ndcg@10(field=tags,alpha=0.2) alpha_ndcg@5(field=tags,alpha=0.3) alpha_ndcg@10(field=tags) "
    "ild@10(field=tags) distinct@10(field=tags) novelty@10 exposure_gini@5(field=tags) exposure_gini@5(field=brand) "
    "coverage@5"
)
metrics = parse_metrics(specs)
run = {q.id: rnd.sample(ids, 10) for q in queries}
other = {q.id: rnd.sample(ids, 10) for q in queries}
result = evaluate(run, judgments, metrics, corpus)
floors = constant_floor(judgments, metrics, 10, len(ids), corpus)
p = set_level_p(metrics[6], [run[q.id] for q in queries], [other[q.id] for q in queries], corpus)
print(json.dumps([result.per_query, result.strata, floors, p], sort_keys=True))
"""


def test_no_metric_depends_on_the_string_hash_seed() -> None:
    """The same evaluation in processes with other PYTHONHASHSEEDs gives the same numbers to the last bit: a set of
    subtopics summed in hash order flipped ties in alpha_ndcg's ideal (0.7717 against 0.7713)."""
    import os
    import subprocess
    import sys

    outputs = set()
    for seed in ("0", "1", "2", "3", "4", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _HASH_SCRIPT], env=env, capture_output=True, text=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize(
    ("ranking", "expected"),
    [
        (["a", "b", "c"], 30.5),
        (["a", "b"], 20.5),  # an even count: the mean of the two middle ages
        (["a", "d"], (10.5 + 365.5) / 2),  # d is undated: as old as the oldest dated document (c)
        (["e"], 0.0),  # dated after the frozen instant
        ([], 365.5),  # nothing returned must not look fresh
    ],
)
def test_age_is_the_median_age_in_days(ranking: list[str], expected: float) -> None:
    assert _one("age@3(field=released)", ranking) == pytest.approx(expected)


def test_fresh_is_the_share_younger_than_the_window() -> None:
    assert _one("fresh@10(field=released,within=30d)", ["a", "b", "c", "d", "e"]) == pytest.approx(2 / 5)
    assert _one("fresh@10(field=released,within=31d)", ["a", "b"]) == 1.0
    assert _one("fresh@10(field=released,within=2w)", ["a", "b"]) == 0.5  # 14 days
    assert _one("fresh@10(field=released,within=30d)", []) == 0.0


def _judgments(*ids_strata: tuple[str, str]) -> Judgments:
    return Judgments(tuple(Query(q, "t", s, {}, {"a": 1}) for q, s in ids_strata), "v", "j")


def test_novelty_is_the_mean_self_information_over_all_queries() -> None:
    judgments = _judgments(("q1", "head"), ("q2", "tail"), ("q3", "tail"))
    run = {"q1": ["a", "b"], "q2": ["a", "c"], "q3": []}
    result = evaluate(run, judgments, parse_metrics("novelty@2"), CORPUS, NOW)
    # p(a) = 2/3 (two of three queries), p(b) = p(c) = 1/3
    one = (math.log2(3 / 2) + math.log2(3)) / 2
    assert result.per_query["q1"]["novelty@2"] == pytest.approx(one)
    assert result.per_query["q3"]["novelty@2"] == 0.0
    assert result.strata["tail"]["novelty@2"] == pytest.approx(one / 2)


def _pairwise_gini(values: list[float]) -> float:
    n, total = len(values), sum(values)
    return sum(abs(x - y) for x in values for y in values) / (2 * n * total)


def test_gini_by_hand() -> None:
    assert beyond.gini([1, 1, 1, 1]) == 0.0
    assert beyond.gini([0, 0, 0, 5]) == pytest.approx(3 / 4)
    assert beyond.gini([0, 0]) == 1.0  # nothing shown
    assert beyond.gini([3, 1, 0, 2]) == pytest.approx(_pairwise_gini([3, 1, 0, 2]))


def test_exposure_gini_and_coverage_are_per_stratum_over_every_corpus_value() -> None:
    judgments = _judgments(("q1", "head"), ("q2", "head"), ("q3", "tail"))
    run = {"q1": ["a", "b"], "q2": ["a", "c"], "q3": []}
    metrics = parse_metrics("exposure_gini@2(field=brand) coverage@2 ndcg@2")
    result = evaluate(run, judgments, metrics, CORPUS, NOW)
    # X: a at 1 twice and b at 2; Y: c at 2; Z and d (no brand, its own value) never shown
    exposure = [2 + 1 / LOG3, 1 / LOG3, 0.0, 0.0]
    assert result.strata["head"]["exposure_gini@2(field=brand)"] == pytest.approx(_pairwise_gini(exposure))
    assert result.strata["all"]["exposure_gini@2(field=brand)"] == pytest.approx(_pairwise_gini(exposure))
    assert result.strata["tail"]["exposure_gini@2(field=brand)"] == 1.0  # nothing shown
    assert result.strata["head"]["coverage@2"] == pytest.approx(3 / 5)
    assert result.strata["tail"]["coverage@2"] == 0.0
    assert set(result.per_query["q1"]) == {"ndcg@2"}  # set-level metrics have no per-query value
    assert list(result.strata["head"]) == [m.spec for m in metrics]  # the configured order


def test_exposure_of_a_list_field_goes_to_each_value() -> None:
    values = CORPUS.values("tags")
    population = {v for vs in values.values() for v in vs}
    assert population == {"t1", "t2", "t3", Missing("d")}
    found = beyond.exposure_gini([["a"]], values, population, 1)  # t1 and t2 get 1 each, t3 and d none
    assert found == pytest.approx(_pairwise_gini([1, 1, 0, 0]))


def test_a_dotted_field_reaches_into_objects() -> None:
    assert CORPUS.values("seller.id")["a"] == frozenset({"s1"})
    assert CORPUS.values("seller.id")["b"] == frozenset({Missing("b")})


def test_direction_and_floors() -> None:
    metrics = parse_metrics("age@10(field=released) exposure_gini@10(field=brand) fresh@10(field=released,within=30d)")
    assert [m.higher_is_better for m in metrics] == [False, False, True]
    judgments = _judgments(("q1", "s"))
    floors = constant_floor(judgments, parse_metrics("coverage@2 novelty@2 distinct@2(field=brand) ndcg@2"), 10, 5)
    assert floors["all"] == {"coverage@2": pytest.approx(2 / 5), "novelty@2": 0.0, "ndcg@2": 1.0}
    assert floor_is_exact(parse_metric("coverage@2")) and floor_is_exact(parse_metric("novelty@2"))


def test_a_field_the_corpus_lacks_is_one_error_naming_metric_and_field() -> None:
    judgments = _judgments(("q1", "s"))
    with pytest.raises(RelevanceInputError) as error:
        evaluate({"q1": ["a"]}, judgments, parse_metrics("ndcg@10 distinct@10(field=Brand)"), CORPUS, NOW)
    said = str(error.value)
    assert "metric distinct@10(field=Brand) reads field 'Brand', which no document of the corpus has" in said
    assert "fields it has: brand, id, released, seller, tags" in said


def test_a_beyond_metric_without_a_corpus_or_a_clock_is_an_error() -> None:
    judgments = _judgments(("q1", "s"))
    with pytest.raises(RelevanceInputError, match=r"distinct@10.*reads the corpus"):
        evaluate({"q1": ["a"]}, judgments, parse_metrics("distinct@10(field=brand)"))
    with pytest.raises(RelevanceInputError, match="relevance_now"):
        evaluate({"q1": ["a"]}, judgments, parse_metrics("age@10(field=released)"), CORPUS)


def test_a_value_that_is_not_a_date_names_the_document_and_line() -> None:
    corpus = CorpusFields([{"id": "a", "released": "last week"}], source="corpus.ndjson", lines=[3])
    with pytest.raises(RelevanceInputError) as error:
        evaluate({"q1": ["a"]}, _judgments(("q1", "s")), parse_metrics("age@10(field=released)"), corpus, NOW)
    assert str(error.value).startswith("corpus.ndjson:3: document 'a': released='last week' is not a date")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("distinct@10", "metric 'distinct' needs field, e.g. distinct@10(field=brand)"),
        ("fresh@10(field=released)", "metric 'fresh' needs within, e.g. fresh@10(within=30d)"),
        ("age@10(field=released,gain=exp)", "metric 'age' has no option 'gain'"),
        ("novelty@10(field=brand)", "metric 'novelty' has no option 'field'"),
        ("ild@10(field=brand,field=tags)", "metric 'ild': option field is given twice"),
        ("alpha_ndcg@10(field=brand,alpha=1)", "metric 'alpha_ndcg': alpha=1 must be a number >= 0 and < 1"),
        ("fresh@10(field=released,within=30)", "metric 'fresh': within=30 is not a window"),
        ("distinct@10(field=9lives)", "metric 'distinct': field='9lives' is not a field name"),
        ("coverage", "metric 'coverage' needs a cut-off"),
    ],
)
def test_spec_errors_name_the_metric(spec: str, message: str) -> None:
    with pytest.raises(MetricSpecError) as error:
        parse_metric(spec)
    assert str(error.value).startswith(message)


def test_specs_with_options_round_trip_and_split_outside_parentheses() -> None:
    metrics = parse_metrics("ndcg@10, Fresh@10(field=releasedAt, within=12h) alpha_ndcg@5(field=brand,alpha=0.5)")
    assert [m.spec for m in metrics] == [
        "ndcg@10",
        "fresh@10(field=releasedAt,within=0.5d)",
        "alpha_ndcg@5(field=brand)",
    ]
    assert [parse_metric(m.spec) for m in metrics] == metrics
    assert metrics[1].definition() == {"name": "fresh", "k": 10, "field": "releasedAt", "within_days": 0.5}


def test_paired_bootstrap_of_a_mean() -> None:
    before = np.array([0.5, 0.4, 0.6, 0.5, 0.7, 0.3, 0.5, 0.6])

    def mean_of(values: np.ndarray):  # the statistic for each row of query weights
        return lambda weights: weights @ values / weights.sum(axis=1)

    assert paired_bootstrap_p(8, mean_of(before), mean_of(before)) == 1.0  # no change
    assert paired_bootstrap_p(0, mean_of(before[:0]), mean_of(before[:0])) == 1.0
    # every query drops by the same amount: every resample sees exactly the observed drop
    assert paired_bootstrap_p(8, mean_of(before), mean_of(before - 0.1), rounds=999) == pytest.approx(1 / 1000)
    noisy = before + np.array([0.3, -0.3, 0.2, -0.25, 0.1, -0.1, 0.05, -0.05])
    p = paired_bootstrap_p(8, mean_of(before), mean_of(noisy), rounds=999)
    assert p > 0.5 and p == paired_bootstrap_p(8, mean_of(before), mean_of(noisy), rounds=999)  # chance, seeded
    assert sign_flip_p(list(noisy - before)) > 0.5  # the sign-flip test on the same deltas agrees


def test_set_level_significance() -> None:
    brand = parse_metric("exposure_gini@2(field=brand)")
    same = [["a", "b"]] * 12  # X twice, every query
    spread = [["a", "c"]] * 12  # X and Y
    for metric in (brand, parse_metric("coverage@2")):
        # a row of ones is the sample itself: the bootstrap's statistic is the metric
        for rankings in (same, spread, [["a", "zz"], []]):
            ones = np.ones((1, len(rankings)))
            statistic = beyond.statistic(metric, rankings, CORPUS)(ones)[0]
            assert statistic == pytest.approx(beyond.set_value(metric, rankings, CORPUS))
    assert set_level_p(brand, same, spread, CORPUS) == pytest.approx(1 / 10_001)  # every query changed
    one = [["a", "c"]] + [["a", "b"]] * 11  # one query of twelve changed
    assert set_level_p(brand, same, one, CORPUS) > 0.1
    assert set_level_p(brand, same, same, CORPUS) == 1.0


def test_exposure_gini_is_over_the_corpus_values_when_a_ranking_returns_ids_the_corpus_lacks() -> None:
    """zz is not in the corpus: its position exposes no value, in the gate's number and in every resample. The
    corpus's brands are X, Y, Z and d's own: X exposed alone is a Gini of (4 - 1) / 4, nothing exposed is 1."""
    metric = parse_metric("exposure_gini@1(field=brand)")
    rankings = [["a"], ["zz"]]
    assert beyond.set_value(metric, rankings, CORPUS) == pytest.approx(3 / 4)
    rows = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 2.0]])  # each query drawn once; a twice; zz's query twice
    assert beyond.statistic(metric, rankings, CORPUS)(rows) == pytest.approx([3 / 4, 3 / 4, 1.0])
    two = CorpusFields([{"id": "a", "brand": "X"}, {"id": "b", "brand": "Y"}])  # the case: 0.5, not 0.667
    assert beyond.statistic(metric, [["a"], ["zz"]], two)(np.array([[2.0, 0.0]]))[0] == pytest.approx(0.5)
    # the same corpus exposure before and after: no change, whatever ids outside the corpus came and went
    assert set_level_p(metric, [["a"], ["zz"]] * 6, [["a"], ["yy"]] * 3 + [["a"], []] * 3, CORPUS) == 1.0


def _entry(evaluation, tolerance: str = "0.005") -> dict:
    from pytest_relevance.config.settings import Tolerance
    from pytest_relevance.gate.entry import make_entry

    return make_entry(evaluation, "v", "custom", Tolerance.parse(tolerance), "why")


def test_a_rise_is_the_regression_where_lower_is_better() -> None:
    from pytest_relevance.config.settings import Tolerance
    from pytest_relevance.gate.compare import compare

    judgments = _judgments(("q1", "s"), ("q2", "s"))
    metrics = parse_metrics("age@2(field=released) fresh@2(field=released,within=30d) exposure_gini@2(field=brand)")
    fresh_run = evaluate({"q1": ["a", "e"], "q2": ["a", "c"]}, judgments, metrics, CORPUS, NOW)
    stale_run = evaluate({"q1": ["b", "c"], "q2": ["c", "b"]}, judgments, metrics, CORPUS, NOW)
    status = {
        row.metric: row.status
        for row in compare(_entry(fresh_run), stale_run, Tolerance.parse("0.005")).rows
        if row.stratum == "all"
    }
    assert status == {
        "age@2(field=released)": "regression",  # older: a rise
        "fresh@2(field=released,within=30d)": "regression",  # fewer fresh: a drop
        # X 2, Y and Z 1/log2(3) each, d 0: Gini 0.46; then X and Y 1 + 1/log2(3) each, Z and d 0: 0.5, a rise
        "exposure_gini@2(field=brand)": "regression",
    }
    back = {row.metric: row.status for row in compare(_entry(stale_run), fresh_run, Tolerance.parse("0.005")).rows}
    assert back["age@2(field=released)"] == "improvement"


def test_a_baseline_holds_ages_and_novelty_above_1_but_no_negative_one(tmp_path) -> None:
    from pytest_relevance.gate.baseline_file import dumps, load_baseline
    from pytest_relevance.gate.entry import unmet_needs

    judgments = _judgments(("q1", "s"), ("q2", "s"))
    metrics = parse_metrics("age@2(field=released) novelty@2 coverage@2")
    evaluation = evaluate({"q1": ["c"], "q2": ["a", "b"]}, judgments, metrics, CORPUS, NOW)
    entry = _entry(evaluation)
    assert entry["strata"]["all"]["age@2(field=released)"] == pytest.approx((365.5 + 20.5) / 2)
    path = tmp_path / "baseline.json"
    path.write_text(dumps({"t": entry}))
    assert load_baseline(path)["t"]["queries"]["q1"]["age@2(field=released)"] == 365.5
    # coverage is set-level: no per-query value is needed for relevance_alpha
    assert unmet_needs(entry, ["q1", "q2"], [m.spec for m in metrics], alpha=True, churn=False) == []
    entry["queries"]["q1"]["age@2(field=released)"] = -1
    path.write_text(dumps({"t": entry}))
    with pytest.raises(RelevanceInputError, match=r"queries\.q1\.age@2\(field=released\) is -1, below 0"):
        load_baseline(path)
    entry["queries"]["q1"]["age@2(field=released)"] = 1
    entry["strata"]["all"]["coverage@2"] = 1.5
    path.write_text(dumps({"t": entry}))
    with pytest.raises(RelevanceInputError, match=r"strata\.all\.coverage@2 is 1\.5, outside \[0, 1\]"):
        load_baseline(path)


def test_tolerances_of_metrics_with_options() -> None:
    from pytest_relevance.config.settings import SettingError, Tolerance

    gated = ["ndcg@10", "age@10(field=released)", "fresh@10(field=released,within=30d)", "ild@10(field=seller.id)"]
    tolerance = Tolerance.parse("0.005 age@10(field=released)=2 tail.fresh@10(field=released, within=30d)=0.1")
    tolerance.check_keys(["all", "tail"], gated, "relevance_tolerance")
    assert tolerance.get("all", "age@10(field=released)") == 2  # days: age may take a tolerance of 1 or more
    assert tolerance.get("tail", "fresh@10(field=released,within=30d)") == 0.1
    Tolerance.parse("all.ild@10(field=seller.id)=0.1").check_keys(["all"], gated, "relevance_tolerance")
    with pytest.raises(SettingError, match="is 1 or more"):
        Tolerance.parse("fresh@10(field=released,within=30d)=2")  # a share
    with pytest.raises(SettingError, match="names no stratum or metric"):
        Tolerance.parse("age@10(field=relased)=2").check_keys(["all"], gated, "relevance_tolerance")


def test_scoring_without_a_corpus_names_the_metric_that_needs_one() -> None:
    from pytest_relevance.metrics.ranking import score_query

    with pytest.raises(MetricSpecError, match=r"^novelty@10 reads the corpus, which a run file and its qrels do not"):
        score_query({"a": 1}, ["a"], parse_metrics("ndcg@10 novelty@10"))


def test_pytest_relevance_compare_gates_age_by_its_direction(tmp_path, capsys) -> None:
    from pytest_relevance.cli.commands import main
    from pytest_relevance.gate.baseline_file import write_baseline

    judgments = _judgments(("q1", "s"), ("q2", "s"))
    metrics = parse_metrics("ndcg@2 age@2(field=released)")
    for name, run in (("old.json", {"q1": ["a", "e"], "q2": ["a"]}), ("new.json", {"q1": ["a", "c"], "q2": ["a"]})):
        write_baseline(tmp_path / name, {"t": _entry(evaluate(run, judgments, metrics, CORPUS, NOW))})
    code = main(["compare", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["tests"][0]["rows"]
    assert code == 1
    status = {(r["stratum"], r["metric"], r["delta"]): r["status"] for r in rows}
    # q1's median age 5.25 -> 188 days, q2's 10.5 both times: the mean rises by 182.75 / 2
    assert status[("all", "age@2(field=released)", 91.375)] == "regression"
    assert status[("all", "ndcg@2", 0.0)] == "same"


def test_alpha_ndcg_floor_is_a_greedy_constant_list() -> None:
    import itertools

    metric = parse_metric("alpha_ndcg@2(field=brand)")
    queries = (Query("q1", "t", "s", {}, {"a": 1, "b": 1}), Query("q2", "t", "s", {}, {"c": 2, "d": 0}))
    judgments = Judgments(queries, "v", "j")
    floor = constant_floor(judgments, [metric], 10, 5, CORPUS)["all"][metric.spec]
    # greedy: c first (1 for q2 against a's 1 / (1 + 1/2 / log2 3) for q1), then a; [c, a] is also the best list
    ideal = 1 + 0.5 / LOG3
    assert floor == pytest.approx((1 / LOG3 / ideal + 1) / 2)
    values = CORPUS.values("brand")
    scores = [
        sum(beyond.alpha_ndcg(q.grades, list(answer), values, metric) for q in queries) / 2
        for answer in itertools.permutations("abcde", 2)
    ]
    assert floor == pytest.approx(max(scores))
    assert not floor_is_exact(metric)  # in general a lower bound: reports say "at least"


def test_alpha_ndcg_floor_never_beats_the_best_constant_list() -> None:
    import itertools

    rnd = random.Random(3)
    metric = parse_metric("alpha_ndcg@2(field=tags)")
    values = CORPUS.values("tags")
    for _ in range(40):
        queries = tuple(
            Query(f"q{i}", "t", "s", {}, {d: rnd.choice([0, 1, 2]) for d in rnd.sample("abcde", 3)}) for i in range(3)
        )
        floor = constant_floor(Judgments(queries, "v", "j"), [metric], 10, 5, CORPUS)["all"][metric.spec]
        best = max(
            sum(beyond.alpha_ndcg(q.grades, list(answer), values, metric) for q in queries) / 3
            for answer in itertools.permutations("abcde", 2)
        )
        assert 0 < floor <= best + 1e-9 or best == 0
