"""Judgments: three formats, one model, and a clear message naming file and line for every mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments import load_judgments

YAML = """\
version: v7
queries:
  - id: q001
    text: wireless headphones
    stratum: head
    params: {category: audio}
    grades: {d12: 3, d3: 2, d99: 0}
  - id: q002
    text: usb cable
    grades: {d5: 1}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_yaml_loads_into_the_model(tmp_path: Path) -> None:
    judgments = load_judgments(write(tmp_path, "j.yaml", YAML))
    assert judgments.version == "v7"
    first = judgments["q001"]
    assert (first.text, first.stratum, dict(first.params)) == ("wireless headphones", "head", {"category": "audio"})
    assert dict(first.grades) == {"d12": 3, "d3": 2, "d99": 0}
    assert judgments["q002"].stratum is None
    assert judgments.strata == ["head"]


def test_version_is_a_content_hash_that_ignores_formatting(tmp_path: Path) -> None:
    plain = YAML.replace("version: v7\n", "")
    a = load_judgments(write(tmp_path, "a.yaml", plain)).version
    b = load_judgments(write(tmp_path, "b.yaml", "# a comment\n" + plain.replace("{d5: 1}", "{ d5: 1 }"))).version
    c = load_judgments(write(tmp_path, "c.yaml", plain.replace("{d5: 1}", "{d5: 2}"))).version
    assert a.startswith("sha256:")
    assert a == b
    assert a != c


def test_csv_and_trec_load_to_the_same_model(tmp_path: Path) -> None:
    csv_path = write(
        tmp_path,
        "j.csv",
        "query_id,query,stratum,doc_id,grade\nq1,usb cable,head,d5,1\nq1,usb cable,head,d6,0\nq2,hdmi,,d7,2\n",
    )
    from_csv = load_judgments(csv_path)
    qrels = write(tmp_path, "j.qrels", "q1 0 d5 1\nq1 0 d6 0\nq2 0 d7 2\n")
    topics = write(tmp_path, "topics.tsv", "q1\tusb cable\thead\nq2\thdmi\n")
    from_trec = load_judgments(qrels, topics)
    assert from_csv.queries == from_trec.queries
    assert from_csv.version == from_trec.version


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (YAML.replace("  - id: q002", "  - id: q001"), "j.yaml:8: duplicate query id 'q001' (first at line 3)"),
        (YAML.replace("{d5: 1}", "{d5: 1, d5: 2}"), "j.yaml:10: key 'd5' appears twice in one mapping"),
        (YAML.replace("{d5: 1}", "{d5: lots}"), "j.yaml:10: query 'q002', document 'd5': grade 'lots' is not a number"),
        (YAML.replace("{d5: 1}", "{d5: -1}"), "j.yaml:10: query 'q002', document 'd5': grade -1 is negative"),
        (YAML.replace("    text: usb cable\n", ""), "j.yaml:8: query 'q002': missing 'text'"),
        (YAML.replace("    stratum: head", "    strata: head"), "j.yaml:3: query 'q001': unknown key 'strata'"),
        (YAML.replace("version: v7", "versoin: v7"), "j.yaml: unknown key 'versoin'"),
        ("queries: []\n", "j.yaml: no queries"),
        (YAML.replace("text: usb cable", "text: [usb"), "j.yaml:10: YAML syntax error"),
        ("", "j.yaml: the file is empty"),
    ],
    ids=[
        "duplicate-id",
        "graded-twice",
        "non-numeric",
        "negative",
        "no-text",
        "unknown-key",
        "unknown-top",
        "empty-set",
        "syntax",
        "empty-file",
    ],
)
def test_yaml_validation_names_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(write(tmp_path, "j.yaml", text))
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("query_id,query,doc_id,grade\n", "j.csv:1: header must be query_id,query,stratum,doc_id,grade"),
        (
            "query_id,query,stratum,doc_id,grade\nq1,a,,d1,1\nq1,a,,d1,2\n",
            "j.csv:3: query 'q1': document 'd1' graded twice",
        ),
        (
            "query_id,query,stratum,doc_id,grade\nq1,a,,d1,x\n",
            "j.csv:2: query 'q1', document 'd1': grade 'x' is not a number",
        ),
        ("query_id,query,stratum,doc_id,grade\nq1,,,d1,1\n", "j.csv:2: query 'q1': empty query text"),
        ("query_id,query,stratum,doc_id,grade\n", "j.csv: no queries"),
    ],
)
def test_csv_validation_names_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(write(tmp_path, "j.csv", text))
    assert message in str(error.value)


def test_trec_needs_topics_for_every_judged_query(tmp_path: Path) -> None:
    qrels = write(tmp_path, "j.qrels", "q1 0 d5 1\nq2 0 d7 2\n")
    with pytest.raises(RelevanceInputError, match="need a topics file"):
        load_judgments(qrels)
    with pytest.raises(RelevanceInputError, match=r"query 'q2' is judged in .*j\.qrels but has no topic here"):
        load_judgments(qrels, write(tmp_path, "t.tsv", "q1\tusb\n"))
    with pytest.raises(RelevanceInputError, match=r"t2\.tsv:1: expected qid<TAB>text"):
        load_judgments(qrels, write(tmp_path, "t2.tsv", "q1 usb\n"))
