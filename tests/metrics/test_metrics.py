"""The metric core against hand-computed values, pytrec_eval (trec_eval's own code) and ir-measures."""

from __future__ import annotations

import math

import ir_measures
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_relevance.metrics.ranking import (
    Metric,
    MetricSpecError,
    depth,
    parse_metric,
    parse_metrics,
    rank_scored,
    score_placed,
    score_query,
)

ALL = parse_metrics("ndcg@3 ndcg@10 ndcg map map@10 mrr mrr@3 p@10 recall@100 hit@10 rprec judged@10 err@10")

# our spec -> pytrec_eval measure key
TREC_NAMES = {
    "ndcg@3": "ndcg_cut_3",
    "ndcg@10": "ndcg_cut_10",
    "map": "map",
    "map@10": "map_cut_10",
    "mrr": "recip_rank",
    "p@10": "P_10",
    "p@5": "P_5",
    "recall@100": "recall_100",
    "recall@5": "recall_5",
    "hit@10": "success_10",
    "hit@1": "success_1",
    "rprec": "Rprec",
}
# pytrec_eval's uncut "ndcg" hangs on some inputs with negative grades, so the uncut ndcg is checked by hand.
TREC_MEASURES = {"ndcg_cut.3,10", "map", "map_cut.10", "recip_rank", "P.5,10", "recall.5,100", "success.1,10", "Rprec"}


def one(spec: str, grades: dict[str, float], ranking: list[str]) -> float:
    return score_query(grades, ranking, [parse_metric(spec)]).values[parse_metric(spec).spec]


# ---------------------------------------------------------------- hand-computed values


@pytest.mark.parametrize(
    ("spec", "grades", "ranking", "expected"),
    [
        ("ndcg@10", {"d": 1}, ["x", "d"], 0.6309297535714575),  # 1/log2(3)
        ("ndcg@10", {"d1": 1, "d2": 3}, ["d1", "d2"], 0.7967075809905066),  # METRICS.md, linear gain
        ("ndcg@10(gain=exp)", {"d1": 1, "d2": 3}, ["d1", "d2"], (1 + 7 / math.log2(3)) / (7 + 1 / math.log2(3))),
        ("ndcg@1", {"d": 1}, ["x", "d"], 0.0),  # cut before the relevant document
        ("ndcg@10", {"d": 0}, ["d"], 0.0),  # ideal DCG 0
        ("ndcg@10", {"d": -1, "e": 1}, ["d", "e"], 0.6309297535714575),  # negative grade gains nothing
        ("ndcg", {"a": 2, "b": 1}, ["x"] * 11 + ["b"], (1 / math.log2(13)) / (2 + 1 / math.log2(3))),  # uncut
        ("mrr", {"d": 1}, ["x", "y", "d"], 1 / 3),
        ("mrr@2", {"d": 1}, ["x", "y", "d"], 0.0),
        ("mrr(rel=2)", {"a": 1, "d": 2}, ["a", "d"], 0.5),
        ("map", {"a": 1, "b": 1, "c": 1}, ["a", "x", "b"], (1 + 2 / 3) / 3),  # c never retrieved
        ("map@2", {"a": 1, "b": 1}, ["a", "x", "b"], 0.5),  # divides by R = 2, not min(R, k)
        ("p@10", {"a": 1}, ["a"], 0.1),  # short list still divides by k
        ("p@2", {"a": 1, "b": 0}, ["a", "b", "c"], 0.5),
        ("recall@2", {"a": 1, "b": 2, "c": 1}, ["a", "x", "b"], 1 / 3),
        ("hit@2", {"a": 1}, ["x", "a"], 1.0),
        ("hit@1", {"a": 1}, ["x", "a"], 0.0),
        ("rprec", {"a": 1, "b": 1}, ["a", "x", "b"], 0.5),
        ("judged@4", {"a": 0, "b": 2}, ["a", "x", "b", "y"], 0.5),  # grade 0 counts as judged
        ("judged@10", {"a": 0}, ["a", "x"], 0.5),  # divides by min(k, returned)
        ("judged@10", {"a": 0}, [], 0.0),
        ("map", {"a": 0}, ["a"], 0.0),  # no relevant document: every binary metric is 0
        ("recall@10", {}, ["a"], 0.0),
    ],
)
def test_hand_computed(spec: str, grades: dict[str, float], ranking: list[str], expected: float) -> None:
    assert one(spec, grades, ranking) == pytest.approx(expected, abs=1e-12)


