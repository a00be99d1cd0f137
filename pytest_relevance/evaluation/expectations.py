"""Checking known-item expectations (judgments.expectations) against a run: pure, no baseline needed.

Each expectation gives one `Result`, passed or failed, with a one-line reason that names the query, what was
expected and where the documents are now (`q17 'reset password': d42 expected at rank 1, is at 3`). A document the
run does not return is "not in the ranking", with how many it returned, since an engine cut at 10 cannot say more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from pytest_relevance.judgments.expectations import Expectation


@dataclass(frozen=True)
class Result:
    """One expectation checked. `ranks`: its documents' 1-based ranks now (None: not in the ranking)."""

    expectation: Expectation
    passed: bool
    reason: str
    ranks: Mapping[str, int | None] = field(default_factory=dict)


def check_expectations(
    expectations: Sequence[Expectation],
    run: Mapping[str, Sequence[str]],
    texts: Mapping[str, str],
    ranked: bool = True,
) -> list[Result]:
    """Every expectation against `run` (query id -> document ids, best first); `texts` the queries' texts for the
    reasons; `ranked` False for set answers, which have no ranks (only `absent` applies to them)."""
    return [_check(expectation, run, texts, ranked) for expectation in expectations]


def _at(rank: int | None, returned: int) -> str:
    return f"is at {rank}" if rank is not None else f"is not in the ranking ({returned} returned)"


def _check(
    expectation: Expectation, run: Mapping[str, Sequence[str]], texts: Mapping[str, str], ranked: bool
) -> Result:
    qid, kind, docs, n = expectation.query, expectation.kind, expectation.docs, expectation.n
    head = f"{qid} {texts.get(qid, '')!r}: " if qid in texts else f"{qid}: "
    if qid not in run:
        return Result(expectation, False, f"{head}{expectation.text()} expected, but the run has no ranking for it")
    ranking = list(run[qid])
    positions = {doc: index for index, doc in enumerate(ranking, 1)}
    ranks = {doc: positions.get(doc) for doc in docs}
    if not ranked and kind != "absent":
        return Result(expectation, False, f"{head}{expectation.text()} expected, but set answers have no ranks", ranks)
    returned = len(ranking)
    first = ranks[docs[0]]
    if kind == "rank":
        passed = first == n
        reason = f"{docs[0]} at rank {n}" if passed else f"{docs[0]} expected at rank {n}, {_at(first, returned)}"
    elif kind == "within":
        passed = first is not None and first <= (n or 0)
        reason = f"{docs[0]} at {first}, within the top {n}"
        reason = reason if passed else f"{docs[0]} expected within the top {n}, {_at(first, returned)}"
    elif kind == "absent":
        passed = first is None
        reason = f"{docs[0]} absent" if passed else f"{docs[0]} expected absent, is at {first}"
    else:
        broken = next((pair for pair in pairwise(docs) if not _above(ranks[pair[0]], ranks[pair[1]])), None)
        passed = broken is None
        if broken is None:
            reason = " above ".join(f"{doc} ({ranks[doc] or 'out'})" for doc in docs)
        else:
            upper, lower = broken
            where = f"{upper} {_at(ranks[upper], returned)}, {lower} {_at(ranks[lower], returned)}"
            reason = f"{upper} expected above {lower}; {where}"
    return Result(expectation, passed, head + reason, ranks)


def _above(upper: int | None, lower: int | None) -> bool:
    """`upper` ranks above `lower`: it is in the ranking, and `lower` is below it or not there at all."""
    return upper is not None and (lower is None or upper < lower)
