"""relevance_max_cost through real pytest sessions: the demo's counts recorded in the entry and identical on every
xdist worker, a clause that multiplies the work caught with the clause named (in the failure and every report),
the entry's record checked, and on Cranfield a change that keeps NDCG@10 within tolerance while at least tripling
the documents scored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_embedded import CRANFIELD, cranfield_to

RULE = "relevance_max_cost = docs_scored=1.5x p95\n"
FUZZY = {"match": {"description": {"query": "{{query}}", "fuzziness": "AUTO", "boost": 0.01}}}
NAMED = 'most of the rise in match {"description":{"boost":0.01,"fuzziness":"AUTO","query":"{{query}}"}}: 0 -> '


@pytest.fixture(params=[[], ["-n", "2"]], ids=["no-xdist", "xdist"])
def workers(request: pytest.FixtureRequest) -> list[str]:
    return list(request.param)


def _costly(root: Path, clause: dict[str, Any], at: str = "fixtures/query.yaml") -> None:
    """The template's query as a bool: the old query should, beside `clause` (the work it adds)."""
    path = root / at
    template = yaml.safe_load(path.read_text())
    scored = template["query"].get("function_score", template)
    scored["query"] = {"bool": {"should": [scored["query"], clause]}}
    path.write_text(yaml.safe_dump(template))


def _entries(root: Path) -> dict[str, Any]:
    entries: dict[str, Any] = json.loads((root / "relevance-baseline.json").read_text())["entries"]
    return entries


def test_a_clause_that_multiplies_the_work_fails_with_the_clause_named(
    demo: pytest.Pytester, workers: list[str]
) -> None:
    demo.makeini("[pytest]\nrelevance_metrics = ndcg@10 mrr@10\n" + RULE)
    demo.makepyfile(
        test_gate="def test_demo(relevance_index, relevance_snapshot):\n"
        "    assert relevance_snapshot == relevance_index.run()\n"
        "def test_again(relevance_index, relevance_snapshot):\n"
        "    assert relevance_snapshot == relevance_index.run()\n"
    )
    update = demo.runpytest("-p", "no:randomly", *workers, "--relevance-update", "--relevance-reason", "base")
    update.assert_outcomes(passed=2)
    entries = _entries(demo.path)
    first, again = entries["test_gate.py::test_demo"]["cost"], entries["test_gate.py::test_again"]["cost"]
    assert first == again  # the same counts, whichever worker ran each test
    assert set(first) == {"queries", "strata", "clauses"}
    assert first["strata"]["all"]["docs_scored"]["p95"] > 0

    _costly(demo.path, FUZZY)
    result = demo.runpytest(
        "-p", "no:randomly", *workers, "--relevance-report", "out.json", "--relevance-report", "out.md",
        "--relevance-report", "out.html",
    )  # fmt: skip
    result.assert_outcomes(failed=2)
    text = result.stdout.str()
    assert "relevance: cost rose beyond relevance_max_cost (docs_scored=1.5x p95) in relevance-baseline.json:" in text
    assert "queries whose docs_scored rose most:" in text
    assert NAMED in text
    assert "relevance: 2 tests: " in text and "(2 over relevance_max_cost)" in text
    (report, *_) = json.loads((demo.path / "out.json").read_text())["tests"]
    exceeded = [row for row in report["cost"]["rows"] if row["exceeded"]]
    assert exceeded and all(row["current"] > 1.5 * row["baseline"] for row in exceeded)
    assert report["cost"]["risers"][0]["clause"].startswith('match {"description"')
    assert "Cost" in (demo.path / "out.md").read_text() and NAMED.split(":")[0] in (demo.path / "out.md").read_text()
    assert "cost rose" in (demo.path / "out.html").read_text()

    if workers:
        return
    # deliberately re-baselined: the new counts are the entry's, and the run passes (counted again: the same)
    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "fuzzy").assert_outcomes(passed=2)
    demo.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


def test_verbose_shows_each_counter_and_the_advisory_wall_clock(demo: pytest.Pytester) -> None:
    demo.makeini("[pytest]\nrelevance_metrics = ndcg@10\n" + RULE)
    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base").assert_outcomes(passed=1)
    result = demo.runpytest("-p", "no:randomly", "-v")
    result.assert_outcomes(passed=1)
    text = result.stdout.str()
    assert "  cost (docs_scored=1.5x p95):" in text
    assert "    all.docs_scored p95: " in text and "(1.00x, at most 1.5x)" in text
    assert "wall-clock (advisory, never gated): " in text and "median of 3 repeats" in text


