"""Metrics beyond relevance in the plugin: the demo gate with diversity and age, and a field the corpus lacks."""

from __future__ import annotations

import json

import pytest

METRICS = "ndcg@10 mrr@10 recall@100 distinct@10(field=brand) age@10(field=released)"
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly")


def test_breaking_the_recency_decay_fails_age_while_ndcg_holds(demo: pytest.Pytester) -> None:
    demo.makeini(f"[pytest]\nrelevance_metrics = {METRICS}\n")
    assert demo.runpytest_inprocess(*QUIET, "--relevance-update", "--relevance-reason", "first").ret == 0
    query = demo.path / "fixtures" / "query.yaml"
    text = query.read_text()
    assert "origin: now," in text
    query.write_text(text.replace("origin: now,", "origin: now-365d,"))  # the decay now favours last year's items
    result = demo.runpytest_inprocess(*QUIET, "--relevance-report", "report.json")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*all.age@10(field=released): 222.7303 -> 383.3152 (+160.5849, p<0.001, 95% CI [[]+*, +*[]]): lower is "
            "better, so this rise is the regression"
        ]
    )
    rows = json.loads((demo.path / "report.json").read_text())["tests"][0]["rows"]
    status = {(r["stratum"], r["metric"]): r["status"] for r in rows}
    assert {status[(s, "age@10(field=released)")] for s in ("all", "head", "torso", "tail")} == {"regression"}
    assert {status[(s, "ndcg@10")] for s in ("all", "head", "torso", "tail")} <= {"same", "improvement"}
    age = next(r for r in rows if r["metric"] == "age@10(field=released)")
    assert age["higher_is_better"] is False and age["floor"] is None and age["set_level"] is False


def test_a_field_the_corpus_lacks_is_one_error_at_setup(demo: pytest.Pytester) -> None:
    demo.makeini("[pytest]\nrelevance_metrics = ndcg@10 distinct@10(field=brnad)\n")
    result = demo.runpytest_inprocess(*QUIET)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*relevance: fixtures/corpus.ndjson: metric distinct@10(field=brnad) reads field 'brnad', which no "
            "document of the corpus has; fields it has: brand, category, *"
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    assert result.parseoutcomes() == {"errors": 1}


def test_a_set_level_metric_is_tested_by_the_paired_bootstrap(demo: pytest.Pytester) -> None:
    demo.makeini("[pytest]\nrelevance_metrics = ndcg@10 exposure_gini@10(field=brand) coverage@10\n")
    assert demo.runpytest_inprocess(*QUIET, "--relevance-update", "--relevance-reason", "first").ret == 0
    query = demo.path / "fixtures" / "query.yaml"
    query.write_text(query.read_text().replace("origin: now,", "origin: now-730d,"))
    result = demo.runpytest_inprocess(*QUIET, "--relevance-report", "report.json", "--relevance-alpha", "0.05")
    assert result.ret == 1
    rows = json.loads((demo.path / "report.json").read_text())["tests"][0]["rows"]
    gini = next(r for r in rows if (r["stratum"], r["metric"]) == ("all", "exposure_gini@10(field=brand)"))
    # more concentrated on a few brands, but by less than resampling the 165 queries moves it: chance
    assert gini["set_level"] is True and gini["delta"] == 0.0159
    assert gini["status"] == "not significant" and gini["p"] > 0.05
    ndcg = next(r for r in rows if (r["stratum"], r["metric"]) == ("all", "ndcg@10"))
    assert ndcg["status"] == "regression" and ndcg["p"] < 0.001
    assert ndcg["set_level"] is False
    # every report says which values are one per stratum rather than a mean over queries
    said = "exposure_gini@10(field=brand), coverage@10: one value per stratum (set-level), not a mean over queries"
    result.stdout.fnmatch_lines([f"*{said}*"])
