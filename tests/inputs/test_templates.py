"""Templates and the frozen clock: user text is never date math; month arithmetic clamps as Elasticsearch does."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs.clock import parse_instant, resolve_date
from pytest_relevance.inputs.templates import has_query_placeholder, load_template, render, render_all
from pytest_relevance.judgments.model import Query

NOW = parse_instant("2026-01-15T12:00:00Z")


@pytest.mark.parametrize("query", ["now-playing", "now", "now/d", "now+1d sale"])
def test_user_text_inside_a_longer_string_is_never_date_math(query: str) -> None:
    template = {"query": {"match": {"title": "{{query}} deals", "alt": "best {{query}}", "exact": "{{query}}"}}}
    body = render(template, query, {}, NOW, "q1")
    assert body["query"]["match"] == {"title": f"{query} deals", "alt": f"best {query}", "exact": query}


def test_the_templates_own_now_is_anchored() -> None:
    template = {"gte": "now-{{days}}d/d", "lit": "now-7d", "at": "{{now}}", "text": "{{query}} now-1d"}
    body = render(template, "now-playing", {"days": 7}, NOW, "q1")
    assert body == {
        "gte": "2026-01-15T12:00:00Z||-7d/d",
        "lit": "2026-01-15T12:00:00Z||-7d",
        "at": "2026-01-15T12:00:00Z",
        "text": "now-playing now-1d",
    }


def test_only_whole_date_math_on_now_is_anchored_and_keys_are_names() -> None:
    template = {
        "query": {"term": {"section": "now-playing"}},  # text that starts like date math
        "script": {"params": {"now": 1768478400000, "now-1d": "x"}, "source": "params.now"},  # names
        "range": {"gte": "now-1M-1d/d", "lt": "now+2h", "at": "now", "shop": "nowhere"},
        "mixed": "now-{{days}}d/d",
        "param": "{{section}}",
    }
    body = render(template, "q", {"days": 7, "section": "now-playing"}, NOW, "q1")
    assert body == {
        "query": {"term": {"section": "now-playing"}},
        "script": {"params": {"now": 1768478400000, "now-1d": "x"}, "source": "params.now"},
        "range": {
            "gte": "2026-01-15T12:00:00Z||-1M-1d/d",
            "lt": "2026-01-15T12:00:00Z||+2h",
            "at": "2026-01-15T12:00:00Z",
            "shop": "nowhere",
        },
        "mixed": "2026-01-15T12:00:00Z||-7d/d",
        "param": "now-playing",
    }
    assert render_all(template, [Query("q1", "q", params={"days": 7, "section": "now-playing"})], NOW) == {"q1": body}


@pytest.mark.parametrize(
    ("now", "math", "expected"),
    [
        ("2026-03-31T12:00:00Z", "now-1M/d", datetime(2026, 2, 28, tzinfo=UTC)),
        ("2026-03-31T12:00:00Z", "now+1M", datetime(2026, 4, 30, 12, tzinfo=UTC)),
        ("2024-02-29T08:00:00Z", "now-1y", datetime(2023, 2, 28, 8, tzinfo=UTC)),
        ("2024-02-29T08:00:00Z", "now+4y/d", datetime(2028, 2, 29, tzinfo=UTC)),
        ("2026-01-31T00:00:00Z", "now+1M-1d", datetime(2026, 2, 27, tzinfo=UTC)),
        ("2026-05-15T00:00:00Z", "now-1M", datetime(2026, 4, 15, tzinfo=UTC)),
    ],
)
def test_month_and_year_math_clamps_to_the_last_day(now: str, math: str, expected: datetime) -> None:
    # java.time's plusMonths/plusYears (Elasticsearch's date math) clamp to the last valid day of the month
    assert resolve_date(math, parse_instant(now)) == expected


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ({"query": {"match": {"title": "{{query}}"}}}, True),
        ({"query": {"match": {"title": "{{ query }} deals"}}}, True),
        ({"query": {"bool": {"should": [{"term": {"tag": "x"}}, {"match": {"t": "a {{query}}"}}]}}}, True),
        ({"query": {"match_all": {}}}, False),
        ({"query": {"match": {"title": "{{queryx}} {{text}}"}}}, False),
        ({"query": {"term": {"tag": "{{category}}"}}, "size": 10}, False),
    ],
)
def test_has_query_placeholder(template: dict, expected: bool) -> None:
    assert has_query_placeholder(template) is expected


# ---------------------------------------------------------------- every query at once


def _each(template: Any, queries: list[Query]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for q in queries:
        try:
            out[q.id] = render(template, q.text, dict(q.params), NOW, q.id)
        except RelevanceInputError as error:
            return {"error": str(error)}
    return out


def _all(template: Any, queries: list[Query]) -> dict[str, Any]:
    try:
        return render_all(template, queries, NOW)
    except RelevanceInputError as error:
        return {"error": str(error)}


STRINGS = st.sampled_from(
    ["{{query}}", "{{ query }} deals", "now-7d/d", "now", "nowhere", "{{now}}", "now-{{days}}d", "{{days}}", "x",
     "{{cat.name}}", "in {{cat.name}} now", "{{missing}}", "{{query}}{{days}}", "{"]
)  # fmt: skip
KEYS = st.sampled_from(["query", "match", "title", "now-1d", "gte", "size", "a"])
TEMPLATES = st.recursive(
    st.one_of(STRINGS, st.integers(-3, 3), st.floats(allow_nan=False), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=12,
)
QUERIES = st.lists(
    st.builds(
        Query,
        st.sampled_from(["q1", "q2", "q3"]),
        st.sampled_from(["usb cable", "now-playing", "now", '"quoted" \\']),
        st.none(),
        st.fixed_dictionaries({}, optional={"days": st.integers(0, 9), "cat": st.just({"name": "now-1d"})}),
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda q: q.id,
)


@settings(max_examples=400, deadline=None)
@given(TEMPLATES.map(lambda body: {"query": body}), QUERIES)
def test_rendering_every_query_at_once_is_rendering_each(template: dict, queries: list[Query]) -> None:
    assert _all(template, queries) == _each(template, queries)


def test_every_body_is_its_own_objects_and_the_template_is_left_alone() -> None:
    shared = {"match": {"title": "{{query}}"}}
    template = {"query": {"bool": {"should": [shared, shared], "filter": [{"range": {"d": {"gte": "now-7d"}}}]}}}
    queries = [Query("q1", "usb"), Query("q2", "hdmi")]
    bodies = render_all(template, queries, NOW)
    assert bodies == _each(template, queries)
    bodies["q1"]["query"]["bool"]["filter"][0]["range"]["d"]["gte"] = "changed"
    bodies["q1"]["query"]["bool"]["should"][0]["match"]["title"] = "changed"
    assert bodies["q2"] == render(template, "hdmi", {}, NOW, "q2")
    assert bodies["q1"]["query"]["bool"]["should"][1]["match"]["title"] == "usb"
    assert template["query"]["bool"]["filter"][0]["range"]["d"]["gte"] == "now-7d"
    assert shared == {"match": {"title": "{{query}}"}}


@pytest.mark.parametrize(
    "template",
    [
        {"query": {"match": {"{{field}}": "{{query}}"}}},  # the body's shape depends on the query
        {"query": {"range": {"released": {"gte": date(2020, 1, 1)}}}, "q": "{{query}}"},  # a YAML date
    ],
    ids=["placeholder-key", "date"],
)
def test_templates_the_frame_cannot_hold_are_rendered_query_by_query(template: dict) -> None:
    queries = [Query("q1", "usb", params={"field": "title"}), Query("q2", "hdmi", params={"field": "body"})]
    assert render_all(template, queries, NOW) == _each(template, queries)


@pytest.mark.parametrize(
    "body",
    [
        {"knn": {"field": "vec", "query_vector": [0, 1], "k": 3, "num_candidates": 10}},
        {"retriever": {"rrf": {"retrievers": [{"standard": {"query": {"match": {"t": "{{query}}"}}}}]}}},
    ],
    ids=["knn", "retriever"],
)
def test_a_template_may_search_with_knn_or_a_retriever_alone(tmp_path: Path, body: dict) -> None:
    path = tmp_path / "query.json"
    path.write_text(json.dumps(body))
    assert load_template(path) == body
    path.write_text(json.dumps({"size": 10}))
    with pytest.raises(RelevanceInputError, match="a mapping with a 'query', 'knn' or 'retriever' key"):
        load_template(path)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "query.json",
            '{"query": {"bool": {"must": [{"match": {"title": "{{query}}"}}],\n  "must": {"term": {"brand": "x"}}}}}',
            "2: key 'must' appears twice in query.bool (first at line 1)",
        ),
        (
            "query.json",
            '{"query": {"match_all": {}}, "sort": [{"a": "asc"}, {"b": "asc",\n "b": "desc"}]}',
            "2: key 'b' appears twice in sort[1] (first at line 1)",
        ),
        ("query.json", '{"query": {"match_all": {}},\n"query": {"match": {"t": "{{query}}"}}}', "2: key 'query' *"),
        (
            "query.yaml",
            "query:\n  bool:\n    must:\n      - match: {title: '{{query}}'}\n    must:\n      - term: {b: x}\n",
            "5: key 'must' appears twice in query.bool (first at line 3)",
        ),
    ],
)
def test_a_key_twice_in_a_template_is_refused_as_elasticsearch_refuses_it(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    """A plain load keeps the last copy: a bool with must twice lost its first clause and the run still passed."""
    import re

    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RelevanceInputError) as error:
        load_template(path)
    assert re.fullmatch(re.escape(f"{path}:{message}").replace(r"\*", ".*"), str(error.value)), str(error.value)


def test_an_index_config_key_twice_is_refused(tmp_path: Path) -> None:
    from pytest_relevance.inputs.corpus import load_mapping

    path = tmp_path / "index.json"
    path.write_text('{"mappings": {"properties": {"t": {"type": "text"},\n "t": {"type": "keyword"}}}}')
    with pytest.raises(RelevanceInputError) as error:
        load_mapping(path)
    assert str(error.value) == f"{path}:2: key 't' appears twice in mappings.properties (first at line 1)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("query:\n  match:\n    t: {query: x, boost: !!float lots}\n", "3: 'lots' cannot be read as !!float: *"),
        ("query:\n  term:\n    flag: !!bool maybe\n", "3: 'maybe' cannot be read as !!bool: *"),
        ("query:\n  range:\n    at: {gte: !!timestamp soon}\n", "3: 'soon' cannot be read as !!timestamp: *"),
    ],
)
def test_a_tagged_value_the_tag_cannot_read_is_one_message(tmp_path: Path, text: str, message: str) -> None:
    """The judgments' reader and this one share the message; before, `!!bool maybe` here was a KeyError traceback."""
    import re

    path = tmp_path / "query.yaml"
    path.write_text(text)
    with pytest.raises(RelevanceInputError) as error:
        load_template(path)
    assert re.fullmatch(re.escape(f"{path}:{message}").replace(r"\*", ".*"), str(error.value)), str(error.value)


