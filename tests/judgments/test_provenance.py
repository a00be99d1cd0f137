"""Grade provenance (source, date, content hash) in YAML and CSV judgments, stale grades, and their re-judging."""

from __future__ import annotations

import csv
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.model import Provenance, load_judgments
from pytest_relevance.judgments.pool import merge_file, pool, write_csv, write_pool
from pytest_relevance.judgments.provenance import content_hash, parse_age, stale_grades, stale_warnings

YAML = """\
version: v1
queries:
  - id: q1
    text: red shoes
    stratum: head
    grades:
      d1: 3
      d2: {grade: 2, judge: rule, source: "judge:rule", date: 2026-01-10, hash: "sha256:aaaa"}
      d3: {grade: 1, source: human, date: 2025-03-01}
      d4: {grade: 0, source: "clicks:coec"}
  - id: q2
    text: blue hat
    grades: {d1: 1}
"""


def _said(path: Path) -> dict[str, tuple[dict, dict]]:
    judgments = load_judgments(path)
    return {q.id: (dict(q.grades), dict(q.provenance)) for q in judgments.queries}


def test_yaml_provenance_is_read(tmp_path: Path) -> None:
    path = tmp_path / "j.yaml"
    path.write_text(YAML)
    query = load_judgments(path)["q1"]
    assert query.grades == {"d1": 3, "d2": 2, "d3": 1, "d4": 0}
    assert query.provenance == {
        "d2": Provenance("judge:rule", "2026-01-10", "sha256:aaaa"),
        "d3": Provenance("human", "2025-03-01"),
        "d4": Provenance("clicks:coec"),
    }
    assert query.judges == {"d2": "rule"}


def test_a_judge_alone_implies_its_source(tmp_path: Path) -> None:
    path = tmp_path / "j.yaml"
    path.write_text("queries:\n  - {id: q1, text: a, grades: {d1: {grade: 2, judge: rule}}}\n")
    assert load_judgments(path)["q1"].provenance == {"d1": Provenance("judge:rule")}


def test_yaml_round_trip_through_a_rewrite(tmp_path: Path) -> None:
    # merging into a query without `grades:` rewrites the whole file one line per query: provenance must survive
    path = tmp_path / "j.yaml"
    path.write_text(YAML + "  - {id: q3, text: green}\n")
    before = _said(path)
    filled = tmp_path / "pool.csv"
    filled.write_text("query_id,doc_id,grade\nq3,d9,2\n")
    merge_file(path, filled)
    after = _said(path)
    assert after.pop("q3") == ({"d9": 2}, {})
    before.pop("q3")
    assert after == before
    assert '{grade: 2, judge: rule, source: "judge:rule", date: "2026-01-10", hash: "sha256:aaaa"}' in (
        path.read_text()
    )


def test_csv_provenance_round_trip(tmp_path: Path) -> None:
    yaml_path = tmp_path / "j.yaml"
    yaml_path.write_text(YAML)
    judgments = load_judgments(yaml_path)
    path = tmp_path / "j.csv"
    write_csv(path, judgments.queries)
    assert next(csv.reader(path.open())) == [
        "query_id",
        "query",
        "stratum",
        "doc_id",
        "grade",
        "source",
        "date",
        "hash",
    ]
    assert _said(path) == _said(yaml_path)
    again = tmp_path / "again.csv"
    write_csv(again, load_judgments(path).queries)
    assert again.read_text() == path.read_text()
    assert load_judgments(again).version == load_judgments(path).version


def test_csv_without_provenance_keeps_five_columns(tmp_path: Path) -> None:
    path = tmp_path / "j.csv"
    path.write_text("query_id,query,stratum,doc_id,grade\nq1,a,,d1,2\n")
    version = load_judgments(path).version
    write_csv(path, load_judgments(path).queries)
    assert path.read_text().splitlines()[0] == "query_id,query,stratum,doc_id,grade"
    assert load_judgments(path).version == version


def test_provenance_is_part_of_the_version(tmp_path: Path) -> None:
    plain, dated = tmp_path / "plain.yaml", tmp_path / "dated.yaml"
    plain.write_text("queries:\n  - {id: q1, text: a, grades: {d1: 2}}\n")
    dated.write_text("queries:\n  - {id: q1, text: a, grades: {d1: {grade: 2, source: human, date: 2026-01-01}}}\n")
    assert load_judgments(plain).version != load_judgments(dated).version


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("q1,a,,d1,2,people,,", "j.csv:2: query 'q1', document 'd1': source 'people' is not human"),
        ("q1,a,,d1,2,human,last week,", "j.csv:2: query 'q1', document 'd1': date 'last week' is not a date"),
        ("q1,a,,d1,2,human,2026-01-01", "j.csv:2: expected 8 columns, found 7"),
    ],
)
def test_csv_bad_provenance(tmp_path: Path, row: str, problem: str) -> None:
    path = tmp_path / "j.csv"
    path.write_text(f"query_id,query,stratum,doc_id,grade,source,date,hash\n{row}\n")
    with pytest.raises(RelevanceInputError) as raised:
        load_judgments(path)
    assert problem in str(raised.value)


