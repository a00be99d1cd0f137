"""Templates and the frozen clock: user text is never date math; month arithmetic clamps as Elasticsearch does."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pytest_relevance.clock import parse_instant, resolve_date
from pytest_relevance.templates import has_query_placeholder, render

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
