"""pytest glue: options, ini keys, the hooks and the terminal summary (the fixtures are `fixtures`, registered
here). Logic lives elsewhere.

Everything beyond pytest itself is imported lazily, so a run with no relevance test pays almost nothing for the
plugin being installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_relevance.config.keys import SETTINGS
from pytest_relevance.config.resolver import NO_FLAG
from pytest_relevance.plugin.session import (
    SNAPSHOT,
    STATE,
    RelevanceWarning,
    State,
    clean_temp_files,
    index_cache,
    partial_reason,
    read_settings,
    say_cache_warnings,
    setting,
    state_of,
    unchanged_reason,
    unused_entries,
    write_reports,
    write_updates,
)

if TYPE_CHECKING:
    pass

__all__ = ["RelevanceWarning"]  # -W error::pytest_relevance.plugin.hooks.RelevanceWarning names it here


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
            escaped = text.replace("%", "%%")  # argparse formats a flag's help: "95% interval" would be "%i"
            group.addoption(
                f"--{name.replace('_', '-')}", dest=name, default=None, help=f"{escaped}; overrides ini {name}"
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
    config.pluginmanager.import_plugin("pytest_relevance.plugin.fixtures")
    if config.getoption("relevance_rebuild") and not hasattr(config, "workerinput") and (cache := index_cache(config)):
        import shutil  # here, before any xdist worker starts: the first of them builds, the others load

        shutil.rmtree(cache, ignore_errors=True)


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
            state_of(config).notes.append(note)
        if skip:
            for item in items:
                if item.get_closest_marker("relevance"):
                    item.add_marker(pytest.mark.skip(reason=skip))


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        state_of(items[0].config).mark_partial(f"{len(items)} tests deselected")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """A module that failed to import, or skipped itself, hides its tests: their entries must not look unused."""
    report = yield
    if not report.passed:
        what = "could not be collected" if report.failed else "was skipped at collection"
        state_of(collector.config).mark_partial(f"{report.nodeid or 'a module'} {what}")
    return report


def pytest_collection_finish(session: pytest.Session) -> None:
    state_of(session.config).collected.update(item.nodeid for item in session.items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """xdist controller: the workers collect, the controller does not; each worker tells its collection."""
    state_of(node.config).collected.update(ids)


# ---------------------------------------------------------------- fixtures


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
    state = state_of(node.config)
    state.results.update(output.get("relevance", {}))
    state.mark_partial(output.get("relevance_partial", ""))
    state.notes += output.get("relevance_notes", [])
    for folder, warning in output.get("relevance_cache_warnings", {}).items():
        state.cache_warnings.setdefault(folder, warning)
    if error:
        state.mark_partial(f"xdist worker {getattr(node, 'gateway', node).id} went down")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = state_of(config)
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
    state = state_of(config)
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
