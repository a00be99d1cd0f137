"""Sessions from a UBI log: per search (query_id), the documents shown at positions 0..K-1 and which were clicked.

The estimators need the list each user saw, not pair counts: a candidate ranking is scored slot by slot against
what was logged for the same query text. A click counts when a counted action names the same query_id, object and
position as an impression (the matching `judgments.clicks` uses for grades); a search without an impression in the
top K is not a session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from pytest_relevance.judgments.clicks import IMPRESSION, Log


@dataclass(frozen=True)
class Sessions:
    """`query[i]` indexes `texts`; `shown[i, k]` indexes `docs` (-1: nothing logged at position k);
    `clicks[i, k]` is True when the document shown at k was clicked."""

    texts: list[str]
    docs: list[str]
    query: np.ndarray  # (N,) int
    shown: np.ndarray  # (N, K) int
    clicks: np.ndarray  # (N, K) bool

    @property
    def depth(self) -> int:
        return int(self.shown.shape[1])

    def __len__(self) -> int:
        return int(self.query.shape[0])

    def traffic(self) -> dict[str, int]:
        """Query text -> its number of sessions."""
        counts = np.bincount(self.query, minlength=len(self.texts))
        return {text: int(n) for text, n in zip(self.texts, counts, strict=True) if n}


def sessions(log: Log, max_rank: int, actions: Mapping[str, float]) -> Sessions:
    """The log's searches as sessions. Events are matched case-insensitively on their action names."""
    counted = {name.lower() for name in actions}
    shown: dict[str, dict[int, str]] = {}
    text_of: dict[str, str] = {}
    for e in log.events:
        if e.action.lower() != IMPRESSION or e.query_id is None or e.object_id is None or e.ordinal is None:
            continue
        if not 0 <= e.ordinal < max_rank:
            continue
        text = log.text(e)
        if text is None:
            continue
        text_of.setdefault(e.query_id, text)
        shown.setdefault(e.query_id, {}).setdefault(e.ordinal, e.object_id)
    clicked: set[tuple[str, str, int]] = set()
    for e in log.events:
        if e.action.lower() in counted and e.query_id in shown and e.object_id is not None and e.ordinal is not None:
            clicked.add((e.query_id, e.object_id, e.ordinal))
    texts: dict[str, int] = {}
    docs: dict[str, int] = {}
    ids = sorted(shown)  # the same sessions in the same order whatever the order of the log's lines
    query = np.empty(len(ids), dtype=np.int64)
    grid = np.full((len(ids), max_rank), -1, dtype=np.int64)
    clicks = np.zeros((len(ids), max_rank), dtype=bool)
    for i, qid in enumerate(ids):
        query[i] = texts.setdefault(text_of[qid], len(texts))
        for position, doc in shown[qid].items():
            grid[i, position] = docs.setdefault(doc, len(docs))
            clicks[i, position] = (qid, doc, position) in clicked
    return Sessions(list(texts), list(docs), query, grid, clicks)
