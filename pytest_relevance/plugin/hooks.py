"""pytest glue: options, ini keys, fixtures, the snapshot assertion, the terminal summary. Logic lives elsewhere.

Everything beyond pytest itself is imported lazily, so a run with no relevance test pays almost nothing for the
plugin being installed.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

import pytest

from pytest_relevance.config.keys import SETTINGS
from pytest_relevance.plugin.session import (
    NO_FLAG,
    RelevanceWarning,
    State,
    clean_temp_files,
    corpus_ids,
    engine_settings,
    index_cache,
    make_engine,
    marker_settings,
    partial_reason,
    read_settings,
    resolve,
    say_cache_warnings,
    setting,
    unchanged_reason,
    unused_entries,
    warn,
    warn_missing_documents,
    write_reports,
    write_updates,
)

if TYPE_CHECKING:
    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.inputs.corpus import CorpusFile
    from pytest_relevance.judgments.model import Judgments

__all__ = ["RelevanceWarning"]  # -W error::pytest_relevance.plugin.hooks.RelevanceWarning names it here


STATE = pytest.StashKey["State"]()
SNAPSHOT = pytest.StashKey["RelevanceSnapshot"]()


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
    from pytest_relevance.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    """Every setting is read and checked here, once: a bad value stops the run before anything is built."""
    config.addinivalue_line(
        "markers",
        "relevance(metrics=None, tolerance=None, judgments=None, now=None): a relevance test; the arguments "
        "override the relevance_* settings for this test",
    )
    settings = read_settings(config)
    config.stash[STATE] = State(config, settings)
    if config.getoption("relevance_rebuild") and not hasattr(config, "workerinput") and (cache := index_cache(config)):
        import shutil  # here, before any xdist worker starts: the first of them builds, the others load

        shutil.rmtree(cache, ignore_errors=True)


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
        skip, note = unchanged_reason(config, ref)
        if note:
            _state(config).notes.append(note)
        if skip:
            for item in items:
                if item.get_closest_marker("relevance"):
                    item.add_marker(pytest.mark.skip(reason=skip))


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

    instant = marker_settings(request, _state(request.config)).now
    with time_machine.travel(instant, tick=False):
        yield instant


@pytest.fixture
def relevance_snapshot(request: pytest.FixtureRequest, relevance_judgments: Judgments, relevance_clock: Any) -> Any:
    """Compare a run with the committed baseline: ``assert relevance_snapshot == run``."""
    from pytest_relevance.config.settings import SettingError

    settings = marker_settings(request, _state(request.config))
    try:
        settings.tolerance.check_keys(
            list(relevance_judgments.groups), [m.spec for m in settings.metrics], "relevance_tolerance"
        )
    except SettingError as exc:
        message = f"relevance: {exc}"  # failed outside the handler: inside, pytest prints the message twice
    else:
        from pytest_relevance.evaluation.diversity import check_fields
        from pytest_relevance.metrics.ranking import BEYOND
        from pytest_relevance.plugin.assertion import RelevanceSnapshot

        beyond = [m for m in settings.metrics if m.name in BEYOND]
        corpus = request.getfixturevalue("_relevance_corpus_fields") if beyond else None
        if corpus is not None:
            _input(check_fields, beyond, corpus)  # a field the corpus lacks: at setup, naming metric and field
        config = request.config
        # a custom ranker's run does not know the corpus size that coverage and its floor divide by: the session's
        # corpus does, when relevance_corpus names a file (parsed only if a run without the size comes)
        has_corpus = resolve(config, setting(config, "relevance_corpus")).is_file()
        corpus_file = request.getfixturevalue("_relevance_corpus_file") if has_corpus else None
        snapshot = request.node.stash[SNAPSHOT] = RelevanceSnapshot(
            _state(config), request.node, relevance_judgments, settings, corpus, corpus_file
        )
        return snapshot
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
    from pytest_relevance.inputs.corpus import CorpusFile

    config = request.config
    path = resolve(config, setting(config, "relevance_corpus"))
    return _input(CorpusFile, path, setting(config, "relevance_id_field"))


@pytest.fixture(scope="session")
def _relevance_corpus_fields(request: pytest.FixtureRequest, _relevance_corpus_file: CorpusFile) -> CorpusFields:
    """The corpus as the metrics beyond relevance read it, built once a session and only when one is gated."""
    from pytest_relevance.evaluation.diversity import CorpusFields

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
    from pytest_relevance.inputs.corpus import load_mapping

    return _input(load_mapping, resolve(request.config, setting(request.config, "relevance_index_config")))


@pytest.fixture(scope="session")
def relevance_session_index(
    request: pytest.FixtureRequest, _relevance_corpus_file: CorpusFile, relevance_index_config: dict[str, Any]
) -> Any:
    """The fixture index, built once per session (per xdist worker) on relevance_engine; closed at the end."""
    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.inputs.templates import has_query_placeholder, load_template
    from pytest_relevance.util.fingerprints import index_inputs

    config = request.config
    state = _state(config)
    engine = state.engine = make_engine(request)
    # the resolved path: analysis files (synonyms_path, stopwords_path) are read relative to it, wherever pytest runs
    config_path = resolve(config, setting(config, "relevance_index_config"))
    source = str(config_path)
    corpus, id_field = _relevance_corpus_file, setting(config, "relevance_id_field")
    index_config = relevance_index_config
    if setting(config, "relevance_engine") == "embedded":  # the server keeps its own synonyms sets
        from pytest_relevance.inputs import synonyms_sets

        sets = _input(synonyms_sets.parse, setting(config, synonyms_sets.KEY), config.rootpath)
        index_config = _input(synonyms_sets.resolve, relevance_index_config, sets, config_path)
    index = _input(engine.open, corpus, index_config, id_field, source)
    if getattr(index, "cache_note", None):
        state.notes.append(index.cache_note)
    if getattr(index, "cache_warning", None):
        state.cache_warnings.setdefault(str(engine.cache_dir), index.cache_warning)
    for message in getattr(index, "config_warnings", ()):  # the embedded engine's: what Elasticsearch ignores
        warn(message, config_path)
    query_path = resolve(config, setting(config, "relevance_query"))
    template = _input(load_template, query_path)
    if not has_query_placeholder(template):
        warn(
            f"{setting(config, 'relevance_query')}: the template has no {{{{query}}}}, so every query gets the same "
            "results; put {{query}} where the user's text goes",
            query_path,
        )
    judgments = _input(state.load_judgments, setting(config, "relevance_judgments"))
    ids = _input(corpus_ids, index, corpus, id_field)
    warn_missing_documents(judgments, ids)
    fixture = FixtureIndex(
        index,
        template,
        judgments,
        state.settings.now,
        state.settings.depth,
        setting(config, "relevance_query"),
        config.getoption("relevance_repeat"),
        len(ids),
        index_inputs(corpus.fingerprint, config_path, index_config, query_path),
    )
    # What exists now (the index, the judgments, every module loaded) lives until the session ends; moved out of the
    # cyclic collector's sight, it is not walked again by each full collection the queries' and the evaluation's
    # allocations set off, nor by pytest's own at exit (together a seventh of a warm 10k-document gate)
    gc.freeze()
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
    settings = marker_settings(request, _state(request.config))
    return relevance_session_index.for_test(relevance_judgments, settings.now, settings.depth)


@pytest.fixture(scope="session")
def relevance_es_client(request: pytest.FixtureRequest) -> Any:
    """The client the elasticsearch engine uses; override it with your own Elasticsearch or OpenSearch client."""
    from pytest_relevance.engines.factory import es_client_from

    config = request.config
    if not setting(config, "relevance_es_url"):
        pytest.fail(
            "relevance: relevance_engine = elasticsearch needs relevance_es_url (or RELEVANCE_ES_URL), or a "
            "relevance_es_client fixture of your own",
            pytrace=False,
        )
    client = es_client_from(engine_settings(config))
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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A test that passed although a comparison of it failed (it caught the failure) or it compared nothing fails,
    with the comparison's text: the summary counts its regression, so the session must fail with it."""
    report = yield
    snapshot = item.stash.get(SNAPSHOT, None)
    if snapshot is not None and report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
        failure = snapshot.unreported()
        if failure:
            report.outcome, report.longrepr = "failed", failure
    return report


