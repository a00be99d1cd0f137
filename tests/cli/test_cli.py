"""`pytest-relevance evaluate`: trec_eval's reading of TREC files, our metric names, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval

from pytest_relevance.cli.commands import main

QRELS = "q1 0 a 1\nq1 0 b 3\nq1 0 c 0\nq2 0 x 2\nq9 0 y 1\n"
# q1: b and z tie at 1.0 -> z (id descending) comes first; the rank column says otherwise and is ignored
RUN = "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq1 Q0 z 3 1.0 t\nq2 Q0 w 1 -1 t\nq2 Q0 x 2 -2.5 t\nq3 Q0 x 1 1 t\n"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_matches_pytrec_eval_on_the_queries_in_both_files(tmp_path: Path, capsys) -> None:
    qrels, run = write(tmp_path, "qrels", QRELS), write(tmp_path, "run", RUN)
    code, out, _ = run_cli(
        capsys, "evaluate", qrels, run, "-m", "ndcg@3", "-m", "map", "--format", "json", "--per-query"
    )
    assert code == 0
    result = json.loads(out)
    assert set(result["per_query"]) == {"q1", "q2"}  # q3 has no qrels, q9 no run: left out, as trec_eval does
    evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1, "b": 3, "c": 0}, "q2": {"x": 2}}, {"ndcg_cut.3", "map"})
    expected = evaluator.evaluate({"q1": {"a": 2.0, "b": 1.0, "z": 1.0}, "q2": {"w": -1.0, "x": -2.5}})
    for qid in ("q1", "q2"):
        assert result["per_query"][qid]["ndcg@3"] == pytest.approx(expected[qid]["ndcg_cut_3"], abs=1e-12)
        assert result["per_query"][qid]["map"] == pytest.approx(expected[qid]["map"], abs=1e-12)
    assert result["all"]["map"] == pytest.approx((expected["q1"]["map"] + expected["q2"]["map"]) / 2)


def test_json_without_per_query_has_only_means(tmp_path: Path, capsys) -> None:
    code, out, _ = run_cli(
        capsys, "evaluate", write(tmp_path, "q", QRELS), write(tmp_path, "r", RUN), "--format", "json"
    )
    assert code == 0
    assert list(json.loads(out)) == ["all"]
    assert list(json.loads(out)["all"]) == ["map", "mrr", "ndcg@10", "p@10", "recall@100"]


def test_table_prints_trec_eval_style_rows(tmp_path: Path, capsys) -> None:
    code, out, _ = run_cli(
        capsys, "evaluate", write(tmp_path, "q", QRELS), write(tmp_path, "r", RUN), "-m", "p@2", "--per-query"
    )
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    assert ["p@2", "q1", "0.5000"] in rows
    assert ["p@2", "q2", "0.5000"] in rows  # x ranks second despite its negative score
    assert ["queries", "all", "2"] in rows
    assert ["p@2", "all", "0.5000"] in rows


def test_duplicates_warn_with_file_and_line_and_keep_the_first(tmp_path: Path, capsys) -> None:
    run = write(tmp_path, "run", "q1 Q0 b 1 5 t\nq1 Q0 a 2 4 t\nq1 Q0 b 3 9 t\n")
    code, out, err = run_cli(
        capsys, "evaluate", write(tmp_path, "q", "q1 0 a 1\n"), run, "-m", "mrr", "--format", "json"
    )
    assert code == 0
    assert f"{run}:3: duplicate document 'b' for query 'q1'; keeping the first occurrence (line 1)" in err
    assert json.loads(out)["all"]["mrr"] == 0.5  # b keeps score 5 from line 1, a is second


BALANCED = "q1 Q0 a 1 2.0\nq1 Q0 b 2 1.0 t extra\n"  # 5 + 7 columns: as many tokens as two good lines


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ("q1 0 a x\n", RUN, "qrels:1: grade 'x' is not a number"),
        ("q1 0 a 1\nq1 0 a\n", RUN, "qrels:2: malformed line: expected 4 columns (qid iter docno grade), found 3"),
        (
            "q1 0 a 1 x\nq1 0 b\n",
            RUN,
            "qrels:1: malformed line: expected 4 columns (qid iter docno grade), found 5 "
            "(trec_eval refuses anything after the grade)",
        ),
        ("q1 0 a 1\nq1 0 a 2\n", RUN, "qrels:2: document 'a' is graded twice for query 'q1' (first at line 1)"),
        ("", RUN, "qrels: the file is empty"),
        (
            "q1 0 a 1\nq1 0 b 1.5\n",
            RUN,
            "qrels:2: grade '1.5' is not a whole number: trec_eval would truncate it to 1; write whole grades "
            "(0, 1, 2, 3...)",
        ),
        ("q1 0 a nan\n", RUN, "qrels:1: grade 'nan' is not a finite number"),
        ("q1 0 a \u0663\n", RUN, "qrels:1: grade '\u0663' is not a number"),  # a digit to str, not to trec_eval
        ("q1 0 a 1\nq1 0 b 1001\n", RUN, "qrels:2: grade '1001' is out of range: grades are whole numbers up to 1000"),
        (QRELS, "q1 Q0 a 1 high t\n", "run:1: score 'high' is not a number"),
        (QRELS, "q1 Q0 a 1 1 t\nq1 Q0 b 2 nan t\n", "run:2: score 'nan' is not a finite number"),
        (
            QRELS,
            "q1 Q0 a 1 1 t\n\nq1 Q0 b 2 1\n",
            "run:3: malformed line: expected 6 columns (qid Q0 docno rank score tag), found 5",
        ),
        (QRELS, BALANCED, "run:1: malformed line: expected 6 columns (qid Q0 docno rank score tag), found 5"),
        (QRELS, "q7 Q0 a 1 1 t\n", "no query of this run is judged"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys, qrels: str, run: str, message: str) -> None:
    code, out, err = run_cli(capsys, "evaluate", write(tmp_path, "qrels", qrels), write(tmp_path, "run", run))
    assert code == 2
    assert out == ""
    if message.startswith(("qrels", "run")):
        assert err == f"pytest-relevance: error: {tmp_path / message}\n"
    else:
        assert message in err
    assert len(err.strip().splitlines()) == 1


def test_a_file_that_is_not_utf8_is_named_with_its_line(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"q1 0 a 1\nq1 0 caf\xe9 1\n")
    code, _, err = run_cli(capsys, "evaluate", str(qrels), write(tmp_path, "run", RUN))
    assert code == 2
    assert err == f"pytest-relevance: error: {qrels}:2: not UTF-8 text (byte 0xe9): save the file as UTF-8\n"


def test_columns_after_the_tag_are_ignored_as_trec_eval_ignores_them(tmp_path: Path, capsys) -> None:
    qrels = write(tmp_path, "qrels", QRELS)
    plain = run_cli(capsys, "evaluate", qrels, write(tmp_path, "run", RUN), "--format", "json", "--per-query")
    wide = RUN.replace(" t\n", " t 17 extra columns\n")
    widened = run_cli(capsys, "evaluate", qrels, write(tmp_path, "wide", wide), "--format", "json", "--per-query")
    assert widened == plain
    assert plain[0] == 0


def test_missing_file_and_bad_metric(tmp_path: Path, capsys) -> None:
    code, _, err = run_cli(capsys, "evaluate", str(tmp_path / "nope"), write(tmp_path, "r", RUN))
    assert code == 2
    assert "nope: no such file" in err
    code, _, err = run_cli(capsys, "evaluate", write(tmp_path, "q", QRELS), write(tmp_path, "r", RUN), "-m", "p@0")
    assert code == 2
    assert "bad cut-off '0'" in err


def test_console_script_runs_as_a_process(tmp_path: Path) -> None:
    qrels, run = write(tmp_path, "qrels", QRELS), write(tmp_path, "run", RUN)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "evaluate", qrels, run, "-m", "hit@1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[1].split() == ["hit@1", "all", "0.5000"]


@pytest.mark.parametrize("lines_read", [0, 1])
def test_a_reader_that_stops_early_ends_the_run_without_a_traceback(tmp_path: Path, lines_read: int) -> None:
    # as `| head -1`: the pipe closes mid-write (a large output), or before the buffered output is flushed at all
    queries = {f"q{i}": {"ndcg@10": {"baseline": 0.5, "current": 0.25}} for i in range(5000 if lines_read else 20)}
    test = {"test": "t.py::test_a", "tolerance": "0.005", "rows": [], "per_query": queries}
    report = write(tmp_path, "run.json", json.dumps({"pytest-relevance-report": 1, "tests": [test]}))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # a pipe's default: output is buffered
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "compare", report, report, "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    assert [process.stdout.readline() for _ in range(lines_read)] == [b"{\n"] * lines_read
    process.stdout.close()
    err = process.stderr.read()
    assert (process.wait(), err) == (1, b"")


# ---------------------------------------------------------------- compare and report


def _baseline(
    tmp_path: Path, name: str, run: dict[str, list[str]], test: str = "t.py::test_a", version: str = "v1"
) -> str:
    """A baseline file written by the plugin's own writer (keys sorted: all, head, tail, torso, zeta)."""
    from pytest_relevance.config.settings import Tolerance
    from pytest_relevance.evaluation.evaluation import evaluate
    from pytest_relevance.gate.baseline_file import write_baseline
    from pytest_relevance.gate.entry import make_entry
    from pytest_relevance.judgments.model import Judgments, Query
    from pytest_relevance.metrics.ranking import parse_metrics

    strata = ("head", "torso", "tail", "zeta")
    queries = tuple(Query(f"q{i}", f"text {i}", strata[i % 4], {}, {"a": 2, "b": 1}) for i in range(8))
    judgments = Judgments(queries, version, "judgments.yaml")
    evaluation = evaluate(run, judgments, parse_metrics("recall@100 ndcg@10 mrr@10"))
    entry = make_entry(evaluation, version, "custom", Tolerance.parse("0.005"), "why")
    path = tmp_path / name
    write_baseline(path, {test: entry})
    return str(path)


