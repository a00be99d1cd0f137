"""`pytest-relevance pool --judge`: model-made grades with provenance and a cache, their bad inputs, and the demo's
judge measured against its human grades with `agreement` (kappa checked against scikit-learn)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_relevance.cli.commands import main
from pytest_relevance.judgments.agreement import agreement, shared_grades
from pytest_relevance.judgments.judge import CACHE_NAME
from pytest_relevance.judgments.model import Provenance, load_judgments
from pytest_relevance.judgments.provenance import content_hash

ROOT = Path(__file__).parent.parent.parent

JUDGES = """
CALLS = []


def rule(query, documents):
    CALLS.append((query.id, [d["id"] for d in documents]))
    return {d["id"]: 2 if query.text in d["title"] else 0 for d in documents}


def pytest_relevance_judge(query, documents):
    return {d["id"]: 1 for d in documents}


def raises(query, documents):
    raise RuntimeError("model\\nunavailable")


def too_high(query, documents):
    return {d["id"]: 5 for d in documents}


def fraction(query, documents):
    return {d["id"]: 1.5 for d in documents}


def listed(query, documents):
    return [1 for d in documents]


def partial(query, documents):
    return {d["id"]: 1 for d in documents[1:]}


def boolean(query, documents):
    return {d["id"]: True for d in documents}


def exits(query, documents):
    import sys
    sys.exit(0)


def interrupted(query, documents):
    raise KeyboardInterrupt


