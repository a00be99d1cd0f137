"""The small project the plugin's pytester tests run (tests/integration): four judged queries in two strata, an ini,
and one relevance test whose ranker is the file `ranker.json`, so a test changes the ranking by rewriting it; with
the helpers that run pytest on it with or without xdist and read its baseline. The `project` and `mode` fixtures
(tests/integration/conftest.py) build it."""

from __future__ import annotations

import json

import pytest

JUDGMENTS = """\
version: v1
queries:
  - {id: h1, text: alpha, stratum: head, grades: {a: 3, b: 1}}
  - {id: h2, text: beta, stratum: head, grades: {c: 2}}
  - {id: t1, text: gamma, stratum: tail, grades: {d: 1}}
  - {id: t2, text: delta, stratum: tail, grades: {e: 2}}
"""
GOOD = {"h1": ["a", "b"], "h2": ["c"], "t1": ["x", "d"], "t2": ["e"]}
TEST_FILE = """\
import json, pathlib

def ranker(name="ranker.json"):
    return json.loads((pathlib.Path(__file__).parent / name).read_text())

def test_quality(relevance_snapshot):
    assert relevance_snapshot == ranker()
"""
INI = """\
[pytest]
relevance_judgments = judgments.yaml
relevance_metrics = ndcg@10 mrr
"""
NODE = "test_rel.py::test_quality"


def make_project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", judgments=JUDGMENTS)
    pytester.makeini(INI)
    pytester.makepyfile(test_rel=TEST_FILE)
    rank(pytester, GOOD)
    return pytester


def rank(pytester: pytest.Pytester, run: dict[str, list[str]], name: str = "ranker.json") -> None:
    (pytester.path / name).write_text(json.dumps(run))


def run(pytester: pytest.Pytester, mode: list[str], *args: str) -> pytest.RunResult:
    """In process without xdist (fast); xdist's workers need a real process to start from."""
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly")  # hypothesis' costs 1.4 s
    if mode:
        return pytester.runpytest_subprocess(*quiet, *mode, *args)
    return pytester.runpytest_inprocess(*quiet, *args)


def baseline(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "relevance-baseline.json").read_text())["entries"]
