"""Which baseline entries survive which run: the matrix of issue 9, under no xdist and -n 2.

An entry is removed only when a run that collected the whole suite did not collect its test. A test that errored,
failed before its compare, or skipped keeps its entry; so does every test a partial run (-k, paths, a subdirectory,
-x, --co, a deselection in an xdist worker) did not look at.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from plugin_project import run

JUDGMENTS = """\
version: v1
queries:
  - {id: h1, text: alpha, stratum: head, grades: {a: 3, b: 1}}
  - {id: t1, text: gamma, stratum: tail, grades: {d: 1}}
"""
RUN = {"h1": ["a", "b"], "t1": ["x", "d"]}
# each test reads a "mode" file: ok (compare), error (raise before the compare), skip, fail (assert before compare)
TEMPLATE = """\
import json, pathlib, pytest

HERE = pathlib.Path(__file__).parent

def behave(name):
    modes = json.loads((pathlib.Path({root!r}) / "modes.json").read_text())
    mode = modes.get(name, "ok")
    if mode == "error":
        raise RuntimeError("boom")
    if mode == "skip":
        pytest.skip("skipped on purpose")
    if mode == "fail":
        assert False, "failed before the compare"

{tests}
"""
TEST = """
def test_{name}(relevance_snapshot):
    behave({name!r})
    assert relevance_snapshot == {run!r}
