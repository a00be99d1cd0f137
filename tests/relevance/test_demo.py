"""The demo relevance gate: the committed catalogue, judgments, index config and query template."""

from __future__ import annotations


def test_demo_search_quality(relevance_index, relevance_snapshot):
    assert relevance_snapshot == relevance_index.run()
