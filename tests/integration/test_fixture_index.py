"""What relevance_index gives a test: the marker's overrides reach the run, and inputs that mislead are warned about."""

from __future__ import annotations

import pytest

OVERRIDES = """\
import json, pathlib, pytest

OUT = pathlib.Path(__file__).parent / "default.json"

def test_default(relevance_index):
    assert relevance_index.depth == 100
    OUT.write_text(json.dumps(dict(relevance_index.run())))

@pytest.mark.relevance(now="2019-06-01T00:00:00Z", metrics="recall@1000")
def test_marked(relevance_index):
    assert relevance_index.instant.year == 2019
    assert relevance_index.depth == 1000
    run = relevance_index.run()
    assert max(len(docs) for docs in run.values()) > 100
    assert dict(run) != json.loads(OUT.read_text())  # the recency decay ranks from 2019 now
"""


def test_marker_now_and_metrics_reach_relevance_index(demo: pytest.Pytester) -> None:
    demo.makepyfile(test_gate=OVERRIDES)
    result = demo.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_a_template_without_query_is_a_relevance_warning(demo: pytest.Pytester) -> None:
    query = demo.path / "fixtures" / "query.yaml"
    query.write_text(query.read_text().replace('"{{query}}"', '"boots"'))
    demo.makepyfile(test_gate="def test_run(relevance_index):\n    relevance_index.run()\n")
    result = demo.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*RelevanceWarning: fixtures/query.yaml: the template has no {{query}}, so every *"])
    result = demo.runpytest_inprocess(
        "-p", "no:cacheprovider", "-W", "error::pytest_relevance.plugin.hooks.RelevanceWarning"
    )
    assert result.ret == 1


def test_an_analysis_key_elasticsearch_ignores_is_a_relevance_warning_on_the_index_config(
    demo: pytest.Pytester,
) -> None:
    index = demo.path / "fixtures" / "index.yaml"
    index.write_text(
        index.read_text().replace(
            "  number_of_shards: 1\n",
            "  number_of_shards: 1\n  analysis:\n    analyzer:\n      default: {type: standard, language: english}\n",
        )
    )
    demo.makepyfile(test_gate="def test_run(relevance_index):\n    relevance_index.run()\n")
    result = demo.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*fixtures/index.yaml:1: RelevanceWarning: settings.analysis.analyzer.default.language: not an option of "
         "the standard analyzer (its options: max_token_length, stopwords, stopwords_path); Elasticsearch accepts "
         "it and ignores it*"]
    )  # fmt: skip


def test_judged_documents_missing_from_the_corpus_are_counted(demo: pytest.Pytester) -> None:
    judgments = demo.path / "fixtures" / "judgments.yaml"
    judgments.write_text(judgments.read_text().replace("grades: {", "grades: {zz-gone: 2, ", 2))
    demo.makepyfile(test_gate="def test_run(relevance_index):\n    relevance_index.run()\n")
    result = demo.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*RelevanceWarning: 1 judged documents are not in the corpus (zz-gone): no ranking *"])


def test_repeat_says_what_it_checked(demo: pytest.Pytester) -> None:
    assert demo.runpytest_inprocess("-p", "no:cacheprovider", "--relevance-update").ret == 0
    result = demo.runpytest_inprocess("-p", "no:cacheprovider", "--relevance-repeat", "3")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*note: repeat: 165 queries x 3, identical"])


ANALYZE = """\
def test_analyze(relevance_index):
    assert relevance_index.analyze("The Running Shoes", field="title") == [
        {"token": "run", "start_offset": 4, "end_offset": 11, "position": 1},
        {"token": "shoe", "start_offset": 12, "end_offset": 17, "position": 2},
    ]
    assert [t["token"] for t in relevance_index.analyze("The Running Shoes", analyzer="standard")] == [
        "the", "running", "shoes",
    ]
    assert relevance_index.analyze("Wi-Fi", field="brand") == [
        {"token": "Wi-Fi", "start_offset": 0, "end_offset": 5, "position": 0}
    ]
"""


def test_relevance_index_analyzes_as_elasticsearch_does(demo: pytest.Pytester) -> None:
    demo.makepyfile(test_gate=ANALYZE)
    demo.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
