"""The judging loop: `pytest-relevance pool` and `merge`, through the CLI's main() and as a process."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pytest_relevance.cli.commands import main
from pytest_relevance.config.settings import Tolerance
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.gate.baseline_file import dumps
from pytest_relevance.gate.entry import make_entry
from pytest_relevance.judgments.model import load_judgments
from pytest_relevance.judgments.pool import next_version
from pytest_relevance.metrics.ranking import parse_metrics

JUDGMENTS = """\
# hand-written judgments
version: v7
queries:
  - {id: q1, text: "wireless headphones", stratum: head, grades: {a: 3, b: 0}}
  - {id: q2, text: "usb cable", stratum: tail, params: {category: computers}, grades: {c: 2}}
"""
CORPUS = "\n".join(
    json.dumps({"id": d, "title": f"Title of {d}", "price": 1}) for d in ["a", "b", "c", "x", "y", "z", "true"]
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "judgments.yaml").write_text(JUDGMENTS)
    (tmp_path / "corpus.ndjson").write_text(CORPUS + "\n")
    judgments = load_judgments(tmp_path / "judgments.yaml")
    metrics = parse_metrics("ndcg@10")
    baseline = {"q1": ["a", "x", "b"], "q2": ["c", "y"]}
    entry = make_entry(evaluate(baseline, judgments, metrics), "v7", "custom", Tolerance(), "")
    (tmp_path / "relevance-baseline.json").write_text(dumps({"t::test": entry}))
    report = {"pytest-relevance-report": 1, "tests": [{"test": "t::test", "rankings": {"q1": ["z", "x", "a"]}}]}
    (tmp_path / "report.json").write_text(json.dumps(report))
    return tmp_path


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_pool_writes_unjudged_documents_of_current_and_baseline_most_frequent_first(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)  # outside any pytest project: no corpus unless --corpus names one
    code, out, _ = cli(
        capsys,
        "pool",
        project / "relevance-baseline.json",
        project / "report.json",
        "--judgments",
        project / "judgments.yaml",
        "--corpus",
        project / "corpus.ndjson",
        "-o",
        project / "pool.csv",
    )
    assert code == 0
    assert "3 (query, document) pairs to judge, 3 documents, top 10" in out
    rows = list(csv.DictReader((project / "pool.csv").open()))
    assert list(rows[0]) == ["query_id", "query", "stratum", "doc_id", "rank", "shown_in", "title", "grade"]
    # x is unjudged in q1's baseline and current top k (shown twice); y and z once each
    assert [(r["query_id"], r["doc_id"], r["rank"], r["shown_in"]) for r in rows] == [
        ("q1", "x", "2", "2"),
        ("q2", "y", "2", "1"),
        ("q1", "z", "1", "1"),
    ]
    assert rows[0]["query"] == "wireless headphones" and rows[0]["title"] == "Title of x" and rows[0]["grade"] == ""
    code, _, _ = cli(
        capsys, "pool", project / "report.json", "--judgments", project / "judgments.yaml", "--depth", "1", "-o",
        project / "pool.yaml",
    )  # fmt: skip
    assert code == 0
    assert yaml.safe_load((project / "pool.yaml").read_text()) == [
        {"query_id": "q1", "query": "wireless headphones", "stratum": "head", "doc_id": "z", "rank": 1, "shown_in": 1,
         "grade": None}
    ]  # fmt: skip


def test_merge_adds_grades_and_sets_a_new_version(project: Path, capsys) -> None:
    filled = project / "filled.csv"
    filled.write_text(
        "query_id,query,stratum,doc_id,rank,shown_in,title,grade\n"
        "q1,wireless headphones,head,x,2,2,Title of x,2\n"
        "q2,usb cable,tail,y,2,1,Title of y,\n"
        "q1,wireless headphones,head,a,1,1,Title of a,3\n"  # agrees with the judgments: fine
        "q2,usb cable,tail,true,1,1,Title,0.5\n"
    )
    code, out, _ = cli(capsys, "merge", filled, "--judgments", project / "judgments.yaml")
    assert code == 0
    assert "merged 2 grades" in out and "1 rows left without a grade" in out and "version v7 -> v8" in out
    text = (project / "judgments.yaml").read_text()
    assert text.startswith("# hand-written judgments\nversion: v8\n")
    assert '  - {id: q1, text: "wireless headphones", stratum: head, grades: {a: 3, b: 0, x: 2}}' in text
    judgments = load_judgments(project / "judgments.yaml")
    assert judgments.version == "v8"
    assert dict(judgments["q2"].grades) == {"c": 2, "true": 0.5}  # a YAML word as an id stays a string
    assert dict(judgments["q2"].params) == {"category": "computers"}
    code, out, _ = cli(capsys, "merge", filled, "--judgments", project / "judgments.yaml")
    assert code == 0 and "nothing to merge" in out  # merging the same file again changes nothing


def test_merge_keeps_the_leading_comments_of_yaml_judgments_saved_with_a_byte_order_mark(project: Path, capsys) -> None:
    judgments = project / "judgments.yaml"
    judgments.write_bytes(b"\xef\xbb\xbf" + JUDGMENTS.encode())
    (project / "filled.csv").write_text("query_id,doc_id,grade\nq1,x,2\n")
    assert cli(capsys, "merge", project / "filled.csv", "--judgments", judgments)[0] == 0
    assert judgments.read_text(encoding="utf-8").startswith("# hand-written judgments\nversion: v8\n")


def test_merge_refuses_conflicts_and_names_them(project: Path, capsys) -> None:
    before = (project / "judgments.yaml").read_text()
    filled = project / "filled.yaml"
    filled.write_text(
        yaml.safe_dump(
            [
                {"query_id": "q1", "doc_id": "a", "grade": 1},
                {"query_id": "q1", "doc_id": "x", "grade": 2},
                {"query_id": "q1", "doc_id": "x", "grade": 3},
                {"query_id": "q2", "doc_id": "y", "grade": 1},
            ]
        )
    )
    code, _, err = cli(capsys, "merge", filled, "--judgments", project / "judgments.yaml")
    assert code == 2
    assert (
        "2 grade(s) conflict, nothing merged: q1/a: 1 here (row 1), 3 in the judgments; q1/x: 2 (row 2) and 3 (row 3)"
        in (err)
    )
    assert (project / "judgments.yaml").read_text() == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("query_id,doc_id\nq1,x\n", "missing column(s) grade"),
        ("query_id,doc_id,grade\nq1,x,-1\n", "grade '-1' is not a number >= 0"),
        ("query_id,doc_id,grade\nq9,x,1\n", "query ids not in the judgments: q9 (line 2)"),
    ],
)
def test_bad_filled_files_are_one_error(project: Path, capsys, text: str, message: str) -> None:
    (project / "filled.csv").write_text(text)
    code, _, err = cli(capsys, "merge", project / "filled.csv", "--judgments", project / "judgments.yaml")
    assert code == 2
    assert message in err


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "filled.csv",
            "query_id,doc_id,grade\nq1,x,1\nq1,y,high\n",
            "filled.csv:3: grade 'high' is not a number >= 0 (0 = not relevant)",
        ),
        ("filled.csv", "query_id,doc_id,grade\nq1,,1\n", "filled.csv:2: query_id and doc_id are required"),
        (
            "filled.yaml",
            "- {query_id: q1, doc_id: x, grade: 1}\n- {query_id: q1, doc_id: y, grade: high}\n",
            "filled.yaml: row 2: grade 'high' is not a number >= 0 (0 = not relevant)",
        ),
        ("filled.yaml", "- {query_id: q1, grade: 1}\n", "filled.yaml: row 1: query_id and doc_id are required"),
    ],
)
def test_a_bad_row_is_named_once(project: Path, capsys, name: str, text: str, message: str) -> None:
    # a CSV row by the error's own line (file:3:), a YAML row, which has none, by its number
    (project / name).write_text(text)
    code, out, err = cli(capsys, "merge", project / name, "--judgments", project / "judgments.yaml")
    assert (code, out) == (2, "")
    assert err == f"pytest-relevance: error: {project / message}\n"


def test_a_pool_csv_saved_with_a_byte_order_mark_merges(project: Path, capsys) -> None:
    # a spreadsheet's "CSV UTF-8" (Excel's) starts with a BOM and ends lines with CRLF
    filled = project / "filled.csv"
    filled.write_bytes(b'\xef\xbb\xbfquery_id,query,doc_id,grade\r\nq1,"wireless, headphones",x,2\r\n')
    code, out, err = cli(capsys, "merge", filled, "--judgments", project / "judgments.yaml")
    assert (code, err) == (0, "")
    assert "merged 1 grades" in out
    assert dict(load_judgments(project / "judgments.yaml")["q1"].grades) == {"a": 3, "b": 0, "x": 2}


def test_a_pool_csv_that_is_not_utf8_is_one_error_naming_its_line(project: Path, capsys) -> None:
    filled = project / "filled.csv"
    filled.write_bytes(b"query_id,doc_id,grade\nq1,x,2\nq1,caf\xe9,1\n")  # "CSV (Comma delimited)": Windows-1252
    code, _, err = cli(capsys, "merge", filled, "--judgments", project / "judgments.yaml")
    assert code == 2
    assert err == f"pytest-relevance: error: {filled}:3: not UTF-8 text (byte 0xe9): save the file as UTF-8\n"


def test_pool_needs_rankings(project: Path, capsys) -> None:
    (project / "old.json").write_text(json.dumps({"pytest-relevance": 1, "entries": {"t": {"queries": {}}}}))
    code, _, err = cli(capsys, "pool", project / "old.json", "--judgments", project / "judgments.yaml", "-o", "p.csv")
    assert code == 2
    assert "holds no rankings: re-baseline with --relevance-update" in err


def test_csv_judgments_get_rows_appended(tmp_path: Path, capsys) -> None:
    judgments = tmp_path / "j.csv"
    judgments.write_text("query_id,query,stratum,doc_id,grade\nq1,alpha,head,a,3\n")
    before = load_judgments(judgments).version
    (tmp_path / "f.csv").write_text("query_id,doc_id,grade\nq1,b,1\n")
    assert cli(capsys, "merge", tmp_path / "f.csv", "--judgments", judgments)[0] == 0
    assert judgments.read_text().endswith("q1,alpha,head,b,1\n")
    assert load_judgments(judgments).version != before


def test_merged_judgments_that_would_not_load_are_left_unchanged(tmp_path: Path, capsys) -> None:
    judgments, topics = tmp_path / "qrels.txt", tmp_path / "topics.tsv"
    judgments.write_text("q1 0 a 1\n")
    topics.write_text("q1\talpha\n")
    (tmp_path / "f.csv").write_text("query_id,doc_id,grade\nq1,b,0.5\n")  # TREC qrels hold whole grades only
    code, out, err = cli(capsys, "merge", tmp_path / "f.csv", "--judgments", judgments, "--topics", topics)
    assert (code, out) == (2, "")
    assert err == (
        f"pytest-relevance: error: {judgments}: left unchanged: with the merged grades it would not load (grade "
        "'0.5' is not a whole number: trec_eval would truncate it to 0; write whole grades (0, 1, 2, 3...))\n"
    )
    assert judgments.read_text() == "q1 0 a 1\n"


@pytest.mark.parametrize(
    ("name", "text", "appended"),
    [
        ("j.csv", "query_id,query,stratum,doc_id,grade\nq1,alpha,,a,3", "\nq1,alpha,,b,1\r\n"),
        ("qrels.txt", "q1 0 a 3", "\nq1 0 b 1\n"),
    ],
)
def test_rows_are_appended_after_a_last_line_without_its_line_end(
    tmp_path: Path, capsys, name: str, text: str, appended: str
) -> None:
    judgments, topics = tmp_path / name, tmp_path / "topics.tsv"
    judgments.write_bytes(text.encode())
    topics.write_text("q1\talpha\n")
    (tmp_path / "f.csv").write_text("query_id,doc_id,grade\nq1,b,1\n")
    code, _, err = cli(capsys, "merge", tmp_path / "f.csv", "--judgments", judgments, "--topics", topics)
    assert (code, err) == (0, "")
    assert judgments.read_bytes() == (text + appended).encode()
    assert dict(load_judgments(judgments, topics)["q1"].grades) == {"a": 3, "b": 1}


def test_next_version() -> None:
    assert [next_version(v) for v in ("demo-1", "v7", "2024.09", "gold")] == ["demo-2", "v8", "2024.10", "gold-2"]


def test_pool_and_merge_run_as_a_process(project: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "pool", "report.json", "--judgments", "judgments.yaml",
         "-o", "pool.csv"],
        cwd=project, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "2 (query, document) pairs" in out
    rows = (project / "pool.csv").read_text().replace("\r\n", "\n").splitlines()
    (project / "pool.csv").write_text("\n".join([rows[0], *(r + "1" for r in rows[1:])]) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "merge", "pool.csv", "--judgments", "judgments.yaml"],
        cwd=project, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert dict(load_judgments(project / "judgments.yaml")["q1"].grades) == {"a": 3, "b": 0, "z": 1, "x": 1}


BLOCK = """\
# block-style judgments, as a person writes them
queries:
  - id: q1
    text: "écouteurs sans fil"  # a comment stays
    stratum: head
    grades:
      a: 3
      b: 0   # judged irrelevant

  - id: q2
    text: usb cable
    params:
      category: computers
    grades:
      c: 2
  - id: q3
    text: hdmi
    grades: {d: 1}