GOOD = {f"q{i}": ["a", "b"] for i in range(8)}


def test_report_on_a_baseline_labels_the_values_as_baseline_in_the_reports_order(tmp_path: Path, capsys) -> None:
    import re

    baseline = _baseline(tmp_path, "b.json", {**GOOD, "q1": ["b", "x", "a"]})
    assert list(json.loads(Path(baseline).read_text())["entries"]["t.py::test_a"]["strata"]) == [
        "all",
        "head",
        "tail",
        "torso",
        "zeta",
    ]
    code, out, _ = run_cli(capsys, "report", baseline, "--html", str(tmp_path / "b.html"))
    assert (code, out) == (0, f"wrote {tmp_path / 'b.html'}: the report of 1 test(s) from {baseline}\n")
    page = (tmp_path / "b.html").read_text()
    assert "<h1>1 baseline entry (the values they record)</h1>" in page
    assert "<details" not in page  # nothing passed or failed: the entries are what there is to see
    assert re.findall(r'aria-label="([^"]+)"', page) == ["all", "head", "torso", "tail", "zeta"]
    rows = re.findall(r'<tr class="recorded"><td>(\w+)</td><td>\d+</td><td>([^<]+)</td><td>([0-9.]+)</td><td>—', page)
    assert [(s, m) for s, m, _ in rows[:3]] == [
        ("all", "recall@100"),
        ("all", "ndcg@10"),
        ("all", "mrr@10"),
    ]  # as configured
    assert [s for s, _, _ in rows[::3]] == ["all", "head", "torso", "tail", "zeta"]
    assert "<title>ndcg@10 baseline: " in page and " current: " not in page
    assert 'class="delta-chart"' not in page  # nothing was measured, nothing changed


