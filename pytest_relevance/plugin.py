"""pytest glue: options, ini keys, fixtures, the snapshot assertion, the terminal summary. Logic lives elsewhere.

Everything beyond pytest itself is imported lazily, so a run with no relevance test pays almost nothing for the
plugin being installed.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_relevance.baseline import Entry
    from pytest_relevance.beyond import CorpusFields
    from pytest_relevance.corpus import CorpusFile
    from pytest_relevance.judgments import Judgments
    from pytest_relevance.settings import Settings

#: ini key -> (help, default). Each is also a command-line flag --relevance-...
SETTINGS: dict[str, tuple[str, str]] = {
    "relevance_judgments": (
        "judged queries: .yaml, .csv, or TREC qrels (with relevance_topics)",
        "fixtures/judgments.yaml",
    ),
    "relevance_topics": ("topics file for TREC qrels judgments: qid<TAB>text[<TAB>stratum]", ""),
    "relevance_corpus": ("fixture corpus: NDJSON, JSON array or YAML list", "fixtures/corpus.ndjson"),
    "relevance_index_config": ("index config: an Elasticsearch create-index body (YAML/JSON)", "fixtures/index.yaml"),
    "relevance_query": ("query template: an Elasticsearch search body with {{query}}", "fixtures/query.yaml"),
    "relevance_baseline": ("the committed baseline file", "relevance-baseline.json"),
    "relevance_metrics": ("metrics to score and gate, e.g. 'ndcg@10 mrr@10 recall@100'", "ndcg@10 mrr@10 recall@100"),
    "relevance_tolerance": ("allowed drop: '0.005', or with overrides '0.005 tail=0.02 ndcg@10=0.01'", "0.005"),
    "relevance_now": ("the frozen instant every relevance test runs at (ISO 8601)", "2026-01-15T12:00:00Z"),
    "relevance_engine": ("search engine for relevance_index: embedded or elasticsearch", "embedded"),
    "relevance_es_url": ("Elasticsearch URL (also read from RELEVANCE_ES_URL)", ""),
    "relevance_es_api_key": ("Elasticsearch API key (also RELEVANCE_ES_API_KEY)", ""),
    "relevance_es_user": ("Elasticsearch basic auth user (also RELEVANCE_ES_USER)", ""),
    "relevance_es_password": ("Elasticsearch basic auth password (also RELEVANCE_ES_PASSWORD)", ""),
    "relevance_es_ca_certs": ("CA certificate file for Elasticsearch TLS (also RELEVANCE_ES_CA_CERTS)", ""),
    "relevance_es_batch": ("queries per msearch request", "100"),
    "relevance_es_concurrency": ("msearch requests in flight at once", "4"),
    "relevance_id_field": ("the document id field of the corpus", "id"),
    "relevance_min_judged": ("warn when judged@k of a stratum falls below this share", "0.8"),
    "relevance_floor_margin": ("warn when a value is within this of its constant-answer floor", "0.05"),
    "relevance_alpha": ("if set (e.g. 0.05), fail only on drops beyond tolerance that are also significant", ""),
    "relevance_paths": ("globs: with --relevance-changed-since, run relevance tests only if one of these changed", ""),
    "relevance_snapshot_depth": ("ranked ids per query kept in the baseline (at most the deepest cut-off)", "10"),
    "relevance_max_churn": ("if set (e.g. 0.2), fail when 1 - mean RBO vs the baseline's rankings exceeds it", ""),
    "relevance_unused": ("baseline entries no test collected: warn, or fail the run", "warn"),
}
#: secrets are read from the environment or the ini file only: a flag would land in shell history and CI logs
NO_FLAG = ("relevance_es_api_key", "relevance_es_password")

STATE = pytest.StashKey["State"]()
_FROM_ENV = (
    "relevance_es_url",
    "relevance_es_api_key",
    "relevance_es_user",
    "relevance_es_password",
    "relevance_es_ca_certs",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("relevance", "search relevance gate (pytest-relevance)")
    group.addoption(
        "--relevance-update",
        action="store_true",
        help="write the baseline entries of the relevance tests that ran (they pass); commit the file on its own",
    )
    group.addoption("--relevance-reason", default="", metavar="TEXT", help="why, recorded with --relevance-update")
    group.addoption(
        "--relevance-report",
        action="append",
        default=[],
        metavar="PATH",
        help="write a report: .md, .json, .html or .trec (the run, for trec_eval; repeatable); "
        "$GITHUB_STEP_SUMMARY also gets the Markdown",
    )
    group.addoption(
        "--relevance-changed-since",
        metavar="REF",
        help="skip relevance tests when git shows no change matching relevance_paths since REF",
    )
    group.addoption(
        "--relevance-rebuild",
        action="store_true",
        help="build the embedded engine's index again instead of loading it from pytest's cache (and cache it)",
    )
    group.addoption(
        "--relevance-repeat",
        type=int,
        default=1,
        metavar="N",
        help="run every query N times and fail, naming the query, if any ranking differs",
    )
    for name, (text, default) in SETTINGS.items():
        parser.addini(name, f"{text} (default: {default or 'none'})", default=default)
        if name not in NO_FLAG:
            group.addoption(
                f"--{name.replace('_', '-')}", dest=name, default=None, help=f"{text}; overrides ini {name}"
            )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_relevance import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def setting(config: pytest.Config, name: str) -> str:
    """Flag, then ini, then (for the URL and secrets) the environment, then the default."""
    value = None if name in NO_FLAG else config.getoption(name)
    if value is None:
        value = config.getini(name)
    if name in _FROM_ENV and not value:
        value = os.environ.get(name.upper(), "")
    return str(value).strip()


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
    #: the report warnings a RelevanceWarning already counted in this process, so that each is said once
    said: set[str] = field(default_factory=set)

    @property
    def baseline_path(self) -> Path:
        return resolve(self.config, setting(self.config, "relevance_baseline"))

    def baseline(self) -> dict[str, Entry]:
        if self.entries is None:
            from pytest_relevance.baseline import load_baseline

            self.entries = load_baseline(self.baseline_path)
        return self.entries

    def load_judgments(self, value: str) -> Judgments:
        path = resolve(self.config, value)
        if path not in self.judgments:
            from pytest_relevance.judgments import load_judgments

            topics = setting(self.config, "relevance_topics")
            self.judgments[path] = load_judgments(path, resolve(self.config, topics) if topics else None)
        return self.judgments[path]

    def mark_partial(self, reason: str) -> None:
        self.partial = self.partial or reason


def pytest_configure(config: pytest.Config) -> None:
    """Every setting is read and checked here, once: a bad value stops the run before anything is built."""
    from pytest_relevance.settings import positive_int, read

    config.addinivalue_line(
        "markers",
        "relevance(metrics=None, tolerance=None, judgments=None, now=None): a relevance test; the arguments "
        "override the relevance_* settings for this test",
    )
    try:
        settings = read(lambda name: setting(config, name))
        positive_int(str(config.getoption("relevance_repeat")), "--relevance-repeat")
        for name in ("relevance_es_batch", "relevance_es_concurrency"):
            positive_int(setting(config, name), name)
        if setting(config, "relevance_engine") == "elasticsearch" and setting(config, "relevance_es_url"):
            from pytest_relevance.engines.elasticsearch import check_url

            check_url(setting(config, "relevance_es_url"))
    except ValueError as exc:  # SettingError, or the RelevanceInputError of a bad URL (it names the key)
        raise pytest.UsageError(str(exc)) from None
    for path in config.getoption("relevance_report"):
        from pytest_relevance.reports.sinks import REPORT_SUFFIXES  # only where a report is asked for: import cost

        if Path(path).suffix.lower() not in REPORT_SUFFIXES:
            raise pytest.UsageError(
                f"--relevance-report {path}: the suffix names the format: .md, .json, .html or .trec (the run)"
            )
    config.stash[STATE] = State(config, settings)
    if config.getoption("relevance_rebuild") and not hasattr(config, "workerinput") and (cache := _index_cache(config)):
        import shutil  # here, before any xdist worker starts: the first of them builds, the others load

        shutil.rmtree(cache, ignore_errors=True)


def _index_cache(config: pytest.Config) -> Path | None:
    """Where the embedded engine caches its index: pytest's cache, so --cache-clear and -p no:cacheprovider apply."""
    cache = getattr(config, "cache", None)
    return cache.mkdir("relevance-index") if cache is not None else None


