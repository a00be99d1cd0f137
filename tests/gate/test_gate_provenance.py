"""The gate and grade provenance: stale-grade RelevanceWarnings (content changed, too old) and the model-graded share
with the judge's kappa, in real pytest sessions."""

from __future__ import annotations

import json

import pytest

from pytest_relevance.judgments.provenance import content_hash

DOCS = [{"id": doc, "title": f"title {doc}"} for doc in "abcdex"]
TEST_FILE = """\
import json, pathlib

def test_quality(relevance_snapshot):
    run = {"h1": ["a", "b"], "h2": ["c"], "t1": ["x", "d"], "t2": ["e"]}
    assert relevance_snapshot == run
"""


def judgments(b: str = "1", a: str = "3") -> str:
    return (
        "version: v1\nqueries:\n"
        f"  - {{id: h1, text: alpha, stratum: head, grades: {{a: {a}, b: {b}}}}}\n"
        "  - {id: h2, text: beta, stratum: head, grades: {c: 2}}\n"
        "  - {id: t1, text: gamma, stratum: tail, grades: {d: 1}}\n"
        "  - {id: t2, text: delta, stratum: tail, grades: {e: 2}}\n"
    )


def session(pytester: pytest.Pytester, grades: str, ini: str = "", a: str = "3") -> None:
    pytester.makefile(".yaml", judgments=grades if grades.startswith("version") else judgments(grades, a))
    (pytester.path / "corpus.ndjson").write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    pytester.makeini(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_corpus = corpus.ndjson\n"
        f"relevance_metrics = ndcg@10 mrr\n{ini}"
    )
    pytester.makepyfile(test_rel=TEST_FILE)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


def first_baseline(pytester: pytest.Pytester) -> None:
    assert run(pytester, "--relevance-update", "--relevance-reason", "first").ret == 0


OLD = "{grade: 1, source: human, date: 2025-01-01}"


def test_grades_older_than_the_max_age_warn(pytester: pytest.Pytester) -> None:
    session(pytester, OLD, "relevance_max_judgment_age = 180d\n")
    first_baseline(pytester)
    result = run(pytester, "-v", "--relevance-report", "out.json", "--relevance-report", "out.md")
    assert result.ret == 0
    # counted with the report's other two (a small set, judged@10 in tail) in the test's one RelevanceWarning
    result.stdout.fnmatch_lines(["*RelevanceWarning: test_rel.py::test_quality: 3 warnings about its numbers*"])
    said = "1 grade(s) older than relevance_max_judgment_age 180d (h1/b)"
    result.stdout.fnmatch_lines([f"*warning: {said}; re-judge them: pytest-relevance pool * --max-age 180d"])
    report = json.loads((pytester.path / "out.json").read_text())["tests"][0]
    assert [w for w in report["warnings"] if w.startswith(said)]
    assert said in (pytester.path / "out.md").read_text()
    # relative to the frozen clock: a run frozen before the grade aged past 180 days says nothing
    result = run(pytester, "-v", "--relevance-now", "2025-03-01T00:00:00Z")
    assert "older than relevance_max_judgment_age" not in result.stdout.str()


def test_the_age_check_is_off_by_default(pytester: pytest.Pytester) -> None:
    session(pytester, OLD)
    first_baseline(pytester)
    result = run(pytester, "-v")
    assert result.ret == 0
    assert "older than" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*RelevanceWarning: test_rel.py::test_quality: 2 warnings about its numbers*"])


def test_a_graded_document_that_changed_warns(pytester: pytest.Pytester) -> None:
    session(pytester, '{grade: 1, source: human, hash: "sha256:0123456789abcdef"}')
    first_baseline(pytester)
    result = run(pytester, "-v")
    result.stdout.fnmatch_lines(
        [
            "*RelevanceWarning: test_rel.py::test_quality: 3 warnings about its numbers*",
            "*warning: 1 grade(s) judged a document whose content has changed since (h1/b): the grade may no longer*",
        ]
    )