# a phrase suggester's collate is a template Elasticsearch renders itself, for each suggestion

COLLATE = {
    "query": {"match": {"title": "{{query}}"}},
    "suggest": {
        "text": "{{query}}",
        "fix": {
            "phrase": {
                "field": "title.trigram",
                "collate": {
                    "query": {"source": {"match": {"{{field_name}}": "{{suggestion}} {{brand}}"}}},
                    "params": {"field_name": "title"},
                    "prune": True,
                },
            }
        },
    },
}


@pytest.mark.parametrize(
    "rendered",
    [
        lambda q: render(COLLATE, q.text, dict(q.params), NOW, q.id),
        lambda q: render_all(COLLATE, [q], NOW)[q.id],
    ],
)
def test_suggestion_and_the_collate_params_are_left_for_elasticsearch(rendered: Any) -> None:
    body = rendered(Query("q1", "red shoes", "head", {"brand": "acme"}))
    assert body["suggest"]["text"] == "red shoes"
    collate = body["suggest"]["fix"]["phrase"]["collate"]
    # {{suggestion}} and {{field_name}} are the suggester's; {{brand}} is the query's param
    assert collate["query"]["source"] == {"match": {"{{field_name}}": "{{suggestion}} acme"}}
    alone = {**COLLATE["suggest"]["fix"]["phrase"]["collate"], "query": {"source": {"match": {"t": "{{suggestion}}"}}}}
    template = {"query": {"match_all": {}}, "suggest": {"fix": {"phrase": {"field": "t", "collate": alone}}}}
    assert render(template, "x", {}, NOW, "q1")["suggest"]["fix"]["phrase"]["collate"] == alone
    assert render_all(template, [Query("q1", "x", "head")], NOW)["q1"] == template


def test_suggestion_outside_a_collate_is_still_a_param_the_query_needs() -> None:
    with pytest.raises(RelevanceInputError, match=r"the template uses \{\{suggestion\}\} but the query has no param"):
        render({"query": {"match": {"title": "{{suggestion}}"}}}, "x", {}, NOW, "q1")
