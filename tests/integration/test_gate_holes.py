"""Ways a real regression used to pass the gate (issue 36): a hand-merged baseline entry, a test that swallows its
failure, a test that never compares. Real pytest sessions on a small generated project."""

from __future__ import annotations

import json

import pytest
from plugin_project import GOOD, JUDGMENTS, NODE, TEST_FILE, rank, run

WORSE = {"h1": ["b", "x", "a"], "h2": ["x", "y", "c"], "t1": ["x", "y", "z", "d"], "t2": ["e"]}


def entry_of(pytester: pytest.Pytester, run_: dict[str, list[str]]) -> dict:
    """The entry an update writes for `run_`."""
    rank(pytester, run_)
    assert run(pytester, [], "--relevance-update").ret == 0
    return json.loads((pytester.path / "relevance-baseline.json").read_text())["entries"][NODE]


def write_entry(pytester: pytest.Pytester, entry: dict) -> None:
    from pytest_relevance.gate.baseline_file import dumps

    (pytester.path / "relevance-baseline.json").write_text(dumps({NODE: entry}))


# ---------------------------------------------------------------- a hand-merged entry


def _merged(good: dict, worse: dict, how: str) -> dict:
    if how == "regressed values, old strata":
        return {**worse, "strata": good["strata"]}
    if how == "old values, new strata":
        return {**good, "strata": worse["strata"]}
    if how == "old values and strata, new rankings":
        return {**good, "rankings": worse["rankings"]}
    if how == "a stratum's n":
        return {**worse, "strata": {**worse["strata"], "head": {**worse["strata"]["head"], "n": 3}}}
    raise AssertionError(how)


@pytest.mark.parametrize(
    ("how", "alpha", "message"),
    [
        ("regressed values, old strata", True, "strata.all.ndcg@10 is *, but the mean of its 4 queries' values is *"),
        ("old values, new strata", False, "strata.all.ndcg@10 is *, but the mean of its 4 queries' values is *"),
        ("old values and strata, new rankings", False, "queries.h1.ndcg@10 is 1.0, but its recorded ranking scores *"),
        ("a stratum's n", False, "strata.head.n is 3, but the entry holds per-query values for 2 of its queries"),
    ],
)
def test_a_hand_merged_entry_is_refused_naming_it(project: pytest.Pytester, how: str, alpha: bool, message: str):
    good, worse = entry_of(project, GOOD), entry_of(project, WORSE)
    write_entry(project, _merged(good, worse, how))
    args = ("-o", "relevance_alpha=0.05") if alpha else ()
    result = run(project, [], *args)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            f"relevance: relevance-baseline.json: entry '{NODE}': {message}: its values are not derived from each "
            "other (edited or merged by hand); restore it (git checkout -- FILE) or re-baseline: pytest "
            f"--relevance-update '{NODE}' --relevance-reason '<why>'"
        ]
    )
    assert run(project, [], "--relevance-update").ret == 0  # what the message says to do repairs it
    assert run(project, []).ret == 0


def test_values_rounded_as_an_update_rounds_them_are_consistent(project: pytest.Pytester) -> None:
    """Values of thirds and logarithms: each stratum's mean of the rounded per-query values is off by the rounding,
    which is no inconsistency."""
    project.makefile(
        ".yaml",
        judgments=JUDGMENTS.replace("{d: 1}", "{d: 1, f: 1, g: 1}").replace("{e: 2}", "{e: 2, f: 1, g: 1}"),
    )
    entry = entry_of(project, {"h1": ["a"], "h2": ["x", "x2", "c"], "t1": ["d", "x"], "t2": ["x", "g"]})
    rounded_mean = sum(values["ndcg@10"] for values in entry["queries"].values()) / 4
    assert rounded_mean != entry["strata"]["all"]["ndcg@10"]  # the rounding shows
    write_entry(project, entry)
    assert run(project, []).ret == 0


# ---------------------------------------------------------------- a test that swallows its failure


SWALLOWED = {
    "except BaseException": """\
def test_quality(relevance_snapshot):
    try:
        assert relevance_snapshot == ranker()
    except BaseException:
        pass
""",
    "pytest.raises": """\
import pytest

def test_quality(relevance_snapshot):
    with pytest.raises(BaseException):
        assert relevance_snapshot == ranker()
""",
    "compares twice, the first regressed": """\
def test_quality(relevance_snapshot):
    try:
        assert relevance_snapshot == ranker()
    except BaseException:
        pass
    assert relevance_snapshot == ranker("good.json")
""",
}


# each way in process; one also under xdist, whose controller must fail the session on the worker's report
@pytest.mark.parametrize(
    ("how", "mode"),
    [
        *(pytest.param(how, [], id=f"no-xdist-{how}") for how in SWALLOWED),
        pytest.param("except BaseException", ["-n", "2"], id="xdist-except BaseException"),
    ],
)
def test_a_swallowed_regression_fails_the_test_and_the_session(
    project: pytest.Pytester, how: str, mode: list[str]
) -> None:
    assert run(project, mode, "--relevance-update").ret == 0
    (project.path / "good.json").write_text(json.dumps(GOOD))
    project.makepyfile(test_rel=TEST_FILE.split("def test_quality")[0] + SWALLOWED[how])
    rank(project, WORSE)
    result = run(project, mode, "--relevance-report", "report.json")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "relevance regression in relevance-baseline.json*",
            f"relevance: {NODE} caught this failure of relevance_snapshot and passed; a relevance failure fails the "
            "test whatever the test does with it",
        ]
    )
    result.assert_outcomes(failed=1)
    assert json.loads((project.path / "report.json").read_text())["tests"][0]["status"] == "regressed"


def test_a_test_that_compares_nothing_fails_saying_so(project: pytest.Pytester) -> None:
    project.makepyfile(test_rel="def test_quality(relevance_snapshot):\n    pass\n")
    result = run(project, [])
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*relevance: {NODE} requests relevance_snapshot but compared no run with it; compare one (assert "
            "relevance_snapshot == run) or drop the fixture"
        ]
    )


# ---------------------------------------------------------------- movers deeper than the baseline keeps


def test_a_drop_deeper_than_the_baseline_keeps_says_its_moves_are_the_top_k_only(project: pytest.Pytester) -> None:
    """t1's relevant document falls from 15 to 150: recall@100 drops, and the baseline's top 10 saw none of it."""
    fillers = [f"x{i}" for i in range(200)]
    before = {**GOOD, "t1": [*fillers[:14], "d"]}
    after = {**GOOD, "t1": [*fillers[:149], "d"]}
    shallow = (
        "  what moved: in each query's top 10 only, as deep as the baseline keeps; recall@100 counts to 100: "
        "relevance_snapshot_depth = 100 keeps that deep"
    )
    for depth, said in (("10", True), ("100", False)):
        args = ("-o", "relevance_metrics=ndcg@10 recall@100", "-o", f"relevance_snapshot_depth={depth}")
        rank(project, before)
        assert run(project, [], "--relevance-update", *args).ret == 0
        rank(project, after)
        result = run(project, [], *args)
        assert result.ret == 1
        result.stdout.fnmatch_lines(["queries that dropped most on tail.recall@100:", "  t1 'gamma' [[]tail]: *"])
        assert (shallow in result.stdout.lines) is said
        if not said:
            result.stdout.fnmatch_lines(["*fell: d (1) 15 -> *"])