def numpy_grades(query, documents):
    import numpy as np
    return {d["id"]: np.int64(2 if query.text in d["title"] else 0) for d in documents}
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A corpus of six documents, two judged queries, a baseline whose top 3 holds three unjudged documents, and a
    module of judges on the path."""
    docs = [
        {"id": f"d{i}", "title": title} for i, title in enumerate(["red shoe", "hat", "red hat", "red", "x", "y"], 1)
    ]
    (tmp_path / "corpus.ndjson").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (tmp_path / "judgments.yaml").write_text(
        "version: v1\nqueries:\n"
        "  - {id: q1, text: red, grades: {d1: 3, d2: 0}}\n"
        "  - {id: q2, text: hat, grades: {d3: 1}}\n"
    )
    rankings = {"q1": ["d1", "d4", "d5"], "q2": ["d3", "d6", "d2"]}
    (tmp_path / "baseline.json").write_text(json.dumps({"entries": {"t": {"rankings": rankings}}}))
    (tmp_path / "judges_for_test.py").write_text(JUDGES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "judges_for_test", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _pool(files: Path, judge: str, *extra: str) -> int:
    return main(
        [
            "pool",
            str(files / "baseline.json"),
            "--judgments",
            str(files / "judgments.yaml"),
            "--corpus",
            str(files / "corpus.ndjson"),
            "--judge",
            judge,
            "-o",
            str(files / "out" / "pool.csv"),
            *extra,
        ]
    )


def test_judge_grades_the_pool_with_provenance(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import time_machine

    (files / "out").mkdir()
    with time_machine.travel("2026-03-04T10:00:00Z", tick=False):
        assert _pool(files, "judges_for_test:rule") == 0
    said = capsys.readouterr().out
    assert "judge judges_for_test:rule graded 4 (query, document) pairs (0 of them from the cache) into" in said
    assert "judgments version v1 -> v2" in said
    judgments = load_judgments(files / "judgments.yaml")
    # the human grades stay as they were; the judge's carry judge, source, date and the document's hash
    assert judgments["q1"].grades == {"d1": 3, "d2": 0, "d4": 2, "d5": 0}
    assert judgments["q2"].grades == {"d3": 1, "d6": 0, "d2": 2}
    assert set(judgments["q1"].provenance) == {"d4", "d5"}
    assert judgments["q1"].provenance["d4"] == Provenance(
        "judge:judges_for_test:rule", "2026-03-04", content_hash({"id": "d4", "title": "red"})
    )
    assert judgments["q1"].judges == {"d4": "judges_for_test:rule", "d5": "judges_for_test:rule"}
    # nothing is left for people, and the cache is next to the pool file
    assert (files / "out" / "pool.csv").read_text().strip().count("\n") == 0
    cache = json.loads((files / "out" / CACHE_NAME).read_text())
    assert cache["pytest-relevance-judge-cache"] == 1
    assert ["judges_for_test:rule", "red", content_hash({"id": "d4", "title": "red"}), 2] in cache["grades"]


def test_cached_grades_are_not_asked_again(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import judges_for_test

    (files / "out").mkdir()
    original = (files / "judgments.yaml").read_text()
    assert _pool(files, "judges_for_test:rule") == 0
    assert len(judges_for_test.CALLS) == 2  # one call per query
    (files / "judgments.yaml").write_text(original)
    capsys.readouterr()
    assert _pool(files, "judges_for_test:rule") == 0
    assert len(judges_for_test.CALLS) == 2
    assert "graded 4 (query, document) pairs (4 of them from the cache)" in capsys.readouterr().out
    # a document edited since is graded again: its hash is part of the key
    corpus = (files / "corpus.ndjson").read_text().replace('"title": "red"}', '"title": "red boot"}')
    (files / "corpus.ndjson").write_text(corpus)
    (files / "judgments.yaml").write_text(original)
    assert _pool(files, "judges_for_test:rule") == 0
    assert judges_for_test.CALLS[-1] == ("q1", ["d4"])


def test_a_module_implementing_the_hook_is_a_judge(files: Path) -> None:
    (files / "out").mkdir()
    assert _pool(files, "judges_for_test") == 0
    judgments = load_judgments(files / "judgments.yaml")
    assert judgments["q1"].grades["d4"] == 1
    assert judgments["q1"].judges["d4"] == "judges_for_test"


def test_the_judge_leaves_stale_grades_to_people(files: Path) -> None:
    (files / "out").mkdir()
    text = (files / "judgments.yaml").read_text().replace("d2: 0}", "d2: {grade: 0, source: human, date: 2020-01-01}}")
    (files / "judgments.yaml").write_text(text)
    assert _pool(files, "judges_for_test:rule", "--max-age", "30d") == 0
    judgments = load_judgments(files / "judgments.yaml")
    assert judgments["q1"].grades["d2"] == 0
    assert judgments["q1"].provenance["d2"] == Provenance("human", "2020-01-01")
    rows = (files / "out" / "pool.csv").read_text().splitlines()
    assert len(rows) == 2
    assert rows[1].startswith("q1,red,,d2,")
    assert ',"judged 2020-01-01, over 30d before ' in rows[1]


def test_pool_puts_grades_of_changed_documents_up_again(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (files / "judgments.yaml").read_text().replace("d3: 1}", 'd3: {grade: 1, source: human, hash: "sha256:x"}}')
    (files / "judgments.yaml").write_text(text)
    argv = ["pool", "baseline.json", "--judgments", "judgments.yaml", "--corpus", "corpus.ndjson", "-o", "p.yaml"]
    assert main(argv) == 0
    assert "5 (query, document) pairs to judge, 5 documents, top 10, 1 of them stale grades" in capsys.readouterr().out
    import yaml

    rows = {(row["query_id"], row["doc_id"]): row for row in yaml.safe_load((files / "p.yaml").read_text())}
    changed = rows["q2", "d3"]
    assert (changed["stale"], changed["old_grade"], changed["rank"]) == ("content changed", 1, 1)
    assert changed["hash"] == content_hash({"id": "d3", "title": "red hat"})
    assert rows["q1", "d4"]["stale"] == ""


@pytest.mark.parametrize(
    ("judge", "problem"),
    [
        (
            "judges_for_test:raises",
            "--judge: judge judges_for_test:raises raised RuntimeError: model unavailable on query 'q2' "
            "(documents d2, d6)",
        ),
        (
            "judges_for_test:too_high",
            "--judge: judge judges_for_test:too_high gave query 'q2', document 'd2' the grade 5, outside the "
            "judgments' scale (whole grades 0-3)",
        ),
        ("judges_for_test:fraction", "the grade 1.5, outside the judgments' scale (whole grades 0-3)"),
        ("judges_for_test:boolean", "the grade True, outside the judgments' scale"),
        ("judges_for_test:listed", "judge judges_for_test:listed returned list on query 'q2' (documents d2, d6)"),
        ("judges_for_test:partial", "returned no grade for document 'd2' on query 'q2'"),
        ("judges_for_test:absent", "module 'judges_for_test' has no function 'absent'"),
        ("no_such_module_here:grade", "cannot import 'no_such_module_here'"),
        ("judges_for_test:", "'judges_for_test:' is not MODULE or MODULE:FUNCTION"),
    ],
)
def test_bad_judge(files: Path, capsys: pytest.CaptureFixture[str], judge: str, problem: str) -> None:
    (files / "out").mkdir()
    before = (files / "judgments.yaml").read_bytes()
    assert _pool(files, judge) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert err.startswith("pytest-relevance: error: ")
    assert problem in err
    assert (files / "judgments.yaml").read_bytes() == before
    assert list((files / "out").iterdir()) == []  # no pool file, no cache


def test_judge_needs_the_corpus(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["pool", "baseline.json", "--judgments", "judgments.yaml", "--judge", "judges_for_test:rule", "-o", "p.csv"]
    )
    assert code == 2
    assert "--judge: needs --corpus" in capsys.readouterr().err
    assert not (files / "p.csv").exists()


def test_bad_max_age(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["pool", "baseline.json", "--judgments", "judgments.yaml", "--max-age", "6m", "-o", "p.csv"])
    assert code == 2
    assert "--max-age: '6m' is not an age: write days or weeks, e.g. 180d or 26w" in capsys.readouterr().err


def test_trec_judgments_cannot_take_a_judges_grades(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "qrels").write_text("q1 0 d1 3\n")
    (files / "topics.tsv").write_text("q1\tred\n")
    code = main(
        [
            "pool",
            "baseline.json",
            "--judgments",
            "qrels",
            "--topics",
            "topics.tsv",
            "--corpus",
            "corpus.ndjson",
            "--judge",
            "judges_for_test:rule",
            "-o",
            "p.csv",
        ]
    )
    assert code == 2
    assert "TREC qrels hold no provenance" in capsys.readouterr().err
    assert (files / "qrels").read_text() == "q1 0 d1 3\n"
    assert not (files / "p.csv").exists()


# ---------------------------------------------------------------- the demo, end to end


def test_demo_judge_and_agreement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The demo's queries without their grades, graded by fixtures/judge.py over the baseline's pool, measured
    against the demo's human grades on the pairs both graded."""
    from sklearn.metrics import cohen_kappa_score

    monkeypatch.chdir(ROOT)
    human = load_judgments(ROOT / "fixtures" / "judgments.yaml")
    blank = tmp_path / "judge.yaml"
    blank.write_text(
        "version: judge-1\nqueries:\n"
        + "".join(f"  - {{id: {q.id}, text: {json.dumps(q.text)}, grades: {{}}}}\n" for q in human.queries)
    )
    code = main(
        [
            "pool",
            "relevance-baseline.json",
            "--judgments",
            str(blank),
            "--corpus",
            "fixtures/corpus.ndjson",
            "--judge",
            "fixtures.judge:grade",
            "-o",
            str(tmp_path / "pool.csv"),
        ]
    )
    assert code == 0
    judged = load_judgments(blank)
    assert sum(len(q.grades) for q in judged.queries) > 1000
    assert all(q.judges == dict.fromkeys(q.grades, "fixtures.judge:grade") for q in judged.queries)
    capsys.readouterr()
    assert main(["agreement", str(blank), "fixtures/judgments.yaml", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    pairs = shared_grades(judged, human)
    assert report["pairs"] == len(pairs) > 500
    judge_grades, human_grades = zip(*pairs, strict=True)
    for name, weights in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
        expected = cohen_kappa_score(judge_grades, human_grades, weights=weights)
        assert report["kappa"][name] == pytest.approx(expected, abs=1e-9)
    assert 0 < report["kappa"]["unweighted"] < 1  # a rule agrees with people some, not wholly


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0, 1, 2, 3, 0.5]), st.sampled_from([0, 1, 2, 3, 7])), min_size=1, max_size=60)
)
def test_kappa_matches_scikit_learn(pairs: list[tuple[float, float]]) -> None:
    import warnings

    from sklearn.metrics import cohen_kappa_score

    # scikit-learn takes no fractional labels: as text, which sorts as the numbers do for these grades
    first, second = ([str(grade) for grade in side] for side in zip(*pairs, strict=True))
    result = agreement(pairs)
    for name, weights in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
        with warnings.catch_warnings():  # scikit-learn warns, and says nan, where kappa is undefined
            warnings.simplefilter("ignore")
            expected = cohen_kappa_score(first, second, weights=weights)
        if result.kappa[name] is None:
            assert expected != expected
        else:
            assert result.kappa[name] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("judge", "problem"),
    [
        ("judges_for_test:exits", "judge judges_for_test:exits raised SystemExit: 0 on query 'q2'"),
        ("judges_for_test:interrupted", "judge judges_for_test:interrupted raised KeyboardInterrupt on query 'q2'"),
    ],
)
def test_a_judge_that_exits_or_is_interrupted_is_one_line_and_writes_nothing(
    files: Path, capsys: pytest.CaptureFixture[str], judge: str, problem: str
) -> None:
    (files / "out").mkdir()
    before = (files / "judgments.yaml").read_bytes()
    assert _pool(files, judge) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err.count("\n")) == ("", 1)
    assert problem in captured.err
    assert (files / "judgments.yaml").read_bytes() == before
    assert list((files / "out").iterdir()) == []