def test_csv_bad_header_names_the_optional_columns(tmp_path: Path) -> None:
    path = tmp_path / "j.csv"
    path.write_text("query_id,query,stratum,doc_id,grade,source\nq1,a,,d1,2,human\n")
    with pytest.raises(RelevanceInputError, match=r"j.csv:1: header must be .* \(then optionally source,date,hash\)"):
        load_judgments(path)


# ---------------------------------------------------------------- staleness


def test_content_hash_ignores_field_order_not_content() -> None:
    assert content_hash({"id": "d1", "title": "a"}) == content_hash({"title": "a", "id": "d1"})
    assert content_hash({"id": "d1", "title": "a"}) != content_hash({"id": "d1", "title": "b"})


def test_parse_age() -> None:
    assert parse_age("180d") == timedelta(days=180)
    assert parse_age("2w") == timedelta(days=14)
    for bad in ("6m", "0d", "d", "-3d", "1.5d"):
        with pytest.raises(ValueError, match="is not an age"):
            parse_age(bad)


def _stale_fixture(tmp_path: Path) -> Path:
    path = tmp_path / "j.yaml"
    doc1 = content_hash({"id": "d1", "title": "one"})
    path.write_text(
        "version: v1\nqueries:\n  - id: q1\n    text: a\n    grades:\n"
        f'      d1: {{grade: 3, source: human, date: 2026-01-01, hash: "{doc1}"}}\n'
        '      d2: {grade: 2, source: human, date: 2026-01-01, hash: "sha256:old"}\n'
        "      d3: {grade: 1, source: human, date: 2025-01-01}\n"
        "      d4: 1\n"
    )
    return path


NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
HASHES = {"d1": content_hash({"id": "d1", "title": "one"}), "d2": "sha256:new", "d3": "sha256:x", "d4": "sha256:y"}


def test_stale_grades(tmp_path: Path) -> None:
    judgments = load_judgments(_stale_fixture(tmp_path))
    assert stale_grades(judgments, NOW, None, lambda: HASHES) == {("q1", "d2"): "content changed"}
    assert stale_grades(judgments, NOW, timedelta(days=180), lambda: HASHES) == {
        ("q1", "d2"): "content changed",
        ("q1", "d3"): "judged 2025-01-01, over 180d before 2026-01-15",
    }
    # no corpus to tell: only the age
    assert stale_grades(judgments, NOW, timedelta(days=180), lambda: None) == {
        ("q1", "d3"): "judged 2025-01-01, over 180d before 2026-01-15"
    }


def test_stale_warnings(tmp_path: Path) -> None:
    judgments = load_judgments(_stale_fixture(tmp_path))
    warnings = stale_warnings(judgments, NOW, timedelta(days=180), lambda: HASHES)
    assert len(warnings) == 2
    assert warnings[0].startswith("1 grade(s) judged a document whose content has changed since (q1/d2)")
    assert warnings[1].startswith("1 grade(s) older than relevance_max_judgment_age 180d (q1/d3)")
    assert stale_warnings(judgments, NOW, None, lambda: dict(HASHES, d2="sha256:old")) == []


def test_hashes_are_not_read_without_a_hashed_grade(tmp_path: Path) -> None:
    path = tmp_path / "j.yaml"
    path.write_text("queries:\n  - {id: q1, text: a, grades: {d1: {grade: 1, source: human, date: 2026-01-01}}}\n")

    def unread() -> dict[str, str]:
        raise AssertionError("the corpus was read")

    assert stale_grades(load_judgments(path), NOW, None, unread) == {}


