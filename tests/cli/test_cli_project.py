"""The command line inside a project reads its paths from the project's pytest ini, as the plugin does; a flag wins;
outside a project a path it needs is one error naming the flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_relevance.cli.commands import main
from pytest_relevance.config.project import find_ini
from pytest_relevance.judgments.model import load_judgments

JUDGMENTS = "version: v1\nqueries:\n  - {id: q1, text: boots, grades: {a: 2}}\n"
INDEX = "mappings:\n  properties:\n    title: {type: text, analyzer: english}\n"


def _project(root: Path, ini: str) -> None:
    (root / "rel").mkdir()
    (root / "rel" / "judgments.yaml").write_text(JUDGMENTS)
    (root / "rel" / "index.yaml").write_text(INDEX)
    (root / "pool.csv").write_text("query_id,query,stratum,doc_id,rank,shown_in,grade\nq1,boots,,b,2,1,3\n")
    name, text = ini.split(":", 1)
    (root / name).write_text(text)


@pytest.mark.parametrize(
    "ini",
    [
        'pyproject.toml:[tool.pytest.ini_options]\nrelevance_judgments = "rel/judgments.yaml"\n'
        'relevance_index_config = "rel/index.yaml"\n',
        "pytest.ini:[pytest]\nrelevance_judgments = rel/judgments.yaml\nrelevance_index_config = rel/index.yaml\n",
        "tox.ini:[pytest]\nrelevance_judgments = rel/judgments.yaml\nrelevance_index_config = rel/index.yaml\n",
        "setup.cfg:[tool:pytest]\nrelevance_judgments = rel/judgments.yaml\nrelevance_index_config = rel/index.yaml\n",
    ],
    ids=["pyproject", "pytest.ini", "tox.ini", "setup.cfg"],
)
def test_merge_and_analyze_take_their_paths_from_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ini: str
) -> None:
    _project(tmp_path, ini)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # found from a subdirectory up, paths relative to the ini file
    assert main(["merge", str(tmp_path / "pool.csv")]) == 0
    assert load_judgments(tmp_path / "rel" / "judgments.yaml").queries[0].grades == {"a": 2, "b": 3}
    assert main(["analyze", "--field", "title", "Running Boots"]) == 0
    out = capsys.readouterr().out
    assert "run" in out and "boot" in out


def test_a_flag_wins_over_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, "pytest.ini:[pytest]\nrelevance_judgments = rel/judgments.yaml\n")
    other = tmp_path / "other.yaml"
    other.write_text(JUDGMENTS)
    monkeypatch.chdir(tmp_path)
    assert main(["merge", str(tmp_path / "pool.csv"), "--judgments", str(other)]) == 0
    assert load_judgments(other).queries[0].grades == {"a": 2, "b": 3}
    assert load_judgments(tmp_path / "rel" / "judgments.yaml").queries[0].grades == {"a": 2}


def test_outside_a_project_a_missing_path_is_one_error_naming_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pool.csv").write_text("query_id,query,stratum,doc_id,rank,shown_in,grade\n")
    monkeypatch.chdir(tmp_path)
    if find_ini(tmp_path) is not None:
        pytest.skip("a pytest configuration above the temporary directory makes it a project")
    assert main(["merge", str(tmp_path / "pool.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "pytest-relevance: error: --judgments: not given, and no pytest ini file was found from here up to read "
        "relevance_judgments from; pass --judgments PATH"
    ]


def test_evaluate_takes_the_projects_judgments_as_qrels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, "pytest.ini:[pytest]\nrelevance_judgments = rel/judgments.yaml\n")
    (tmp_path / "run.trec").write_text("q1 Q0 b 1 2.0 t\nq1 Q0 a 2 1.0 t\n")
    (tmp_path / "rel" / "qrels.txt").write_text("q1 0 a 2\n")
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "-m", "ndcg@10", "-m", "mrr", "run.trec"]) == 0
    from_project = capsys.readouterr().out
    assert main(["evaluate", "-m", "ndcg@10", "-m", "mrr", "rel/qrels.txt", "run.trec"]) == 0
    assert from_project == capsys.readouterr().out
    assert "mrr      all  0.5000" in from_project


def test_evaluate_outside_a_project_needs_the_qrels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "run.trec").write_text("q1 Q0 b 1 2.0 t\n")
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "run.trec"]) == 2
    assert "QRELS: not given, and no project's relevance_judgments" in capsys.readouterr().err
