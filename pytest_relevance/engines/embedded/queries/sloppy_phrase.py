"""Lucene 9's SloppyPhraseMatcher, ported step for step: the sloppy frequency of a phrase in one document.

Each query position walks the document's positions of its term(s) (`_Walker`, Lucene's PhrasePositions: `position`
is the document position minus the query offset, so an exact match is every walker at one position). A priority
queue (`_Queue`, Lucene's PriorityQueue with PhraseQueue's order) yields the earliest walker, which advances while
that shortens the match; each match of length <= slop adds 1 / (1 + length) in float32.

A term the query repeats (`cell growth cell`) must sit on distinct document positions: its walkers form a repeat
group kept off each other's positions (`_advance_repeats`, Lucene's advanceRpts), so one occurrence never fills two
query positions. The groups are found once, on the first candidate document, as Lucene finds them; positions holding
several terms (synonyms, prefix expansions) group by the terms they share. The queue is Lucene's own heap, not
heapq, because re-queuing after a collision can leave Lucene's heap out of order (it stops popping when a walker of
another group has the rank it waits for) and the matches then follow that order.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from pytest_relevance.engines.embedded.java import F32

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

_MIN_INT = -(2**31)


class _Walker:
    """Lucene's PhrasePositions: one query position's walk through the document positions of its terms."""

    __slots__ = ("at", "doc", "group", "offset", "order", "position", "rank")

    def __init__(self, offset: int, order: int) -> None:
        self.offset, self.order = offset, order
        self.position, self.at = 0, 0
        self.doc: Sequence[int] = ()
        self.group, self.rank = -1, 0  # repeat group (-1: none) and index in it, by query offset

    def first(self) -> None:
        self.at = 0
        self.next()

    def next(self) -> bool:
        if self.at >= len(self.doc):
            return False
        self.position = self.doc[self.at] - self.offset
        self.at += 1
        return True


def _before(a: _Walker, b: _Walker) -> bool:
    """PhraseQueue.lessThan: by position, then query offset, then order."""
    if a.position == b.position:
        return a.order < b.order if a.offset == b.offset else a.offset < b.offset
    return a.position < b.position


def _lesser(a: _Walker, b: _Walker) -> _Walker:
    """SloppyPhraseMatcher.lesser: by position and offset only."""
    return a if a.position < b.position or (a.position == b.position and a.offset < b.offset) else b


class _Queue:
    """Lucene's PriorityQueue (a 1-based binary heap), with its exact sift steps."""

    def __init__(self) -> None:
        self.heap: list[_Walker] = []

    def clear(self) -> None:
        self.heap.clear()

    def top(self) -> _Walker:
        return self.heap[0]

    def add(self, walker: _Walker) -> None:
        heap = self.heap
        heap.append(walker)
        i = len(heap)  # 1-based positions, as Lucene's
        j = i >> 1
        while j > 0 and _before(walker, heap[j - 1]):
            heap[i - 1] = heap[j - 1]
            i, j = j, j >> 1
        heap[i - 1] = walker

    def pop(self) -> _Walker:
        heap = self.heap
        result, last = heap[0], heap.pop()
        if heap:
            heap[0] = last
            self._down()
        return result

    def _down(self) -> None:
        heap, size, i = self.heap, len(self.heap), 1
        node = heap[0]
        j, k = 2, 3
        if k <= size and _before(heap[k - 1], heap[j - 1]):
            j = k
        while j <= size and _before(heap[j - 1], node):
            heap[i - 1] = heap[j - 1]
            i, j = j, j << 1
            k = j + 1
            if k <= size and _before(heap[k - 1], heap[j - 1]):
                j = k
        heap[i - 1] = node


