"""Known-item expectations checked against a run, against hand-computed ranks."""

from __future__ import annotations

import pytest

from pytest_relevance.evaluation.expectations import check_expectations
from pytest_relevance.judgments.expectations import Expectation

RUN = {"q17": ["d3", "d7", "d42", "d1"], "q3": ["d9", "d1", "d2"]}
TEXTS = {"q17": "reset password", "q3": "hiking boots"}

CASES = [
    (Expectation("q17", "rank", ("d3",), 1), True, "q17 'reset password': d3 at rank 1"),
    (Expectation("q17", "rank", ("d42",), 1), False, "q17 'reset password': d42 expected at rank 1, is at 3"),
    (Expectation("q17", "rank", ("d42",), 3), True, "q17 'reset password': d42 at rank 3"),
    (
        Expectation("q17", "rank", ("d99",), 1),
        False,
        "q17 'reset password': d99 expected at rank 1, is not in the ranking (4 returned)",
    ),
    (Expectation("q17", "within", ("d42",), 3), True, "q17 'reset password': d42 at 3, within the top 3"),
    (Expectation("q17", "within", ("d1",), 3), False, "q17 'reset password': d1 expected within the top 3, is at 4"),
    (
        Expectation("q3", "above", ("d1", "d9")),
        False,
        "q3 'hiking boots': d1 expected above d9; d1 is at 2, d9 is at 1",
    ),
    (Expectation("q3", "above", ("d9", "d1", "d2")), True, "q3 'hiking boots': d9 (1) above d1 (2) above d2 (3)"),
    (Expectation("q3", "above", ("d2", "d5")), True, "q3 'hiking boots': d2 (3) above d5 (out)"),
    (
        Expectation("q3", "above", ("d9", "d2", "d1")),
        False,
        "q3 'hiking boots': d2 expected above d1; d2 is at 3, d1 is at 2",
    ),
    (
        Expectation("q3", "above", ("d5", "d6")),
        False,
        "q3 'hiking boots': d5 expected above d6; d5 is not in the ranking (3 returned), d6 is not in the ranking "
        "(3 returned)",
    ),
    (Expectation("q3", "absent", ("d5",)), True, "q3 'hiking boots': d5 absent"),
    (Expectation("q3", "absent", ("d2",)), False, "q3 'hiking boots': d2 expected absent, is at 3"),
]


@pytest.mark.parametrize(("expectation", "passed", "reason"), CASES)
def test_each_kind_against_hand_computed_ranks(expectation: Expectation, passed: bool, reason: str) -> None:
    (result,) = check_expectations([expectation], RUN, TEXTS)
    assert (result.passed, result.reason) == (passed, reason)
    ranking = RUN[expectation.query]
    assert result.ranks == {doc: ranking.index(doc) + 1 if doc in ranking else None for doc in expectation.docs}


def test_a_query_the_run_lacks_fails() -> None:
    (result,) = check_expectations([Expectation("q8", "rank", ("d1",), 1)], RUN, {"q8": "tent"})
    assert not result.passed
    assert result.reason == "q8 'tent': d1 at rank 1 expected, but the run has no ranking for it"


def test_set_answers_have_no_ranks_but_absence() -> None:
    sets = {"q3": ["d9", "d1"]}
    rank, absent = check_expectations(
        [Expectation("q3", "within", ("d1",), 10), Expectation("q3", "absent", ("d7",))], sets, TEXTS, ranked=False
    )
    assert not rank.passed and rank.reason.endswith("but set answers have no ranks")
    assert absent.passed
