"""The plugin as users meet it: real pytest sessions on small generated projects, without xdist; also with -n 2
where xdist takes another path: the controller gathers the workers' results, writes the baseline and the terminal
summary, reports a missing entry's numbers, and each worker gets the warnings and the frozen clock of its own."""

from __future__ import annotations

import json
import subprocess

import pytest
from plugin_project import GOOD, INI, JUDGMENTS, TEST_FILE, baseline, rank, run

from pytest_relevance.gate.baseline_file import dumps


def test_update_creates_then_passes(project: pytest.Pytester, mode: list[str]) -> None:
    result = run(project, mode, "--relevance-update", "--relevance-reason", "first baseline")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*updated head.ndcg@10: new -> 1.0000*", "*baseline written: relevance-baseline.json*"]
    )
    result.stdout.fnmatch_lines(["relevance: test_rel.py::test_quality updated, ndcg@10 * (new entry)"])
    text = (project.path / "relevance-baseline.json").read_text()
    entry = baseline(project)["test_rel.py::test_quality"]
    assert entry["reason"] == "first baseline"
    assert entry["judgments"] == "v1"
    assert entry["engine"] == "custom"
    assert entry["strata"]["tail"] == {"ndcg@10": 0.8155, "mrr": 0.75, "n": 2}
    assert entry["metrics"]["ndcg@10"] == {"name": "ndcg", "k": 10, "gain": "linear"}
    assert dumps(json.loads(text)["entries"]) == text  # sorted keys, stable format
    assert '"h1": ["a", "b"]' in text  # one line per query's ranking
    result = run(project, mode)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["relevance: test_rel.py::test_quality passed, ndcg@10 0.9077 (+0.0000)"])


def test_worse_ranker_fails_with_signed_lines_and_leaves_the_baseline(project: pytest.Pytester, mode) -> None:
    run(project, mode, "--relevance-update")
    before = (project.path / "relevance-baseline.json").read_bytes()
    rank(project, {**GOOD, "h1": ["b", "a"]})  # the best document drops to rank 2
    result = run(project, mode)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*relevance regression in relevance-baseline.json (judgments v1, tolerance 0.005)",
            "*  all.ndcg@10: 0.9077 -> 0.8569 (-0.0508, p=1.000*",
            "*  head.ndcg@10: 1.0000 -> 0.8984 (-0.1016, p=1.000*",
            "*hint: all.ndcg@10 (p=1.000), head.ndcg@10 (p=1.000) may be chance; relevance_alpha = 0.05 fails only*",
            "*queries that dropped most on head.ndcg@10:",
            "*h1 'alpha' [[]head]: 1.0000 -> 0.7967",
            "*    fell: a (3) 1 -> 2",
            "*    rose: b (1) 2 -> 1",
            "*pytest --relevance-update 'test_rel.py::test_quality' --relevance-reason '<why>'*",
        ]
    )
    assert "head.mrr" not in result.stdout.str()  # mrr did not move: no line for it
    assert (project.path / "relevance-baseline.json").read_bytes() == before


def test_better_ranker_passes_and_is_reported_stale(project: pytest.Pytester) -> None:
    rank(project, {**GOOD, "t1": ["x", "y", "d"]})
    run(project, [], "--relevance-update")
    rank(project, GOOD)
    result = run(project, [], "-v")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*stale baseline: improved beyond tolerance (*tail.ndcg@10 +0.*); raise it with --relevance-update"]
    )


