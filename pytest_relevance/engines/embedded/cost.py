"""Counting the work of one search (`pytest_relevance.evaluation.cost`), as the places that do it happen.

The counts describe what the query asks of an index, not what this engine happened to compute: they are taken
where the query reads a posting list, scores documents with a similarity or a script, expands a multi-term query or
rescores a window, whether or not a cache spared the work. So they are the same on every repeat, on a loaded or a
freshly built index, and on every xdist worker. `evaluate` keeps the clause being evaluated on a stack, and each
count goes to the innermost one as well as to the total. A clause in a filter's place (a bool's filter or
must_not, a constant_score or function's filter, the post_filter), and everything inside it, scores nothing in
Lucene (its weight is built without scores): what this engine computes there is not counted as scored. With no
counter set (always, outside `profile`), each of those places costs one context-variable read.
"""

from __future__ import annotations

import re
from contextvars import ContextVar

COUNTING: ContextVar[Counting | None] = ContextVar("COUNTING", default=None)


class Counting:
    """The counts of one search: totals, and per clause (template path) the counts the clause itself made."""

    __slots__ = ("clauses", "stack", "totals")

    def __init__(self) -> None:
        self.totals: dict[str, int] = {}
        self.clauses: dict[str, dict[str, int]] = {}
        #: (clause path, whether it scores), the innermost last
        self.stack: list[tuple[str, bool]] = []

    def enter(self, place: str, clause: str) -> None:
        """Entering `clause` (its path) at `place` (the path of the slot it fills, e.g. `query.bool.filter[0]`)."""
        scoring = (not self.stack or self.stack[-1][1]) and FILTER_PLACE.search(place) is None
        self.stack.append((clause, scoring))

    def add(self, counter: str, n: int) -> None:
        if counter == "docs_scored" and self.stack and not self.stack[-1][1]:
            return
        self.totals[counter] = self.totals.get(counter, 0) + n
        if self.stack:
            clause = self.clauses.setdefault(self.stack[-1][0], {})
            clause[counter] = clause.get(counter, 0) + n


#: a clause whose place makes it decide matching only: bool's filter and must_not, function and constant_score
#: filters, the post_filter (explanations mark such a clause a filter, by the same rule)
FILTER_PLACE = re.compile(r"(?:^|\.)(?:filter|must_not|post_filter)(?:\[\d+\])?$")


def tally(counter: str, n: int) -> None:
    """Add `n` to `counter` of the search being counted, if one is."""
    counting = COUNTING.get()
    if counting is not None:
        counting.add(counter, n)
