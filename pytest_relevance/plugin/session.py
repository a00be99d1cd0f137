"""What one pytest process knows about the relevance tests of its session, and what the session decides at its
end: whether the run spoke for the whole suite (only then is an entry unused, or removed), what an update writes,
which files git says changed. pytest's side, but not its hooks: plugin.py calls these and stays glue.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_relevance.config.resolver import Resolver
    from pytest_relevance.config.settings import Settings
    from pytest_relevance.engines.base import Engine
    from pytest_relevance.engines.factory import EngineSettings
    from pytest_relevance.gate.baseline_file import Entry
    from pytest_relevance.inputs.corpus import CorpusFile
    from pytest_relevance.judgments.model import Judgments
    from pytest_relevance.online.verdict import Fitted
    from pytest_relevance.plugin.assertion import RelevanceSnapshot

#: the session's State, and each relevance test's snapshot, kept on pytest's config and items
STATE = pytest.StashKey["State"]()
SNAPSHOT: pytest.StashKey[RelevanceSnapshot] = pytest.StashKey()


def state_of(config: pytest.Config) -> State:
    return config.stash[STATE]


def setting(config: pytest.Config, name: str) -> str:
    """The setting as the one resolver reads it (config.resolver): flag, ini, environment, default."""
    return resolver(config).value(name)


def resolver(config: pytest.Config) -> Resolver:
    """pytest's flags and ini values handed to the resolver every command uses too."""
    from pytest_relevance.config.resolver import Resolver

    return Resolver(lambda key: config.getoption(key), config.getini, config.rootpath)


