"""`pytest-relevance agreement`: Cohen's kappa (pytest_relevance/judgments/agreement.py) checked by hand and against the
textbook p_o / p_e definition, and the command's output, exit codes and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_relevance.judgments.agreement import agreement


def cells(matrix: list[list[int]], grades: list[int]) -> list[tuple[int, int]]:
    """The (row grade, column grade) pairs a confusion matrix counts."""
    return [(grades[i], grades[j]) for i, row in enumerate(matrix) for j, n in enumerate(row) for _ in range(n)]


def test_textbook_two_by_two() -> None:
    # 50 items: both yes 20, A yes B no 5, A no B yes 10, both no 15. p_o = 35/50 = 0.7; A says yes 25/50, B 30/50,
    # so p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5 and kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4. With two grades every
    # weighting is the same 0/1 weight, so linear and quadratic are 0.4 too.
    result = agreement(cells([[15, 10], [5, 20]], [0, 1]))
    assert result.matrix == ((15, 10), (5, 20))
    assert result.pairs == 50
    assert result.kappa == pytest.approx({"unweighted": 0.4, "linear": 0.4, "quadratic": 0.4})


def test_three_grades_weighted() -> None:
    # rows (first) x columns (second), grades 0, 1, 2; 10 pairs; row and column totals both 3, 3, 4.
    #   [[2, 1, 0],
    #    [0, 2, 1],
    #    [1, 0, 3]]
    # unweighted: observed disagreement 3/10; expected 1 - (3*3 + 3*3 + 4*4)/100 = 0.66; kappa 1 - 0.3/0.66 = 6/11.
    # linear (|i-j|): observed (1 + 1 + 2)/10 = 0.4; expected (9 + 9 + 2*12 + 2*12 + 12 + 12)/100 = 0.9;
    #   kappa 1 - 0.4/0.9 = 5/9.
    # quadratic ((i-j)^2): observed (1 + 1 + 4)/10 = 0.6; expected (9 + 9 + 4*12 + 4*12 + 12 + 12)/100 = 1.38;
    #   kappa 1 - 0.6/1.38 = 13/23.
    result = agreement(cells([[2, 1, 0], [0, 2, 1], [1, 0, 3]], [0, 1, 2]))
    assert result.grades == (0, 1, 2)
    assert result.kappa == pytest.approx({"unweighted": 6 / 11, "linear": 5 / 9, "quadratic": 13 / 23})


def test_one_grade_only_is_undefined() -> None:
    # every pair 2 against 2: chance agreement is already 1, so kappa is 0/0 (scikit-learn gives nan)
    assert agreement([(2, 2), (2, 2)]).kappa == {"unweighted": None, "linear": None, "quadratic": None}


def textbook_kappa(pairs: list[tuple[int, int]], power: int | None) -> Fraction:
    """Cohen's (weighted) kappa as (p_o - p_e) / (1 - p_e) with agreement weights 1 - (d / d_max)^power (power None:
    1 on the diagonal, 0 off it), exactly, in fractions: a different formula from the module's disagreement form."""
    grades = sorted({g for pair in pairs for g in pair})
    k = len(grades)
    n = len(pairs)
    observed = Counter(pairs)
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)

    def weight(i: int, j: int) -> Fraction:
        if power is None:
            return Fraction(int(i == j))
        return 1 - Fraction(abs(i - j), k - 1) ** power

    p_o = sum(weight(i, j) * observed[(a, b)] for i, a in enumerate(grades) for j, b in enumerate(grades)) / n
    p_e = sum(weight(i, j) * first[a] * second[b] for i, a in enumerate(grades) for j, b in enumerate(grades))
    p_e /= n * n
    return (p_o - p_e) / (1 - p_e)


@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, 3, 4]), st.sampled_from([0, 1, 2, 3, 4])), min_size=1))
def test_kappa_matches_the_textbook_formula(pairs: list[tuple[int, int]]) -> None:
    result = agreement(pairs)
    assert Counter(cells([list(row) for row in result.matrix], list(result.grades))) == Counter(pairs)
    if len({g for pair in pairs for g in pair}) == 1:
        assert set(result.kappa.values()) == {None}
        return
    for name, power in (("unweighted", None), ("linear", 1), ("quadratic", 2)):
        assert result.kappa[name] == pytest.approx(float(textbook_kappa(pairs, power)), abs=1e-9)


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent.parent)}
    return subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "agreement", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def files(tmp_path: Path) -> Path:
    # shared pairs: q1/d1 1-1, q1/d2 0-1, q1/d3 2-2, q2/d1 2-2 (q1/d9 and q3 only in one file)
    (tmp_path / "judge.yaml").write_text(
        "queries:\n"
        "  - {id: q1, text: a, grades: {d1: 1, d2: 0, d3: 2}}\n"
        "  - {id: q2, text: b, grades: {d1: 2}}\n"
        "  - {id: q3, text: c, grades: {d1: 2}}\n"
    )
    (tmp_path / "human.csv").write_text(
        "query_id,query,stratum,doc_id,grade\nq1,a,,d1,1\nq1,a,,d2,1\nq1,a,,d3,2\nq1,a,,d9,3\nq2,b,,d1,2\n"
    )
    return tmp_path


