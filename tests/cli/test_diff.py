"""`pytest-relevance diff`: the project measured at a git revision and in the working tree (or a second revision) in
one process, on the same judgments, in temporary git repositories."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_relevance.cli.commands import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

CORPUS = [
    {"id": "a", "title": "hiking boots", "body": "waterproof leather boots for trails"},
    {"id": "b", "title": "trail shoes", "body": "light shoes for hiking and running"},
    {"id": "c", "title": "rain jacket", "body": "a jacket for hiking in the rain"},
    {"id": "d", "title": "boots polish", "body": "keeps leather boots waterproof"},
    {"id": "e", "title": "tent", "body": "a two person tent for hiking trips"},
    {"id": "f", "title": "sleeping bag", "body": "warm bag for camping, hiking and trails"},
    {"id": "g", "title": "camping stove", "body": "gas stove, light enough for hiking"},
    {"id": "h", "title": "sneakers", "body": "city shoes, not for trails"},
]
JUDGMENTS = """version: v1
queries:
  - {id: q1, text: hiking boots, stratum: head, grades: {a: 3, d: 1, b: 1}}
  - {id: q2, text: trail shoes, stratum: head, grades: {b: 3, h: 1}}
  - {id: q3, text: camping, stratum: tail, grades: {f: 3, g: 2, e: 2}}
  - {id: q4, text: rain, stratum: tail, grades: {c: 3}}
"""
INDEX = """settings:
  analysis:
    filter:
      syn: {type: synonym, synonyms_path: synonyms.txt}
    analyzer:
      text: {tokenizer: standard, filter: [lowercase, syn, porter_stem]}
mappings:
  properties:
    title: {type: text, analyzer: text}
    body: {type: text, analyzer: text}
"""
QUERY = """query:
  multi_match:
    query: "{{query}}"
    fields: ["title^3", "body"]
"""
INI = """[pytest]
relevance_judgments = rel/judgments.yaml
relevance_corpus = rel/corpus.ndjson
relevance_index_config = rel/index.yaml
relevance_query = rel/query.yaml
relevance_metrics = ndcg@10 mrr@10
"""


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project in a git repository with one commit, the working directory."""
    rel = tmp_path / "rel"
    rel.mkdir()
    (rel / "corpus.ndjson").write_text("".join(json.dumps(doc) + "\n" for doc in CORPUS))
    (rel / "judgments.yaml").write_text(JUDGMENTS)
    (rel / "index.yaml").write_text(INDEX)
    (rel / "synonyms.txt").write_text("sneakers, trail shoes\n")
    (rel / "query.yaml").write_text(QUERY)
    (tmp_path / "pytest.ini").write_text(INI)
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "first")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _diff(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_unchanged_working_tree_differs_in_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _diff(capsys)
    assert code == 0, err
    head = _git(repo, "rev-parse", "--short=7", "HEAD").strip()
    assert out.startswith(f"pytest-relevance diff: HEAD ({head}) -> working tree, 4 judged queries")
    assert "corpus, index config, query template, judgments unchanged" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("  all") or line.startswith("  head")]
    assert rows and all(row[5] == "+0.0000" for row in rows)
    assert "queries that lost" not in out


def test_a_boost_change_gives_both_values_the_delta_its_p_and_the_movers(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "rel" / "query.yaml").write_text(QUERY.replace('"title^3", "body"', '"title", "body^4"'))
    code, out, err = _diff(capsys)
    assert code == 0, err  # exit 0 always, unless --fail-on-regression
    assert "query template changed; corpus, index config, judgments unchanged" in out
    rows = {(r[0], r[2]): r for r in (line.split() for line in out.splitlines()) if len(r) > 5 and r[1].isdigit()}
    changed = [row for row in rows.values() if row[5] != "+0.0000"]
    assert changed, out
    assert all(row[6].startswith("p=") for row in changed)  # every changed row has its p-value
    assert "queries that lost most on" in out or "queries that gained most on" in out
    assert "RBO" in out


def test_cost_is_counted_on_both_sides_and_compared(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "pytest.ini").write_text(INI + "relevance_max_cost = docs_scored=1.5x p95\n")
    wide = '    should:\n      - match: {body: {query: "{{query}} hiking for a", boost: 0.01}}\n'
    query = 'query:\n  bool:\n    must:\n      - multi_match: {query: "{{query}}", fields: ["title^3", "body"]}\n'
    (repo / "rel" / "query.yaml").write_text(query + wide)
    code, out, err = _diff(capsys, "--format", "json")
    assert code == 0, err
    cost = json.loads(out)["report"]["cost"]
    rows = {row["stratum"]: row for row in cost["rows"]}
    assert rows["all"]["exceeded"] and rows["all"]["current"] > 1.5 * rows["all"]["baseline"]
    assert cost["risers"][0]["clause"] == 'match {"body":{"boost":0.01,"query":"{{query}} hiking for a"}}'
    code, out, err = _diff(capsys)
    assert "cost (docs_scored=1.5x p95):" in out and "all.docs_scored p95: " in out and " !" in out
    code, md, err = _diff(capsys, "--format", "md")
    assert "Cost (docs_scored=1.5x p95): **" in md