"""


@pytest.mark.parametrize("version", [None, "v7"])
def test_merge_into_block_style_yaml_only_adds_lines(tmp_path: Path, capsys, version: str | None) -> None:
    """Before, merge rewrote the whole file one line per query (53 lines added, 261 removed for 20 grades), so the
    review could not see the new grades; now the diff is the new grades and the version's value (a flow mapping
    `{d: 1}` gets its grade inside the braces)."""
    import difflib

    judgments = tmp_path / "judgments.yaml"
    before = BLOCK if version is None else BLOCK.replace("queries:\n", f"version: {version}\nqueries:\n")
    judgments.write_text(before, encoding="utf-8")
    rows = [("q1", f"n{i}", i % 4) for i in range(10)] + [("q2", f"m{i}", 1) for i in range(8)] + [("q3", "e", 2)]
    (tmp_path / "f.csv").write_text("query_id,doc_id,grade\n" + "".join(f"{q},{d},{g}\n" for q, d, g in rows))
    assert cli(capsys, "merge", tmp_path / "f.csv", "--judgments", judgments)[0] == 0
    after = judgments.read_text(encoding="utf-8")
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))
    removed = [line for line in diff[2:] if line.startswith("-")]
    added = [line for line in diff[2:] if line.startswith("+")]
    assert removed == [*(["-version: v7"] if version else []), "-    grades: {d: 1}"]
    assert added == [
        *(["+version: v8"] if version else []),
        *(f"+      n{i}: {i % 4}" for i in range(10)),
        *(f"+      m{i}: 1" for i in range(8)),
        "+    grades: {d: 1, e: 2}",
    ]
    merged = load_judgments(judgments)
    assert merged.version == "v8" if version else merged.version.startswith("sha256:")
    assert dict(merged["q1"].grades) == {"a": 3, "b": 0, **{f"n{i}": i % 4 for i in range(10)}}
    assert dict(merged["q3"].grades) == {"d": 1, "e": 2}
    assert "# a comment stays" in after and "# judged irrelevant" in after and "écouteurs" in after


def test_merge_into_a_block_file_of_only_block_mappings_is_only_added_lines(tmp_path: Path, capsys) -> None:
    import difflib

    judgments = tmp_path / "judgments.yaml"
    before = BLOCK.replace("    grades: {d: 1}\n", "    grades:\n      d: 1\n")
    judgments.write_text(before, encoding="utf-8")
    (tmp_path / "f.csv").write_text("query_id,doc_id,grade\nq3,e,2\nq1,x,1\n")
    assert cli(capsys, "merge", tmp_path / "f.csv", "--judgments", judgments)[0] == 0
    diff = list(difflib.ndiff(before.splitlines(), judgments.read_text(encoding="utf-8").splitlines()))
    assert [line for line in diff if line[:1] in "-+?"] == ["+       x: 1", "+       e: 2"]
