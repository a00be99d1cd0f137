"""A third-party engine written from `pytest_relevance.engines.base` alone (its `Engine` and `Index` protocols and the
`pytest_relevance_make_engine` hook), run where users run engines: the `relevance_index` fixture (with and without
xdist), `pytest-relevance diff` and the type checker, which holds it to the protocol's signatures."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

# Only what engines/base.py documents: Engine.open(corpus, index_config, id_field, source) -> Index; an Index has
# identity, search_many(bodies, size, source) and close(). It ranks by the words a document's title shares with
# the rendered match query, then by id, as the protocol asks.
ENGINE = """
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_relevance.engines.base import Documents, Engine, Hits, Index


class OverlapIndex:
    identity = "overlap 1"

    def __init__(self, corpus: Documents, id_field: str) -> None:
        self.docs = [(str(d[id_field]), set(str(d.get("title", "")).lower().split())) for d in corpus]

    def search_many(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str) -> dict[str, Hits]:
        out: dict[str, Hits] = {}
        for qid, body in bodies.items():
            words = set(str(body["query"]["match"]["title"]).lower().split())
            hits = [(doc, float(len(words & title))) for doc, title in self.docs if words & title]
            out[qid] = sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:size]
        return out

    def close(self) -> None:
        pass


class OverlapEngine:
    def open(self, corpus: Documents, index_config: dict[str, Any], id_field: str, source: str) -> Index:
        return OverlapIndex(corpus, id_field)


def pytest_relevance_make_engine(name: str, config: Any) -> Engine | None:
    return OverlapEngine() if name == "overlap" else None
"""
CORPUS = "".join(
    f'{{"id": "{doc}", "title": "{title}"}}\n'
    for doc, title in [("a", "hiking boots"), ("b", "trail shoes"), ("c", "rain jacket"), ("d", "boots polish")]
)
JUDGMENTS = """version: v1
queries:
  - {id: q1, text: hiking boots, grades: {a: 3, d: 1}}
  - {id: q2, text: trail shoes, grades: {b: 3}}
  - {id: q3, text: rain, grades: {c: 2}}
"""
INI = """[pytest]
relevance_engine = overlap
relevance_judgments = judgments.yaml
relevance_corpus = corpus.ndjson
relevance_index_config = index.yaml
relevance_query = query.yaml
relevance_metrics = ndcg@10 mrr@10
"""
TEST = "def test_gate(relevance_index, relevance_snapshot):\n    assert relevance_snapshot == relevance_index.run()\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(ENGINE)
    pytester.makefile(".ndjson", corpus=CORPUS)
    pytester.makefile(
        ".yaml",
        judgments=JUDGMENTS,
        index="mappings: {properties: {title: {type: text}}}\n",
        query='query: {match: {title: "{{query}}"}}\n',
    )
    pytester.makeini(INI)
    pytester.makepyfile(test_gate=TEST)
    return pytester


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["no-xdist", "xdist"])
def test_the_engine_runs_through_relevance_index(project: pytest.Pytester, workers: list[str]) -> None:
    if workers:
        pytest.importorskip("xdist")
    # xdist's workers need a real process to start from; without it, in process
    run = project.runpytest_subprocess if workers else project.runpytest_inprocess
    assert run(*workers, "--relevance-update", "--relevance-reason=first").ret == 0
    baseline = (project.path / "relevance-baseline.json").read_text()
    assert '"engine": "overlap 1"' in baseline
    result = run(*workers, "-v")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*engine overlap 1*"])


def _commit(root: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def test_diff_finds_the_engine_in_the_projects_conftest(project: pytest.Pytester) -> None:
    _commit(project.path)
    (project.path / "query.yaml").write_text('query: {match: {title: "{{query}} boots"}}\n')
    done = subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "diff", "--format", "json"],
        cwd=project.path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert '"ndcg@10"' in done.stdout
    assert "q2" in done.stdout  # "trail shoes boots" now ranks the boots: q2 moved


def test_diff_names_an_engine_no_plugin_has(project: pytest.Pytester) -> None:
    (project.path / "tox.ini").write_text(INI.replace("= overlap", "= nowhere"))
    _commit(project.path)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "diff"],
        cwd=project.path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "relevance_engine = 'nowhere' is not available" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_engine_type_checks_against_the_protocol(tmp_path: Path) -> None:
    """mypy holds the engine to the protocol's signatures: the one written above passes, one whose open() lacks the
    `source` the plugin passes is refused."""
    mypy = pytest.importorskip("mypy.api")
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(ENGINE + "\nengine: Engine = OverlapEngine()\n")
    bad.write_text(
        ENGINE.replace("id_field: str, source: str) -> Index:", "id_field: str) -> Index:")
        + "\nengine: Engine = OverlapEngine()\n"
    )
    # one run checks both (mypy reports each file's errors under its name)
    args = ["--follow-imports=silent", "--no-incremental", "--cache-dir", os.devnull]
    out, _, status = mypy.run([*args, str(good), str(bad)])
    assert status == 1
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert errors and all(line.startswith(str(bad)) for line in errors), out
    assert "incompatible type" in out or "Incompatible types" in out
