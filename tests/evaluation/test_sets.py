"""Set answers, on the routing post-mortem's ten tickets: every number a reader needs, and the floor to read it by."""

from __future__ import annotations

import json

import pytest

from pytest_relevance.evaluation.set_answers import best_constants, evaluate_sets, score
from pytest_relevance.judgments.model import Judgments, Query

EXPECTED = ["AB", "A", "A", "C", "D", "E", "F", "I", "K", "L"]
ANSWERED = ["AB", "AB", "AB", "C", "D", "E", "FGH", "IEJ", "K", "FL"]
WANTED = {f"t{i}": set(labels) for i, labels in enumerate(EXPECTED)}
GIVEN = {f"t{i}": set(labels) for i, labels in enumerate(ANSWERED)}


def test_the_post_mortem_numbers() -> None:
    scores = score(WANTED, GIVEN)
    assert scores["recall"] == 11 / 11
    assert scores["precision"] == pytest.approx(11 / 18)
    assert scores["exact"] == pytest.approx(5 / 10)
    assert scores["contains"] == 1.0  # the post-mortem's 10/10
    assert scores["f1"] == pytest.approx(2 * (11 / 18) / (1 + 11 / 18))


def test_the_floor_that_containment_should_have_been_read_against() -> None:
    best = best_constants(WANTED, max_size=3)
    one, _, three = best
    assert one[0] == {"A"}
    assert one[1]["contains"] == pytest.approx(2 / 10)
    assert len(three[0]) == 3
    assert three[1]["contains"] == pytest.approx(4 / 10)  # e.g. {A, B, C}: the two A tickets, A,B and C


def test_answering_every_label_is_seen_through() -> None:
    everything = set().union(*WANTED.values())
    scores = score(WANTED, dict.fromkeys(WANTED, everything))
    assert scores["recall"] == 1.0
    assert scores["contains"] == 1.0
    assert scores["precision"] == pytest.approx(11 / (10 * len(everything)))
    assert scores["exact"] == 0.0


def test_evaluate_sets_pools_per_stratum() -> None:
    judgments = Judgments(
        tuple(
            Query(q, f"ticket {q}", "head" if i < 3 else "tail", {}, dict.fromkeys(WANTED[q], 1))
            for i, q in enumerate(WANTED)
        ),
        "v",
        "j",
    )
    evaluation = evaluate_sets(GIVEN, judgments)
    assert evaluation.strata["all"]["precision"] == pytest.approx(11 / 18)
    assert evaluation.strata["head"]["precision"] == pytest.approx(4 / 6)
    assert evaluation.per_query["t1"]["exact"] == 0.0
    assert evaluation.counts == {"all": 10, "head": 3, "tail": 7}


def test_set_answers_through_the_snapshot(pytester: pytest.Pytester) -> None:
    queries = "\n".join(
        f"  - {{id: {q}, text: ticket {q}, grades: {{{', '.join(f'{label}: 1' for label in sorted(WANTED[q]))}}}}}"
        for q in WANTED
    )
    pytester.makefile(".yaml", judgments=f"version: tickets\nqueries:\n{queries}\n")
    pytester.makeini("[pytest]\nrelevance_judgments = judgments.yaml\n")
    answered = {q: sorted(v) for q, v in GIVEN.items()}
    pytester.makepyfile(
        test_route=f"ANSWERED = {answered!r}\n"
        "def test_routing(relevance_snapshot):\n"
        "    assert relevance_snapshot == {q: set(v) for q, v in ANSWERED.items()}\n"
    )
    args = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    result = pytester.runpytest_inprocess(*args, "-v", "--relevance-update", "--relevance-report", "r.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*precision*recall*f1*exact*contains*",
            "*label population: 9 labels*",
            "*constant answer {A} for every query: contains 0.20*",
        ]
    )
    (test,) = json.loads((pytester.path / "r.json").read_text())["tests"]
    rows = {r["metric"]: r for r in test["rows"] if r["stratum"] == "all"}
    assert rows["recall"]["current"] == 1.0
    assert rows["precision"]["current"] == round(11 / 18, 4)
    assert rows["contains"]["floor"] >= 0.4  # a fixed answer of 3+ labels already contains 4/10
    pytester.makepyfile(
        test_route="ALL = set('ABCDEFGHIJKL')\n"
        "def test_routing(relevance_snapshot):\n"
        "    assert relevance_snapshot == {f't{i}': ALL for i in range(10)}\n"
    )
    result = pytester.runpytest_inprocess(*args)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*all.precision: 0.6111 -> 0.0917 (-0.5194*", "*all.exact: 0.5000 -> 0.0000*"])