def test_err_from_the_definition() -> None:
    # Chapelle et al. 2009 with gdeval's R = (2^g - 1) / 2^4: grades 3, 0, 2 -> R = 7/16, 0, 3/16
    r1, r3 = 7 / 16, 3 / 16
    expected = r1 / 1 + (1 - r1) * r3 / 3
    assert one("err@10", {"a": 3, "b": 0, "c": 2}, ["a", "b", "c"]) == pytest.approx(expected, abs=1e-15)
    assert one("err@2", {"a": 3, "b": 0, "c": 2}, ["a", "b", "c"]) == pytest.approx(r1, abs=1e-15)
    # a grade above the maximum is clamped: stop probability (2^4 - 1) / 2^4
    assert one("err@1", {"a": 9}, ["a"]) == pytest.approx(15 / 16)
    # max=3: R = (2^3 - 1) / 2^3
    assert one("err@1(max=3)", {"a": 3}, ["a"]) == pytest.approx(7 / 8)


def test_duplicates_gain_nothing_keep_their_rank_and_are_counted() -> None:
    # The public bug report: relevant {a_bc574ae_2}, ranking [a, a, z]. A library renamed the second `a` into a
    # real document's id and scored NDCG@3 = 0.63. Nothing relevant was returned: 0.
    grades = {"a_bc574ae_2": 1}
    score = score_query(grades, ["a", "a", "z"], ALL)
    assert score.values["ndcg@3"] == 0.0
    assert all(score.values[m.spec] == 0.0 for m in ALL if m.name != "judged")
    assert score.duplicates == 1
    first = score_query({"a": 1}, ["a", "a_bc574ae_2", "a"], ALL)
    second = score_query({"a": 1}, ["a", "b", "a"], ALL)
    assert first.values == second.values
    assert first.duplicates == second.duplicates == 1
    # the later occurrence keeps its rank: the relevant b is at rank 3, not 2
    assert one("mrr", {"b": 1}, ["a", "a", "b"]) == pytest.approx(1 / 3)


# ---------------------------------------------------------------- pytrec_eval as the oracle

IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "a_bc574ae_2", "a_bc574ae", "doc-9", "Z", "z", "10", "9"])


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(draw(st.integers(1, 6))):
        qid = f"q{q}"
        qrels[qid] = draw(st.dictionaries(IDS, st.integers(-1, 4), min_size=1, max_size=8))
        scores = st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5, allow_nan=False, width=32))
        run[qid] = draw(st.dictionaries(IDS, scores, min_size=1, max_size=14))  # unjudged, ties, negatives
    return qrels, run


@settings(max_examples=300, deadline=None)
@given(collections(), st.sampled_from([1, 2, 3]))
def test_equals_pytrec_eval(data: tuple[dict, dict], threshold: int) -> None:
    qrels, run = data
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=threshold)
    expected = evaluator.evaluate(run)
    suffix = "" if threshold == 1 else f"(rel={threshold})"
    metrics = [parse_metric(spec + (suffix if parse_metric(spec).name != "ndcg" else "")) for spec in TREC_NAMES]
    for qid, scores in run.items():
        got = score_query(qrels[qid], rank_scored(scores), metrics).values
        for metric, spec in zip(metrics, TREC_NAMES, strict=True):
            assert got[metric.spec] == pytest.approx(expected[qid][TREC_NAMES[spec]], abs=1e-9), (qid, spec)


def test_trec_tie_order() -> None:
    # score descending, then document id descending, whatever order the input had
    assert rank_scored({"a": 1.0, "c": 2.0, "b": 1.0, "d": -1.0}) == ["c", "b", "a", "d"]
    assert rank_scored({"10": 0.0, "9": 0.0}) == ["9", "10"]  # byte order, not numeric


@settings(max_examples=200, deadline=None)
@given(st.lists(IDS, unique=True, min_size=1, max_size=12), st.dictionaries(IDS, st.integers(0, 3)), st.integers(1, 12))
def test_judged_equals_ir_measures(ranking: list[str], grades: dict[str, int], k: int) -> None:
    qrels = [ir_measures.Qrel("q", doc, grade) for doc, grade in grades.items()] or [ir_measures.Qrel("q", "_", 0)]
    run = [ir_measures.ScoredDoc("q", doc, float(len(ranking) - i)) for i, doc in enumerate(ranking)]  # no ties
    (expected,) = ir_measures.iter_calc([ir_measures.Judged @ k], qrels, run)
    assert one(f"judged@{k}", grades or {"_": 0}, ranking) == pytest.approx(expected.value, abs=1e-12)


# ---------------------------------------------------------------- properties


@settings(max_examples=200, deadline=None)
@given(
    st.lists(IDS, max_size=15),
    st.dictionaries(IDS, st.integers(0, 4), max_size=10),
    st.permutations(["a", "b", "c", "d", "e", "f", "g", "a_bc574ae_2", "a_bc574ae", "doc-9", "Z", "z", "10", "9"]),
)
def test_renaming_ids_never_changes_a_score(ranking: list[str], grades: dict[str, int], names: list[str]) -> None:
    pool = ["a", "b", "c", "d", "e", "f", "g", "a_bc574ae_2", "a_bc574ae", "doc-9", "Z", "z", "10", "9"]
    rename = dict(zip(pool, names, strict=True))
    before = score_query(grades, ranking, ALL)
    after = score_query({rename[d]: g for d, g in grades.items()}, [rename[d] for d in ranking], ALL)
    assert before == after


