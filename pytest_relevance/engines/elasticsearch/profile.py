"""Cost counters from Elasticsearch's search profile (`profile: true`), in the shape the embedded engine counts.

The profile breaks each query node's work down into counted calls, the same on every run of the same index: a leaf's
`score_count` is the documents it scored and its `next_doc_count` plus `advance_count` the postings it stepped
through. Summed over the leaves of every shard, they are the query's `docs_scored` and `postings_read`;
`hits.total` (with `track_total_hits`) is `docs_matched`. Expansions and rescored windows are not in the profile and
are not counted. Each leaf's counts also go to its clause, named as the profile names it (its Lucene type and
description), so that a rise is traced to a clause. The time of the root nodes is the advisory wall-clock.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def counted(answer: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, dict[str, int]], float]:
    """(counters, counts per clause, seconds) of one profiled search response."""
    counters = {"docs_matched": _total(answer), "docs_scored": 0, "postings_read": 0}
    clauses: dict[str, dict[str, int]] = {}
    nanos = 0
    for shard in (answer.get("profile") or {}).get("shards") or []:
        for search in shard.get("searches") or []:
            for root in search.get("query") or []:
                nanos += int(root.get("time_in_nanos") or 0)
                for leaf in _leaves(root):
                    breakdown = leaf.get("breakdown") or {}
                    scored = int(breakdown.get("score_count") or 0)
                    read = int(breakdown.get("next_doc_count") or 0) + int(breakdown.get("advance_count") or 0)
                    counters["docs_scored"] += scored
                    counters["postings_read"] += read
                    name = f"{leaf.get('type', '?')} {leaf.get('description', '')}".strip()
                    clause = clauses.setdefault(name, {"docs_scored": 0, "postings_read": 0})
                    clause["docs_scored"] += scored
                    clause["postings_read"] += read
    return counters, clauses, nanos / 1e9


def _total(answer: Mapping[str, Any]) -> int:
    total = (answer.get("hits") or {}).get("total")
    return int(total.get("value", 0) if isinstance(total, dict) else total or 0)


def _leaves(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    children = node.get("children") or []
    if not children:
        yield node
    for child in children:
        yield from _leaves(child)
