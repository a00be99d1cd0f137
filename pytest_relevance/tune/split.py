"""The seeded tune / held-out split of the judged queries: the winner is chosen on one part and reported on the
other, which it never saw, so the number reported is not the best of many tries on the same queries.

Stratified: each stratum (a query without one is its own group) is shuffled with the seed and cut at the same
fraction, so a small tail stratum is on both sides rather than left out of one by chance.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.model import Judgments


@dataclass(frozen=True)
class Split:
    tune: frozenset[str]
    held_out: frozenset[str]


def split(judgments: Judgments, fraction: float, seed: int, source: str = "--split") -> Split:
    """`fraction` of each stratum's queries to the tune part (at least one, and one left held out where the stratum
    has two or more), the rest held out."""
    if not 0 < fraction < 1:
        raise RelevanceInputError(source, f"{fraction:g} is not a share strictly between 0 and 1; write e.g. 0.5")
    by_stratum: dict[str | None, list[str]] = {}
    for query in judgments.queries:
        by_stratum.setdefault(query.stratum, []).append(query.id)
    rng = random.Random(seed)
    tune: set[str] = set()
    for ids in by_stratum.values():
        shuffled = list(ids)
        rng.shuffle(shuffled)
        cut = round(fraction * len(shuffled))
        cut = min(max(cut, 1), len(shuffled) - 1) if len(shuffled) > 1 else cut
        tune.update(shuffled[:cut])
    held = {q.id for q in judgments.queries} - tune
    if len(tune) < 2 or len(held) < 2:
        raise RelevanceInputError(
            source,
            f"{len(judgments.queries)} judged queries split {len(tune)} to tune and {len(held)} held out; each part "
            "needs at least 2 (judge more queries, or move --split towards 0.5)",
        )
    return Split(frozenset(tune), frozenset(held))