def test_compare_as_json_with_every_row_and_query(tmp_path: Path, capsys) -> None:
    old = _baseline(tmp_path, "old.json", GOOD)
    new = _baseline(tmp_path, "new.json", {**GOOD, "q1": ["b", "x", "a"]})  # q1 (torso): a (2) drops to 3rd
    code, out, _ = run_cli(capsys, "compare", old, new, "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["regressed"] is True
    (test,) = data["tests"]
    assert test["test"] == "t.py::test_a" and test["only_in"] is None
    assert len(test["rows"]) == 5 * 3 and len(test["queries"]) == 8 * 3
    q1 = pytrec_eval.RelevanceEvaluator({"q1": {"a": 2, "b": 1}}, {"ndcg_cut.10"}).evaluate(
        {"q1": {"b": 3.0, "x": 2.0, "a": 1.0}}
    )["q1"]["ndcg_cut_10"]
    assert round(q1, 4) == 0.7602  # (1 + 2/log2 4) / (2 + 1/log2 3); MRR stays 1 (b is relevant)
    assert {"query": "q1", "metric": "ndcg@10", "old": 1.0, "new": 0.7602, "delta": -0.2398} in test["queries"]
    torso = next(r for r in test["rows"] if (r["stratum"], r["metric"]) == ("torso", "ndcg@10"))
    assert torso == {
        "stratum": "torso",
        "metric": "ndcg@10",
        "old": 1.0,
        "new": round((1 + q1) / 2, 4),
        "delta": round((1 + q1) / 2 - 1, 4),
        "status": "regression",
    }


def test_compare_changed_only_lists_the_changed_rows_and_queries(tmp_path: Path, capsys) -> None:
    old = _baseline(tmp_path, "old.json", GOOD)
    new = _baseline(tmp_path, "new.json", {**GOOD, "q1": ["b", "x", "a"]})
    code, out, _ = run_cli(capsys, "compare", old, new, "--format", "json", "--changed-only")
    assert code == 1
    (test,) = json.loads(out)["tests"]
    assert [(r["stratum"], r["metric"]) for r in test["rows"]] == [("all", "ndcg@10"), ("torso", "ndcg@10")]
    assert [(q["query"], q["metric"]) for q in test["queries"]] == [("q1", "ndcg@10")]
    code, out, _ = run_cli(capsys, "compare", old, new, "--changed-only")
    rows = [line.split() for line in out.splitlines()]
    assert rows[1:] == [
        ["t.py::test_a", "all.ndcg@10", "1.0000", "0.9700", "-0.0300", "REGRESSION"],  # (7 + 0.7602) / 8
        ["t.py::test_a", "torso.ndcg@10", "1.0000", "0.8801", "-0.1199", "REGRESSION"],
        ["t.py::test_a", "q1", "ndcg@10", "1.0000", "0.7602", "-0.2398"],
    ]
    code, out, _ = run_cli(capsys, "compare", old, old, "--changed-only", "--format", "json")
    assert code == 0 and json.loads(out)["tests"][0]["rows"] == []
    code, out, _ = run_cli(capsys, "compare", old, new)
    assert len(out.splitlines()) == 1 + 15  # without --changed-only: every row, no queries


def test_compare_refuses_what_the_gate_cannot_compare_with_the_gates_reasons(tmp_path: Path) -> None:
    from pytest_relevance.gate.entry import incompatibilities

    old = _baseline(tmp_path, "old.json", GOOD)
    new = _baseline(tmp_path, "new.json", {**GOOD, "q1": ["b", "x", "a"]}, version="v2")  # a refresh, and a drop
    data = json.loads(Path(new).read_text())
    entry = data["entries"]["t.py::test_a"]
    entry["engine"] = "elasticsearch 8.13.4"
    entry["metrics"]["ndcg@10"]["gain"] = "exp"
    Path(new).write_text(json.dumps(data))
    recorded = json.loads(Path(old).read_text())["entries"]["t.py::test_a"]
    reasons = incompatibilities(recorded, "v2", "elasticsearch 8.13.4", entry["metrics"])
    assert len(reasons) == 3 and reasons[0].startswith("the judgments changed: baseline version 'v1', now 'v2'")

    def compare(*extra: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "pytest_relevance.cli.commands", "compare", old, new, *extra]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    done = compare("--format", "json")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"pytest-relevance: error: cannot compare t.py::test_a: {r}" for r in reasons]
    data = json.loads(done.stdout)
    assert (data["regressed"], data["comparable"]) == (False, False)
    assert data["tests"] == [{"test": "t.py::test_a", "only_in": None, "problems": reasons, "rows": [], "queries": []}]
    done = compare()
    assert done.returncode == 2 and "REGRESSION" not in done.stdout
    assert [line.split(None, 3)[1:3] for line in done.stdout.splitlines()[1:]] == [["CANNOT", "COMPARE:"]] * 3