def test_an_entry_without_counts_is_refused_until_re_baselined(demo: pytest.Pytester) -> None:
    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base").assert_outcomes(passed=1)
    demo.makeini("[pytest]\nrelevance_metrics = ndcg@10 mrr@10 recall@100\n" + RULE)
    result = demo.runpytest("-p", "no:randomly")
    assert result.ret != 0
    text = result.stdout.str()
    assert (
        "relevance-baseline.json: entry 'test_gate.py::test_demo' has no cost counters: relevance_max_cost compares "
        "them (the entry predates the setting, or was edited by hand); re-baseline: pytest --relevance-update "
        "'test_gate.py::test_demo'"
    ) in text
    assert "Traceback" not in text

    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "cost").assert_outcomes(passed=1)
    path = demo.path / "relevance-baseline.json"
    baseline = json.loads(path.read_text())
    baseline["entries"]["test_gate.py::test_demo"]["cost"]["strata"]["all"]["docs_scored"]["p95"] += 1
    path.write_text(json.dumps(baseline, indent=2, sort_keys=True))
    edited = demo.runpytest("-p", "no:randomly")
    assert edited.ret != 0
    assert "has its cost per stratum is not the median and p95 of its per-query counts" in edited.stdout.str()


def test_a_custom_rankers_run_is_said_to_have_no_counts(demo: pytest.Pytester) -> None:
    demo.makeini("[pytest]\nrelevance_metrics = ndcg@10\n" + RULE)
    demo.makepyfile(
        test_gate="def test_mine(relevance_judgments, relevance_snapshot):\n"
        "    assert relevance_snapshot == {q.id: sorted(q.grades)[:3] for q in relevance_judgments.queries}\n"
    )
    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base").assert_outcomes(passed=1)
    result = demo.runpytest("-p", "no:randomly", "-v")
    result.assert_outcomes(passed=1)
    assert "cost: this run has no cost counters (a custom ranker's run" in result.stdout.str()


@pytest.mark.skipif(not CRANFIELD.is_dir(), reason="../shared/data/cranfield is not present")
def test_on_cranfield_a_change_within_ndcg_tolerance_that_triples_the_documents_scored_fails(
    pytester: pytest.Pytester,
) -> None:
    cranfield_to(pytester.path)
    pytester.makeini(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_corpus = corpus.ndjson\n"
        "relevance_index_config = index.yaml\nrelevance_query = query.yaml\nrelevance_metrics = ndcg@10\n"
        "relevance_tolerance = 0.005\n" + RULE
    )
    pytester.makepyfile(
        test_cran="def test_cran(relevance_index, relevance_snapshot):\n"
        "    assert relevance_snapshot == relevance_index.run()\n"
    )
    pytester.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base").assert_outcomes(
        passed=1
    )
    before = _entries(pytester.path)["test_cran.py::test_cran"]
    # a fuzzy clause on the long text field, boosted so low that it reorders nothing that matters
    _costly(pytester.path, {"match": {"text": {"query": "{{query}}", "fuzziness": 2, "boost": 0.0001}}}, "query.yaml")
    result = pytester.runpytest("-p", "no:randomly", "--relevance-report", "out.json")
    result.assert_outcomes(failed=1)
    (report,) = json.loads((pytester.path / "out.json").read_text())["tests"]
    (row,) = [row for row in report["rows"] if row["stratum"] == "all"]
    assert abs(row["delta"]) <= 0.005 and row["status"] != "regression"  # NDCG@10 within tolerance
    scored = {r["stratum"]: r for r in report["cost"]["rows"]}["all"]
    assert scored["baseline"] == before["cost"]["strata"]["all"]["docs_scored"]["p95"]
    assert scored["current"] >= 3 * scored["baseline"] and scored["exceeded"]
    text = result.stdout.str()
    assert 'most of the rise in match {"text":{"boost":0.0001,"fuzziness":2,"query":"{{query}}"}}: 0 -> ' in text
