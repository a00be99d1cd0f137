"""Settings that would switch the gate off without a word are refused (the plugin's one-line messages are in
test_bad_input.py; these are the rules themselves, without a pytest run per case)."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_model import report_of

from pytest_relevance.config.settings import SettingError, Tolerance, read
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.evaluation.significance import SMALLEST_P, sign_flip_p


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("1", "tolerance '1' is 1 or more"),  # a drop of exactly 1 passes, and no metric drops by more
        ("50", "tolerance '50' is 1 or more"),
        ("0.005 tail=50", "tolerance 'tail=50' is 1 or more"),
        ("0.005 0.5", "tolerance '0.005 0.5' gives two defaults (0.005 and 0.5)"),
        ("0.005,0.5", "tolerance '0.005,0.5' gives two defaults (0.005 and 0.5)"),
        ("0.5 tail=0.1 0.005", "gives two defaults (0.5 and 0.005)"),
        ("0.005 tail=0.01 tail=0.5", "gives tail= twice"),
        (1, "tolerance '1' is 1 or more"),
        pytest.param(10**400, "tolerance is too large to be a number", id="10**400"),
        pytest.param(-(10**400), "tolerance is too large to be a number", id="-10**400"),
        (1e300, "tolerance '1e+300' is 1 or more"),
        ({"default": 5}, "tolerance '5' is 1 or more"),
        ({"default": 0.01, "tail": 10**400}, "tolerance is too large to be a number"),
    ],
)
def test_a_tolerance_that_switches_the_gate_off_is_refused(spec: object, problem: str) -> None:
    with pytest.raises(SettingError) as caught:
        Tolerance.parse(spec)
    assert str(caught.value).startswith("relevance_tolerance: ") and problem in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("0.9999", Tolerance(0.9999)),
        ("tail=0.02", Tolerance(0.005, {"tail": 0.02})),
        ("tail=0.02 0.01", Tolerance(0.01, {"tail": 0.02})),
        (0, Tolerance(0.0)),
        ({"default": 0.0, "tail": 0.6}, Tolerance(0.0, {"tail": 0.6})),
    ],
)
def test_a_tolerance_below_one_with_one_default_is_read(spec: object, expected: Tolerance) -> None:
    assert Tolerance.parse(spec) == expected


def test_the_smallest_p_value_is_what_the_test_returns() -> None:
    """The number the alpha message states is the sign-flip test's real floor: sampled, and below the exact one."""
    assert sign_flip_p([-0.1] * 15) == SMALLEST_P == 1 / 10_001
    assert sign_flip_p([-0.1] * 14) == 2 / 2**14 > SMALLEST_P


def _settings(**values: str) -> object:
    defaults = {
        "relevance_metrics": "ndcg@10",
        "relevance_tolerance": "0.005",
        "relevance_alpha": "",
        "relevance_max_churn": "",
        "relevance_unused": "warn",
        "relevance_now": "2026-01-15T12:00:00Z",
        "relevance_min_judged": "0.8",
        "relevance_floor_margin": "0.05",
        "relevance_snapshot_depth": "10",
        "relevance_max_judgment_age": "",
        "relevance_judge_agreement": "",
        "relevance_alpha_scope": "test",
        "relevance_max_cost": "",
        "relevance_human_judgments": "",
        "relevance_judge_correction": "none",
        "relevance_clicks_log": "",
        "relevance_online_tolerance": "",
        "relevance_online_min_support": "0.5",
    }
    return read({**defaults, **values}.__getitem__)


def test_the_online_settings_are_read_and_checked() -> None:
    settings = _settings(relevance_clicks_log="a.ndjson  b.ndjson", relevance_online_tolerance="0.02")
    assert (settings.clicks_log, settings.online_tolerance, settings.online_min_support) == (
        ("a.ndjson", "b.ndjson"),
        0.02,
        0.5,
    )
    assert _settings().online_tolerance is None and _settings().clicks_log == ()
    with pytest.raises(SettingError, match=r"^relevance_online_tolerance: is set but relevance_clicks_log is not"):
        _settings(relevance_online_tolerance="0.02")
    with pytest.raises(SettingError, match=r"^relevance_online_tolerance: '1' is out of range"):
        _settings(relevance_clicks_log="a.ndjson", relevance_online_tolerance="1")
    with pytest.raises(SettingError, match=r"^relevance_online_min_support: '2' is out of range"):
        _settings(relevance_online_min_support="2")


@pytest.mark.parametrize("alpha", ["1e-9", "5e-5", str(1 / 10_001)])
def test_an_alpha_no_p_value_can_reach_is_refused(alpha: str) -> None:
    with pytest.raises(SettingError, match=r"^relevance_alpha: .* is at or below 1/10001, the smallest p-value"):
        _settings(relevance_alpha=alpha)


def test_an_alpha_just_above_the_smallest_p_value_fails_a_drop_of_many_queries() -> None:
    """p is compared unrounded: 1/10001 shows as 0.0001, but it is below an alpha of 0.0001."""
    from pytest_relevance.gate.entry import make_entry
    from pytest_relevance.judgments.model import Judgments, Query
    from pytest_relevance.metrics.ranking import parse_metrics

    assert _settings(relevance_alpha="0.0001").alpha == 0.0001
    judgments = Judgments(tuple(Query(f"q{i}", f"text {i}", None, {}, {"a": 1, "b": 0}) for i in range(20)), "v1", "j")
    metrics = parse_metrics("ndcg@10")
    before = evaluate({f"q{i}": ["a"] for i in range(20)}, judgments, metrics)
    after = evaluate({f"q{i}": ["b", "a"] for i in range(20)}, judgments, metrics)
    entry = make_entry(before, "v1", "custom", Tolerance(), "")
    report = report_of("t", after, judgments, entry, alpha=1e-4)
    assert [(r["p"], r["status"]) for r in report["rows"]] == [(1 / 10_001, "regression")]


def test_max_judgment_age() -> None:
    from datetime import timedelta

    assert _settings().max_judgment_age is None  # off by default
    assert _settings(relevance_max_judgment_age="26w").max_judgment_age == timedelta(days=182)
    with pytest.raises(SettingError, match=r"relevance_max_judgment_age: '180' is not an age"):
        _settings(relevance_max_judgment_age="180")


def test_several_paths_are_read_against_the_rootdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_relevance.config.resolver import Resolver

    monkeypatch.delenv("RELEVANCE_CLICKS_LOG", raising=False)
    ini = {"relevance_clicks_log": f"logs/a.ndjson {tmp_path / 'b.ndjson'}"}
    resolver = Resolver(lambda key: None, ini.get, tmp_path)
    assert resolver.paths("relevance_clicks_log") == [tmp_path / "logs" / "a.ndjson", tmp_path / "b.ndjson"]
    flag = Resolver(lambda key: "c.ndjson" if key == "relevance_clicks_log" else None, ini.get, tmp_path)
    assert flag.paths("relevance_clicks_log") == [tmp_path / "c.ndjson"]  # the flag wins over the ini
    monkeypatch.setenv("RELEVANCE_CLICKS_LOG", "/env/log.ndjson")
    assert Resolver(lambda key: None, lambda key: None, tmp_path).paths("relevance_clicks_log") == [
        Path("/env/log.ndjson")
    ]  # neither: the environment
    assert Resolver(lambda key: None, ini.get, None).paths("relevance_clicks_log") == [tmp_path / "b.ndjson"]