@pytest.mark.parametrize("alpha", [None, 0.05])
def test_compare_decides_as_the_gate_with_the_alpha_new_recorded(tmp_path: Path, capsys, alpha: float | None) -> None:
    # one query of twelve drops: beyond tolerance on "all", and no evidence of a change under relevance_alpha; the
    # gate's check (gate.pipeline) says "not significant" there, and so must compare, which decides with it
    from report_model import report_of

    from pytest_relevance.config.settings import Tolerance
    from pytest_relevance.evaluation.evaluation import evaluate
    from pytest_relevance.gate.baseline_file import write_baseline
    from pytest_relevance.gate.entry import make_entry
    from pytest_relevance.judgments.model import Judgments, Query
    from pytest_relevance.metrics.ranking import parse_metrics

    judgments = Judgments(tuple(Query(f"q{i}", f"text {i}", None, {}, {"a": 2, "b": 1}) for i in range(12)), "v1", "j")
    metrics = parse_metrics("ndcg@10")
    before = evaluate({f"q{i}": ["a", "b"] for i in range(12)}, judgments, metrics)
    after = evaluate({f"q{i}": ["a", "b"] for i in range(12)} | {"q1": ["b", "x", "a"]}, judgments, metrics)
    entry = make_entry(before, "v1", "custom", Tolerance.parse("0.005"), "why")
    write_baseline(tmp_path / "old.json", {"t.py::test_a": entry})
    report = report_of("t.py::test_a", after, judgments, entry, alpha=alpha)
    assert report["rows"][0]["status"] == ("regression" if alpha is None else "not significant")
    new = write(tmp_path, "new.json", json.dumps({"pytest-relevance-report": 1, "tests": [report]}))
    code, out, _ = run_cli(capsys, "compare", str(tmp_path / "old.json"), new, "--format", "json")
    (row,) = json.loads(out)["tests"][0]["rows"]
    assert (code, row["delta"], row["status"]) == (1 if alpha is None else 0, -0.02, report["rows"][0]["status"])
    code, out, _ = run_cli(capsys, "compare", str(tmp_path / "old.json"), new)
    assert out.splitlines()[1].endswith("REGRESSION" if alpha is None else "not significant")