# ---------------------------------------------------------------- end of session


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: collect what each worker measured, and whether its collection was whole."""
    output = getattr(node, "workeroutput", {})
    state = _state(node.config)
    state.results.update(output.get("relevance", {}))
    state.mark_partial(output.get("relevance_partial", ""))
    state.notes += output.get("relevance_notes", [])
    for folder, warning in output.get("relevance_cache_warnings", {}).items():
        state.cache_warnings.setdefault(folder, warning)
    if error:
        state.mark_partial(f"xdist worker {getattr(node, 'gateway', node).id} went down")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = _state(config)
    if hasattr(config, "workerinput"):
        config.workeroutput["relevance"] = state.results  # type: ignore[attr-defined]
        config.workeroutput["relevance_partial"] = state.partial  # type: ignore[attr-defined]
        config.workeroutput["relevance_notes"] = state.notes  # type: ignore[attr-defined]
        config.workeroutput["relevance_cache_warnings"] = state.cache_warnings  # type: ignore[attr-defined]
        return
    say_cache_warnings(session, state)
    state.mark_partial(partial_reason(session, state, exitstatus))
    if not state.results and not state.baseline_path.is_file():
        return
    clean_temp_files(state)
    if config.getoption("relevance_update"):
        write_updates(session, state)
    else:
        state.unused = unused_entries(state)
        if state.unused and state.settings.unused == "fail" and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    write_reports(config, state)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = _state(config)
    if hasattr(config, "workerinput"):
        return
    if not (state.results or state.warnings or state.errors or state.unused or state.removed or state.notes):
        return
    from pytest_relevance.reports.terminal import session_lines

    verbosity = config.get_verbosity()
    if verbosity >= 0:
        terminalreporter.section("relevance")
    update, baseline = config.getoption("relevance_update"), setting(config, "relevance_baseline")
    for line, color in session_lines(state, verbosity, update, baseline):
        terminalreporter.write_line(line, **({color: True} if color else {}))