def test_tolerance_boundary(project: pytest.Pytester) -> None:
    # tail.mrr drops 0.75 -> 0.6667 (-0.0833): a tolerance of exactly 0.0833 passes, 0.0832 fails
    run(project, [], "--relevance-update")
    rank(project, {**GOOD, "t1": ["x", "y", "d"]})
    args = ["--relevance-metrics", "mrr"]
    assert run(project, [], *args, "--relevance-tolerance", "0.0833").ret == 0
    result = run(project, [], *args, "--relevance-tolerance", "0.0832")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*tail.mrr: 0.7500 -> 0.6667 (-0.0833, p=1.000*"])
    assert run(project, [], *args, "--relevance-tolerance", "0.0832 tail.mrr=0.09").ret == 0


def test_a_tail_drop_hidden_by_a_head_gain_fails(project: pytest.Pytester) -> None:
    rank(project, {**GOOD, "h1": ["b", "a"]})
    run(project, [], "--relevance-update")
    rank(project, {**GOOD, "t2": ["z", "e"]})  # head gains +0.1016, tail loses 0.1845: "all" barely moves
    result = run(project, [], "--relevance-metrics", "ndcg@10", "--relevance-tolerance", "0.05")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*tail.ndcg@10: 0.8155 -> 0.6309 (-0.1846, p=1.000*"])
    assert "all.ndcg@10:" not in result.stdout.str()


def test_judgments_version_change_names_both_versions(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    (project.path / "judgments.yaml").write_text(JUDGMENTS.replace("version: v1", "version: v2"))
    result = run(project, [])
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*the judgments changed: baseline version 'v1', now 'v2'*commit of its own*"])
    refreshed = run(project, [], "--relevance-update")  # no delta against v1's numbers: they are not comparable
    refreshed.stdout.fnmatch_lines(["relevance: test_rel.py::test_quality updated, ndcg@10 * (not compared)"])


def test_a_metric_dropped_from_the_settings_is_said_and_fails_under_unused_fail(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    said = "*note: metric mrr in the baseline but not gated by this run*--relevance-update*"
    project.makeini(INI.replace("ndcg@10 mrr", "ndcg@10"))
    result = run(project, [])
    assert result.ret == 0
    result.stdout.fnmatch_lines([said])
    project.makeini(INI.replace("ndcg@10 mrr", "ndcg@10") + "relevance_unused = fail\n")
    result = run(project, [])
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*cannot compare*metric mrr in the baseline but not gated by this run*"])
    narrowed = run(project, [], "--relevance-metrics", "ndcg@10")  # one run narrowed on purpose, as -k
    assert narrowed.ret == 0
    narrowed.stdout.fnmatch_lines([said])
    assert run(project, [], "--relevance-update").ret == 0
    assert "not gated" not in run(project, []).stdout.str()


def test_a_tolerance_naming_no_stratum_is_one_message_at_setup(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    result = run(project, [], "--relevance-tolerance", "0.005 tial=0.5")
    assert result.ret == 1
    message = "relevance: relevance_tolerance: override 'tial' names no stratum or metric being gated (strata: all,"
    # once in the error block (the short summary repeats it, cut to the width, or whole where CI is set)
    assert sum(line.startswith(message) for line in result.outlines) == 1, result.stdout.str()
    assert "During handling" not in result.stdout.str()


def test_engine_change_is_refused(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    project.makepyfile(
        test_rel=TEST_FILE.replace(
            "assert relevance_snapshot == ranker()",
            "from pytest_relevance.evaluation.evaluation import Run\n"
            "    assert relevance_snapshot == Run(ranker(), engine='other 1.0')",
        )
    )
    result = run(project, [])
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*the engine changed: baseline measured on 'custom', now 'other 1.0'*"])


def test_unknown_query_ids_in_the_run_fail_clearly(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    rank(project, {**GOOD, "h9": ["a"]})
    result = run(project, [])
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*the run has query ids that are not judged here: h9*"])


SIX_TESTS = "\n".join(
    f"def test_q{i}(relevance_snapshot):\n    assert relevance_snapshot == ranker()\n" for i in range(6)
)


def test_update_under_xdist_loses_no_entry_and_unused_entries(project: pytest.Pytester, mode) -> None:
    project.makepyfile(test_rel=TEST_FILE.split("def test_quality")[0] + SIX_TESTS)
    assert run(project, mode, "--relevance-update").ret == 0
    assert sorted(baseline(project)) == [f"test_rel.py::test_q{i}" for i in range(6)]
    # -k runs a subset: the update keeps every other entry
    rank(project, {**GOOD, "h1": ["b", "a"]})
    assert run(project, mode, "--relevance-update", "-k", "test_q1").ret == 0
    entries = baseline(project)
    assert len(entries) == 6
    assert entries["test_rel.py::test_q1"]["strata"]["head"]["ndcg@10"] == 0.8984
    assert entries["test_rel.py::test_q2"]["strata"]["head"]["ndcg@10"] == 1.0
    # a test removed: listed as unused on a whole run; removed by a whole-suite update only
    project.makepyfile(test_rel=TEST_FILE.split("def test_quality")[0] + SIX_TESTS.split("def test_q5")[0])
    rank(project, GOOD)
    result = run(project, mode, "-k", "not test_q1")
    assert "unused baseline entry" not in result.stdout.str()  # a partial run cannot tell
    result = run(project, mode, "--relevance-update", "-k", "not nothing")
    assert len(baseline(project)) == 6
    result = run(project, mode)
    result.stdout.fnmatch_lines(["*unused baseline entry test_rel.py::test_q5*"])
    result = run(project, mode, "--relevance-update")
    result.stdout.fnmatch_lines(
        ["*removed baseline entry test_rel.py::test_q5: no test of this whole-suite run has that id*"]
    )
    assert len(baseline(project)) == 5


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"pytest-relevance": 1,\n<<<<<<< HEAD\n"entries": {}\n=======\n',
            "relevance-baseline.json:2: merge-conflict",
        ),
        ('{"pytest-relevance": 1, "entries": {\n  "x": {', "relevance-baseline.json:2: not valid JSON"),
    ],
    ids=["conflict", "truncated"],
)
def test_damaged_baseline_is_a_clear_error_and_left_untouched(project, content: str, message: str) -> None:
    (project.path / "relevance-baseline.json").write_text(content)
    result = run(project, [])
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"*{message}*"])
    result = run(project, [], "--relevance-update")
    result.stdout.fnmatch_lines([f"*baseline not written*{message}*"])
    assert "Traceback" not in result.stdout.str()
    assert (project.path / "relevance-baseline.json").read_text() == content


def test_snapshot_tests_are_marked_relevance(project: pytest.Pytester) -> None:
    project.makepyfile(test_other="def test_plain():\n    pass\n")
    run(project, [], "--relevance-update")
    result = run(project, [], "-m", "relevance", "-v")
    assert result.parseoutcomes()["passed"] == 1
    assert "test_quality" in result.stdout.str()
    assert "test_plain" not in result.stdout.str()
    result = run(project, [], "-m", "not relevance", "-v")
    assert result.parseoutcomes()["passed"] == 1
    assert "test_quality" not in result.stdout.str()


def test_junit_xml_carries_the_metric_values(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    run(project, [], "--junitxml", "out.xml")
    xml = (project.path / "out.xml").read_text()
    assert '<property name="relevance.tail.ndcg@10" value="0.8155"' in xml


def test_header_and_help(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--collect-only")
    result.stdout.fnmatch_lines(
        ["relevance: baseline relevance-baseline.json, judgments judgments.yaml, frozen at 2026-01-15T12:00:00Z"]
    )
    result = project.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--relevance-update*", "*--relevance-metrics*", "*relevance_tolerance*"])
    # every setting's flag is listed (a % in a help text must not break argparse's formatting of the others)
    result.stdout.fnmatch_lines(["*--relevance-online-tolerance=*", "*(the 95% interval*"])


def test_update_warns_about_other_modified_files(project: pytest.Pytester) -> None:
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=project.path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project.path, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=project.path, check=True)
    (project.path / "judgments.yaml").write_text(JUDGMENTS + "# edited\n")
    result = run(project, [], "--relevance-update")
    result.stdout.fnmatch_lines(["*other tracked files are modified (judgments.yaml)*dedicated commit*"])


def test_changed_since_skips_when_nothing_relevant_changed(project: pytest.Pytester) -> None:
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    project.makeini(INI + "relevance_paths = judgments.yaml search/*\n")
    run(project, [], "--relevance-update")
    subprocess.run(["git", "init", "-q"], cwd=project.path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project.path, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=project.path, check=True)
    (project.path / "README").write_text("unrelated change")
    result = run(project, [], "--relevance-changed-since", "HEAD", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*no file matching relevance_paths (judgments.yaml search/*) changed since HEAD*"])
    (project.path / "search").mkdir()
    (project.path / "search" / "boost.py").write_text("BOOST = 2\n")
    result = run(project, [], "--relevance-changed-since", "HEAD")
    result.assert_outcomes(passed=1)


def test_changed_since_matches_from_the_rootdir_in_a_subfolder_of_the_repository(pytester: pytest.Pytester) -> None:
    """git names proj/search/boost.py; relevance_paths say search/* (and ./judgments.yaml) from the rootdir, proj."""
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    sub = pytester.mkdir("proj")
    (sub / "judgments.yaml").write_text(JUDGMENTS)
    (sub / "pytest.ini").write_text(INI + "relevance_paths = ./judgments.yaml search/*\n")
    (sub / "test_rel.py").write_text(TEST_FILE)
    (sub / "ranker.json").write_text(json.dumps(GOOD))
    (sub / "search").mkdir()
    (sub / "search" / "boost.py").write_text("BOOST = 1\n")
    assert run(pytester, [], "proj", "--relevance-update").ret == 0
    subprocess.run(["git", "init", "-q"], cwd=pytester.path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=pytester.path, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=pytester.path, check=True)
    (sub / "README").write_text("unrelated change")
    run(pytester, [], "proj", "--relevance-changed-since", "HEAD").assert_outcomes(skipped=1)
    (sub / "search" / "boost.py").write_text("BOOST = 2\n")
    run(pytester, [], "proj", "--relevance-changed-since", "HEAD").assert_outcomes(passed=1)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=pytester.path, check=True)
    (sub / "judgments.yaml").write_text(JUDGMENTS + "# edited\n")
    run(pytester, [], "proj", "--relevance-changed-since", "HEAD").assert_outcomes(passed=1)


def test_changed_since_without_git_runs(project: pytest.Pytester) -> None:
    project.makeini(INI + "relevance_paths = judgments.yaml\n")
    run(project, [], "--relevance-update")
    result = run(project, [], "--relevance-changed-since", "HEAD")
    result.assert_outcomes(passed=1)


def test_bad_judgments_fail_with_file_and_line_not_a_traceback(project: pytest.Pytester) -> None:
    (project.path / "judgments.yaml").write_text(JUDGMENTS.replace("{c: 2}", "{c: high}"))
    result = run(project, [])
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*judgments.yaml:4: query 'h2', document 'c': grade 'high' is not a number*"])
    assert "Traceback" not in result.stdout.str()


def test_marker_overrides_metrics_tolerance_and_clock(project: pytest.Pytester, mode) -> None:
    project.makepyfile(
        test_rel=TEST_FILE + "\nimport datetime, pytest\n"
        "@pytest.mark.relevance(metrics='p@1', tolerance={'default': 0.0, 'tail': 0.6}, now='2024-02-29T08:00:00Z')\n"
        "def test_marked(relevance_snapshot, relevance_clock):\n"
        "    assert datetime.datetime.now(datetime.UTC).isoformat() == '2024-02-29T08:00:00+00:00'\n"
        "    assert relevance_clock.year == 2024\n"
        "    assert relevance_snapshot == ranker()\n"
        "\ndef test_clock(relevance_clock):\n"
        "    assert datetime.datetime.now(datetime.UTC).isoformat() == '2026-01-15T12:00:00+00:00'\n"
    )
    assert run(project, mode, "--relevance-update").ret == 0
    entry = baseline(project)["test_rel.py::test_marked"]
    assert list(entry["metrics"]) == ["p@1"]
    assert entry["tolerance"] == "0 tail=0.6"
    rank(project, {**GOOD, "t1": ["d", "x"], "t2": ["z", "e"]})  # tail p@1: 0.5 -> 0.5, t2 loses: within 0.6
    result = run(project, mode, "-k", "test_marked or test_clock")
    assert result.ret == 0, result.stdout.str()
    rank(project, {**GOOD, "h1": ["z"]})  # head p@1 drops with tolerance 0
    result = run(project, mode, "-k", "test_marked")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*head.p@1: 1.0000 -> 0.5000 (-0.5000, p=1.000*"])


def test_max_churn_fails_when_no_metric_moved(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    rank(project, {**GOOD, "t1": ["u1", "d"]})  # an unjudged document replaces another: no metric moves
    result = run(project, [], "-v")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*rankings vs baseline, RBO (p=0.9) / top-10 overlap: all *"])
    result = run(project, [], "--relevance-max-churn", "0.01")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*relevance churn beyond relevance_max_churn 0.01*", "*queries that changed most:*"])


def test_a_missing_entry_fails_showing_the_numbers_and_what_to_do(project: pytest.Pytester, mode) -> None:
    result = run(project, mode)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*relevance: no baseline entry for test_rel.py::test_quality in relevance-baseline.json*",
            "*pytest --relevance-update*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*no baseline entry for test_rel.py::test_quality*measured*", "*all*4*", "*create it with*"]
    )
    assert not (project.path / "relevance-baseline.json").exists()


def test_snapshot_depth_sets_how_many_ranked_ids_the_baseline_keeps(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update", "--relevance-snapshot-depth", "1")
    entry = baseline(project)["test_rel.py::test_quality"]
    assert entry["rankings"]["h1"] == ["a"]
    assert entry["rankings_depth"] == 1


ENGINE_RUN = (
    "from pytest_relevance.evaluation.evaluation import Run\n"
    "    assert relevance_snapshot == Run(ranker(), engine='{engine}')"
)


def test_a_new_engine_version_is_compared_with_a_note(project: pytest.Pytester) -> None:
    def engine(name: str) -> None:
        project.makepyfile(
            test_rel=TEST_FILE.replace("assert relevance_snapshot == ranker()", ENGINE_RUN.format(engine=name))
        )

    engine("embedded tantivy 0.27.0")
    run(project, [], "--relevance-update")
    engine("embedded tantivy 0.28.1")
    result = run(project, [])
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*note: the engine version changed: baseline measured on 'embedded tantivy 0.27.0'*"])
    rank(project, {**GOOD, "h1": ["b", "a"]})
    result = run(project, [])
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*head.ndcg@10: 1.0000 -> 0.8984 (-0.1016*", "*note: the engine version changed*"])


def test_update_keeps_the_reason_of_unchanged_entries_and_warns_without_one(project: pytest.Pytester) -> None:
    project.makepyfile(test_rel=TEST_FILE + SIX_TESTS.split("def test_q2")[0])
    run(project, [], "--relevance-update", "--relevance-reason", "first")
    project.makepyfile(
        test_rel=TEST_FILE + SIX_TESTS.split("def test_q2")[0].replace("ranker()", "{**ranker(), 'h1': ['b', 'a']}", 1)
    )
    result = run(project, [], "--relevance-update")
    entries = baseline(project)
    assert entries["test_rel.py::test_quality"]["reason"] == "first"  # unchanged: kept as it was
    assert entries["test_rel.py::test_q1"]["reason"] == "first"
    assert entries["test_rel.py::test_q0"]["reason"] == ""
    result.stdout.fnmatch_lines(["*1 entries re-baselined without --relevance-reason*"])


def test_junit_xml_carries_baseline_and_delta(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    rank(project, {**GOOD, "t1": ["x", "y", "d"]})
    run(project, [], "--junitxml", "out.xml")
    xml = (project.path / "out.xml").read_text()
    assert '<property name="relevance.tail.ndcg@10" value="0.75" />' in xml
    assert '<property name="relevance.tail.ndcg@10.baseline" value="0.8155" />' in xml
    assert '<property name="relevance.tail.ndcg@10.delta" value="-0.0655" />' in xml


def test_changed_since_says_why_it_runs_everything(project: pytest.Pytester) -> None:
    run(project, [], "--relevance-update")
    result = run(project, [], "--relevance-changed-since", "HEAD")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*--relevance-changed-since HEAD: relevance_paths is not set, so every relevance*"])
    project.makeini(INI + "relevance_paths = judgments.yaml\n")
    result = run(project, [], "--relevance-changed-since", "no-such-ref")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*git cannot diff against 'no-such-ref' here*so every relevance test runs"])


def test_report_path_is_relative_to_the_invocation_directory(project: pytest.Pytester, monkeypatch) -> None:
    run(project, [], "--relevance-update")
    (project.path / "sub").mkdir()
    monkeypatch.chdir(project.path / "sub")
    result = project.runpytest_inprocess(
        "-p", "no:cacheprovider", "--rootdir", str(project.path), "..", "--relevance-report", "r.json"
    )
    assert result.ret == 0
    assert (project.path / "sub" / "r.json").is_file()
    assert not (project.path / "r.json").exists()


def test_output_is_one_line_per_test_the_table_on_v_and_one_line_on_q(project: pytest.Pytester, mode) -> None:
    project.makepyfile(test_rel=TEST_FILE + SIX_TESTS.split("def test_q2")[0])
    run(project, mode, "--relevance-update")
    result = run(project, mode)
    relevance = result.stdout.str().split(" relevance ")[-1].splitlines()[1:]
    assert relevance[:4] == [
        "relevance: test_rel.py::test_q0 passed, ndcg@10 0.9077 (+0.0000)",
        "relevance: test_rel.py::test_q1 passed, ndcg@10 0.9077 (+0.0000)",
        "relevance: test_rel.py::test_quality passed, ndcg@10 0.9077 (+0.0000)",
        "relevance: 3 tests: 3 passed",
    ]
    assert "stratum" not in result.stdout.str()
    result = run(project, mode, "-v")
    result.stdout.fnmatch_lines(["test_rel.py::test_q0  (engine custom, judgments v1)", "  stratum *"])
    result = run(project, mode, "-q")
    assert [line for line in result.stdout.lines if line.startswith("relevance")] == ["relevance: 3 tests: 3 passed"]
    assert " relevance " not in result.stdout.str()


def test_warnings_are_relevance_warnings_once_per_test(project: pytest.Pytester, mode) -> None:
    run(project, mode, "--relevance-update")
    result = run(project, mode)  # the tail stratum has judged@10 0.75 and values at their floor
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*warnings summary*", "*RelevanceWarning: test_rel.py::test_quality: 2 warnings about its numbers: -v *"]
    )
    assert result.stdout.str().count("RelevanceWarning") == 1
    result = run(project, mode, "-W", "error::pytest_relevance.plugin.hooks.RelevanceWarning")
    assert result.ret == 1


def test_the_warning_is_one_short_line_said_once_and_listed_in_full_on_v(project: pytest.Pytester) -> None:
    # joined, the report's warnings made a line of 300 characters here (700 on a real collection), on every run
    project.makepyfile(test_rel=TEST_FILE + SIX_TESTS.split("def test_q1")[0])
    run(project, [], "--relevance-update")
    result = run(project, [])
    said = [line for line in result.stdout.lines if "RelevanceWarning" in line]
    # the second test has the same warnings (same judgments, same rankings): said once in the session
    assert len(said) == 1
    message = said[0].split("RelevanceWarning: ")[1]
    assert (
        message == "test_rel.py::test_quality: 2 warnings about its numbers: -v lists them, as does --relevance-report"
    )
    assert len(message) <= 150
    lines = run(project, [], "-v").stdout.lines
    assert (
        lines.count(
            "  warning: tail: judged@10 0.75 < 0.8: unjudged results score 0, so a better ranker can look "
            "worse; most unjudged: t1 (1)"
        )
        == 2
    )
    assert sum(line.startswith("  warning: under 10 queries (all 4, head 2, tail 2): too few") for line in lines) == 2


def test_a_custom_rankers_coverage_and_its_floor_divide_by_the_sessions_corpus(project: pytest.Pytester) -> None:
    """A plain mapping from a custom ranker carries no corpus size: coverage and coverage's constant-answer floor
    take it from relevance_corpus. Without a corpus file there is none: no coverage line, and the run still passes."""
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    assert project.runpytest_inprocess(*quiet, "--relevance-update").ret == 0
    assert project.runpytest_inprocess(*quiet, "--relevance-report", "plain.json").ret == 0
    (plain,) = json.loads((project.path / "plain.json").read_text())["tests"]
    assert plain["coverage"] is None  # no corpus file: nothing to divide by
    corpus = "".join(json.dumps({"id": doc, "brand": doc}) + "\n" for doc in "abcdexyz")
    (project.path / "corpus.ndjson").write_text(corpus)
    project.makeini(INI.replace("ndcg@10 mrr", "ndcg@10 coverage@2") + "relevance_corpus = corpus.ndjson\n")
    assert project.runpytest_inprocess(*quiet, "--relevance-update").ret == 0
    assert project.runpytest_inprocess(*quiet, "--relevance-report", "out.json").ret == 0
    (report,) = json.loads((project.path / "out.json").read_text())["tests"]
    floors = {(r["stratum"], r["metric"]): r["floor"] for r in report["rows"]}
    assert floors[("all", "coverage@2")] == floors[("tail", "coverage@2")] == 0.25  # one list of 2 of the 8
    assert report["coverage"] == 0.75  # a, b, c, x, d, e of the 8 in a top 10
    project.makeini(INI + "relevance_corpus = corpus.ndjson\n")  # no metric reads the corpus: still its size
    assert project.runpytest_inprocess(*quiet, "--relevance-update", "--relevance-report", "again.json").ret == 0
    assert json.loads((project.path / "again.json").read_text())["tests"][0]["coverage"] == 0.75