def test_compare_refuses_an_old_entry_the_gate_refuses_naming_its_file(tmp_path: Path, capsys) -> None:
    # the gate's check reads OLD as a baseline entry: a stratum value that is not the mean of its queries' values (a
    # hand edit) is bad input there, as it is under pytest, and the message names OLD
    old, new = _baseline(tmp_path, "old.json", GOOD), _baseline(tmp_path, "new.json", GOOD)
    data = json.loads(Path(old).read_text())
    data["entries"]["t.py::test_a"]["strata"]["all"]["ndcg@10"] = 0.5
    Path(old).write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "compare", old, new)
    assert (code, out) == (2, "")
    assert err.startswith(f"pytest-relevance: error: {old}: entry 't.py::test_a': strata.all.ndcg@10 is 0.5, but the ")
    assert "its values are not derived from each other" in err


def test_compare_names_tests_found_on_one_side_only(tmp_path: Path, capsys) -> None:
    old = _baseline(tmp_path, "old.json", GOOD)
    new = _baseline(tmp_path, "new.json", GOOD, test="t.py::test_b")
    code, out, _ = run_cli(capsys, "compare", old, new, "--format", "json")
    assert code == 0
    assert [(t["test"], t["only_in"]) for t in json.loads(out)["tests"]] == [
        ("t.py::test_a", "old"),
        ("t.py::test_b", "new"),
    ]
    code, out, _ = run_cli(capsys, "compare", old, new, "--format", "md")
    assert "| t.py::test_a |  |  |  |  | only in OLD |" in out