def test_numpy_integer_grades_are_grades_and_every_file_written_is_named(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "out").mkdir()
    assert _pool(files, "judges_for_test:numpy_grades") == 0
    out = capsys.readouterr().out.splitlines()
    assert load_judgments(files / "judgments.yaml")["q1"].grades == {"d1": 3, "d2": 0, "d4": 2, "d5": 0}
    assert out[0].startswith("judge judges_for_test:numpy_grades graded 4 (query, document) pairs")
    assert f"into {files / 'judgments.yaml'}: judgments version v1 -> v2" in out[0]
    assert out[1] == f"wrote {files / 'out' / CACHE_NAME}: 4 cached grades (4 new)"
    assert out[2].startswith(f"wrote {files / 'out' / 'pool.csv'}: 0 (query, document) pairs to judge left for people")


def test_pool_to_a_folder_asks_no_judge_and_writes_nothing(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import judges_for_test

    (files / "out").mkdir()
    (files / "out" / "pool.csv").mkdir()
    before = (files / "judgments.yaml").read_bytes()
    assert _pool(files, "judges_for_test:rule") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pool.csv: is a folder" in err
    assert judges_for_test.CALLS == []
    assert (files / "judgments.yaml").read_bytes() == before
    assert [p.name for p in (files / "out").iterdir()] == ["pool.csv"]