def test_cli_text(files: Path) -> None:
    # grades 0, 1, 2; matrix [[0,1,0],[0,1,0],[0,0,2]]: 4 pairs, one disagreement (0 vs 1, distance 1), so the
    # observed disagreement is 4/16 in every weighting; rows 1,1,2, columns 0,2,2.
    # unweighted: expected 1 - (1*0 + 1*2 + 2*2)/16 = 10/16, kappa 1 - 4/10 = 0.6;
    # linear: expected (r0c1 1*2 + r0c2 2*1*2 + r1c2 1*2 + r2c1 2*2)/16 = 12/16, kappa 1 - 4/12 = 2/3;
    # quadratic: expected (2 + 4*2 + 2 + 4)/16 = 16/16, kappa 1 - 4/16 = 0.75.
    done = run(files, "judge.yaml", "human.csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "4 (query, document) pairs graded in both judge.yaml and human.csv",
        "Cohen's kappa: unweighted 0.6000, linear 0.6667, quadratic 0.7500",
        "",
        "rows: judge.yaml; columns: human.csv",
        "   0  1  2",
        "0  0  1  0",
        "1  0  1  0",
        "2  0  0  2",
    ]


def test_cli_json(files: Path) -> None:
    done = run(files, "judge.yaml", "human.csv", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["pairs"] == 4
    assert report["grades"] == [0, 1, 2]
    assert report["matrix"] == [[0, 1, 0], [0, 1, 0], [0, 0, 2]]
    assert report["kappa"] == pytest.approx({"unweighted": 0.6, "linear": 2 / 3, "quadratic": 0.75})


def test_cli_undefined_kappa(files: Path) -> None:
    (files / "same.yaml").write_text("queries:\n  - {id: q2, text: b, grades: {d1: 2}}\n")
    done = run(files, "same.yaml", "judge.yaml", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kappa"] == {"unweighted": None, "linear": None, "quadratic": None}
    assert "undefined" in run(files, "same.yaml", "judge.yaml").stdout


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "missing.yaml: judgments file not found: pass the path of a YAML, CSV or qrels file"),
        (
            "queries:\n  - {id: q9, text: z, grades: {d1: 1}}\n",
            "missing.yaml: no (query id, doc id) pair is graded both here and in judge.yaml: compare files that "
            "grade the same documents of the same query ids",
        ),
        (b"\xff\xfe bad", "missing.yaml:1: not UTF-8 text (byte 0xff): save the file as UTF-8"),
        ("queries:\n  - {id: q1, text: a, grades: {d1: -1}}\n", "grade -1 is negative"),
    ],
    ids=["file missing", "no shared pairs", "not UTF-8", "bad grade"],
)
def test_cli_bad_input(files: Path, content: str | bytes | None, expected: str) -> None:
    if isinstance(content, bytes):
        (files / "missing.yaml").write_bytes(content)
    elif content is not None:
        (files / "missing.yaml").write_text(content)
    done = run(files, "judge.yaml", "missing.yaml")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert expected in done.stderr


def test_importable_without_pytest() -> None:
    code = "import sys; sys.modules['pytest'] = None; import pytest_relevance.judgments.agreement"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent.parent)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_judge_provenance(tmp_path: Path) -> None:
    from pytest_relevance.judgments.model import load_judgments

    plain = tmp_path / "plain.yaml"
    plain.write_text("queries:\n  - {id: q1, text: a, grades: {d1: 2, d2: 1}}\n")
    judged = tmp_path / "judged.yaml"
    judged.write_text(
        "queries:\n  - id: q1\n    text: a\n    grades:\n      d1: 2\n      d2: {grade: 1, judge: rule}\n"
    )
    query = load_judgments(judged)["q1"]
    assert query.grades == {"d1": 2, "d2": 1}
    assert query.judges == {"d2": "rule"}
    assert load_judgments(plain)["q1"].judges == {}
    # which grades a model made is part of what the judgments say, so of their version
    assert load_judgments(plain).version != load_judgments(judged).version


@pytest.mark.parametrize(
    ("grade", "problem"),
    [
        ("{grade: 1}", "or {grade: NUMBER, ...} with any of judge: NAME"),
        ("{grade: 1, judge: ''}", "judge '' is not a judge's name"),
        ("{grade: 1, judge: rule, date: 2024}", "date 2024 is not a date; write when it was judged as YYYY-MM-DD"),
        ("{grade: 1, judge: rule, when: 2024-01-01}", "or {grade: NUMBER, ...} with any of judge: NAME"),
        ("{grade: 1, judge: rule, source: human}", "judge 'rule' and source 'human' disagree"),
        ("{grade: 1, source: people}", "source 'people' is not human, clicks:MODEL or judge:NAME"),
        ("{grade: 1, source: human, hash: 'a b'}", "hash 'a b' is not a content hash"),
        ("{grade: -1, judge: r}", "grade -1 is negative"),
    ],
)
def test_judge_provenance_bad(tmp_path: Path, grade: str, problem: str) -> None:
    from pytest_relevance.errors import RelevanceInputError
    from pytest_relevance.judgments.model import load_judgments

    path = tmp_path / "judged.yaml"
    path.write_text(f"queries:\n  - id: q1\n    text: a\n    grades:\n      d2: {grade}\n")
    with pytest.raises(RelevanceInputError, match=r"judged.yaml:\d+: query 'q1', document 'd2'") as raised:
        load_judgments(path)
    assert problem in str(raised.value)


def test_merge_rewrite_keeps_the_judge(tmp_path: Path) -> None:
    # a query without `grades:` makes merge rewrite the file one line per query: the judge must survive that
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.judgments.pool import merge_file

    path = tmp_path / "judgments.yaml"
    path.write_text(
        "version: v1\nqueries:\n  - {id: q1, text: a, grades: {d1: {grade: 2, judge: rule}}}\n  - {id: q2, text: b}\n"
    )
    filled = tmp_path / "pool.csv"
    filled.write_text("query_id,query,doc_id,grade\nq2,b,d5,1\n")
    merge_file(path, filled)
    judgments = load_judgments(path)
    assert judgments["q1"].judges == {"d1": "rule"}
    assert judgments["q2"].grades == {"d5": 1}