def _state(config: pytest.Config) -> State:
    return config.stash[STATE]


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Where the gate reads from; nothing is parsed here, so a run without relevance tests pays nothing."""
    return [
        f"relevance: baseline {setting(config, 'relevance_baseline')}, judgments "
        f"{setting(config, 'relevance_judgments')}, frozen at {setting(config, 'relevance_now')}"
    ]


# ---------------------------------------------------------------- collection


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark snapshot tests `relevance` before -m filters, and apply --relevance-changed-since."""
    for item in items:
        if "relevance_snapshot" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("relevance"):
            item.add_marker("relevance")
    ref = config.getoption("relevance_changed_since")
    if ref and any(item.get_closest_marker("relevance") for item in items):
        skip, note = _unchanged_reason(config, ref)
        if note:
            _state(config).notes.append(note)
        if skip:
            for item in items:
                if item.get_closest_marker("relevance"):
                    item.add_marker(pytest.mark.skip(reason=skip))


def _unchanged_reason(config: pytest.Config, ref: str) -> tuple[str | None, str | None]:
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


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        _state(items[0].config).mark_partial(f"{len(items)} tests deselected")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """A module that failed to import, or skipped itself, hides its tests: their entries must not look unused."""
    report = yield
    if not report.passed:
        what = "could not be collected" if report.failed else "was skipped at collection"
        _state(collector.config).mark_partial(f"{report.nodeid or 'a module'} {what}")
    return report