def test_compare_names_the_file_and_test_of_a_tolerance_it_cannot_read(tmp_path: Path, capsys) -> None:
    old, new = _baseline(tmp_path, "old.json", GOOD), _baseline(tmp_path, "new.json", GOOD)
    data = json.loads(Path(new).read_text())
    data["entries"]["t.py::test_a"]["tolerance"] = "0.005 tail=much"  # a hand edit
    Path(new).write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "compare", old, new)
    assert (code, out) == (2, "")
    assert err == (
        f"pytest-relevance: error: {new}: test 't.py::test_a': tolerance 'tail=much' is not a number; "
        "write e.g. 0.005 tail=0.02\n"
    )


def test_queries_whose_lines_are_scattered_score_as_if_together(tmp_path: Path, capsys) -> None:
    lines = RUN.splitlines(keepends=True)
    scattered = lines[0] + lines[3] + lines[1] + lines[4] + lines[2] + lines[5]  # q1 q2 q1 q2 q1 q3
    qrels = write(tmp_path, "qrels", QRELS)
    args = ("--format", "json", "--per-query", "-m", "ndcg@3", "-m", "map")
    together = run_cli(capsys, "evaluate", qrels, write(tmp_path, "run", RUN), *args)
    apart = run_cli(capsys, "evaluate", qrels, write(tmp_path, "scattered", scattered), *args)
    assert apart == together
    assert json.loads(together[1])["per_query"]["q1"]["map"] > 0


def test_a_run_read_in_many_blocks_scores_as_in_one(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    import pytest_relevance.judgments.trec as trec

    rnd = random.Random(5)
    qrels_text = "".join(f"q{q} 0 d{d} {rnd.choice((0, 1, 2))}\n" for q in range(30) for d in range(0, 40, 3))
    run_text = "".join(f"q{q} Q0 d{d} {d} {rnd.randrange(9)} t\n" for q in range(30) for d in range(40))
    run_text += "q29 Q0 d1 99 100 t\n"  # a duplicate of the last query, after a block boundary
    qrels, run = write(tmp_path, "qrels", qrels_text), write(tmp_path, "run", run_text)
    args = ("evaluate", qrels, run, "--format", "json", "--per-query", "-m", "ndcg@10", "-m", "map")
    whole = run_cli(capsys, *args)
    monkeypatch.setattr(trec, "_CHUNK", 50)  # a block boundary every line or two
    blocks = run_cli(capsys, *args)
    assert blocks == whole
    assert "duplicate document 'd1' for query 'q29'" in whole[2]
    evaluator = pytrec_eval.RelevanceEvaluator(
        {f"q{q}": {} for q in range(30)} | _parse(qrels_text, 3), {"ndcg_cut.10", "map"}
    )
    expected = evaluator.evaluate(_parse(run_text, 4, first=True))
    result = json.loads(whole[1])["per_query"]
    for qid in expected:
        assert result[qid]["map"] == pytest.approx(expected[qid]["map"], abs=1e-12)


def _parse(text: str, column: int, first: bool = False) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        fields = line.split()
        docs = out.setdefault(fields[0], {})
        if not (first and fields[2] in docs):
            docs[fields[2]] = int(fields[column]) if column == 3 else float(fields[column])
    return out


# ---------------------------------------------------------------- hints: the CLI's flags, not the plugin's ini keys

TOPICS_HINT = "read as TREC qrels, which need a topics file (qid<TAB>text[<TAB>stratum])"


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("merge f.csv --judgments qrels", f"qrels: {TOPICS_HINT}: set --topics"),
        ("merge f.csv --judgments no.yaml", "no.yaml: judgments file not found; set --judgments to its path"),
        ("merge f.csv --judgments qrels --topics no.tsv", "no.tsv: topics file not found; set --topics to its path"),
        ("pool r.json -o p.csv --judgments qrels", f"qrels: {TOPICS_HINT}: set --topics"),
        ("pool r.json -o p.csv --judgments no.yaml", "no.yaml: judgments file not found; set --judgments to its path"),
        (
            "pool r.json -o p.csv --judgments qrels --topics no.tsv",
            "no.tsv: topics file not found; set --topics to its path",
        ),
        (
            "pool r.json -o p.csv --judgments j.yaml --corpus no.ndjson",
            "no.ndjson: corpus not found; set --corpus to its path",
        ),
        (
            "pool r.json -o p.csv --judgments j.yaml --corpus c.ndjson",
            "c.ndjson:1: document 1 has no 'id' field (set --id-field?)",
        ),
        (
            "analyze --index-config no.yaml --analyzer standard x",
            "no.yaml: index config not found; set --index-config to its path",
        ),
    ],
)
def test_hints_name_the_subcommands_flags(tmp_path: Path, capsys, monkeypatch, command: str, message: str) -> None:
    # evaluate, compare and report load nothing whose message names a setting
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "qrels", "q1 0 a 1\n")
    write(tmp_path, "j.yaml", 'version: v1\nqueries:\n  - {id: q1, text: "alpha", grades: {a: 1}}\n')
    write(tmp_path, "f.csv", "query_id,doc_id,grade\nq1,b,1\n")
    write(tmp_path, "r.json", json.dumps({"pytest-relevance-report": 1, "tests": [{"rankings": {"q1": ["b"]}}]}))
    write(tmp_path, "c.ndjson", '{"doc_id": "b"}\n')
    code, out, err = run_cli(capsys, *command.split())
    assert (code, out) == (2, "")
    assert err == f"pytest-relevance: error: {message}\n"


