"""Bad templates and corpora for the embedded engine: one message naming the file and the key or line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs.corpus import load_corpus, load_mapping
from pytest_relevance.inputs.templates import load_template

MAPPING = {
    "mappings": {
        "properties": {
            "title": {"type": "text", "analyzer": "english"},
            "released": {"type": "date"},
            "popularity": {"type": "integer"},
            "brand": {"type": "keyword"},
        }
    }
}
DOCS = [
    {"id": "a", "title": "red headphones", "released": "2025-01-01", "popularity": 0, "brand": "acme"},
    {"id": "b", "title": "blue headphones", "released": "2020-01-01", "popularity": 7, "brand": "zeta"},
]


@pytest.fixture(scope="module")
def index() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, MAPPING, "id")


def error_of(index: EmbeddedIndex, query: dict) -> str:
    with pytest.raises(RelevanceInputError) as caught:
        index.search_many({"q1": {"query": query}}, 10, "fixtures/query.yaml")
    return str(caught.value)


def scored(query: dict) -> dict:
    return {"function_score": {"query": {"match": {"title": "headphones"}}, **query}}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            {"match": {"title": {"query": "red", "boost": "high"}}},
            "query 'q1': query.match.boost: 'high' is not a number",
        ),
        ({"match": {"title": {"operator": "and"}}}, "query 'q1': query.match: needs 'query' (the text to search for)"),
        ({"match": {"title": None}}, "query 'q1': query.match: needs 'query' (the text to search for)"),
        (
            scored({"gauss": {"released": {"origin": "2026-01-15T12:00:00Z", "scale": "30d", "decay": 1}}}),
            "query.function_score.gauss.released.decay: 1: the decay must be between 0 and 1 (exclusive)",
        ),
        (
            scored({"exp": {"popularity": {"origin": 10, "scale": 0}}}),
            "query.function_score.exp.popularity.scale: 0: the scale must be greater than 0",
        ),
        (
            scored({"functions": [{"weight": 2}, {"field_value_factor": {"field": "popularity", "modifier": "log"}}]}),
            "query.function_score.functions[1].field_value_factor: log(0.0) for document 'a' is not a number",
        ),
        (
            {"function_score": {"field_value_factor": {"field": "popularity", "modifier": "cube"}}},
            "query.function_score.field_value_factor.modifier: 'cube' is not one of none, log",
        ),
        (
            {"multi_match": {"query": "red", "fields": ["title^x"]}},
            "query.multi_match.fields: 'title^x': the boost after ^ is not a number",
        ),
        (
            {"function_score": {"field_value_factor": {"field": "colour"}}},
            "query.function_score.field_value_factor.field: Unable to find a field mapper for field [colour]. No "
            "'missing' value defined.",
        ),
        (
            {"range": {"released": {"gte": "yesterday-ish"}}},
            "query.range.gte: 'yesterday-ish' does not fit the date field 'released'",
        ),
        (
            {"bool": {"should": [{"match": {"title": "red"}}], "minimum_should_match": "most"}},
            "query.bool.minimum_should_match: cannot read 'most'",
        ),
        ({"bool": {"must": "red"}}, "query.bool.must[0]: a query is a mapping with one query type"),
    ],
)
def test_a_bad_template_value_is_one_message_naming_the_key(index: EmbeddedIndex, query: dict, message: str) -> None:
    text = error_of(index, query)
    assert text.startswith("fixtures/query.yaml: query 'q1': ")
    assert message in text
    assert "\n" not in text


def test_an_unknown_construct_names_itself_and_its_place(index: EmbeddedIndex) -> None:
    text = error_of(index, {"bool": {"must": [{"match_all": {}}, {"percolate": {"field": "x"}}]}})
    assert re.search(r"query 'q1': 'percolate' at query\.bool\.must\[1\] is not supported by the embedded engine", text)
    assert text.endswith("the elasticsearch engine supports it")


def test_response_shaping_keys_are_ignored_and_from_skips(index: EmbeddedIndex) -> None:
    body = {"query": {"match": {"title": "headphones"}}, "highlight": {"fields": {"title": {}}}, "_source": False}
    body |= {"aggs": {"b": {"terms": {"field": "brand"}}}, "size": 1, "track_total_hits": True, "timeout": "1s"}
    body |= {"stats": ["search-page"]}  # statistics groups: counted on the server, no effect on ranking
    everything = index.search_many({"q": body}, 10, "t")["q"]
    assert [d for d, _ in everything] == ["a", "b"]  # the plugin's depth, not the body's size, decides
    assert index.search_many({"q": {**body, "from": 1}}, 10, "t")["q"] == everything[1:]


def corpus_file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "corpus.ndjson"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"id": "x", "popularity": "lots"}', "corpus.ndjson:3: document 'x': field 'popularity' is mapped as number"),
        ('{"id": "x", "released": "soon"}', "corpus.ndjson:3: document 'x': field 'released' is mapped as date"),
        (
            '{"id": "x", "title": {"en": "red"}}',
            "corpus.ndjson:3: document 'x': field 'title' is mapped as text but holds {\"en\": \"red\"} (an object)",
        ),
        ('{"id": "x", "brand": {"name": "acme"}}', "corpus.ndjson:3: document 'x': field 'brand' is mapped as keyword"),
    ],
)
def test_a_corpus_value_that_does_not_fit_names_the_corpus_line(tmp_path: Path, document: str, message: str) -> None:
    path = corpus_file(tmp_path, ['{"id": "a", "title": "red"}', "", document])
    with pytest.raises(RelevanceInputError) as caught:
        EmbeddedEngine().open(load_corpus(path), MAPPING, "id", "fixtures/index.yaml")
    assert str(caught.value).startswith(str(path.parent / message.split(":")[0]) + ":3: ")
    assert message.split(":", 2)[2] in str(caught.value)
    assert "index.yaml" not in str(caught.value)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"id": {"a": 1}}', "'id' is an object, not an id: an id is a string (or a whole number)"),
        ('{"id": ["a"]}', "'id' is a list, not an id: an id is a string (or a whole number)"),
        (
            '{"id": 1e3}',
            "'id' is 1000.0, a float that does not keep the id as written (1e3 reads as 1000.0): write the id as a "
            "quoted string, as Elasticsearch's _id is",
        ),
        ('{"id": 2.50}', "'id' is 2.5, a float that does not keep the id as written (*"),
    ],
)
def test_a_corpus_id_that_is_not_kept_as_written_is_refused(tmp_path: Path, document: str, message: str) -> None:
    """Before, an object or list was indexed under its Python repr and 1e3 under '1000.0', matching no judgment."""
    import re

    path = corpus_file(tmp_path, ['{"id": 7, "title": "red"}', document])
    with pytest.raises(RelevanceInputError) as caught:
        load_corpus(path)
    assert re.fullmatch(re.escape(f"{path}:2: document 2: {message}").replace(r"\*", ".*"), str(caught.value))


@pytest.mark.parametrize(("written", "read"), [("010", 8), ("0x1f", 31), ("1_000", 1000), ("1:30", 90)])
def test_a_yaml_corpus_id_yaml_reads_as_another_number_is_refused(tmp_path: Path, written: str, read: int) -> None:
    """The judgments keep `010` as "010"; a YAML corpus made it "8" and the document matched no judgment."""
    path = tmp_path / "corpus.yaml"
    path.write_text(f"- {{id: 7, title: a}}\n- {{title: b, id: {written}}}\n- {{id: '010'}}\n")
    with pytest.raises(RelevanceInputError) as caught:
        load_corpus(path)
    assert str(caught.value) == (
        f"{path}:2: document 2: 'id' is written {written}, which YAML reads as the number {read}: quote it "
        f'("{written}") so that it stays the id the judgments name'
    )
    path.write_text("- {id: 7}\n- {title: b, <<: {id: 9}}\n- {id: '010'}\n")  # an id from a merge key is read
    assert [doc["id"] for doc in load_corpus(path)] == ["7", "9", "010"]


def test_a_whole_number_id_is_its_digits(tmp_path: Path) -> None:
    assert [doc["id"] for doc in load_corpus(corpus_file(tmp_path, ['{"id": 7}', '{"id": "1e3"}']))] == ["7", "1e3"]


def test_a_corpus_that_is_not_utf8_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "corpus.ndjson"
    path.write_bytes(b'{"id": "a", "title": "ok"}\n{"id": "b", "title": "caf\xe9"}\n')
    with pytest.raises(RelevanceInputError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"{path}:2: not UTF-8 text (byte 0xe9): save the file as UTF-8"


@pytest.mark.parametrize("name", ["corpus.ndjson", "corpus.json", "index.json", "index.yaml", "query.json"])
def test_files_saved_with_a_byte_order_mark_load(tmp_path: Path, name: str) -> None:
    """Windows editors save UTF-8 with a byte order mark; before, a JSON corpus or template failed on line 1."""
    text = {
        "corpus.ndjson": '{"id": "a"}\n{"id": "b"}\n',
        "corpus.json": '[{"id": "a"}, {"id": "b"}]',
        "index.json": '{"mappings": {"properties": {"t": {"type": "text"}}}}',
        "index.yaml": "mappings: {properties: {t: {type: text}}}\n",
        "query.json": '{"query": {"match": {"t": "{{query}}"}}}',
    }[name]
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    if name.startswith("corpus"):
        assert [doc["id"] for doc in load_corpus(path)] == ["a", "b"]
    elif name.startswith("index"):
        assert load_mapping(path) == {"mappings": {"properties": {"t": {"type": "text"}}}}
    else:
        assert load_template(path) == {"query": {"match": {"t": "{{query}}"}}}


def test_the_bad_template_reaches_the_user_as_one_line(demo: pytest.Pytester) -> None:
    query = demo.path / "fixtures" / "query.yaml"
    query.write_text(query.read_text().replace("decay: 0.5", "decay: 1"))
    result = demo.runpytest_inprocess("-p", "no:cacheprovider", "--relevance-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*fixtures/query.yaml: query 'q001': query.function_score.functions[[]0[]].gauss.released.decay: 1: the decay "
         "must be between 0 and 1 (exclusive)*"]
    )  # fmt: skip
    assert "Traceback" not in result.stdout.str()


def test_an_index_config_of_settings_alone_is_a_create_index_body(tmp_path: Path) -> None:
    """Elasticsearch creates an index from settings alone (every field then mapped dynamically); the loader refused
    a config without `mappings`. Here the default analyzer stems, so `headphone` matches both titles."""
    path = tmp_path / "index.yaml"
    path.write_text("settings:\n  analysis:\n    analyzer:\n      default: {type: english}\n")
    config = load_mapping(path)
    hits = (
        EmbeddedEngine()
        .open(DOCS, config, "id")
        .search_many({"q1": {"query": {"match": {"title": "headphone"}}}}, 10, "q")
    )
    assert sorted(doc for doc, _ in hits["q1"]) == ["a", "b"]


def test_an_index_config_key_that_is_not_a_create_index_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.yaml"
    path.write_text("properties:\n  title: {type: text}\n")
    with pytest.raises(RelevanceInputError) as error:
        load_mapping(path)
    assert str(error.value) == (
        f"{path}: unknown key [properties] for create index: a create-index body holds only settings, mappings and "
        "aliases (field definitions go under mappings.properties)"
    )
