"""The `expect:` list of a YAML judgments file: each form read into an Expectation, and each bad entry refused
with the file, the line and the key named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.expectations import Expectation
from pytest_relevance.judgments.model import load_judgments

QUERIES = """\
version: v1
queries:
  - {id: q17, text: reset password, grades: {d42: 3, d7: 2}}
  - {id: q3, text: hiking boots, grades: {d1: 3, d9: 1}}
  - {id: "010", text: tent, grades: {d5: 0}}
"""


def _load(tmp_path: Path, expect: str, before: bool = False) -> object:
    path = tmp_path / "judgments.yaml"
    path.write_text(f"expect:\n{expect}{QUERIES}" if before else f"{QUERIES}expect:\n{expect}")
    return load_judgments(path)


def test_every_form_is_read_with_its_line(tmp_path: Path) -> None:
    judgments = _load(
        tmp_path,
        "  - {query: q17, doc: d42, rank: 1}\n"
        "  - {query: q17, doc: d7, within: 10}\n"
        "  - {query: q3, above: [d1, d9]}\n"
        "  - {query: '010', doc: '007', absent: true}\n",
    )
    assert judgments.expectations == (
        Expectation("q17", "rank", ("d42",), 1, 7),
        Expectation("q17", "within", ("d7",), 10, 8),
        Expectation("q3", "above", ("d1", "d9"), None, 9),
        Expectation("010", "absent", ("007",), None, 10),
    )


def test_expect_may_come_before_the_queries_and_leaves_the_version(tmp_path: Path) -> None:
    judgments = _load(tmp_path, "  - {query: q3, doc: d1, rank: 1}\n", before=True)
    assert judgments.expectations == (Expectation("q3", "rank", ("d1",), 1, 2),)
    assert judgments.version == "v1"


def test_a_file_without_expect_has_none(tmp_path: Path) -> None:
    path = tmp_path / "judgments.yaml"
    path.write_text(QUERIES)
    assert load_judgments(path).expectations == ()


BAD = [
    ("  - {query: q99, doc: d1, rank: 1}\n", 7, "expect[0]: query 'q99' is not a judged query of this file"),
    ("  - {query: q17, doc: d42, rnak: 1}\n", 7, "expect[0]: unknown key 'rnak'; allowed: query, doc, rank"),
    ("  - {query: q17, doc: d42, rank: 1, within: 10}\n", 7, "both 'rank' and 'within'"),
    ("  - {query: q17, doc: d42}\n", 7, "none of rank, within, above, absent"),
    ("  - {query: q17, doc: d42, rank: -2}\n", 7, "rank -2 is negative; ranks start at 1"),
    ("  - {query: q17, doc: d42, rank: 0}\n", 7, "rank '0' is not a rank; write a whole number from 1"),
    ("  - {query: q17, doc: d42, within: ten}\n", 7, "within 'ten' is not a rank"),
    ("  - {query: q17, doc: d42, rank: 1.5}\n", 7, "rank '1.5' is not a rank"),
    ("  - {query: q17, doc: d42, rank: true}\n", 7, "rank 'true' is not a rank"),
    ("  - {query: q3, above: d1}\n", 7, "'above' must be a list of two or more document ids"),
    ("  - {query: q3, above: [d1]}\n", 7, "'above' must be a list of two or more document ids"),
    ("  - {query: q3, above: [d1, d1]}\n", 7, "'above' lists a document twice"),
    ("  - {query: q3, doc: d1, above: [d1, d9]}\n", 7, "'above' lists its documents; drop 'doc'"),
    ("  - {query: q3, doc: d5, absent: false}\n", 7, "absent must be true"),
    ("  - {query: q3, rank: 1}\n", 7, "missing 'doc'"),
    ("  - {doc: d1, rank: 1}\n", 7, "expect[0]: missing 'query'"),
    ("  - {query: [q3], doc: d1, rank: 1}\n", 7, "'query' must be one id"),
    ("  - {query: q3, doc: d1, rank: 1, rank: 2}\n", 7, "key 'rank' appears twice"),
    ("  - q3 d1 1\n", 7, "expect[0]: an expectation is {query: ID, doc: ID, rank: N}"),
    ("  {query: q3, doc: d1, rank: 1}\n", 7, "key 'expect' must be a list of expectations"),
]


@pytest.mark.parametrize(("expect", "line", "message"), BAD, ids=[b[2][:40] for b in BAD])
def test_bad_entries_name_file_line_and_key(tmp_path: Path, expect: str, line: int, message: str) -> None:
    with pytest.raises(RelevanceInputError) as raised:
        _load(tmp_path, expect)
    text = str(raised.value)
    assert "judgments.yaml" in text and f":{line}" in text and message in text, text


def test_the_second_entry_is_named_by_its_index_and_line(tmp_path: Path) -> None:
    with pytest.raises(RelevanceInputError, match=r"judgments.yaml:8: expect\[1\]"):
        _load(tmp_path, "  - {query: q17, doc: d42, rank: 1}\n  - {query: q17, doc: d42, within: 0}\n")


def test_proposed_expectations_are_the_top_graded_firsts_every_ranking_agrees_on(tmp_path: Path) -> None:
    from pytest_relevance.judgments.expectations import propose

    judgments = _load(tmp_path, "  - {query: q3, doc: d1, within: 5}\n")
    rankings = [{"q17": ["d42", "d7"], "q3": ["d1"], "010": ["d5"]}, {"q17": ["d42"], "q3": ["d1"], "010": []}]
    # q17: d42 (grade 3) first in both; q3: d1 already expected; 010: no agreed first document
    assert propose(judgments, rankings) == [Expectation("q17", "rank", ("d42",), 1)]
    assert propose(judgments, [{"q17": ["d7"]}]) == []  # grade 2 is not the set's highest


@pytest.mark.parametrize("doc", ["d42", "010", "a: b", "#x", "null", "it's", 'say "hi"', "*ref"])
def test_a_written_expectation_reads_back_as_written(tmp_path: Path, doc: str) -> None:
    from pytest_relevance.judgments.expectations import yaml_line

    written = [
        Expectation("q17", "rank", (doc,), 1, 7),
        Expectation("q17", "within", (doc,), 10, 8),
        Expectation("q3", "above", (doc, "d9"), None, 9),
        Expectation("q3", "absent", (doc,), None, 10),
    ]
    judgments = _load(tmp_path, "".join(yaml_line(e) + "\n" for e in written))
    assert judgments.expectations == tuple(written)