def pytest_collection_finish(session: pytest.Session) -> None:
    _state(session.config).collected.update(item.nodeid for item in session.items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """xdist controller: the workers collect, the controller does not; each worker tells its collection."""
    _state(node.config).collected.update(ids)


# ---------------------------------------------------------------- fixtures


class RelevanceWarning(pytest.PytestWarning):
    """A number that may mislead (low judged@k, a value near its floor, documents the corpus lacks).

    A warning, not a line of text, so that ``-W error::pytest_relevance.plugin.RelevanceWarning`` and
    ``filterwarnings`` work on it as on any other.
    """


_TEST_SETTINGS = pytest.StashKey["Settings"]()


def _test_settings(request: pytest.FixtureRequest) -> Settings:
    """relevance_* settings with this test's marker arguments applied, read once per test (the clock, the index and
    the snapshot all ask); a bad argument fails the test, naming it."""
    from pytest_relevance.settings import SettingError

    node = request.node
    if _TEST_SETTINGS in node.stash:
        return node.stash[_TEST_SETTINGS]
    marker = node.get_closest_marker("relevance")
    try:
        node.stash[_TEST_SETTINGS] = _state(request.config).settings.for_marker(
            dict(marker.kwargs) if marker else {}, node.nodeid
        )
        return node.stash[_TEST_SETTINGS]
    except SettingError as exc:
        message = f"relevance: {exc}"
    pytest.fail(message, pytrace=False)


@pytest.fixture
def relevance_judgments(request: pytest.FixtureRequest) -> Judgments:
    """The judged queries (from relevance_judgments, or the marker's judgments=)."""
    marker = request.node.get_closest_marker("relevance")
    value = (marker.kwargs.get("judgments") if marker else None) or setting(request.config, "relevance_judgments")
    return _input(_state(request.config).load_judgments, str(value))


@pytest.fixture
def relevance_clock(request: pytest.FixtureRequest) -> Any:
    """Freezes time (tick=False) at relevance_now, or the marker's now=, for the whole test; yields the instant."""
    import time_machine

    instant = _test_settings(request).now
    with time_machine.travel(instant, tick=False):
        yield instant


@pytest.fixture
def relevance_snapshot(request: pytest.FixtureRequest, relevance_judgments: Judgments, relevance_clock: Any) -> Any:
    """Compare a run with the committed baseline: ``assert relevance_snapshot == run``."""
    from pytest_relevance.beyond import check_fields
    from pytest_relevance.metrics import BEYOND
    from pytest_relevance.settings import SettingError

    settings = _test_settings(request)
    try:
        settings.tolerance.check_keys(
            list(relevance_judgments.groups), [m.spec for m in settings.metrics], "relevance_tolerance"
        )
    except SettingError as exc:
        message = f"relevance: {exc}"  # failed outside the handler: inside, pytest prints the message twice
    else:
        beyond = [m for m in settings.metrics if m.name in BEYOND]
        corpus = request.getfixturevalue("_relevance_corpus_fields") if beyond else None
        if corpus is not None:
            _input(check_fields, beyond, corpus)  # a field the corpus lacks: at setup, naming metric and field
        return RelevanceSnapshot(_state(request.config), request.node, relevance_judgments, settings, corpus)
    pytest.fail(message, pytrace=False)


def _input(load: Any, *args: Any) -> Any:
    """Call a loader; bad input becomes one clean fixture error instead of a traceback."""
    try:
        return load(*args)
    except ValueError as exc:
        message = f"relevance: {exc}"
    pytest.fail(message, pytrace=False)


@pytest.fixture(scope="session")
def _relevance_corpus_file(request: pytest.FixtureRequest) -> CorpusFile:
    """The corpus file, parsed on first use: an index loaded from the cache does not need the documents."""
    from pytest_relevance.corpus import CorpusFile

    config = request.config
    path = resolve(config, setting(config, "relevance_corpus"))
    return _input(CorpusFile, path, setting(config, "relevance_id_field"))


@pytest.fixture(scope="session")
def _relevance_corpus_fields(request: pytest.FixtureRequest, _relevance_corpus_file: CorpusFile) -> CorpusFields:
    """The corpus as the metrics beyond relevance read it, built once a session and only when one is gated."""
    from pytest_relevance.beyond import CorpusFields

    documents = _input(_relevance_corpus_file.load)
    id_field = setting(request.config, "relevance_id_field")
    return CorpusFields(documents, id_field, _relevance_corpus_file.path, documents.lines)


@pytest.fixture(scope="session")
def relevance_corpus(_relevance_corpus_file: CorpusFile) -> list[dict[str, Any]]:
    """The fixture corpus documents (relevance_corpus)."""
    return _input(_relevance_corpus_file.load)


@pytest.fixture(scope="session")
def relevance_index_config(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The index config (relevance_index_config): an Elasticsearch create-index body."""
    from pytest_relevance.corpus import load_mapping

    return _input(load_mapping, resolve(request.config, setting(request.config, "relevance_index_config")))


@pytest.fixture(scope="session")
def relevance_session_index(
    request: pytest.FixtureRequest, _relevance_corpus_file: CorpusFile, relevance_index_config: dict[str, Any]
) -> Any:
    """The fixture index, built once per session (per xdist worker) on relevance_engine; closed at the end."""
    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.templates import has_query_placeholder, load_template

    config = request.config
    state = _state(config)
    name = setting(config, "relevance_engine")
    engine = config.hook.pytest_relevance_make_engine(name=name, config=config)
    if engine is None and name == "embedded":
        from pytest_relevance.engines.embedded import EmbeddedEngine

        engine = EmbeddedEngine(_index_cache(config))
    if engine is None and name == "elasticsearch":
        from pytest_relevance.engines.elasticsearch import ElasticsearchEngine

        client = request.getfixturevalue("relevance_es_client")
        batch, concurrency = (
            int(setting(config, "relevance_es_batch")),
            int(setting(config, "relevance_es_concurrency")),
        )
        url = setting(config, "relevance_es_url") or "the relevance_es_client cluster"
        engine = ElasticsearchEngine(client, _index_name(config), url, batch, concurrency)
    if engine is None:
        pytest.fail(
            f"relevance: relevance_engine = {name!r} is not available (built in: embedded, elasticsearch; others "
            "come from plugins implementing pytest_relevance_make_engine)",
            pytrace=False,
        )
    # the resolved path: analysis files (synonyms_path, stopwords_path) are read relative to it, wherever pytest runs
    source = str(resolve(config, setting(config, "relevance_index_config")))
    corpus, id_field = _relevance_corpus_file, setting(config, "relevance_id_field")
    index = _input(engine.open, corpus, relevance_index_config, id_field, source)
    if getattr(index, "cache_note", None):
        state.notes.append(index.cache_note)
    query_path = resolve(config, setting(config, "relevance_query"))
    template = _input(load_template, query_path)
    if not has_query_placeholder(template):
        _warn(
            f"{setting(config, 'relevance_query')}: the template has no {{{{query}}}}, so every query gets the same "
            "results; put {{query}} where the user's text goes",
            query_path,
        )
    judgments = _input(state.load_judgments, setting(config, "relevance_judgments"))
    ids = _corpus_ids(index, corpus, id_field)
    _warn_missing_documents(judgments, ids)
    fixture = FixtureIndex(
        index,
        template,
        judgments,
        state.settings.now,
        state.settings.depth,
        setting(config, "relevance_query"),
        config.getoption("relevance_repeat"),
        len(ids),
    )
    yield fixture
    _input(fixture.close)


@pytest.fixture
def relevance_index(
    request: pytest.FixtureRequest, relevance_session_index: Any, relevance_judgments: Judgments
) -> Any:
    """The session's fixture index as this test sees it: its judgments, its instant, its deepest cut-off.

    The index is built once; only what the test's marker overrides (metrics=, now=, judgments=) differs, so that
    `recall@1000` retrieves 1000 and `now=` renders the template at that instant.
    """
    settings = _test_settings(request)
    return relevance_session_index.for_test(relevance_judgments, settings.now, settings.depth)


def _warn(message: str, path: Path, line: int = 1) -> None:
    """A RelevanceWarning attributed to the user's file (the test, the template, the judgments): pytest's summary
    then points where the fix goes, not at this plugin's source."""
    import warnings

    warnings.warn_explicit(RelevanceWarning(message), RelevanceWarning, str(path), line)


def _corpus_ids(index: Any, corpus: CorpusFile, id_field: str) -> list[str]:
    """The corpus's ids: an embedded index holds them (one loaded from the cache without parsing the corpus);
    another engine's index is not asked, the corpus is read. The embedded module is looked up, not imported: a run
    on Elasticsearch never loads it."""
    embedded = sys.modules.get("pytest_relevance.engines.embedded")
    if embedded is not None and isinstance(index, embedded.EmbeddedIndex):
        return index.ids
    return _input(lambda: [doc[id_field] for doc in corpus])


def _warn_missing_documents(judgments: Judgments, ids: list[str]) -> None:
    """Judged documents the corpus lacks measure retrieval failure, not ranking: say so once."""
    present = set(ids)
    missing = sorted({doc for q in judgments.queries for doc in q.grades} - present)
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        _warn(
            f"{len(missing)} judged documents are not in the corpus ({shown}): no ranking can return them, so they "
            "count as misses; add them to the corpus or drop their judgments",
            Path(judgments.source),
        )


def _index_name(config: pytest.Config) -> str:
    """relevance-<run id>-<worker>: unique to this session and xdist worker, lowercase as index names must be."""
    import uuid

    workerinput = getattr(config, "workerinput", {})
    run_id = str(workerinput.get("testrunuid") or uuid.uuid4().hex)[:12].lower()
    return f"relevance-{run_id}-{str(workerinput.get('workerid', 'main')).lower()}"


@pytest.fixture(scope="session")
def relevance_es_client(request: pytest.FixtureRequest) -> Any:
    """The client the elasticsearch engine uses; override it with your own Elasticsearch or OpenSearch client."""
    from pytest_relevance.engines.elasticsearch import make_client

    config = request.config
    url = setting(config, "relevance_es_url")
    if not url:
        pytest.fail(
            "relevance: relevance_engine = elasticsearch needs relevance_es_url (or RELEVANCE_ES_URL), or a "
            "relevance_es_client fixture of your own",
            pytrace=False,
        )
    client = make_client(
        url,
        setting(config, "relevance_es_api_key"),
        setting(config, "relevance_es_user"),
        setting(config, "relevance_es_password"),
        setting(config, "relevance_es_ca_certs"),
    )
    yield client
    client.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Bad input met inside a test (a template construct, a missing param) fails cleanly, without a traceback."""
    from pytest_relevance.errors import RelevanceInputError

    try:
        return (yield)
    except RelevanceInputError as exc:
        message = f"relevance: {exc}"
    pytest.fail(message, pytrace=False)


class RelevanceSnapshot:
    """The right-hand side of ``assert relevance_snapshot == run``; its explanation is the failure text."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        state: State,
        node: pytest.Item,
        judgments: Judgments,
        settings: Settings,
        corpus: CorpusFields | None = None,
    ) -> None:
        self.state, self.node, self.judgments, self.corpus = state, node, judgments, corpus
        self.metrics: list[Any] = list(settings.metrics)
        self.tolerance, self.settings = settings.tolerance, settings
        self.explanation: list[str] = []

    def __repr__(self) -> str:
        return "relevance_snapshot"

    def __eq__(self, run: object) -> bool:
        from pytest_relevance.errors import RelevanceInputError

        try:
            if self._check(run):
                return True
        except RelevanceInputError as exc:
            self.explanation = [f"relevance: {exc}"]
        # pytest.fail rather than False: pytest truncates long assertion explanations to 8 lines outside -vv, which
        # would cut the movers and the what-to-do line a reviewer needs
        pytest.fail("\n".join(self.explanation), pytrace=False)

    def _check(self, run: object) -> bool:
        from pytest_relevance.baseline import (
            compare,
            engine_note,
            incompatibilities,
            make_entry,
            missing_values,
            same_values,
            ungated,
            unmet_needs,
        )
        from pytest_relevance.errors import RelevanceInputError
        from pytest_relevance.evaluation import Run, evaluate
        from pytest_relevance.reports.formatting import update_command
        from pytest_relevance.reports.terminal import cannot_compare_text, failure_text, no_baseline_text
        from pytest_relevance.sets import SetMetric, evaluate_sets, is_set_run

        if is_set_run(run):  # set answers: precision/recall/F1/exact/contains, whatever relevance_metrics says
            threshold = next((m.threshold for m in self.metrics if m.name != "ndcg"), 1)
            evaluation = evaluate_sets(run, self.judgments, threshold)  # type: ignore[arg-type]
            self.metrics = evaluation.metrics  # type: ignore[assignment]
        else:
            evaluation = evaluate(run, self.judgments, self.metrics, self.corpus, self.settings.now)  # type: ignore[arg-type]
        engine = run.engine if isinstance(run, Run) else "custom"
        nodeid, state, config = self.node.nodeid, self.state, self.state.config
        result: dict[str, Any] = {"engine": engine, "judgments": self.judgments.version}
        if isinstance(run, Run) and run.repeated > 1:
            result["repeat"] = f"repeat: {len(run)} queries x {run.repeated}, identical"
        state.results[nodeid] = dict(result)  # used, even if it fails below
        entry = state.baseline().get(nodeid)
        baseline = setting(config, "relevance_baseline")
        update = config.getoption("relevance_update")
        definitions = {m.spec: m.definition() for m in self.metrics}
        problems = incompatibilities(entry, self.judgments.version, engine, definitions) if entry else []
        if entry is not None and not problems:
            specs = [m.spec for m in self.metrics]
            missing = missing_values(entry, list(evaluation.strata), specs)
            if missing and not update:
                raise RelevanceInputError(
                    state.baseline_path,
                    f"entry {nodeid!r} has no {', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}: the "
                    "file was edited by hand; restore it (git checkout -- FILE) or re-baseline with --relevance-update",
                )
            churn = self.settings.max_churn is not None and not isinstance(self.metrics[0], SetMetric)
            needs = unmet_needs(entry, list(evaluation.per_query), specs, self.settings.alpha is not None, churn)
            if needs and not update:
                raise RelevanceInputError(
                    state.baseline_path,
                    f"entry {nodeid!r} has no {needs[0]}: the file was edited by hand (or predates the setting); "
                    f"restore it (git checkout -- FILE) or re-baseline: {update_command(nodeid, '<why>')}",
                )
            problems = [f"the baseline lacks {', '.join(missing[:3])}"] if missing else []
        comparable = entry is not None and not problems
        dropped = ungated(entry, self.metrics) if comparable and not update else None
        if dropped and self.settings.unused == "fail" and config.getoption("relevance_metrics") is None:
            problems, comparable = [dropped], False  # a --relevance-metrics flag narrows one run: a note, as -k
        new = None
        if update:
            reason = config.getoption("relevance_reason")
            new = make_entry(
                evaluation, self.judgments.version, engine, self.tolerance, reason, self.settings.snapshot_depth
            )
            if entry is not None and same_values(entry, new):
                new = entry  # nothing changed: the entry keeps its reason
        # an update compares with the old entry when it can, else with itself (every delta 0); a test with no
        # comparable entry is reported against an empty one, so its numbers are still shown
        reference = entry if comparable else new
        comparison = compare(reference or {}, evaluation, self.tolerance)
        report = self._report(evaluation, comparison, reference, engine, getattr(run, "corpus_size", None))
        self._properties(report)
        note = engine_note(entry, engine) if comparable else None
        for said in (note, dropped if comparable else None):
            if said:
                report["notes"] = [*report.get("notes", []), said]
        state.results[nodeid] = {**result, "report": report}
        if update:
            report["status"] = "updated" if new is not entry else "unchanged"
            if not comparable:  # measured against itself: every delta 0, which is no change anyone made
                report["against"] = "new entry" if entry is None else "not compared"
            state.results[nodeid].update(entry=new, updated=new is not entry)
            return True
        if entry is None:
            report["status"] = "no baseline"
            self.explanation = no_baseline_text(report, nodeid, baseline)
            return False
        if problems:
            report["status"], report["problems"] = "cannot compare", problems
            self.explanation = cannot_compare_text(report, nodeid, baseline)
            return False
        self._warn(report)
        if report["status"] == "regressed":
            self.explanation = failure_text(report, evaluation, self.judgments, baseline, self.settings.alpha)
            self.explanation += [f"note: {note}"] if note else []
            return False
        return True

    def _report(
        self, evaluation: Any, comparison: Any, entry: Entry | None, engine: str, corpus_size: int | None
    ) -> dict[str, Any]:
        from pytest_relevance.reports.data import build

        return build(
            self.node.nodeid,
            evaluation,
            self.judgments,
            comparison,
            entry,
            engine,
            str(self.tolerance),
            self.settings.report,
            corpus_size,
        )

    def _properties(self, report: dict[str, Any]) -> None:
        """JUnit XML properties: each value with its baseline and delta, for CI dashboards that read them."""
        for row in report["rows"]:
            name = f"relevance.{row['stratum']}.{row['metric']}"
            self.node.user_properties.append((name, row["current"]))
            if row["baseline"] is not None:
                self.node.user_properties.append((f"{name}.baseline", row["baseline"]))
                self.node.user_properties.append((f"{name}.delta", row["delta"]))

    def _warn(self, report: dict[str, Any]) -> None:
        """The report's warnings, as one short RelevanceWarning for this test (so -W error and filterwarnings apply).

        Joined, they made a line of hundreds of characters on every run (values near the constant-answer floor, the
        most unjudged queries); the line counts them and says where they are in full: the -v table and the reports.
        A warning another test already gave in this session (the shared judgments have too few queries) is not said
        again.
        """
        state = _state(self.node.config)
        new = [warning for warning in report["warnings"] if warning not in state.said]
        state.said.update(new)
        if new:
            path, line, _ = self.node.location
            _warn(
                f"{self.node.nodeid}: {len(new)} warning{'' if len(new) == 1 else 's'} about its numbers: -v lists "
                "them, as does --relevance-report",
                self.node.config.rootpath / path,
                line + 1,
            )


# ---------------------------------------------------------------- end of session


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: collect what each worker measured, and whether its collection was whole."""
    output = getattr(node, "workeroutput", {})
    state = _state(node.config)
    state.results.update(output.get("relevance", {}))
    state.mark_partial(output.get("relevance_partial", ""))
    state.notes += output.get("relevance_notes", [])
    if error:
        state.mark_partial(f"xdist worker {getattr(node, 'gateway', node).id} went down")


def _partial_reason(session: pytest.Session, exitstatus: int) -> str:
    """Why this run may not speak for the whole suite ("" when it may): only then are entries removed.

    Conservative on purpose: a run that collected less than the suite (paths, node ids, a subdirectory, -k, -m,
    --lf, deselection anywhere, a module that failed to import) or stopped early (-x, Ctrl-C) or never ran (--co)
    cannot tell an unused entry from the entry of a test it did not look at.
    """
    config = session.config
    option = config.option
    state = _state(config)
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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = _state(config)
    if hasattr(config, "workerinput"):
        config.workeroutput["relevance"] = state.results  # type: ignore[attr-defined]
        config.workeroutput["relevance_partial"] = state.partial  # type: ignore[attr-defined]
        config.workeroutput["relevance_notes"] = state.notes  # type: ignore[attr-defined]
        return
    state.mark_partial(_partial_reason(session, exitstatus))
    if not state.results and not state.baseline_path.is_file():
        return
    _remove_stale_temp_files(state)
    if config.getoption("relevance_update"):
        _update(session, state)
    else:
        state.unused = _unused(state)
        if state.unused and state.settings.unused == "fail" and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    reports = [result["report"] for _, result in sorted(state.results.items()) if "report" in result]
    if reports:
        from pytest_relevance.reports.sinks import write, write_step_summary

        for path in config.getoption("relevance_report"):  # relative to where pytest was started, as --junitxml
            write(str(config.invocation_params.dir / path), reports)
        if os.environ.get("GITHUB_STEP_SUMMARY"):
            write_step_summary(os.environ["GITHUB_STEP_SUMMARY"], reports)


def _remove_stale_temp_files(state: State) -> None:
    from pytest_relevance.baseline import remove_stale_temp_files

    try:
        removed = remove_stale_temp_files(state.baseline_path)
    except ValueError as exc:
        state.warnings.append(str(exc))
        return
    if removed:
        state.warnings.append(f"removed {len(removed)} temp file(s) an interrupted update left: {removed[0].name}")


def _update(session: pytest.Session, state: State) -> None:
    """Write the entries of the tests that compared; drop entries only of tests a whole-suite run did not collect.

    A baseline that cannot be written fails the run with one line (the tests that would have updated it say `not
    written`); Ctrl-C during the write ends it as pytest ends an interrupted run, with the old file in place.
    """
    from pytest_relevance.baseline import changed_values, write_baseline
    from pytest_relevance.errors import RelevanceInputError

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


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = _state(config)
    if hasattr(config, "workerinput"):
        return
    update, unused = config.getoption("relevance_update"), state.unused
    if not (state.results or state.warnings or state.errors or unused or state.removed or state.notes):
        return
    from pytest_relevance.reports.terminal import change_lines, count_line, summary_lines, test_line

    verbosity = config.get_verbosity()
    if verbosity >= 0:
        terminalreporter.section("relevance")
    for nodeid in sorted(state.results) if verbosity >= 0 else []:
        result = state.results[nodeid]
        report = result.get("report", {})
        if verbosity > 0 or report.get("status") not in ("passed", "updated", "unchanged"):
            lines = summary_lines(nodeid, result)  # the table: on -v, and always for a test that did not pass
        else:
            lines = [test_line(nodeid, result), *change_lines(result)]
        lines += [f"  note: {note}" for note in [*report.get("notes", []), result.get("repeat")] if note]
        for line in lines:
            terminalreporter.write_line(line)
    if state.results:
        terminalreporter.write_line(count_line(state.results.values()))
    baseline = setting(config, "relevance_baseline")
    for nodeid in state.removed:
        terminalreporter.write_line(f"removed baseline entry {nodeid}: no test of this whole-suite run has that id")
    if update and state.saved:
        terminalreporter.write_line(f"baseline written: {baseline}")
    if update and state.partial and state.results:
        terminalreporter.write_line(f"entries of tests this run did not collect are kept ({state.partial})")
    fail = state.settings.unused == "fail"
    for nodeid in unused:
        terminalreporter.write_line(
            f"unused baseline entry {nodeid} (no test has that id; a whole-suite --relevance-update removes it)",
            red=fail,
            yellow=not fail,
        )
    if unused and fail:
        terminalreporter.write_line(f"relevance_unused = fail: {len(unused)} unused baseline entries fail the run")
    for note in dict.fromkeys(state.notes):
        terminalreporter.write_line(note)
    for error in state.errors:
        terminalreporter.write_line(f"error: {error}", red=True)
    for warning in state.warnings:
        terminalreporter.write_line(f"warning: {warning}", yellow=True)


def _unused(state: State) -> list[str]:
    """Entries no collected test owns; only said after a whole-suite run, where it is true."""
    if state.partial or not state.baseline_path.is_file():
        return []
    try:
        entries = state.baseline()
    except ValueError:
        return []
    return sorted(set(entries) - state.collected)