class SloppyPhrase:
    """One phrase query's matcher over the candidate documents in document order (the repeat groups are found on
    the first). `terms` holds each query position's terms, as Lucene's PostingsAndFreq.terms (every term of the
    position, present in the index or not)."""

    def __init__(self, terms: Sequence[Sequence[str]], offsets: Sequence[int], slop: int) -> None:
        self.terms, self.slop = terms, slop
        self.walkers = [_Walker(offset, order) for order, offset in enumerate(offsets)]
        self.queue = _Queue()
        self.end = self.match_length = 0
        self.positioned = self.checked = self.repeats = self.multi_term = False
        self.groups: list[list[_Walker]] = []

    def freq(self, positions: Sequence[Sequence[int]]) -> np.float32:
        """The sloppy frequency in a document, given each query position's sorted document positions."""
        for walker, doc in zip(self.walkers, positions, strict=True):
            walker.doc = doc
        self.positioned = self._init()
        freq = F32(0)
        while self._next_match():
            freq += F32(1) / (F32(1) + F32(self.match_length))
        return freq

    def _next_match(self) -> bool:
        if not self.positioned:
            return False
        queue = self.queue
        walker = queue.pop()
        self.match_length = self.end - walker.position
        following = queue.top().position  # as Lucene, not refreshed when a collision moves a queued walker
        while self._advance(walker):
            if self.repeats and not self._advance_repeats(walker):
                break
            if walker.position > following:
                queue.add(walker)
                if self.match_length <= self.slop:
                    return True
                walker = queue.pop()
                following = queue.top().position
                self.match_length = self.end - walker.position
            else:
                self.match_length = min(self.match_length, self.end - walker.position)
        self.positioned = False
        return self.match_length <= self.slop

    def _advance(self, walker: _Walker) -> bool:
        if not walker.next():
            return False
        self.end = max(self.end, walker.position)
        return True

    def _collide(self, walker: _Walker) -> int:
        """The rank of another walker of its group on the same document position, or -1."""
        at = walker.position + walker.offset
        for other in self.groups[walker.group]:
            if other is not walker and other.position + other.offset == at:
                return other.rank
        return -1

    def _advance_repeats(self, walker: _Walker) -> bool:
        """advanceRpts: the walker just moved; while it shares a position with a repeat, advance the lesser of the
        two, then re-queue the queued walkers that may have moved."""
        if walker.group < 0:
            return True
        group, first = self.groups[walker.group], walker.rank
        marked: set[int] = set()
        while (k := self._collide(walker)) >= 0:
            walker = _lesser(walker, group[k])
            if not self._advance(walker):
                return False
            if k != first:
                marked.add(k)
        popped = []
        while marked:  # Lucene checks only the rank, so a walker of another group with that rank also clears it
            other = self.queue.pop()
            popped.append(other)
            if other.group >= 0:
                marked.discard(other.rank)
        for other in reversed(popped):
            self.queue.add(other)
        return True

    def _init(self) -> bool:
        """initPhrasePositions: place every walker for a new document; False when a repeat group cannot be placed
        (a term occurs fewer times than the query repeats it)."""
        self.end = _MIN_INT
        if not self.checked:
            return self._init_first_time()
        for walker in self.walkers:
            walker.first()
        if self.repeats and not self._advance_repeat_groups():
            return False
        self._fill_queue()
        return True

    def _init_first_time(self) -> bool:
        self.checked = True
        for walker in self.walkers:
            walker.first()
        counts: Counter[str] = Counter()
        repeating: dict[str, int] = {}  # a repeated term -> its ordinal, in the order Lucene meets the repeat
        for terms in self.terms:
            for term in terms:
                counts[term] += 1
                if counts[term] == 2:
                    repeating[term] = len(repeating)
        self.repeats = bool(repeating)
        if self.repeats:
            self._gather_groups(repeating)
            if not self._advance_repeat_groups():
                return False
        self._fill_queue()
        return True

    def _gather_groups(self, repeating: dict[str, int]) -> None:
        """gatherRptGroups + sortRptGroups: walkers of single terms group by their document position on this first
        document (the same term, the same position); walkers of several terms by the repeated terms they share."""
        members = [(w, t) for w, t in zip(self.walkers, self.terms, strict=True) if any(x in repeating for x in t)]
        self.multi_term = any(len(terms) > 1 for _, terms in members)
        groups: list[list[_Walker]] = []
        if not self.multi_term:
            for i, (walker, _) in enumerate(members):
                if walker.group >= 0:
                    continue
                at = walker.position + walker.offset
                for other, _ in members[i + 1 :]:
                    if other.group >= 0 or other.offset == walker.offset or other.position + other.offset != at:
                        continue
                    if walker.group < 0:
                        walker.group = len(groups)
                        groups.append([walker])
                    other.group = walker.group
                    groups[walker.group].append(other)
        else:
            term_sets = [{repeating[t] for t in terms if t in repeating} for _, terms in members]
            i = 0
            while i < len(term_sets) - 1:  # unionTermGroups: merge intersecting sets until disjoint
                step, j = 1, i + 1
                while j < len(term_sets):
                    if term_sets[i] & term_sets[j]:
                        term_sets[i] |= term_sets.pop(j)
                        step = 0
                    else:
                        j += 1
                i += step
            names = list(repeating)
            group_of = {names[o]: g for g, ords in enumerate(term_sets) for o in ords}
            groups = [[] for _ in term_sets]
            for walker, terms in members:
                for term in terms:
                    if term in repeating:
                        walker.group = group_of[term]
                        if walker not in groups[walker.group]:
                            groups[walker.group].append(walker)
        for group in groups:
            group.sort(key=lambda w: w.offset)
            for rank, walker in enumerate(group):
                walker.rank = rank
        self.groups = groups

    def _advance_repeat_groups(self) -> bool:
        """advanceRepeatGroups: start each document without collisions. Single terms: the n-th repeat (by query
        offset) moves n positions on; several terms: the lesser of two colliding walkers moves until none collide."""
        for group in self.groups:
            if self.multi_term:
                i = 0
                while i < len(group):
                    step, walker = 1, group[i]
                    while (k := self._collide(walker)) >= 0:
                        lesser = _lesser(walker, group[k])
                        if not self._advance(lesser):
                            return False
                        if lesser.rank < i:
                            step = 0
                            break
                    i += step
            else:
                for j in range(1, len(group)):
                    for _ in range(j):
                        if not group[j].next():
                            return False
        return True

    def _fill_queue(self) -> None:
        self.queue.clear()
        for walker in self.walkers:
            self.end = max(self.end, walker.position)
            self.queue.add(walker)