"""
NAMES = {"tests/test_a.py": ["a1", "a2", "a3"], "tests/sub/test_b.py": ["b1", "b2"]}
ALL = sorted(f"{path}::test_{name}" for path, names in NAMES.items() for name in names)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", judgments=JUDGMENTS)
    pytester.makeini("[pytest]\ntestpaths = tests\nrelevance_judgments = judgments.yaml\nrelevance_metrics = ndcg@10\n")
    write_tests(pytester, NAMES)
    set_modes(pytester, {})
    return pytester


def write_tests(pytester: pytest.Pytester, names: dict[str, list[str]]) -> None:
    for path, tests in names.items():
        file = pytester.path / path
        file.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(TEST.format(name=name, run=RUN) for name in tests)
        file.write_text(TEMPLATE.format(root=str(pytester.path), tests=body))


def set_modes(pytester: pytest.Pytester, modes: dict[str, str]) -> None:
    (pytester.path / "modes.json").write_text(json.dumps(modes))


def entries(pytester: pytest.Pytester, root: Path | None = None) -> list[str]:
    path = (root or pytester.path) / "relevance-baseline.json"
    return sorted(json.loads(path.read_text())["entries"])


def baselined(pytester: pytest.Pytester, mode: list[str]) -> bytes:
    assert run(pytester, mode, "--relevance-update").ret == 0
    assert entries(pytester) == ALL
    return (pytester.path / "relevance-baseline.json").read_bytes()


@pytest.mark.parametrize("outcome", ["error", "skip", "fail"])
def test_whole_suite_update_keeps_entries_of_tests_that_did_not_compare(suite, mode, outcome: str) -> None:
    baselined(suite, mode)
    set_modes(suite, {"a1": outcome, "b2": outcome})
    result = run(suite, mode, "--relevance-update")
    assert entries(suite) == ALL
    assert "removed baseline entry" not in result.stdout.str()


def test_stopped_early_with_x_keeps_every_entry(suite, mode) -> None:
    before = baselined(suite, mode)
    set_modes(suite, {"a1": "error"})
    result = run(suite, mode, "--relevance-update", "-x")
    assert result.ret in (1, 2)  # xdist reports the stop as an interruption
    assert entries(suite) == ALL
    assert (suite.path / "relevance-baseline.json").read_bytes() == before


@pytest.mark.parametrize(
    "args",
    [
        ["-k", "a1"],
        ["-m", "relevance"],
        ["tests/test_a.py"],
        ["tests/test_a.py::test_a2"],
        ["--deselect", "tests/test_a.py::test_a3"],
    ],
    ids=["-k", "-m", "path", "node-id", "deselect"],
)
def test_partial_update_keeps_the_entries_it_did_not_collect(suite, mode, args: list[str]) -> None:
    baselined(suite, mode)
    write_tests(suite, {"tests/test_a.py": ["a1", "a2", "a3"], "tests/sub/test_b.py": ["b1"]})  # b2 is gone
    result = run(suite, mode, "--relevance-update", *args)
    assert entries(suite) == ALL
    result.stdout.fnmatch_lines(["*entries of tests this run did not collect are kept*"])


def test_update_from_a_subdirectory_is_partial(suite, mode, monkeypatch: pytest.MonkeyPatch) -> None:
    baselined(suite, mode)
    monkeypatch.chdir(suite.path / "tests" / "sub")
    result = run(suite, mode, "--relevance-update")
    assert result.ret == 0
    assert entries(suite) == ALL
    result.stdout.fnmatch_lines(
        ["*entries of tests this run did not collect are kept (tests/sub does not cover tests)"]
    )


def test_collect_only_writes_nothing_and_lists_only_true_unused_entries(suite, mode) -> None:
    before = baselined(suite, mode)
    result = run(suite, mode, "--co", "--relevance-update")
    assert (suite.path / "relevance-baseline.json").read_bytes() == before
    result = run(suite, mode, "--co")
    assert "unused baseline entry" not in result.stdout.str()


def test_explicit_testpaths_is_a_whole_suite_run(suite, mode) -> None:
    baselined(suite, mode)
    write_tests(suite, {"tests/test_a.py": ["a1", "a2", "a3"], "tests/sub/test_b.py": ["b1"]})
    result = run(suite, mode, "tests")
    result.stdout.fnmatch_lines(["*unused baseline entry tests/sub/test_b.py::test_b2 *"])
    assert result.ret == 0  # relevance_unused = warn by default
    result = run(suite, mode, "tests", "--relevance-update")
    result.stdout.fnmatch_lines(
        ["*removed baseline entry tests/sub/test_b.py::test_b2: no test of this whole-suite run has that id"]
    )
    assert entries(suite) == [e for e in ALL if not e.endswith("test_b2")]


def test_unused_entries_fail_the_run_with_relevance_unused_fail(suite, mode) -> None:
    baselined(suite, mode)
    write_tests(suite, {"tests/test_a.py": ["a1", "a2", "a3"], "tests/sub/test_b.py": ["b1"]})
    result = run(suite, mode, "-o", "relevance_unused=fail")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*relevance_unused = fail: 1 unused baseline entries fail the run*"])
    assert run(suite, mode, "-o", "relevance_unused=fail", "-k", "a1").ret == 0  # partial: cannot tell


def test_deselection_inside_xdist_workers_keeps_entries(suite, mode) -> None:
    baselined(suite, mode)
    # a conftest deselecting by itself: under xdist, pytest_deselected fires in the workers only
    suite.makeconftest(
        "def pytest_collection_modifyitems(config, items):\n"
        "    dropped = [i for i in items if i.name == 'test_b1']\n"
        "    items[:] = [i for i in items if i.name != 'test_b1']\n"
        "    config.hook.pytest_deselected(items=dropped)\n"
    )
    result = run(suite, mode, "--relevance-update")
    assert result.ret == 0
    assert entries(suite) == ALL
    result.stdout.fnmatch_lines(["*entries of tests this run did not collect are kept (1 tests deselected)"])


def test_a_module_that_fails_to_import_keeps_its_entries(suite, mode) -> None:
    baselined(suite, mode)
    test_b = suite.path / "tests" / "sub" / "test_b.py"
    test_b.write_text("import no_such_module\n" + test_b.read_text())
    run(suite, mode, "--relevance-update", "--continue-on-collection-errors")
    assert entries(suite) == ALL


def test_update_keeps_the_file_mode_and_removes_stale_temp_files(suite) -> None:
    # the write and the clean-up are the controller's alone, as they are a serial run's: in process only
    baselined(suite, [])
    path = suite.path / "relevance-baseline.json"
    path.chmod(0o644)
    stale = suite.path / ".relevance-baseline.json.abc123.tmp"
    stale.write_text("")
    set_modes(suite, {})
    (suite.path / "judgments.yaml").write_text(JUDGMENTS.replace("{d: 1}", "{d: 2}"))
    result = run(suite, [], "--relevance-update")
    assert result.ret == 0
    assert path.stat().st_mode & 0o777 == 0o644
    assert not stale.exists()
    stale.write_text("")
    result = run(suite, [])  # a run that writes nothing cleans up too
    assert not stale.exists()
    result.stdout.fnmatch_lines(["*removed 1 temp file(s) an interrupted update left*"])


# ---------------------------------------------------------------- updates that cannot write: one line, old file kept
# Each runs in process, so that a stand-in for the file system (see _FileSystem) reaches the plugin. The tests run
# as root, which ignores permissions: a directory the user cannot write is simulated, not made with chmod.


class _FileSystem:
    """`os` as pytest_relevance.gate.baseline_file sees it, with one fault: creating a file fails (a directory this user
    cannot write), writing one fails (a full disk), or os.replace is interrupted (Ctrl-C)."""

    def __init__(self, fault: str) -> None:
        self.fault = fault

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    def open(self, path: str, flags: int, *args: int) -> int:
        if self.fault == "read-only" and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return os.open(path, flags, *args)

    def fdopen(self, fd: int, *args: object, **kwargs: object) -> object:
        handle = os.fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]
        if self.fault == "full":
            handle.write = self._full  # buffered text: the real error comes at write or at close
        return handle

    @staticmethod
    def _full(text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def mkstemp(self, *args: object, **kwargs: object) -> tuple[int, str]:
        """`tempfile.mkstemp`, for the temp file the new baseline is written to."""
        if self.fault == "read-only":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return tempfile.mkstemp(*args, **kwargs)  # type: ignore[call-overload]

    def replace(self, source: str, target: str) -> None:
        if self.fault == "interrupt":
            raise KeyboardInterrupt
        os.replace(source, target)


def _changed(suite: pytest.Pytester) -> None:
    """A new judgments version: every entry changes, so the update has a file to write."""
    (suite.path / "judgments.yaml").write_text(JUDGMENTS.replace("version: v1", "version: v2"))


def _leftovers(suite: pytest.Pytester) -> list[str]:
    """Temp files and lock files of the baseline."""
    return sorted(p.name for p in suite.path.iterdir() if p.name.startswith(".relevance-baseline.json"))


@pytest.mark.parametrize(
    ("fault", "ret", "message"),
    [
        ("read-only", 1, "Permission denied; the old file is left as it was: give this user write access to the file "
         "and its directory, then run again"),
        ("full", 1, "No space left on device; the old file is left as it was: free some disk space, then run again"),
        ("interrupt", 2, "interrupted during the write; the old file is left as it was: run again"),
    ],
)  # fmt: skip
def test_an_update_that_cannot_write_is_one_line_and_keeps_the_old_file(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fault: str, ret: int, message: str
) -> None:
    # by sys.modules, not the package's attribute: pytester's in-process runs drop modules they imported, so the
    # attribute can be a stale copy the plugin no longer uses
    baseline = importlib.import_module("pytest_relevance.gate.baseline_file")
    before = baselined(suite, [])
    _changed(suite)
    with monkeypatch.context() as patched:
        patched.setattr(baseline, "os", _FileSystem(fault))
        patched.setattr(baseline, "tempfile", _FileSystem(fault))  # a read-only directory refuses the temp file
        result = run(suite, [], "--relevance-update")
    assert result.ret == ret
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert result.stdout.lines.count(f"error: baseline not written: relevance-baseline.json: {message}") == 1
    result.stdout.fnmatch_lines(["relevance: 5 tests: 5 not written"])
    assert "baseline written" not in result.stdout.str()
    assert (suite.path / "relevance-baseline.json").read_bytes() == before
    assert _leftovers(suite) == []


def test_the_first_update_of_a_new_path_creates_its_directory(suite: pytest.Pytester) -> None:
    result = run(suite, [], "--relevance-update", "-o", "relevance_baseline=relevance/new/baseline.json")
    assert result.ret == 0
    assert sorted(json.loads((suite.path / "relevance" / "new" / "baseline.json").read_text())["entries"]) == ALL


def test_a_baseline_path_that_is_a_directory_is_one_line(suite: pytest.Pytester) -> None:
    (suite.path / "relevance-baseline.json").mkdir()
    result = run(suite, [], "--relevance-update")
    assert result.ret == 1
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "error: baseline not written: relevance-baseline.json: cannot be read (Is a directory); relevance_baseline "
            "names a directory: set it to a file in it (DIR/relevance-baseline.json)"
        ]
    )
    assert not any((suite.path / "relevance-baseline.json").iterdir())


def test_a_symlinked_baseline_is_written_through_its_link(suite: pytest.Pytester) -> None:
    shared = suite.path / "shared"
    shared.mkdir()
    baselined(suite, [])
    (suite.path / "relevance-baseline.json").rename(shared / "baseline.json")
    (suite.path / "relevance-baseline.json").symlink_to(shared / "baseline.json")
    _changed(suite)
    assert run(suite, [], "--relevance-update").ret == 0
    assert (suite.path / "relevance-baseline.json").is_symlink()
    recorded = json.loads((shared / "baseline.json").read_text())["entries"]
    assert {entry["judgments"] for entry in recorded.values()} == {"v2"}
    assert sorted(p.name for p in shared.iterdir()) == ["baseline.json"]


def test_an_update_leaves_no_lock_file_anywhere(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # where the lock files used to pile up, one per baseline
    baselined(suite, [])
    _changed(suite)
    assert run(suite, [], "--relevance-update").ret == 0
    assert list(temp.iterdir()) == []
    assert _leftovers(suite) == []


# ---------------------------------------------------------------- the lock


def test_the_lock_is_no_file_in_the_baseline_directory(tmp_path: Path) -> None:
    from pytest_relevance.gate.baseline_file import locked

    path = tmp_path / "baseline.json"
    with locked(path):
        assert list(tmp_path.iterdir()) == []
    assert list(tmp_path.iterdir()) == []


def test_an_update_killed_while_it_holds_the_lock_leaves_nothing_behind(tmp_path: Path) -> None:
    """A killed `--relevance-update` used to leave `.relevance-baseline.json.lock`, which `git add -A` picks up;
    the system releases the lock of a process that died, and the next run takes it at once."""
    from pytest_relevance.gate import baseline_file as baseline

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time, pathlib; from pytest_relevance.gate.baseline_file import locked\n"
            "with locked(pathlib.Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(60)",
            str(tmp_path / "relevance-baseline.json"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert list(tmp_path.iterdir()) == []
    started = time.monotonic()
    with baseline.locked(tmp_path / "relevance-baseline.json"):
        assert time.monotonic() - started < 5


def test_a_held_lock_times_out_naming_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_relevance.gate import baseline_file as baseline

    monkeypatch.setattr(baseline, "LOCK_TIMEOUT", 0.2)
    path = tmp_path / "baseline.json"
    held = rf"baseline.json: another pytest run has held the baseline's lock \(a lock on {tmp_path}\) for 0.2 s"
    with baseline.locked(path), pytest.raises(ValueError, match=held), baseline.locked(path):
        pass


@pytest.mark.parametrize("kind", ["baseline's, on its directory", "index cache's, a file removed and made again"])
def test_the_lock_excludes(tmp_path: Path, kind: str) -> None:
    """Threads of one process exclude each other (each opening is locked on its own); the index cache's lock file is
    removed by each holder, and a waiter that opened the removed file must not think it holds the lock."""
    from pytest_relevance.gate import baseline_file as baseline
    from pytest_relevance.util import locks

    path, inside, overlaps = tmp_path / "baseline.json", [0], []

    def lock() -> Any:
        if kind.startswith("baseline"):
            return baseline.locked(path)
        return locks.locked(tmp_path / ".key.lock", None, path, "the index cache's lock")

    def work() -> None:
        for _ in range(30):
            with lock():
                inside[0] += 1
                overlaps.append(inside[0])
                time.sleep(0.001)
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(overlaps) == 120
    assert set(overlaps) == {1}
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- the file's layout


def test_each_entry_writes_its_summary_first_then_queries_then_rankings() -> None:
    from pytest_relevance.gate.baseline_file import dumps

    entry = {
        "rankings": {"q2": ["b"], "q1": ["a"]},
        "queries": {"q2": {"ndcg@10": 0.5}, "q1": {"ndcg@10": 1.0}},
        "tolerance": "0.005",
        "strata": {"tail": {"ndcg@10": 0.5, "n": 1}, "all": {"ndcg@10": 0.75, "n": 2}},
        "judgments": "v1",
    }
    text = dumps({"t": entry})
    order = ["judgments", "strata", "all", "tail", "tolerance", "queries", "q1", "q2", "rankings", '"q1": ["a"]']
    positions = [text.index(key) for key in order]
    assert positions == sorted(positions)
    assert json.loads(text)["entries"]["t"] == entry


def test_the_demo_baseline_is_written_as_an_update_writes_it() -> None:
    from pytest_relevance.gate.baseline_file import dumps, load_baseline

    path = Path(__file__).parent.parent.parent / "relevance-baseline.json"
    assert dumps(load_baseline(path)) == path.read_text()