def test_the_judge_corrected_estimates_come_from_the_human_file_as_in_the_gate(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judged = JUDGMENTS.replace("d: 1, b: 1", "d: {grade: 1, judge: lenient}, b: 1").replace(
        "h: 1}", "h: {grade: 1, judge: lenient}}"
    )
    (repo / "rel" / "judgments.yaml").write_text(judged)
    people = (
        "queries:\n  - {id: q1, text: hiking boots, grades: {d: 0}}\n  - {id: q2, text: trail shoes, grades: {h: 0}}\n"
    )
    (repo / "rel" / "human.yaml").write_text(people)
    (repo / "pytest.ini").write_text(INI + "relevance_human_judgments = rel/human.yaml\n")
    (repo / "rel" / "query.yaml").write_text(QUERY.replace('"title^3", "body"', '"title", "body^4"'))
    code, out, err = _diff(capsys, "--format", "json")
    assert code == 0, err
    report = json.loads(out)["report"]
    assert report["judge_correction"]["mode"] == "none"
    assert report["judge_correction"]["plain"] == {"tail": "no judge-made grades"}
    assert any(row.get("ppi") for row in report["rows"] if row["stratum"] == "head")

    (repo / "rel" / "human.yaml").unlink()
    code, out, err = _diff(capsys)
    assert code == 2 and "rel/human.yaml: human judgments file not found; set relevance_human_judgments" in err


def test_fail_on_regression_and_one_markdown_comment(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "rel" / "query.yaml").write_text(QUERY.replace('"title^3", "body"', '"body"'))
    code, out, _ = _diff(capsys, "--fail-on-regression")
    assert code == 1, out
    assert "regression" in out
    code, md, _ = _diff(capsys, "--format", "md")
    assert code == 0
    assert md.startswith("## Relevance: HEAD (") and md.count("## ") == 1
    assert "| stratum | n | metric | HEAD (" in md and "**regression**" in md


def test_the_index_config_files_come_from_the_revision(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The synonyms file the index config references is read as the revision has it, not from the working tree."""
    (repo / "rel" / "synonyms.txt").write_text("sneakers, boots\n")
    code, out, err = _diff(capsys, "--format", "json")
    assert code == 0, err
    model = json.loads(out)
    assert model["report"]["since_baseline"].startswith("since HEAD (")
    assert "index config changed" in model["report"]["since_baseline"]
    # the working tree's synonyms bring `sneakers` (h) into q1; HEAD's, read from the revision, did not
    assert "h" in model["report"]["rankings"]["q1"]
    assert "h" in model["came_in"]["q1"]


def test_against_a_second_revision(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "rel" / "query.yaml").write_text(QUERY.replace('"title^3", "body"', '"body"'))
    _git(repo, "commit", "-q", "-am", "body only")
    (repo / "rel" / "query.yaml").write_text(QUERY)  # the working tree back at the first commit's template
    code, out, _ = _diff(capsys, "HEAD~1", "--against", "HEAD", "--format", "json")
    assert code == 0
    model = json.loads(out)
    assert model["before"].startswith("HEAD~1 (") and model["after"].startswith("HEAD (")
    assert any(row["delta"] for row in model["report"]["rows"])
    code, out, _ = _diff(capsys, "HEAD~1", "--format", "json")  # the working tree equals HEAD~1
    assert not any(row["delta"] for row in json.loads(out)["report"]["rows"])


def test_the_console_script_in_a_subprocess(repo: Path) -> None:
    (repo / "rel" / "query.yaml").write_text(QUERY.replace('"title^3", "body"', '"body"'))
    done = subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "diff", "--format", "md"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Relevance: HEAD (")


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("unknown ref", "error: no-such-ref: git knows no commit by this name in"),
        ("outside git", "not inside a git working tree; diff compares git revisions"),
        ("missing at ref", "error: rel/query.yaml: not in HEAD ("),
        ("no ini", "no pytest ini file was found from here up"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], case: str, expected: str
) -> None:
    args: list[str] = []
    if case == "unknown ref":
        args = ["no-such-ref"]
    elif case == "outside git":
        shutil.rmtree(repo / ".git")
    elif case == "missing at ref":
        _git(repo, "rm", "-q", "--cached", "rel/query.yaml")
        _git(repo, "commit", "-q", "-m", "untrack the template")
    else:
        (repo / "pytest.ini").unlink()
    before = sorted(p for p in repo.rglob("*") if ".git" not in p.parts)
    code, out, err = _diff(capsys, *args)
    assert code == 2
    assert out == "" and err.count("\n") == 1 and expected in err
    assert sorted(p for p in repo.rglob("*") if ".git" not in p.parts) == before  # nothing written
