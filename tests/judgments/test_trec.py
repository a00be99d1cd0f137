"""TREC readers against a line-by-line reading of trec_eval's rules, on generated files of every shape.

The readers check widths with whole-block C-level passes and only walk lines when something is off; this test makes
sure the fast path never accepts (or reads differently) what a plain per-line reader would refuse.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.trec import read_qrels, read_run

TOKEN = st.sampled_from(["q1", "q2", "d1", "d2", "d3", "0", "1", "2", "Q0", "t", "2.5", "-1", "1_0"])
SEPARATOR = st.sampled_from([" ", " ", " ", "\t", "  ", "\xa0", "\x0b"])


@st.composite
def lines(draw: st.DrawFn, width: int) -> str:
    out = []
    plain = draw(st.booleans())  # single spaces only: the shape the fast path takes, where balanced widths hide
    separator = st.just(" ") if plain else SEPARATOR
    for _ in range(draw(st.integers(1, 8))):
        n = draw(st.sampled_from([width, width, width, width - 1, width + 1, 0]))
        tokens = [draw(TOKEN) for _ in range(n)]
        line = ""
        for token in tokens:
            line += draw(separator) + token if line else token
        if not plain and draw(st.booleans()):
            line = draw(SEPARATOR) + line
        out.append(line)
    return "\n".join(out) + draw(st.sampled_from(["\n", ""]))


def split(line: str) -> list[str]:
    """trec_eval's columns: separated by ASCII whitespace (C's isspace), so a no-break space is part of a column."""
    return [field.decode() for field in line.encode().split()]


def widths(text: str, width: int, exact: bool) -> str | None:
    """The first malformed line: widths are checked before values (within a block of the file, as the readers do)."""
    for number, line in enumerate(text.split("\n"), 1):
        fields = split(line)
        if fields and (len(fields) < width or (exact and len(fields) > width)):
            return f"{number}: malformed"
    return None


def reference_run(text: str) -> dict | str:
    run: dict[str, dict[str, float]] = {}
    if malformed := widths(text, 6, exact=False):
        return malformed
    for number, line in enumerate(text.split("\n"), 1):
        fields = split(line)
        if not fields:
            continue
        try:
            score = float(fields[4].replace("_", "x"))  # trec_eval's strtod reads 1_0 as 1, Python as 10: refused
        except ValueError:
            return f"{number}: score"
        run.setdefault(fields[0], {}).setdefault(fields[2], score)
    return run or "empty"


def reference_qrels(text: str) -> dict | str:
    """Widths first, then grades, then documents graded twice (the order the reader reports them in)."""
    if malformed := widths(text, 4, exact=True):
        return malformed
    rows = [(number, split(line)) for number, line in enumerate(text.split("\n"), 1) if split(line)]
    for number, fields in rows:
        try:
            int(fields[3].replace("_", "x"))  # trec_eval's atol reads 1_0 as 1, Python as 10: refused
        except ValueError:
            return f"{number}: grade"
    qrels: dict[str, dict[str, int]] = {}
    for number, fields in rows:
        if fields[2] in qrels.get(fields[0], {}):
            return f"{number}: twice"
        qrels.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    return qrels or "empty"


def outcome(read, path: Path) -> object:
    try:
        result = read(path)
    except RelevanceInputError as error:
        if error.line is None:
            return "empty"
        kind = "malformed" if "malformed" in error.problem else error.problem.split()[0]
        return f"{error.line}: {'twice' if 'twice' in error.problem else kind}"
    return result[0] if isinstance(result, tuple) else result


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(text=lines(6))
@example(text="q1 Q0 d1 1 2\nq1 Q0 d2 2 1 t x\n")  # 5 + 7 columns: balanced widths
@example(text="q1 Q0\nd1 1 2\nq1 Q0 d2 2 1 t\n")  # 2 + 3 columns: as many tokens as one line with its line end
def test_run_reader_agrees_with_a_per_line_reader(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run"
    path.write_text(text)
    assert outcome(read_run, path) == reference_run(text)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(text=lines(4))
@example(text="q1 0 d1\nq1 0 d2 1 1\n")  # 3 + 5 columns: balanced widths
def test_qrels_reader_agrees_with_a_per_line_reader(tmp_path: Path, text: str) -> None:
    path = tmp_path / "qrels"
    path.write_text(text)
    assert outcome(read_qrels, path) == reference_qrels(text)


def test_blocks_of_many_lines_keep_their_line_numbers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_relevance.judgments.trec as trec

    monkeypatch.setattr(trec, "_CHUNK", 64)  # many small blocks
    good = "".join(f"q{i // 10} Q0 d{i} {i} {1 / (i + 1)} t\n" for i in range(200))
    path = tmp_path / "run"
    path.write_text(good)
    run, warnings = read_run(path)
    assert sum(map(len, run.values())) == 200 and warnings == []
    path.write_text(good + "q99 Q0 d1 1 x t\n" + good)
    with pytest.raises(RelevanceInputError) as error:
        read_run(path)
    assert str(error.value) == f"{path}:201: score 'x' is not a number"
    path.write_text(good.replace("q3 Q0 d35 35", "q3 Q0 d35"))
    with pytest.raises(RelevanceInputError) as error:
        read_run(path)
    assert error.value.line == 36


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "qrels",
            "q1 0 d1 1\nq1 0 d2 1_0\n",
            "2: grade '1_0' has an underscore: trec_eval reads it as 1 (*), Python as 10; *",
        ),
        (
            "run",
            "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1_5.5 t\n",
            "2: score '1_5.5' has an underscore: trec_eval reads it as 1.0 *",
        ),
        (
            "run",
            "q1 Q0 d1 1 1e1_0 t\n",
            "1: score '1e1_0' has an underscore: trec_eval reads it as 10.0 (*), Python as 10000000000.0; *",
        ),
        ("qrels", "q1 0 d1 1e3\n", "1: grade '1e3' is not a whole number: trec_eval would truncate it to 1; *"),
    ],
)
def test_numbers_python_and_trec_eval_read_differently_are_refused(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    """Python's int and float accept underscores (PEP 515); trec_eval's atol and strtod stop at them, so `1_0` was
    a grade of 10 here and 1 there: refused, naming what each would read."""
    import re

    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RelevanceInputError) as error:
        (read_qrels if name == "qrels" else read_run)(path)
    assert re.fullmatch(re.escape(f"{path}:{message}").replace(r"\*", ".*"), str(error.value)), str(error.value)