def test_the_plugin_still_names_its_ini_keys(tmp_path: Path) -> None:
    # the loaders are shared: only the CLI says --topics, --corpus...
    from pytest_relevance.errors import RelevanceInputError
    from pytest_relevance.inputs.corpus import load_corpus, load_mapping
    from pytest_relevance.judgments.model import load_judgments

    with pytest.raises(RelevanceInputError, match=r": set relevance_topics$"):
        load_judgments(write(tmp_path, "qrels", "q1 0 a 1\n"))
    with pytest.raises(RelevanceInputError, match=r"corpus not found; set relevance_corpus to its path$"):
        load_corpus(tmp_path / "no.ndjson")
    with pytest.raises(RelevanceInputError, match=r"\(set relevance_id_field\?\)$"):
        load_corpus(write(tmp_path, "c.ndjson", '{"doc_id": "b"}\n'))
    with pytest.raises(RelevanceInputError, match=r"index config not found; set relevance_index_config to its path$"):
        load_mapping(tmp_path / "no.yaml")


def test_compare_reads_a_byte_order_mark_and_names_a_file_that_is_not_utf8(tmp_path: Path, capsys) -> None:
    old = Path(_baseline(tmp_path, "old.json", GOOD))
    new = Path(_baseline(tmp_path, "new.json", GOOD))
    old.write_bytes(b"\xef\xbb\xbf" + old.read_bytes())
    assert run_cli(capsys, "compare", str(old), str(new))[0] == 0
    new.write_bytes(new.read_bytes().replace(b'"why"', b'"caf\xe9"'))
    code, _, err = run_cli(capsys, "compare", str(old), str(new))
    assert code == 2
    assert err.startswith(f"pytest-relevance: error: {new}:") and "not UTF-8 text (byte 0xe9)" in err


@pytest.mark.parametrize("depth", ["0", "-3", "ten"])
def test_pool_depth_must_be_a_whole_number_from_1(tmp_path: Path, capsys, depth: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "pool", "b.json", "r.json", "--judgments", "j.yaml", "--depth", depth)
    assert exit_.value.code == 2
    assert f"argument --depth: '{depth}' is not a whole number >= 1" in capsys.readouterr().err


# ---------------------------------------------------------------- issue #36: outside a project, hostile files


