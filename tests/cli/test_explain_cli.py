"""`pytest-relevance explain`: each document's score tree for a judged query or a free text, with the project's
settings as the plugin reads them; a document or query id that does not exist is one line and exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_relevance.cli.commands import main

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the demo as a project whose pytest ini names its files in a folder of its own."""
    shutil.copytree(ROOT / "fixtures", tmp_path / "search")
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nrelevance_corpus = search/corpus.ndjson\nrelevance_index_config = search/index.yaml\n"
        "relevance_query = search/query.yaml\nrelevance_judgments = search/judgments.yaml\n"
        "relevance_now = 2026-01-15T12:00:00Z\n"
    )
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    return tmp_path


def test_a_free_text_prints_each_documents_tree(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "hiking boots", "p0569", "p0140"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("query 'hiking boots' on corpus.ndjson, frozen at 2026-01-15T12:00:00Z\n")
    blocks = out.split("\n\n")[1:]
    assert [b.split(":", 1)[0] for b in blocks] == ["p0569", "p0140"]
    first = blocks[0].splitlines()
    assert first[0].startswith("p0569: score ") and ", rank " in first[0]
    assert first[1].startswith("query.function_score ") and " function_score " in first[1]
    assert first[2].startswith("  .query.multi_match ") and "dis_max tie_breaker=0.3" in first[2]
    assert any(row.startswith("      [title:boot] ") and " bm25 boost=3 " in row for row in first)
    assert any(row.startswith("  .functions[0].gauss ") and "origin=2026-01-15T12:00:00Z" in row for row in first)
    score = float(first[0].split("score ")[1].split(",")[0])
    assert float(first[1].split()[1]) == score  # the root is the score


def test_a_judged_query_id_explains_that_query(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "q022", "p0569"]) == 0
    by_id = capsys.readouterr().out
    assert by_id.startswith("query q022 'hiking boots' on ")
    assert main(["explain", "hiking boots", "p0569"]) == 0
    assert by_id.split("\n", 1)[1] == capsys.readouterr().out.split("\n", 1)[1]


def test_a_document_that_does_not_match_says_so(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "hiking boots", "p0001"]) == 0
    out = capsys.readouterr().out
    assert "p0001: no match, not among the " in out
    assert "query.function_score no match (failed: query.function_score.query.multi_match)" in out


def test_a_flag_wins_over_the_project(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    template = project / "plain.yaml"
    template.write_text('query:\n  match:\n    title: "{{query}}"\n')
    assert main(["explain", "hiking boots", "p0569", "--query", str(template)]) == 0
    out = capsys.readouterr().out
    assert "\nquery.match " in out and "function_score" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["q022", "p9999"], "search/corpus.ndjson: no document with the id 'p9999' (asked to explain)"),
        (["q999", "p0569"], "search/judgments.yaml: no query with the id 'q999' (its ids run q001 .. q165); give a "
         "judged query's id or the text to search for"),
        (["boots", "p0569", "--now", "yesterday"], "--now: 'yesterday' is not an ISO 8601 instant, e.g. "
         "2026-01-15T12:00:00Z"),
    ],
    ids=["unknown document", "unknown query id", "bad now"],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["explain", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (error,) = captured.err.splitlines()
    assert error.startswith("pytest-relevance: error: ") and error.endswith(message)  # paths from below the ini


def test_outside_a_project_the_paths_are_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["explain", "boots", "p0569"]) == 2
    assert "--corpus: not given, and no pytest ini file was found from here up" in capsys.readouterr().err
    fixtures = ROOT / "fixtures"
    argv = ["explain", "boots", "p0569", "--index-config", str(fixtures / "index.yaml"), "--corpus",
            str(fixtures / "corpus.ndjson"), "--query", str(fixtures / "query.yaml")]  # fmt: skip
    assert main(argv) == 0  # no judgments needed for a free text
    assert "p0569: score " in capsys.readouterr().out