def test_pool_puts_stale_grades_up_and_merge_replaces_them(tmp_path: Path) -> None:
    import time_machine

    path = _stale_fixture(tmp_path)
    judgments = load_judgments(path)
    stale = stale_grades(judgments, NOW, timedelta(days=180), lambda: HASHES)
    rows = pool(judgments, [{"q1": ["d2", "d5", "d1"]}], 10, stale=stale, hashes=HASHES)
    by_doc = {row["doc_id"]: row for row in rows}
    assert set(by_doc) == {"d2", "d3", "d5"}
    assert (by_doc["d2"]["stale"], by_doc["d2"]["old_grade"], by_doc["d2"]["hash"]) == (
        "content changed",
        2,
        "sha256:new",
    )
    assert by_doc["d3"]["rank"] == ""  # not in any top k, put up all the same
    assert by_doc["d3"]["old_grade"] == 1
    assert "stale" not in by_doc["d5"]
    filled = tmp_path / "pool.csv"
    write_pool(filled, rows, [])
    header = next(csv.reader(filled.open()))
    assert header[-4:] == ["stale", "old_grade", "hash", "grade"]
    text = filled.read_text().splitlines()
    regraded = {"d2": "0", "d3": "1", "d5": "2"}
    lines = [text[0]] + [line + regraded[line.split(",")[3]] for line in text[1:]]
    filled.write_text("\n".join(lines) + "\n")
    with time_machine.travel(datetime(2026, 2, 1, tzinfo=UTC), tick=False):
        old, new, count, blank = merge_file(path, filled)
    assert (old, new, count, blank) == ("v1", "v2", 3, 0)
    after = load_judgments(path)["q1"]
    assert after.grades == {"d1": 3, "d2": 0, "d3": 1, "d4": 1, "d5": 2}
    assert after.provenance["d2"] == Provenance("human", "2026-02-01", "sha256:new")
    assert after.provenance["d3"] == Provenance("human", "2026-02-01", "sha256:x")
    assert "d5" not in after.provenance  # a new human grade is written as ever
    assert stale_grades(load_judgments(path), NOW.replace(month=3), timedelta(days=180), lambda: HASHES) == {}


def test_a_stale_row_whose_grade_changed_since_is_a_conflict(tmp_path: Path) -> None:
    path = _stale_fixture(tmp_path)
    filled = tmp_path / "pool.csv"
    filled.write_text("query_id,doc_id,stale,old_grade,hash,grade\nq1,d2,content changed,3,sha256:new,1\n")
    before = path.read_bytes()
    with pytest.raises(RelevanceInputError, match=r"q1/d2: pooled as stale with 3 \(line 2\), 2 now"):
        merge_file(path, filled)
    assert path.read_bytes() == before


def test_trec_qrels_refuse_provenance(tmp_path: Path) -> None:
    qrels, topics = tmp_path / "qrels", tmp_path / "topics.tsv"
    qrels.write_text("q1 0 d1 2\n")
    topics.write_text("q1\ta\n")
    filled = tmp_path / "pool.csv"
    filled.write_text("query_id,doc_id,stale,old_grade,hash,grade\nq1,d1,content changed,2,,1\n")
    with pytest.raises(RelevanceInputError, match="TREC qrels hold no provenance"):
        merge_file(qrels, filled, topics=topics)
    assert qrels.read_text() == "q1 0 d1 2\n"


# ---------------------------------------------------------------- the model-graded share


def test_model_share_by_hand(tmp_path: Path) -> None:
    import math

    from pytest_relevance.judgments.provenance import model_share
    from pytest_relevance.metrics.ranking import parse_metrics
    from pytest_relevance.reports.formatting import model_line

    path = tmp_path / "j.yaml"
    path.write_text(
        "queries:\n"
        "  - {id: q1, text: a, grades: {d1: 1, d2: {grade: 2, judge: rule}}}\n"
        "  - {id: q2, text: b, grades: {d3: {grade: 1, judge: rule}}}\n"
        "  - {id: q3, text: c, grades: {d4: 0}}\n"  # no gain at all: counts for neither side
    )
    judgments = load_judgments(path)
    run = {"q1": ["d1", "d2", "d2"], "q2": ["x"], "q3": ["d4"]}  # a repeat gains nothing, as in the metrics
    idcg = 2 + 1 / math.log2(3)
    human, model = 1 / idcg, 2 / math.log2(3) / idcg
    metric, share = model_share(judgments, run, parse_metrics(["mrr", "ndcg@10"]))
    assert metric == "ndcg@10"
    assert share == pytest.approx(model / (human + model))
    exp = model_share(judgments, run, parse_metrics(["ndcg@10(gain=exp)"]))
    exp_idcg = 3 + 1 / math.log2(3)
    assert exp[1] == pytest.approx((3 / math.log2(3) / exp_idcg) / (1 / exp_idcg + 3 / math.log2(3) / exp_idcg))
    assert model_share(judgments, run, parse_metrics(["mrr"])) is None  # no NDCG to share out
    assert model_share(judgments, {"q2": ["x"]}, parse_metrics(["ndcg@10"])) is None  # no gain
    report = {
        "rows": [{"stratum": "all", "metric": "ndcg@10", "current": 0.71}],
        "model_graded": {"metric": "ndcg@10", "share": 0.234, "judges": ["rule"], "kappa": None, "pairs": 40},
    }
    assert model_line(report) == (
        "ndcg@10 0.7100, of which 23% of the gain is model-graded (rule); judge kappa undefined on 40 shared pairs"
    )
    assert model_line({"rows": [], "model_graded": None}) is None
