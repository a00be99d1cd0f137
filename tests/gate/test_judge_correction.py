"""Judge-corrected (PPI) estimates in the gate: reported beside the plain numbers when people graded a sample of the
judge-graded queries (relevance_human_judgments), and decided on with relevance_judge_correction = ppi.

The case every test here builds: 8 queries, 6 in head each with one document `j` a lenient judge called relevant,
2 in tail graded by people only. The baseline ranks two human-graded relevant documents first everywhere; the
candidate puts `j` second in the head queries. People re-graded `j` of q1-q4: irrelevant in q1-q3, relevant in q4.
The judge says nothing changed (p@2 stays 1); by people's grades head lost half of p@2 in most queries. Every
expected number below is worked out by hand in the comments, never read back from the implementation.
"""

from __future__ import annotations

import pytest
from report_model import default_settings

from pytest_relevance.config.settings import SettingError, Tolerance, read
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.evaluation.ppi import corrected, human_grades, ppi_mean
from pytest_relevance.gate.entry import make_entry
from pytest_relevance.gate.pipeline import Check, Checked, check_evaluation
from pytest_relevance.judgments.model import Judgments, Provenance, Query
from pytest_relevance.metrics.ranking import parse_metrics
from pytest_relevance.reports import html, markdown
from pytest_relevance.reports.terminal import failure_text

METRICS = parse_metrics("p@2")
Z = 1.959964  # the normal quantile of a 95% interval


def judgments() -> Judgments:
    queries = []
    for i in range(1, 9):
        head = i <= 6
        grades = {"h1": 2, "h2": 1, **({"j": 1} if head else {})}
        provenance = {"j": Provenance("judge:lenient")} if head else {}
        queries.append(Query(f"q{i}", f"text {i}", "head" if head else "tail", {}, grades, provenance))
    return Judgments(tuple(queries), "v1", "judgments.yaml")


JUDGMENTS = judgments()
HUMAN = Judgments(
    tuple(Query(f"q{i}", f"text {i}", None, {}, {"j": 0 if i < 4 else 1}) for i in range(1, 5)), "h", "human.yaml"
)
BASELINE = {f"q{i}": ["h1", "h2"] for i in range(1, 9)}
CANDIDATE = {f"q{i}": ["h1", "j"] if i <= 6 else ["h1", "h2"] for i in range(1, 9)}


def checked(mode: str, alpha: float | None = None, run: dict | None = None, depth: int = 10) -> Checked:
    entry = make_entry(evaluate(BASELINE, JUDGMENTS, METRICS), "v1", "custom", Tolerance(0.005), "first", depth)
    settings = default_settings(judge_correction=mode, human_judgments="human.yaml", alpha=alpha)
    evaluation = evaluate(run or CANDIDATE, JUDGMENTS, METRICS)
    return check_evaluation(evaluation, Check("t", JUDGMENTS, settings, entry=entry, human=HUMAN))


def row(result: Checked, stratum: str) -> dict:
    return next(r for r in result.report["rows"] if r["stratum"] == stratum)


def test_ppi_mean_weighs_the_correction_by_the_share_of_judge_graded_queries() -> None:
    # 5 queries, 4 hold judge grades, 2 of those human-graded: 0.5 + 4/5 * mean(-0.2, 0.0) = 0.42
    estimate = ppi_mean([0.3, 0.4, 0.5, 0.6, 0.7], [(0.3, 0.1), (0.4, 0.4)], judged=4)
    assert estimate.value == pytest.approx(0.42)
    # var(values) = 0.025, var(rectifier) = 0.02: sd = sqrt(0.025 / 5 + 0.64 * 0.02 / 2)
    half = Z * (0.025 / 5 + 0.64 * 0.02 / 2) ** 0.5
    assert (estimate.low, estimate.high) == pytest.approx((0.42 - half, 0.42 + half))
    assert (estimate.queries, estimate.human) == (5, 2)


def test_the_human_graded_subset_is_the_queries_whose_judge_graded_documents_people_all_graded() -> None:
    partly = Judgments((Query("q5", "text 5", None, {}, {"h1": 2}),), "h", "partly.yaml")  # not j: left out
    people, partial = human_grades(JUDGMENTS, Judgments((*HUMAN.queries, *partly.queries), "h", "h.yaml"))
    assert sorted(people) == ["q1", "q2", "q3", "q4"] and partial == ["q5"]
    assert people["q1"] == {"h1": 2, "h2": 1, "j": 0}  # the judgments' grades with people's put over them


def test_a_hand_computed_corrected_change_and_value() -> None:
    """all (8 queries, 6 with judge grades, 4 human-graded): the judge's change is 0 in every query; people's is
    -0.5 in q1-q3 (p@2 1 -> 0.5) and 0 in q4, so the rectifier is (-0.5, -0.5, -0.5, 0), mean -0.375, sample
    variance 0.0625. Change = 0 + 6/8 * -0.375 = -0.28125, sd = sqrt(0 / 8 + 0.75^2 * 0.0625 / 4) = 0.09375. The
    value is 1 (every query's judge p@2) with the same correction: 0.71875. head (6 queries, all judge-graded):
    -0.375, sd sqrt(0.0625 / 4) = 0.125."""
    result = checked("none")
    ppi = row(result, "all")["ppi"]
    assert ppi["delta"] == pytest.approx(-0.2812, abs=1e-4)  # -0.28125, rounded to 4 decimals as the report is
    assert ppi["delta_ci"] == pytest.approx([-0.28125 - Z * 0.09375, -0.28125 + Z * 0.09375], abs=1e-4)
    assert ppi["value"] == pytest.approx(0.7188, abs=1e-4) and (ppi["queries"], ppi["human"]) == (8, 4)
    head = row(result, "head")["ppi"]
    assert head["delta"] == pytest.approx(-0.375) and head["delta_ci"] == pytest.approx(
        [-0.375 - Z * 0.125, -0.375 + Z * 0.125], abs=1e-4
    )
    assert row(result, "tail")["ppi"] is None
    assert result.report["judge_correction"] == {"mode": "none", "plain": {"tail": "no judge-made grades"}}