@settings(max_examples=100, deadline=None)
@given(st.lists(IDS, max_size=15), st.dictionaries(IDS, st.integers(0, 4), max_size=10))
def test_values_are_bounded(ranking: list[str], grades: dict[str, int]) -> None:
    for value in score_query(grades, ranking, ALL).values.values():
        assert 0.0 <= value <= 1.0 + 1e-12


@settings(max_examples=200, deadline=None)
@given(st.lists(IDS, unique=True, max_size=12), st.dictionaries(IDS, st.integers(0, 4), max_size=10), st.integers(0, 8))
def test_a_placed_ranking_scores_as_the_padded_list(ranking: list[str], grades: dict[str, int], extra: int) -> None:
    """The floor's fast path: a list given as {doc: rank} and a length scores as the list padded with unjudged ids
    (which score_query, checked against pytrec_eval above, walks)."""
    padded = ranking + [f"unjudged-{i}" for i in range(extra)]
    placed = {doc: rank for rank, doc in enumerate(ranking)}
    assert score_placed(grades, placed, len(padded), ALL) == score_query(grades, padded, ALL).values


# ---------------------------------------------------------------- spec parser


def test_parser_round_trips_and_records_conventions() -> None:
    assert parse_metric("nDCG@10") == Metric("ndcg", 10)
    assert parse_metric("success@5") == Metric("hit", 5)
    assert parse_metric("ndcg@10(gain=exp)").spec == "ndcg@10(gain=exp)"
    assert parse_metric("p@5(rel=2)").definition() == {"name": "p", "k": 5, "threshold": 2.0}
    assert parse_metric("ndcg@10").definition() == {"name": "ndcg", "k": 10, "gain": "linear"}
    assert [m.spec for m in parse_metrics("ndcg@10, mrr@10 recall@100")] == ["ndcg@10", "mrr@10", "recall@100"]
    assert depth(parse_metrics("ndcg@3 recall@100")) == 100
    assert depth(parse_metrics("ndcg@3 map")) == 10


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bleu@10", "unknown metric 'bleu'"),
        ("ndcg@0", "bad cut-off '0'"),
        ("ndcg@ten", "bad cut-off 'ten'"),
        ("ndcg@-3", "bad cut-off '-3'"),
        ("p", "needs a cut-off"),
        ("rprec@10", "takes no cut-off"),
        ("ndcg@10(gain=log)", "gain must be one of"),
        ("map(gain=exp)", "has no option 'gain'"),
        ("p@10(rel=high)", "needs a number"),
        ("@@", "cannot read metric"),
    ],
)
def test_parser_errors_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(MetricSpecError, match=message.replace("(", r"\(")):
        parse_metric(spec)


def test_duplicate_and_empty_metric_lists_are_errors() -> None:
    with pytest.raises(MetricSpecError, match="listed twice"):
        parse_metrics("ndcg@10 nDCG@10")
    with pytest.raises(MetricSpecError, match="no metrics"):
        parse_metrics("")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "p@10(rel=0)",
            "option rel=0 is out of range (in 'p@10(rel=0)'): the relevance threshold is a number > 0 and <= 1000; "
            "rel=0 would count unjudged and irrelevant documents as relevant",
        ),
        (
            "map(rel=-1)",
            "option rel=-1 is out of range (in 'map(rel=-1)'): the relevance threshold is a number > 0 and <= 1000; "
            "rel=0 would count unjudged and irrelevant documents as relevant",
        ),
        (
            "mrr(rel=nan)",
            "option rel=nan is out of range (in 'mrr(rel=nan)'): the relevance threshold is a number > 0 and <= 1000; "
            "rel=0 would count unjudged and irrelevant documents as relevant",
        ),
        (
            "err@10(max=2000)",
            "option max=2000 is out of range (in 'err@10(max=2000)'): the largest grade is a number > 0 and <= 1000",
        ),
        (
            "err@10(max=inf)",
            "option max=inf is out of range (in 'err@10(max=inf)'): the largest grade is a number > 0 and <= 1000",
        ),
    ],
)
def test_thresholds_and_max_grade_are_range_checked(spec: str, message: str) -> None:
    with pytest.raises(MetricSpecError) as error:
        parse_metric(spec)
    assert str(error.value) == message


def test_the_largest_accepted_grade_does_not_overflow() -> None:
    grades = {"a": 1000, "b": 1}
    for spec in ("ndcg@10(gain=exp)", "err@10(max=1000)", "ndcg@10"):
        value = score_query(grades, ["b", "a"], [parse_metric(spec)]).values[spec]
        assert 0 < value < 1 and math.isfinite(value)
