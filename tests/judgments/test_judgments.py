"""Judgments: three formats, one model, and a clear message naming file and line for every mistake."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments import model as judgments
from pytest_relevance.judgments.model import Judgments, Query, load_judgments

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
        (YAML.replace("{d5: 1}", "{d5: 1, d5: 2}"), "j.yaml:10: key 'd5' appears twice in queries[1].grades"),
        (YAML.replace("{d5: 1}", "{d5: lots}"), "j.yaml:10: query 'q002', document 'd5': grade 'lots' is not a number"),
        (YAML.replace("{d5: 1}", "{d5: -1}"), "j.yaml:10: query 'q002', document 'd5': grade -1 is negative"),
        (YAML.replace("    text: usb cable\n", ""), "j.yaml:8: query 'q002': missing 'text'"),
        (YAML.replace("    stratum: head", "    strata: head"), "j.yaml:3: query 'q001': unknown key 'strata'"),
        (YAML.replace("version: v7", "versoin: v7"), "j.yaml:1: unknown key 'versoin'"),
        ("queries: []\n", "j.yaml: no queries"),
        (YAML.replace("text: usb cable", "text: [usb"), "j.yaml:10: YAML syntax error"),
        ("", "j.yaml: the file is empty"),
        (YAML.replace("text: usb cable", "text: null"), "j.yaml:8: query 'q002': missing 'text'"),
        (YAML.replace("text: usb cable", "text: ~"), "j.yaml:8: query 'q002': missing 'text'"),
        (YAML.replace("{d5: 1}", "{d5: 1, '': 2}"), "j.yaml:10: query 'q002': a document id is empty"),
        (YAML.replace("{d5: 1}", '{" ": 2}'), "j.yaml:10: query 'q002': a document id is empty"),
        (YAML.replace("stratum: head", "stratum: ''"), "j.yaml:3: query 'q001': 'stratum' is empty; leave it out"),
        ("queries:\n  - {id: q1, text: null, grades: {d: 1}}\n", "j.yaml:2: query 'q1': missing 'text'"),
        ('queries:\n  - {id: q1, text: a, grades: {"": 1}}\n', "j.yaml:2: query 'q1': a document id is empty"),
        ('queries:\n  - {id: q1, text: a, stratum: " ", grades: {d: 1}}\n', "j.yaml:2: query 'q1': 'stratum' is empty"),
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
        "null-text",
        "tilde-text",
        "empty-doc-id",
        "blank-doc-id",
        "empty-stratum",
        "null-text-one-line",
        "empty-doc-id-one-line",
        "blank-stratum-one-line",
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


STRATUM_ALL = "query 'q2': stratum 'all' is the name of the row over all queries: name the stratum otherwise"
STRATUM_METRIC = "query 'q2': stratum '{}' reads as a metric (a tolerance override of that name would apply to the *"
METRIC = STRATUM_METRIC.format


@pytest.mark.parametrize(
    ("name", "text", "topics", "message"),
    [
        ("j.yaml", "queries:\n  - id: q2\n    text: b\n    stratum: all\n", None, f"4: {STRATUM_ALL}"),
        ("j.yaml", "queries:\n  - {id: q2, text: b, stratum: all}\n", None, f"2: {STRATUM_ALL}"),
        ("j.yaml", "queries:\n  - {id: q2, text: b, stratum: map}\n", None, "2: " + METRIC("map")),
        ("j.yaml", "queries:\n  - id: q2\n    stratum: NDCG\n    text: b\n", None, "3: " + METRIC("NDCG")),
        ("j.csv", f"{','.join(judgments.CSV_COLUMNS)}\nq1,a,head,d1,1\nq2,b, all ,d1,1\n", None, f"3: {STRATUM_ALL}"),
        ("j.csv", f"{','.join(judgments.CSV_COLUMNS)}\nq2,b,p@5,d1,1\n", None, "2: " + METRIC("p@5")),
        ("j.qrels", "q1 0 d1 1\nq2 0 d1 1\n", "q1\ta\thead\nq2\tb\tall\n", f"2: {STRATUM_ALL}"),
        ("j.qrels", "q2 0 d1 1\n", "q2\tb\tmrr@5\n", "1: " + METRIC("mrr@5")),
    ],
    ids=["yaml-all", "yaml-line-all", "yaml-line-map", "yaml-ndcg", "csv-all", "csv-p5", "trec-all", "trec-mrr"],
)
def test_a_stratum_named_all_or_like_a_metric_is_refused_where_it_is_read(
    tmp_path: Path, name: str, text: str, topics: str | None, message: str
) -> None:
    """`all` would replace the overall row; `ndcg@10` would make a tolerance override apply to stratum and metric."""
    path = write(tmp_path, name, text)
    source = path if topics is None else write(tmp_path, "topics.tsv", topics)
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(path, None if topics is None else source)
    assert re.fullmatch(re.escape(f"{source}:{message}").replace(r"\*", ".*"), str(error.value)), str(error.value)


def test_trec_needs_topics_for_every_judged_query(tmp_path: Path) -> None:
    qrels = write(tmp_path, "j.qrels", "q1 0 d5 1\nq2 0 d7 2\n")
    with pytest.raises(RelevanceInputError, match="need a topics file"):
        load_judgments(qrels)
    with pytest.raises(RelevanceInputError, match=r"query 'q2' is judged in .*j\.qrels but has no topic here"):
        load_judgments(qrels, write(tmp_path, "t.tsv", "q1\tusb\n"))
    with pytest.raises(RelevanceInputError, match=r"t2\.tsv:1: expected qid<TAB>text"):
        load_judgments(qrels, write(tmp_path, "t2.tsv", "q1 usb\n"))


# ---------------------------------------------------------------- ids as written, grades in range


def test_yaml_ids_are_strings_exactly_as_written(tmp_path: Path) -> None:
    text = (
        "queries:\n"
        "  - {id: 010, text: a, grades: {010: 3, 8: 0, 0123: 1}}\n"
        "  - {id: 12:30, text: b, grades: {1.10: 1, on: 2, null: 1, yes: 0, '~': 1}}\n"
        "  - {id: 1.10, text: c, grades: {d: 1}}\n"
        "  - {id: on, text: d}\n"
        "  - {id: null, text: e}\n"
        "  - {id: '8', text: 2026, stratum: 01}\n"
    )
    judgments = load_judgments(write(tmp_path, "j.yaml", text))
    assert [q.id for q in judgments.queries] == ["010", "12:30", "1.10", "on", "null", "8"]
    assert dict(judgments["010"].grades) == {"010": 3, "8": 0, "0123": 1}
    assert dict(judgments["12:30"].grades) == {"1.10": 1, "on": 2, "null": 1, "yes": 0, "~": 1}
    assert (judgments["8"].text, judgments["8"].stratum) == ("2026", "01")


def test_yaml_anchors_aliases_and_params_keep_working(tmp_path: Path) -> None:
    text = (
        "queries:\n"
        "  - {id: q1, text: a, params: &p {n: 010, on: yes}, grades: &g {007: 2, d2: 1}}\n"
        "  - {id: q2, text: b, params: *p, grades: *g}\n"
    )
    judgments = load_judgments(write(tmp_path, "j.yaml", text))
    assert dict(judgments["q2"].grades) == {"007": 2, "d2": 1}
    assert dict(judgments["q2"].params) == {"n": 8, "on": True}  # values are typed template values; keys are names


@pytest.mark.parametrize(
    ("query", "line", "message"),
    [
        ("text: !!timestamp x", 3, "query 'q1': 'text' is tagged !!timestamp, but it is text as written: *"),
        ("text: !!bool maybe", 3, "query 'q1': 'text' is tagged !!bool, but it is text as written: remove the tag"),
        ("text: a\n    stratum: !!int 1", 4, "query 'q1': 'stratum' is tagged !!int, *"),
        ("text: a\n    grades: {!!int 7: 1}", 4, "query 'q1': a document id is tagged !!int, *"),
        (
            "text: a\n    grades: {d1: !!binary zz}",
            4,
            "query 'q1', document 'd1': 'zz' cannot be read as !!binary: correct the value or remove the tag",
        ),
        ("text: a\n    grades: {d1: !!timestamp x}", 4, "query 'q1', document 'd1': 'x' cannot be read as *"),
        ("text: a\n    grades: {d1: !!bool maybe}", 4, "query 'q1', document 'd1': 'maybe' cannot be read as !!bool*"),
        ("text: a\n    grades: {d1: !!int ''}", 4, "query 'q1', document 'd1': '' cannot be read as !!int: *"),
        ("text: a\n    params: {at: [1, !!timestamp x]}", 4, "query 'q1', params: 'x' cannot be read as !!timestamp*"),
        ("text: a\n    params: !!omap {a: 1}", 4, "query 'q1', params: a value tagged !!omap cannot be read (*)"),
        ("text: &t null", 2, "query 'q1': missing 'text' (the query as a user would type it)"),
        ("text: a\n    stratum: &s ''", 2, "query 'q1': 'stratum' is empty; leave it out for a query without one"),
        ("text: a\n    params: []", 2, "query 'q1': 'params' must be a mapping of template parameters, not []"),
        ("text: a\n    params: 0", 2, "query 'q1': 'params' must be a mapping of template parameters, not 0"),
        ("text: a\n    params: ''", 2, "query 'q1': 'params' must be a mapping of template parameters, not ''"),
        ("text: a\n    <<: {stratum: head}", 4, "'<<' is a YAML merge key, which judgments do not expand: *"),
        ("text: a\n    grades: {<<: {d1: 1}}", 4, "query 'q1': '<<' is a YAML merge key, which *"),
        ("text: a\n    params: {<<: {n: 1}}", 4, "query 'q1', params: '<<' is a YAML merge key, *"),
    ],
    ids=[
        "tagged-text-timestamp",
        "tagged-text-bool",
        "tagged-stratum",
        "tagged-doc-id",
        "grade-binary",
        "grade-timestamp",
        "grade-bool",
        "grade-empty-int",
        "params-timestamp",
        "params-omap",
        "anchored-null-text",
        "anchored-empty-stratum",
        "params-list",
        "params-zero",
        "params-empty-string",
        "merge-query",
        "merge-grades",
        "merge-params",
    ],
)
def test_yaml_tags_anchors_and_merge_keys_are_one_message(tmp_path: Path, query: str, line: int, message: str) -> None:
    """A tag that says the text means something else, a null behind an anchor, params that are not a mapping and
    a merge key are each refused with the line, never read as the text written or a traceback."""
    path = write(tmp_path, "j.yaml", f"queries:\n  - id: q1\n    {query}\n")
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(path)
    expected = re.escape(f"{path}:{line}: {message}").replace(r"\*", ".*")
    assert re.fullmatch(expected, str(error.value)), str(error.value)


def test_yaml_anchored_values_read_as_they_would_unanchored(tmp_path: Path) -> None:
    text = "queries:\n  - {id: &i null, text: &t 010, stratum: &s ~, grades: {d1: 1}}\n  - {id: q2, text: *t}\n"
    judgments = load_judgments(write(tmp_path, "j.yaml", text))
    assert [(q.id, q.text, q.stratum) for q in judgments.queries] == [("null", "010", None), ("q2", "010", None)]
    text = "queries:\n  - {id: !!str 7, text: !!str yes, params: , grades: {!!str 8: !!int 2}}\n"
    (query,) = load_judgments(write(tmp_path, "k.yaml", text)).queries
    assert (query.id, query.text, dict(query.params), dict(query.grades)) == ("7", "yes", {}, {"8": 2})


@pytest.mark.parametrize(
    ("grades", "line", "message"),
    [
        ("{8: 1, '8': 0}", 3, "key '8' appears twice in queries[0].grades (first at line 4)"),
        (
            "{d1: .inf}",
            3,
            "query 'q1', document 'd1': grade inf is not a grade; grades are finite numbers from 0 to 1000",
        ),
        (
            "{d1: .nan}",
            3,
            "query 'q1', document 'd1': grade nan is not a grade; grades are finite numbers from 0 to 1000",
        ),
        (
            "{d1: 1.0e+308}",
            3,
            "query 'q1', document 'd1': grade 1e+308 is not a grade; grades are finite numbers from 0 to 1000",
        ),
        (
            "{d1: 2000}",
            3,
            "query 'q1', document 'd1': grade 2000 is not a grade; grades are finite numbers from 0 to 1000",
        ),
        ("{d1: yes}", 3, "query 'q1', document 'd1': grade True is not a number (use 0, 1, 2, 3...)"),
        ("{d1: [1]}", 3, "query 'q1', document 'd1': grade 'a sequence' is not a number (use 0, 1, 2, 3...)"),
    ],
    ids=["same-id-twice", "inf", "nan", "huge", "2000", "bool", "list"],
)
def test_yaml_grades_must_be_finite_and_in_range(tmp_path: Path, grades: str, line: int, message: str) -> None:
    path = write(tmp_path, "j.yaml", f"queries:\n  - id: q1\n    text: a\n    grades: {grades}\n")
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(path)
    assert str(error.value) == f"{path}:{line + 1}: {message}"


@pytest.mark.parametrize(
    ("grade", "message"),
    [
        ("nan", "grade nan is not a grade; grades are finite numbers from 0 to 1000"),
        ("inf", "grade inf is not a grade; grades are finite numbers from 0 to 1000"),
        ("1e308", "grade 1e+308 is not a grade; grades are finite numbers from 0 to 1000"),
        ("1001", "grade 1001 is not a grade; grades are finite numbers from 0 to 1000"),
        ("1_0", "grade '1_0' is not a number (use 0, 1, 2, 3...)"),  # Python's int read it as 10
    ],
)
def test_csv_grades_must_be_finite_and_in_range(tmp_path: Path, grade: str, message: str) -> None:
    path = write(tmp_path, "j.csv", f"query_id,query,stratum,doc_id,grade\nq1,a,,d0,1\nq1,a,,d1,{grade}\n")
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(path)
    assert str(error.value) == f"{path}:3: query 'q1', document 'd1': {message}"


# ---------------------------------------------------------------- encodings


@pytest.mark.parametrize(
    ("name", "data", "line"),
    [
        ("j.yaml", b"queries:\n  - {id: q1, text: caf\xe9, grades: {d1: 1}}\n", 2),
        ("j.csv", b"query_id,query,stratum,doc_id,grade\nq1,a,,d1,1\nq1,caf\xe9,,d2,1\n", 3),
    ],
)
def test_a_file_that_is_not_utf8_is_one_message(tmp_path: Path, name: str, data: bytes, line: int) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(path)
    assert str(error.value) == f"{path}:{line}: not UTF-8 text (byte 0xe9): save the file as UTF-8"


def test_topics_that_are_not_utf8_are_named(tmp_path: Path) -> None:
    qrels = write(tmp_path, "j.qrels", "q1 0 d5 1\n")
    topics = tmp_path / "t.tsv"
    topics.write_bytes(b"q1\tcaf\xe9\n")
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(qrels, topics)
    assert str(error.value) == f"{topics}:1: not UTF-8 text (byte 0xe9): save the file as UTF-8"


def test_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    csv_path = tmp_path / "j.csv"
    csv_path.write_bytes(b"\xef\xbb\xbfquery_id,query,stratum,doc_id,grade\r\nq1,usb cable,head,d5,1\r\n")
    yaml_path = tmp_path / "j.yaml"
    yaml_path.write_bytes(b"\xef\xbb\xbfqueries:\n  - {id: q1, text: usb cable, stratum: head, grades: {d5: 1}}\n")
    qrels = tmp_path / "j.qrels"
    qrels.write_bytes(b"\xef\xbb\xbfq1 0 d5 1\n")
    topics = tmp_path / "t.tsv"
    topics.write_bytes(b"\xef\xbb\xbfq1\tusb cable\thead\n")
    loaded = [load_judgments(csv_path), load_judgments(yaml_path), load_judgments(qrels, topics)]
    assert all(j.queries == (Query("q1", "usb cable", "head", {}, {"d5": 1}),) for j in loaded)


def test_trec_judgments_refuse_fractional_and_negative_grades(tmp_path: Path) -> None:
    topics = write(tmp_path, "t.tsv", "q1\tusb\n")
    qrels = write(tmp_path, "a.qrels", "q1 0 d5 1\nq1 0 d6 2.5\n")
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(qrels, topics)
    assert str(error.value) == (
        f"{qrels}:2: grade '2.5' is not a whole number: trec_eval would truncate it to 2; write whole grades "
        "(0, 1, 2, 3...)"
    )
    negative = write(tmp_path, "b.qrels", "q1 0 d4 1\nq1 0 d5 -1\n")
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(negative, topics)
    assert str(error.value) == (
        f"{negative}:2: query 'q1', document 'd5': grade -1 is negative; grades are >= 0 (0 = irrelevant)"
    )


def test_the_content_hash_is_the_hash_of_one_json_list_however_many_queries() -> None:
    import hashlib
    import json

    from pytest_relevance.judgments.model import content_version

    queries = tuple(
        Query(
            f"q{i}",
            f"text {i}",
            "head" if i % 3 else None,
            {"n": i} if i % 5 == 0 else {},
            {f"d{j}": j % 4 for j in range(i % 7)},
        )
        for i in range(2345)
    )
    for count in (1, 999, 1000, 1001, 2345):
        canonical = [[q.id, q.text, q.stratum, dict(q.params), sorted(q.grades.items())] for q in queries[:count]]
        whole = hashlib.sha256(json.dumps(canonical, sort_keys=True, default=str).encode()).hexdigest()
        assert content_version(queries[:count]) == f"sha256:{whole[:12]}"


# ---------------------------------------------------------------- one query per line, read without libyaml

# pieces near every edge of the subset the line reader takes: YAML's typed and special scalars, indicators, quotes
# and escapes, characters libyaml refuses or reads as line breaks, long keys, odd spacing; each piece is an ordinary
# one most of the time, so that a good share of files is read by the line reader and compared
SPECIAL = ["q1", "d1", "010", "0x1f", "1.10", "null", "Null", "~", "on", "yes", "-a", "a-b", "a/b.c", "_x", "a b"]
SPECIAL += ["a  b", "12:30", "a#b", "a #b", "é", "\u2028", "\x85", "\t", "\ufeff", "\x7f", "\x01", "'", '"', "\\"]
UTF8 = st.characters().filter(lambda c: not "\ud800" <= c <= "\udfff")  # no lone surrogate: it cannot be UTF-8
EDGES = st.one_of(st.sampled_from([*SPECIAL, "x" * 1030]), st.text(UTF8, max_size=6))
# [A-Za-z0-9_][A-Za-z0-9_.\-/]{0,5}( [a-z]{1,3})?, built from its parts: st.from_regex draws it 2.5 times slower
WORD = string.ascii_letters + string.digits + "_"
ORDINARY = st.builds(
    str.__add__,
    st.builds(str.__add__, st.sampled_from(WORD), st.text(WORD + ".-/", max_size=5)),
    st.just("") | st.text(string.ascii_lowercase, min_size=1, max_size=3).map(" ".__add__),
)
GRADES = st.sampled_from(["0", "1", "3", "2.5", "01", "010", "1_0", "1e3", "2000", "1000", "-1", ".5", "yes", "0x1"])


@st.composite
def one_query_per_line(draw: st.DrawFn) -> str:
    def often(ordinary: st.SearchStrategy[str], edge: st.SearchStrategy[str]) -> str:
        return draw(edge if draw(st.integers(0, 15)) == 0 else ordinary)

    def scalar() -> str:
        text = often(ORDINARY, EDGES)
        quote = often(st.sampled_from(["", "", '"']), st.sampled_from(["json", "'", '"']))
        return json.dumps(text, ensure_ascii=False) if quote == "json" else f"{quote}{text}{quote}"

    opening = st.sampled_from(["# c", "", "version: v1", "version: ~", "  # in between", "version: v1"])
    lines = draw(st.lists(opening, max_size=2))
    lines.append(often(st.sampled_from(["queries:", "queries: # q"]), st.sampled_from(["queries:x", " queries:"])))
    indent = draw(st.sampled_from(["", "  ", "    "]))
    odd = often(st.just(-1), st.integers(0, 3))  # an item not in line with the others, now and then
    space = st.sampled_from(["", " ", "  "])
    for n in range(draw(st.integers(1, 4))):
        at = " " if n == odd else indent
        pairs = [f"{scalar()}:{draw(space)} {often(st.sampled_from(['0', '1', '3']), GRADES)}"]
        pairs = pairs * draw(st.integers(0, 1)) + [f"d{i}: {i % 4}" for i in range(draw(st.integers(0, 3)))]
        pairs += [often(st.just("e1: 1"), st.sampled_from(["d1: 1", '"d1": 3']))]
        stratum = draw(st.one_of(st.none(), st.just("").map(lambda _: scalar())))
        qid = often(st.just(f"q{n}"), st.just("").map(lambda _: scalar()))
        parts = [f"id: {qid}", f"text: {scalar()}", *([f"stratum: {stratum}"] if stratum else [])]
        parts.append("grades: {" + f",{draw(space)}".join(pairs) + "}")
        lines.append(f"{at}- {{{', '.join(parts)}}}{draw(space)}")
    ending = st.sampled_from(["version: v2", "version: 'v 3'", "queries:", "- {id: x, text: y}"])
    lines += [often(st.just(""), ending)]
    return "\n".join(lines) + "\n"


@settings(max_examples=800, deadline=None)
@given(one_query_per_line())
def test_the_line_reader_reads_what_libyaml_reads_or_leaves_the_file_to_it(text: str) -> None:
    path = Path("j.yaml")
    fast = judgments._one_query_per_line(path, text)
    try:
        slow: Judgments | str = judgments._from_yaml_events(path, text)
    except RelevanceInputError as error:
        slow = str(error)
    if fast is not None:
        assert fast == slow
        grade_types = [[type(g) for g in q.grades.values()] for q in slow.queries]
        assert [[type(g) for g in q.grades.values()] for q in fast.queries] == grade_types


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(UTF8.filter(lambda c: c not in '"\\'), min_size=1, max_size=12),
            st.one_of(st.none(), st.sampled_from(["head", "torso", "tail", "long tail"])),
            st.dictionaries(st.text(WORD, min_size=1, max_size=8), st.integers(0, 3) | st.just(1.5)),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_form_pool_merge_writes_takes_the_line_reader(queries: list[tuple[str, str | None, dict]]) -> None:
    from pytest_relevance.judgments.pool import _query_line

    path = Path("j.yaml")
    written = [Query(f"q{i}", text, stratum, grades=grades) for i, (text, stratum, grades) in enumerate(queries)]
    text = "# judged\nversion: v1\nqueries:\n" + "".join(f"  - {_query_line(q, q.grades)}\n" for q in written)
    # YAML's printable characters leave out the C0/C1 controls, the line separators, the BOM and U+FFFE/U+FFFF
    unprintable = "[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]"
    plain = all(q.text.strip() and not re.search(unprintable, q.text) for q in written)
    fast = judgments._one_query_per_line(path, text)
    if plain:
        assert fast is not None
    if fast is not None:
        assert fast == judgments._from_yaml_events(path, text) == Judgments(tuple(written), "v1", "j.yaml")


LINE = "queries:\n  - {id: q1, text: a, grades: {d: 1}}\n"


@pytest.mark.parametrize(
    ("text", "read_by_lines"),
    [
        (LINE.replace("text: a", "text: a  b"), True),  # plain text keeps its inner spaces
        (LINE.replace("text: a", "text: 'it''s'"), True),
        (LINE.replace("text: a", 'text: "a # b"'), True),
        (LINE.replace("text: a", "text: 2026"), True),  # ids and texts are read as written
        (LINE.replace("text: a,", "text: a, stratum: null,"), True),
        (LINE.replace("text: a,", "text: a, stratum: '~',"), True),
        (LINE.replace("{d: 1}", "{d: 1.50, e: 0, f: 1000}"), True),
        ("version: v1 # the first\n" + LINE, True),
        (LINE.replace("{d: 1}", '{"d d": 2, d: 3}'), True),
        (LINE.replace("{d: 1}", "{d: 010}"), False),  # octal in YAML 1.1: 8
        (LINE.replace("{d: 1}", "{d: 1_0}"), False),
        (LINE.replace("{d: 1}", "{d: 2000}"), False),
        (LINE.replace("{d: 1}", "{" + "x" * 1030 + ": 1}"), False),  # beyond a simple key's 1,024 characters
        (LINE.replace("{d: 1}", '{"' + "x" * 1030 + '": 1}'), False),
        (LINE.replace("text: a", 'text: "a\x85b"'), False),  # NEL folds to a space
        (LINE.replace("text: a", 'text: "a\\tb"'), False),
        (LINE.replace("text: a", 'text: "a\x01b"'), False),
        (LINE.replace("}}\n", "}}#x\n"), False),
        (LINE.replace("queries:", "queries:#x"), False),
        ("version: v1#x\n" + LINE, False),
        ("version: ~\n" + LINE, False),
        (LINE.replace("{d: 1}", "{d: 1, 'd': 2}"), False),
        (LINE + "version: v1\n" + LINE[9:].replace("q1", "q2"), False),
        (LINE.replace("text: a,", "text: a, stratum: all,"), False),  # refused by the YAML reader
        (LINE.replace("text: a,", "text: a, stratum: map,"), False),
    ],
)
def test_the_line_reader_agrees_with_libyaml_on_each_edge(text: str, read_by_lines: bool) -> None:
    path = Path("j.yaml")
    fast = judgments._one_query_per_line(path, text)
    assert (fast is not None) == read_by_lines
    if fast is not None:
        slow = judgments._from_yaml_events(path, text)
        assert fast == slow
        assert [type(g) for g in fast.queries[0].grades.values()] == [type(g) for g in slow.queries[0].grades.values()]


def test_a_repeated_document_before_a_syntax_error_is_the_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path, "j.yaml", " queries:\n - {id: q1, text: a, grades: {d: 0, d: 1}}\nversion: v2\n")
    with pytest.raises(RelevanceInputError) as error:
        load_judgments(path)
    assert str(error.value) == f"{path}:3: YAML syntax error: did not find expected <document start>"
