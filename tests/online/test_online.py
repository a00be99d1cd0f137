"""pytest_relevance.online and `pytest-relevance online` / `simulate`: the simulator's exact values checked by hand
and by sampling, the estimators against the simulator's truth, support and not-estimable strata, and the CLI."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import numpy as np
import pytest

from pytest_relevance.cli.commands import main
from pytest_relevance.judgments.clicks import query_id, read_log
from pytest_relevance.online import simulator as sim
from pytest_relevance.online.click_model import fit_pbm
from pytest_relevance.online.estimators import estimate, team_draft, wilson
from pytest_relevance.online.logged import sessions

UBI = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ubi-esci" / "ubi_queries_events.ndjson"
A0, A1, A2 = 0.05, 0.05 + 0.95 / 3, 1.0  # floor 0.05, three levels: floor + 0.95 (2^l - 1) / 3


def test_attractiveness_and_exact_values_by_hand() -> None:
    found = sim.truth({"q": {"a": 0, "b": 1, "c": 2}}, sim.UserModel())
    assert found.attractiveness["q"] == pytest.approx({"a": A0, "b": A1, "c": A2})
    pbm = sim.UserModel("pbm", decay=1.0)
    assert sim.value(found, pbm, {"q": ["c", "a", "b"]}, 3) == pytest.approx(1 + 0.5 * A0 + A1 / 3)
    assert sim.value(found, pbm, {"q": ["c", "a", "b"]}, 1) == pytest.approx(1.0)
    cascade = sim.UserModel("cascade")
    assert sim.value(found, cascade, {"q": ["b", "c"]}, 2) == pytest.approx(1.0)
    assert sim.value(found, cascade, {"q": ["b", "a"]}, 2) == pytest.approx(A1 + (1 - A1) * A0)
    dbn = sim.UserModel("dbn", perseverance=0.9)
    assert sim.value(found, dbn, {"q": ["b", "a"]}, 2) == pytest.approx(A1 + 0.9 * (1 - A1 * A1) * A0)
    assert sim.value(found, pbm, {"q": ["x"]}, 1) == pytest.approx(A0)  # unjudged: level 0


@pytest.mark.parametrize("kind", sim.USERS)
def test_sampled_clicks_average_to_the_exact_value(kind: str) -> None:
    grades = {"q": {"a": 0, "b": 1, "c": 2, "d": 1}}
    user = sim.UserModel(kind)
    found = sim.truth(grades, user)
    data = sim.simulate(found, user, {"q": ["b", "c", "a", "d"]}, 40000, 4, seed=1, noise=0.0)
    exact = sim.value(found, user, {"q": ["b", "c", "a", "d"]}, 4)
    assert data.clicks.sum(axis=1).mean() == pytest.approx(exact, abs=0.02)


def _world(seed: int = 3, searches: int = 20000):
    rng = np.random.default_rng(seed)
    grades = {f"query {q}": {f"d{q}-{i}": int(rng.integers(0, 4)) for i in range(20)} for q in range(40)}
    user = sim.UserModel("pbm")
    found = sim.truth(grades, user, sim.zipf(sorted(grades), 0.5, seed))
    logging = {t: sorted(docs) for t, docs in grades.items()}
    return grades, user, found, logging, sim.simulate(found, user, logging, searches, 10, seed, noise=1.5)


def test_dr_covers_the_true_delta_of_a_better_ranking() -> None:
    grades, user, found, logging, data = _world()
    better = {t: sorted(docs[:12], key=lambda d: -grades[t][d]) + docs[12:] for t, docs in logging.items()}
    truth = sim.value(found, user, better, 10) - sim.value(found, user, logging, 10)
    report = estimate(data, fit_pbm(data), logging, better, ("dm", "ips", "snips", "dr"), seed=0)
    for name in ("ips", "snips", "dr"):
        e = report.estimates["all"][name]
        assert e.estimable and e.ci is not None and e.ci_queries is not None and e.delta is not None
        assert e.ci[0] <= truth <= e.ci[1], (name, truth, e.ci)
        assert e.ci_queries[0] <= e.ci[0] and e.ci[1] <= e.ci_queries[1]  # other queries: more uncertain
        assert e.delta > 0 and e.ci[0] > 0
    assert report.queries["all"] == 40


def test_unlogged_documents_lower_support_until_not_estimable() -> None:
    _, _, _, logging, data = _world(searches=4000)
    novel = {t: [f"new-{i}" for i in range(8)] + docs for t, docs in logging.items()}
    report = estimate(data, fit_pbm(data), logging, novel, ("dr", "interleave"), seed=0)
    e = report.estimates["all"]["dr"]
    assert e.support.slots == pytest.approx(0.2)  # 2 of 10 slots show documents the log has
    assert not e.estimable and e.delta is None and e.ci is None
    assert not report.estimates["all"]["interleave"].estimable
    assert estimate(data, fit_pbm(data), logging, novel, ("dr",), floor=0.1).estimates["all"]["dr"].estimable


def test_identical_rankings_estimate_no_change() -> None:
    _, _, _, logging, data = _world(searches=3000)
    for e in estimate(data, fit_pbm(data), logging, logging, seed=0).estimates["all"].values():
        if e.unit == "clicks per search":
            assert e.delta == 0 and e.ci == pytest.approx((0, 0), abs=1e-12) and e.ci_queries == (0, 0)


def test_team_draft_alternates_and_wilson_by_hand() -> None:
    merged = team_draft(["a", "b", "c"], ["b", "d", "a"], 4, random.Random(0))
    assert sorted(d for d, _ in merged) == ["a", "b", "c", "d"]
    teams = [t for _, t in merged]
    assert teams.count(0) == teams.count(1) == 2
    low, high = wilson(5, 10)  # (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    assert (low, high) == pytest.approx((0.236593, 0.763407), abs=1e-6)


def test_the_ubi_log_written_reads_back_as_the_same_sessions(tmp_path: Path) -> None:
    _, _, _, _, data = _world(searches=300)
    path = tmp_path / "log.ndjson"
    sim.write_ubi_file(data, path)
    back = sessions(read_log([path]), 10, {"click": 1.0})
    assert len(back) == len(data) and int(back.clicks.sum()) == int(data.clicks.sum())
    shown = {(data.texts[q], tuple(data.docs[d] for d in row)) for q, row in zip(data.query, data.shown, strict=True)}
    read = {(back.texts[q], tuple(back.docs[d] for d in row)) for q, row in zip(back.query, back.shown, strict=True)}
    assert shown == read


def _run(path: Path, rankings: dict[str, list[str]]) -> None:
    path.write_text(
        "".join(f"{query_id(t)} Q0 {d} {i + 1} {100 - i} x\n" for t, ds in rankings.items() for i, d in enumerate(ds))
    )


def test_online_cli_json(tmp_path: Path, capsys) -> None:
    grades, _, _, logging, data = _world(searches=5000)
    sim.write_ubi_file(data, tmp_path / "log.ndjson")
    better = {t: sorted(docs[:12], key=lambda d: -grades[t][d]) + docs[12:] for t, docs in logging.items()}
    _run(tmp_path / "base.run", logging)
    _run(tmp_path / "cand.run", better)
    (tmp_path / "topics.tsv").write_text("".join(f"{query_id(t)}\t{t}\n" for t in grades))
    args = [str(tmp_path / "log.ndjson"), "--baseline", str(tmp_path / "base.run"), "--candidate"]
    args += [str(tmp_path / "cand.run"), "--max-rank", "10", "--topics", str(tmp_path / "topics.tsv")]
    assert main(["online", *args, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["queries"] == 40 and report["searches"] == 5000
    for name in ("dm", "ips", "snips", "dr", "interleave"):
        e = report["estimators"][name]
        assert set(e) >= {"baseline", "candidate", "delta", "ci", "support"}
        assert set(e["support"]) == {"slots", "ess", "max_weight"} and e["delta"] > 0
    assert set(report["strata"]) == {"head", "torso", "tail"}
    assert main(["online", *args, "--estimator", "dr"]) == 0
    out = capsys.readouterr().out
    assert "dr (clicks per search)" in out and "ips (clicks" not in out and "support: the log shows" in out


def test_online_cli_errors(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _, _, _, logging, data = _world(searches=200)
    sim.write_ubi_file(data, tmp_path / "log.ndjson")
    _run(tmp_path / "base.run", logging)
    args = ["online", "log.ndjson", "--baseline", "base.run", "--candidate", "base.run", "--max-rank", "10"]
    assert main(args) == 2
    assert "give --topics" in capsys.readouterr().err
    (tmp_path / "topics.tsv").write_text("only-a-qid\n")
    assert main([*args, "--topics", "topics.tsv"]) == 2
    assert "topics.tsv:1" in capsys.readouterr().err
    (tmp_path / "topics.tsv").write_text("other\tnot logged\n")
    assert main([*args, "--topics", "topics.tsv"]) == 2
    assert "no query of the log has a list in both runs" in capsys.readouterr().err


def test_simulate_cli_writes_a_log_and_prints_exact_values(tmp_path: Path, capsys) -> None:
    (tmp_path / "j.yaml").write_text(
        "queries:\n  - {id: q1, text: red shoes, grades: {a: 2, b: 0, c: 1}}\n"
        "  - {id: q2, text: blue hat, grades: {d: 1, e: 2}}\n"
    )
    (tmp_path / "log.run").write_text("q1 Q0 b 1 3 x\nq1 Q0 a 2 2 x\nq1 Q0 c 3 1 x\nq2 Q0 d 1 2 x\nq2 Q0 e 2 1 x\n")
    out = tmp_path / "sim.ndjson"
    args = ["simulate", "--judgments", str(tmp_path / "j.yaml"), "--logging", str(tmp_path / "log.run")]
    assert main([*args, "--max-rank", "2", "--searches", "50", "--user", "cascade", "--skew", "0", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "50 searches" in printed
    exact = 0.5 * (A0 + (1 - A0) * A2) + 0.5 * (A1 + (1 - A1) * A2)  # logging top 2: (b, a) and (d, e)
    assert f"{exact:.6f}" in printed
    assert len(sessions(read_log([out]), 2, {"click": 1.0})) == 50


@pytest.mark.skipif(not UBI.is_file(), reason="the shared UBI log (../shared/data/ubi-esci) is absent")
def test_online_on_the_shared_ubi_log_is_fast_and_says_its_support(tmp_path: Path, capsys) -> None:
    log = read_log([UBI])
    lists: dict[str, dict[str, int]] = {}
    for e in log.events:
        text = log.text(e)
        if e.action == "impression" and e.object_id and e.ordinal is not None and text:
            lists.setdefault(text, {}).setdefault(e.object_id, e.ordinal)
    base = {t: sorted(docs, key=lambda d: (docs[d], d)) for t, docs in lists.items()}
    _run(tmp_path / "base.run", base)
    _run(tmp_path / "cand.run", {t: ds[::-1] for t, ds in base.items()})
    (tmp_path / "topics.tsv").write_text("".join(f"{query_id(t)}\t{t}\n" for t in lists))
    start = time.perf_counter()
    runs = ["--baseline", str(tmp_path / "base.run"), "--candidate", str(tmp_path / "cand.run")]
    code = main(
        ["online", str(UBI), *runs, "--max-rank", "10", "--topics", str(tmp_path / "topics.tsv"), "--format", "json"]
    )
    assert code == 0 and time.perf_counter() - start < 10
    report = json.loads(capsys.readouterr().out)
    assert report["searches"] < 300  # 3,448 events, most of them not complete searches
    assert report["estimators"]["dr"]["support"]["slots"] < 0.9


def test_the_search_level_interval_has_the_width_repeated_logs_show() -> None:
    """The standard error behind `ci` against the spread of the IPS delta over 40 independently simulated logs
    (the true propensities, so only the searches vary)."""
    from dataclasses import replace

    grades, user, found, logging, _ = _world(searches=10)
    better = {t: sorted(docs[:10], key=lambda d: -grades[t][d]) + docs[10:] for t, docs in logging.items()}
    deltas, errors = [], []
    for seed in range(40):
        data = sim.simulate(found, user, logging, 4000, 10, 100 + seed, noise=1.5)
        model = replace(fit_pbm(data), propensity=user.examination(10), propensity_draws=np.zeros((0, 10)))
        e = estimate(data, model, logging, better, ("ips",), seed, resamples=10, by_stratum=False).estimates["all"]
        assert e["ips"].ci is not None and e["ips"].delta is not None
        deltas.append(e["ips"].delta)
        errors.append((e["ips"].ci[1] - e["ips"].ci[0]) / 2 / 1.959964)
    assert 0.75 < float(np.mean(errors)) / float(np.std(deltas, ddof=1)) < 1.33


def test_the_gate_line_and_its_rule(tmp_path: Path) -> None:
    from pytest_relevance.online.verdict import check

    grades, _, _, logging, data = _world(searches=4000)
    sim.write_ubi_file(data, tmp_path / "log.ndjson")
    worse = {t: sorted(docs[:12], key=lambda d: grades[t][d]) + docs[12:] for t, docs in logging.items()}
    found = check([tmp_path / "log.ndjson"], logging, worse, 10)
    e = found.estimate
    assert e.delta is not None and e.ci is not None and e.baseline
    line = found.line()
    assert line.startswith(f"estimated clicks@10: {100 * e.delta / e.baseline:+.1f}% [") and line.endswith(
        f"DR, support {e.support.slots:.2f}"
    )
    assert found.fails(0.02) == (e.ci[1] / e.baseline < -0.02) and found.fails(0.02)
    assert not found.fails(0.02, floor=1.01)  # below the support floor: never a failure
    novel = {t: [f"new-{i}" for i in range(10)] for t in logging}
    unsupported = check([tmp_path / "log.ndjson"], logging, novel, 10)
    assert unsupported.line() == "estimated clicks@10: not estimable, DR, support 0.00"
    assert not unsupported.fails(0.0)