def test_an_unchanged_document_does_not_warn(pytester: pytest.Pytester) -> None:
    digest = content_hash({"id": "b", "title": "title b"})
    session(pytester, f'{{grade: 1, source: human, hash: "{digest}"}}')
    first_baseline(pytester)
    result = run(pytester, "-v")
    assert result.ret == 0
    assert "content has changed" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*RelevanceWarning: test_rel.py::test_quality: 2 warnings about its numbers*"])


def test_the_model_graded_share_and_the_judges_kappa(pytester: pytest.Pytester) -> None:
    # h1's a (grade 3, first) is the judge's: 3 / (3 + 1/log2 3) of h1's 1.0, of an ndcg@10 summed 3.63 over 4 queries
    session(pytester, "1", "relevance_judge_agreement = agreement.json\n", a="{grade: 3, judge: rule}")
    agreement = {"pairs": 140, "kappa": {"unweighted": 0.6234, "linear": 0.7, "quadratic": 0.8}}
    (pytester.path / "agreement.json").write_text(json.dumps(agreement))
    first_baseline(pytester)
    reports = ("--relevance-report", "out.md", "--relevance-report", "out.json", "--relevance-report", "out.html")
    result = run(pytester, "-v", *reports)
    assert result.ret == 0
    line = "ndcg@10 0.9077, of which 23% of the gain is model-graded (rule); judge kappa 0.62 on 140 shared pairs"
    result.stdout.fnmatch_lines([f"*{line}*"])
    assert line in (pytester.path / "out.md").read_text()
    assert line in (pytester.path / "out.html").read_text()
    graded = json.loads((pytester.path / "out.json").read_text())["tests"][0]["model_graded"]
    assert graded == {"metric": "ndcg@10", "share": graded["share"], "judges": ["rule"], "kappa": 0.6234, "pairs": 140}
    assert graded["share"] == pytest.approx(0.2276, abs=5e-5)  # unrounded: printed once, as 23%


def test_the_model_graded_share_without_a_known_agreement(pytester: pytest.Pytester) -> None:
    session(pytester, "1", a="{grade: 3, judge: rule}")
    first_baseline(pytester)
    result = run(pytester, "-v")
    result.stdout.fnmatch_lines(["*of which 23% of the gain is model-graded (rule); no agreement with humans known*"])


def test_human_grades_only_say_nothing_of_models(pytester: pytest.Pytester) -> None:
    session(pytester, "1")
    first_baseline(pytester)
    assert "model-graded" not in run(pytester, "-v").stdout.str()


def test_a_bad_max_age_names_the_key(pytester: pytest.Pytester) -> None:
    session(pytester, "1", "relevance_max_judgment_age = 6m\n")
    result = run(pytester)
    assert result.ret != 0
    assert "relevance_max_judgment_age: '6m' is not an age: write days or weeks, e.g. 180d or 26w" in (
        result.stdout.str() + result.stderr.str()
    )


@pytest.mark.parametrize(("content", "problem"), [(None, "agreement file not found"), ("[]", "not an agreement")])
def test_a_bad_agreement_file_fails_the_test(pytester: pytest.Pytester, content: str | None, problem: str) -> None:
    session(pytester, "1", "relevance_judge_agreement = agreement.json\n", a="{grade: 3, judge: rule}")
    if content is not None:
        (pytester.path / "agreement.json").write_text(content)
    result = run(pytester, "--relevance-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"*relevance: *agreement.json: {problem}: write it with pytest-relevance agreement*"])


def test_a_conftest_may_implement_the_judge_hook(pytester: pytest.Pytester) -> None:
    # pytest refuses an unknown pytest_* hook in a conftest; pytest_relevance_judge is one of the plugin's
    session(pytester, "1")
    pytester.makeconftest("def pytest_relevance_judje(query, documents):\n    return {}\n")
    result = run(pytester)
    assert "unknown hook 'pytest_relevance_judje'" in result.stdout.str() + result.stderr.str()
    pytester.makeconftest("def pytest_relevance_judge(query, documents):\n    return {}\n")
    assert run(pytester, "--relevance-update").ret == 0