def test_analyze_with_a_built_in_analyzer_needs_no_index_config(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no pytest ini from here up
    code, out, err = run_cli(capsys, "analyze", "--analyzer", "english", "Running shoes", "--format", "json")
    assert (code, err) == (0, "")
    assert [t["token"] for t in json.loads(out)["tokens"]] == ["run", "shoe"]
    code, _, err = run_cli(capsys, "analyze", "--analyzer", "englsh", "x")
    assert code == 2 and err.count("\n") == 1
    assert "unknown analyzer 'englsh'; did you mean 'english'?" in err
    code, _, err = run_cli(capsys, "analyze", "--field", "title", "x")  # a field is the index config's
    assert code == 2 and "--index-config: not given" in err


def test_report_to_a_folder_or_an_unknown_suffix_is_one_line(tmp_path: Path, capsys) -> None:
    baseline = _baseline(tmp_path, "b.json", GOOD)
    (tmp_path / "r.html").mkdir()
    for target, message in ((tmp_path / "r.html", "is a folder"), (tmp_path / "r.txt", "the suffix names the format")):
        code, out, err = run_cli(capsys, "report", baseline, "--html", str(target))
        assert (code, out, err.count("\n")) == (2, "", 1) and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "r.html"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('q1,"shoes,,d9,1,1,2\nq1,shoes,,d8,2,1,3\n', 2, "a quote opened on this line is never closed"),
        ('q1,"shoes,,d9,1,1,2\nq1,shoes",,d8,2,1,3\n', 2, "column 2 is a quoted field that runs on to line 3"),
    ],
)
def test_merge_refuses_a_pool_file_whose_quote_swallows_rows(
    tmp_path: Path, capsys, text: str, line: int, message: str
) -> None:
    judgments = write(tmp_path, "j.yaml", "version: v1\nqueries:\n  - {id: q1, text: shoes, grades: {d1: 1}}\n")
    filled = write(tmp_path, "pool.csv", "query_id,query,stratum,doc_id,rank,shown_in,grade\n" + text)
    code, _, err = run_cli(capsys, "merge", filled, "--judgments", judgments)
    assert (code, err.count("\n")) == (2, 1)
    assert f"pool.csv:{line}: {message}" in err
    assert Path(judgments).read_text().startswith("version: v1\n")


def test_a_pool_file_may_show_a_title_over_several_lines(tmp_path: Path, capsys) -> None:
    judgments = write(tmp_path, "j.yaml", "version: v1\nqueries:\n  - {id: q1, text: shoes, grades: {d1: 1}}\n")
    filled = write(
        tmp_path,
        "pool.csv",
        'query_id,query,stratum,doc_id,rank,shown_in,title,grade\nq1,shoes,,d9,1,1,"red\nshoe",2\n',
    )
    assert run_cli(capsys, "merge", filled, "--judgments", judgments)[0] == 0
    assert "{d1: 1, d9: 2}" in Path(judgments).read_text()


@pytest.mark.parametrize(
    ("command", "text", "message"),
    [
        ("merge", "[" * 100_000 + "]" * 100_000, "j.yaml:1: YAML syntax error: exceeded maximum nesting depth"),
        ("agreement", "queries:\n  - {id: q1, text: s, grades: {d1: " + "1" * 5000 + "}}\n", "j.yaml:2: query 'q1'"),
    ],
    ids=["pool-file-nested-too-deep", "5000-digit-grade"],
)
def test_yaml_nested_too_deep_or_with_a_huge_grade_is_one_line(
    tmp_path: Path, capsys, command: str, text: str, message: str
) -> None:
    other = write(tmp_path, "k.yaml", "queries:\n  - {id: q1, text: s, grades: {d1: 1}}\n")
    given = write(tmp_path, "j.yaml", text)
    args = (given, "--judgments", other) if command == "merge" else (given, other)
    code, _, err = run_cli(capsys, command, *args)
    assert (code, err.count("\n")) == (2, 1), err
    assert message in err


def test_a_cut_off_of_thousands_of_digits_is_one_line(tmp_path: Path, capsys) -> None:
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    run = write(tmp_path, "run", "q1 Q0 d1 1 1.0 t\n")
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "ndcg@" + "9" * 5000)
    assert (code, err.count("\n")) == (2, 1)
    assert "a cut-off is a whole number >= 1" in err