def resolve(config: pytest.Config, value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else config.rootpath / path


@dataclass
class State:
    """What one pytest process (controller or xdist worker) knows about relevance tests in this session."""

    config: pytest.Config
    settings: Settings
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    judgments: dict[Path, Judgments] = field(default_factory=dict)
    #: the judgments' fingerprints (fingerprints.judgments_inputs) by their file, taken once a session
    fingerprints: dict[str, dict[str, Any]] = field(default_factory=dict)
    entries: dict[str, Entry] | None = None
    #: node ids of every test this run collected (after deselection); on the xdist controller, the workers' union
    collected: set[str] = field(default_factory=set)
    #: why this run did not collect the whole suite ("" when it did), first reason found
    partial: str = ""
    removed: list[str] = field(default_factory=list)
    #: entries no collected test owns, decided at the end of a whole-suite run that did not update
    unused: list[str] = field(default_factory=list)
    saved: bool = False
    warnings: list[str] = field(default_factory=list)
    #: what failed the run after its tests (a baseline that could not be written)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: why an index cache could not be used, by its folder: said once, as a RelevanceWarning, when the session ends
    #: (on the xdist controller, the first of its workers' for each folder)
    cache_warnings: dict[str, str] = field(default_factory=dict)
    #: the report warnings a RelevanceWarning already counted in this process, so that each is said once
    said: set[str] = field(default_factory=set)
    #: the engine the session's fixture index was opened on: it opens the baseline's index to explain a failure
    engine: Any = None
    #: relevance_clicks_log read and fitted, by its files and depth, once a process (or why it could not be)
    clicks: dict[tuple[tuple[Path, ...], int], Fitted | ValueError] = field(default_factory=dict)

    @property
    def baseline_path(self) -> Path:
        return resolve(self.config, setting(self.config, "relevance_baseline"))

    def baseline(self) -> dict[str, Entry]:
        if self.entries is None:
            from pytest_relevance.gate.baseline_file import load_baseline

            self.entries = load_baseline(self.baseline_path)
        return self.entries

    def judgments_inputs(self, judgments: Judgments) -> dict[str, Any]:
        """The judgments' blob id and meaning hash, computed once for every test that shares them."""
        if judgments.source not in self.fingerprints:
            from pytest_relevance.judgments.model import content_version
            from pytest_relevance.util.fingerprints import judgments_inputs

            source = resolve(self.config, judgments.source)
            self.fingerprints[judgments.source] = judgments_inputs(source, content_version(judgments.queries))
        return self.fingerprints[judgments.source]

    def load_judgments(self, value: str) -> Judgments:
        path = resolve(self.config, value)
        if path not in self.judgments:
            from pytest_relevance.judgments.model import load_judgments

            topics = setting(self.config, "relevance_topics")
            self.judgments[path] = load_judgments(path, resolve(self.config, topics) if topics else None)
        return self.judgments[path]

    def clicks_log(self, depth: int) -> Fitted | None:
        """relevance_clicks_log to its top `depth`, fitted on first use and kept for the session: a large log is
        read once, not once a test. A log that cannot be read fails every test that compares, with the same message
        naming the file and line, without being read again."""
        files = tuple(resolver(self.config).paths("relevance_clicks_log"))
        if not files:
            return None
        key = (files, depth)
        if key not in self.clicks:
            from pytest_relevance.online.verdict import fit

            try:
                self.clicks[key] = fit(files, depth)
            except ValueError as exc:  # RelevanceInputError: it names the file and line and what to do
                self.clicks[key] = exc
        found = self.clicks[key]
        if isinstance(found, ValueError):
            raise found
        return found

    def mark_partial(self, reason: str) -> None:
        self.partial = self.partial or reason


def unchanged_reason(config: pytest.Config, ref: str) -> tuple[str | None, str | None]:
    """(a skip reason when git says nothing in relevance_paths changed since `ref`, a note when it cannot tell).

    When it cannot tell, everything runs, and the note says why: a gate skipped by mistake is worse than a slow one.
    """
    import fnmatch

    globs = setting(config, "relevance_paths").split()
    if not globs:
        return None, f"--relevance-changed-since {ref}: relevance_paths is not set, so every relevance test runs"
    changed = _changed_files(config, ref)
    if changed is None:
        return None, (
            f"--relevance-changed-since {ref}: git cannot diff against {ref!r} here (no repository, or a ref git "
            "does not know: in CI, fetch it first), so every relevance test runs"
        )
    patterns = [os.path.normpath(glob) for glob in globs]  # ./fixtures/* is fixtures/*, as the paths are written
    if any(fnmatch.fnmatch(path, glob) for path in changed for glob in patterns):
        return None, None
    return f"no file matching relevance_paths ({' '.join(globs)}) changed since {ref}", None


def _changed_files(config: pytest.Config, ref: str) -> list[str] | None:
    """Files changed since `ref` or untracked, relative to the rootdir (as relevance_paths are); None if git cannot say.

    git names paths from the repository's top, which is not the rootdir when the project sits in a subfolder: each is
    mapped to the rootdir (a file beside the project reads ../lib/x.py). NUL-separated, so a space or a non-ASCII
    name is read as written, not split or quoted.
    """
    top = _git(config, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    top = top.strip()
    diff = _git(config, "-C", top, "diff", "--name-only", "-z", ref, "--")
    untracked = _git(config, "-C", top, "ls-files", "--others", "--exclude-standard", "-z")  # the whole repository's
    if diff is None or untracked is None:
        return None
    root = config.rootpath.resolve()
    names = [name for name in (diff + untracked).split("\0") if name]
    return [Path(os.path.relpath(Path(top).resolve() / name, root)).as_posix() for name in names]


def _git(config: pytest.Config, *args: str) -> str | None:
    """git's output in the rootdir, or None where there is no git, no repository, or the command fails."""
    import subprocess

    try:
        return subprocess.run(["git", *args], cwd=config.rootpath, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


class RelevanceWarning(pytest.PytestWarning):
    """A number that may mislead (low judged@k, a value near its floor, documents the corpus lacks).

    A warning, not a line of text, so that ``-W error::pytest_relevance.plugin.hooks.RelevanceWarning`` and
    ``filterwarnings`` work on it as on any other.
    """


def warn(message: str, path: Path, line: int = 1) -> None:
    """A RelevanceWarning attributed to the user's file (the test, the template, the judgments): pytest's summary
    then points where the fix goes, not at this plugin's source."""
    import warnings

    warnings.warn_explicit(RelevanceWarning(message), RelevanceWarning, str(path), line)


def say_cache_warnings(session: pytest.Session, state: State) -> None:
    """Each index cache's warning, once, as the session ends (when every xdist worker's has come in). One made an
    error (-W error, filterwarnings) fails the run with a line, not with a traceback out of this hook."""
    for folder, warning in state.cache_warnings.items():
        try:
            warn(warning, Path(folder))
        except RelevanceWarning as exc:
            state.errors.append(str(exc))
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED


def corpus_ids(index: Any, corpus: CorpusFile, id_field: str) -> list[str]:
    """The corpus's ids: an embedded index holds them (one loaded from the cache without parsing the corpus);
    another engine's index is not asked, the corpus is read. The embedded module is looked up, not imported: a run
    on Elasticsearch never loads it."""
    embedded = sys.modules.get("pytest_relevance.engines.embedded")
    if embedded is not None and isinstance(index, embedded.EmbeddedIndex):
        ids: list[str] = index.ids
        return ids
    return [doc[id_field] for doc in corpus]


def warn_missing_documents(judgments: Judgments, ids: list[str]) -> None:
    """Judged documents the corpus lacks measure retrieval failure, not ranking: say so once."""
    present = set(ids)
    missing = sorted({doc for q in judgments.queries for doc in q.grades} - present)
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        warn(
            f"{len(missing)} judged documents are not in the corpus ({shown}): no ranking can return them, so they "
            "count as misses; add them to the corpus or drop their judgments",
            Path(judgments.source),
        )


def partial_reason(session: pytest.Session, state: State, exitstatus: int) -> str:
    """Why this run may not speak for the whole suite ("" when it may): only then are entries removed.

    Conservative on purpose: a run that collected less than the suite (paths, node ids, a subdirectory, -k, -m,
    --lf, deselection anywhere, a module that failed to import) or stopped early (-x, Ctrl-C) or never ran (--co)
    cannot tell an unused entry from the entry of a test it did not look at.
    """
    config = session.config
    option = config.option
    flags = [
        ("-k", getattr(option, "keyword", "")),
        ("-m", getattr(option, "markexpr", "")),
        ("--lf", getattr(option, "lf", False)),
        ("--sw", getattr(option, "stepwise", False)),
        ("--deselect", getattr(option, "deselect", None)),
        ("--ignore", getattr(option, "ignore", None) or getattr(option, "ignore_glob", None)),
        ("--co", getattr(option, "collectonly", False)),
        ("--relevance-changed-since", config.getoption("relevance_changed_since")),
    ]
    for flag, value in flags:
        if value:
            return f"{flag} was given"
    if state.partial:
        return state.partial
    if session.shouldstop or session.shouldfail:
        return "the run stopped early"
    if exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR):
        return "the run was interrupted"
    return _paths_reason(config)


def _paths_reason(config: pytest.Config) -> str:
    """Whether the paths given (or the directory pytest ran in) cover every whole-suite root: testpaths or rootdir."""
    import glob

    roots = [
        Path(found).resolve()
        for pattern in config.getini("testpaths")
        for found in glob.glob(str(config.rootpath / pattern), recursive=True)
    ] or [config.rootpath.resolve()]
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        return ""
    given = []
    for arg in config.args:
        if "::" in arg:
            return f"a test id was given ({arg})"
        given.append((config.invocation_params.dir / arg).resolve())
    for root in roots:
        if not any(path == root or path in root.parents for path in given):
            shown = os.path.relpath(given[0], config.rootpath) if len(given) == 1 else "the paths given"
            return f"{shown} does not cover {os.path.relpath(root, config.rootpath)}"
    return ""


def clean_temp_files(state: State) -> None:
    from pytest_relevance.gate.baseline_file import remove_stale_temp_files

    try:
        removed = remove_stale_temp_files(state.baseline_path)
    except ValueError as exc:
        state.warnings.append(str(exc))
        return
    if removed:
        state.warnings.append(f"removed {len(removed)} temp file(s) an interrupted update left: {removed[0].name}")


def write_updates(session: pytest.Session, state: State) -> None:
    """Write the entries of the tests that compared; drop entries only of tests a whole-suite run did not collect.

    A baseline that cannot be written fails the run with one line (the tests that would have updated it say `not
    written`); Ctrl-C during the write ends it as pytest ends an interrupted run, with the old file in place.
    """
    from pytest_relevance.errors import RelevanceInputError
    from pytest_relevance.gate.baseline_file import write_baseline
    from pytest_relevance.gate.entry import changed_values

    config, path = session.config, state.baseline_path
    updates = {nodeid: r["entry"] for nodeid, r in state.results.items() if r.get("updated")}
    keep = None if state.partial else state.collected | set(updates)
    if not updates and keep is None:
        return
    try:
        before = write_baseline(path, updates, keep=keep)
    except (ValueError, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            exc = RelevanceInputError(path, "interrupted during the write; the old file is left as it was: run again")
            session.exitstatus = pytest.ExitCode.INTERRUPTED
        elif session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        state.errors.append(f"baseline not written: {exc}")
        for nodeid in updates:
            state.results[nodeid]["report"]["status"] = "not written"
        return
    state.removed = sorted(set(before) - keep) if keep is not None else []
    if not updates and not state.removed:
        return
    for nodeid, entry in updates.items():
        state.results[nodeid]["changes"] = changed_values(before.get(nodeid), entry)
    if updates and not config.getoption("relevance_reason"):
        state.warnings.append(
            f"{len(updates)} entries re-baselined without --relevance-reason: the baseline records no why; pass "
            "--relevance-reason '<why>' so that the next reviewer can tell a deliberate change from a shrug"
        )
    state.saved = True
    state.warnings += _dirty_files(config, path)


def _dirty_files(config: pytest.Config, baseline: Path) -> list[str]:
    status = _git(config, "status", "--porcelain", "--untracked-files=no")
    top = _git(config, "rev-parse", "--show-toplevel")
    if status is None or top is None:
        return []
    others = [line[3:] for line in status.splitlines() if Path(top.strip(), line[3:]).resolve() != baseline.resolve()]
    if not others:
        return []
    return [
        f"other tracked files are modified ({', '.join(others[:5])}{', ...' if len(others) > 5 else ''}): "
        "commit the re-baseline in a dedicated commit, apart from the change that caused it"
    ]


def unused_entries(state: State) -> list[str]:
    """Entries no collected test owns; only said after a whole-suite run, where it is true."""
    if state.partial or not state.baseline_path.is_file():
        return []
    try:
        entries = state.baseline()
    except ValueError:
        return []
    return sorted(set(entries) - state.collected)


_TEST_SETTINGS = pytest.StashKey["Settings"]()


def marker_settings(request: pytest.FixtureRequest, state: State) -> Settings:
    """relevance_* settings with this test's marker arguments applied, read once per test (the clock, the index and
    the snapshot all ask); a bad argument fails the test, naming it."""
    from pytest_relevance.config.settings import SettingError

    node: pytest.Item = request.node
    if _TEST_SETTINGS in node.stash:
        return node.stash[_TEST_SETTINGS]
    marker = node.get_closest_marker("relevance")
    try:
        node.stash[_TEST_SETTINGS] = state.settings.for_marker(dict(marker.kwargs) if marker else {}, node.nodeid)
        return node.stash[_TEST_SETTINGS]
    except SettingError as exc:
        message = f"relevance: {exc}"
    pytest.fail(message, pytrace=False)


def read_settings(config: pytest.Config) -> Settings:
    """Every setting read and checked once, at configure time: a bad value is a usage error naming its key, before
    anything is built."""
    from pytest_relevance.config.settings import positive_int, read

    try:
        settings = read(lambda name: setting(config, name))
        positive_int(str(config.getoption("relevance_repeat")), "--relevance-repeat")
        for name in ("relevance_es_batch", "relevance_es_concurrency"):
            positive_int(setting(config, name), name)
        if setting(config, "relevance_engine") == "elasticsearch" and setting(config, "relevance_es_url"):
            from pytest_relevance.engines.factory import check_es_url

            check_es_url(setting(config, "relevance_es_url"))
    except ValueError as exc:  # SettingError, or the RelevanceInputError of a bad URL (it names the key)
        raise pytest.UsageError(str(exc)) from None
    for path in resolver(config).paths("relevance_clicks_log"):  # read at the first test; missing: said now
        if not path.is_file():
            raise pytest.UsageError(
                f"relevance_clicks_log: {path}: file not found; give the UBI click log (NDJSON) the relevance tests "
                "estimate clicks from, or remove the setting"
            )
    for path in config.getoption("relevance_report"):
        from pytest_relevance.reports.sinks import REPORT_SUFFIXES  # only where a report is asked for: import cost

        if Path(path).suffix.lower() not in REPORT_SUFFIXES:
            raise pytest.UsageError(
                f"--relevance-report {path}: the suffix names the format: .md, .json, .html or .trec (the run)"
            )
    return settings


def make_engine(request: pytest.FixtureRequest) -> Engine:
    """The engine relevance_engine names, from the one factory: a plugin's (pytest_relevance_make_engine), else a
    built-in one, whose Elasticsearch client is the overridable `relevance_es_client` fixture."""
    from pytest_relevance.engines.factory import EngineUnavailable
    from pytest_relevance.engines.factory import make_engine as factory

    config = request.config
    try:
        return factory(
            engine_settings(config),
            lambda name: config.hook.pytest_relevance_make_engine(name=name, config=config),
            lambda: request.getfixturevalue("relevance_es_client"),
        )
    except EngineUnavailable as exc:
        message = f"relevance: {exc}"
    pytest.fail(message, pytrace=False)


def engine_settings(config: pytest.Config) -> EngineSettings:
    """The settings the engine factory reads, resolved as every other setting is."""
    from pytest_relevance.engines.factory import EngineSettings

    return EngineSettings(
        name=setting(config, "relevance_engine"),
        cache_dir=index_cache(config),
        index_name=_index_name(config),
        es_url=setting(config, "relevance_es_url"),
        es_api_key=setting(config, "relevance_es_api_key"),
        es_user=setting(config, "relevance_es_user"),
        es_password=setting(config, "relevance_es_password"),
        es_ca_certs=setting(config, "relevance_es_ca_certs"),
        es_batch=int(setting(config, "relevance_es_batch")),
        es_concurrency=int(setting(config, "relevance_es_concurrency")),
    )


def index_cache(config: pytest.Config) -> Path | None:
    """Where the embedded engine caches its index: pytest's cache, so --cache-clear and -p no:cacheprovider apply."""
    cache: pytest.Cache | None = getattr(config, "cache", None)
    if cache is None:
        return None
    try:
        return cache.mkdir("relevance-index")
    except OSError:  # where it would be (read as pytest reads cache_dir): the engine then warns, builds in memory
        cache_dir = os.path.expandvars(os.path.expanduser(config.getini("cache_dir")))
        return resolve(config, cache_dir) / "d" / "relevance-index"


def _index_name(config: pytest.Config) -> str:
    """relevance-<run id>-<worker>: unique to this session and xdist worker, lowercase as index names must be."""
    import uuid

    workerinput = getattr(config, "workerinput", {})
    run_id = str(workerinput.get("testrunuid") or uuid.uuid4().hex)[:12].lower()
    return f"relevance-{run_id}-{str(workerinput.get('workerid', 'main')).lower()}"


def write_reports(config: pytest.Config, state: State) -> None:
    """Every --relevance-report file (relative to where pytest was started, as --junitxml) and GitHub's step
    summary, from the reports of the tests that were scored."""
    reports = [result["report"] for _, result in sorted(state.results.items()) if "report" in result]
    if not reports:
        return
    from pytest_relevance.reports.sinks import write, write_step_summary

    for path in config.getoption("relevance_report"):
        write(str(config.invocation_params.dir / path), reports)
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        write_step_summary(os.environ["GITHUB_STEP_SUMMARY"], reports)