def test_reported_only_the_plain_numbers_decide_and_the_estimates_are_said() -> None:
    result = checked("none")
    assert result.verdict.status == "passed"
    assert not any(r["ppi"] and r["ppi"]["gated"] for r in result.report["rows"])
    lines = markdown.render([result.report])
    assert "judge-corrected (PPI) estimates with 95% intervals, beside the plain numbers the gate decides on" in lines
    assert "p@2 0.7188 [0.5350, 0.9025] (plain 1.0000), change -0.2812 [-0.4650, -0.0975] (plain +0.0000)" in lines
    assert "no judge-corrected estimate for tail: no judge-made grades" in html.render([result.report])


@pytest.mark.parametrize("alpha", [None, 0.05])
def test_with_ppi_a_biased_judge_no_longer_hides_the_drop(alpha: float | None) -> None:
    """The plain numbers pass (the judge calls `j` relevant); the corrected change of all and head is far beyond
    tolerance, and with alpha significant: z = -0.28125 / 0.09375 = -3, one-sided p = 0.00135 (Holm over the 3
    rows: 3 x 0.00135 = 0.004)."""
    assert checked("none", alpha).verdict.status == "passed"
    result = checked("ppi", alpha)
    assert result.verdict.status == "regressed"
    assert [r["stratum"] for r in result.report["rows"] if r["status"] == "regression"] == ["all", "head"]
    assert row(result, "tail")["status"] == "same"  # no judge grades: gated on its plain delta
    text = "\n".join(failure_text(result.report, "relevance-baseline.json", alpha))
    assert "all.p@2: 1.0000 -> 1.0000 (+0.0000 plain, judge-corrected -0.2812, p=" in text
    assert "gated on the plain numbers for tail: no judge-made grades" in text
    if alpha is not None:
        assert row(result, "all")["p"] == pytest.approx(0.00135, abs=1e-5)
        assert row(result, "all")["p_adjusted"] == pytest.approx(3 * 0.00135, abs=3e-5)
        assert "Holm over 3 stratum x metric rows (2 judge-corrected rows' p-values come from the PPI" in text


def test_with_ppi_an_unchanged_run_passes() -> None:
    result = checked("ppi", 0.05, BASELINE)
    assert result.verdict.status == "passed"
    assert row(result, "all")["ppi"]["delta"] == 0 and row(result, "all")["ppi"]["gated"]


def test_a_baseline_too_shallow_to_rescore_is_gated_on_the_plain_change_and_says_so() -> None:
    result = checked("ppi", run=CANDIDATE, depth=1)
    assert result.verdict.status == "passed"
    assert row(result, "all")["ppi"]["delta"] is None and row(result, "all")["ppi"]["value"] is not None
    said = result.report["judge_correction"]["plain"]
    assert said["p@2 deltas"].startswith("the baseline keeps 1 ids per query, fewer than the cut-off")


def test_without_human_grades_nothing_is_corrected() -> None:
    entry = make_entry(evaluate(BASELINE, JUDGMENTS, METRICS), "v1", "custom", Tolerance(0.005), "first")
    settings = default_settings()
    result = check_evaluation(evaluate(CANDIDATE, JUDGMENTS, METRICS), Check("t", JUDGMENTS, settings, entry=entry))
    assert result.report["judge_correction"] is None and all(r["ppi"] is None for r in result.report["rows"])


def test_corrected_needs_two_human_graded_queries_in_a_stratum() -> None:
    one = Judgments(HUMAN.queries[:1], "h", "one.yaml")
    found = corrected(evaluate(CANDIDATE, JUDGMENTS, METRICS), JUDGMENTS, one)
    assert found.estimates == {}
    assert found.plain["all"] == "1 of its 6 judge-graded queries human-graded; 2 needed"


def _settings(**values: str) -> object:
    from pytest_relevance.config.keys import SETTINGS

    return read(lambda key: values.get(key, SETTINGS[key][1]))


def test_a_correction_other_than_none_or_ppi_names_the_key_and_the_choices() -> None:
    with pytest.raises(SettingError, match=r"^relevance_judge_correction: 'PPI' is not one of none, ppi: none "):
        _settings(relevance_judge_correction="PPI")


def test_ppi_without_human_grades_says_which_key_to_set() -> None:
    with pytest.raises(SettingError, match=r"^relevance_judge_correction: ppi .* set relevance_human_judgments = FILE"):
        _settings(relevance_judge_correction="ppi")
    assert _settings(relevance_judge_correction="ppi", relevance_human_judgments="h.yaml").judge_correction == "ppi"
