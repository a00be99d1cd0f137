"""The relevance fixtures (`relevance_judgments`, `relevance_clock`, `relevance_snapshot`, `relevance_corpus`,
`relevance_index_config`, `relevance_index` and its session-wide index, `relevance_es_client`), registered by the
hooks module when pytest configures. Bad input met while a fixture loads is one clean fixture error.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import pytest

from pytest_relevance.plugin.session import (
    SNAPSHOT,
    corpus_ids,
    engine_settings,
    make_engine,
    marker_settings,
    resolve,
    setting,
    state_of,
    warn,
    warn_missing_documents,
)

if TYPE_CHECKING:
    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.inputs.corpus import CorpusFile
    from pytest_relevance.judgments.model import Judgments

_P = ParamSpec("_P")
_T = TypeVar("_T")


@pytest.fixture
def relevance_judgments(request: pytest.FixtureRequest) -> Judgments:
    """The judged queries (from relevance_judgments, or the marker's judgments=)."""
    marker = request.node.get_closest_marker("relevance")
    value = (marker.kwargs.get("judgments") if marker else None) or setting(request.config, "relevance_judgments")
    return _input(state_of(request.config).load_judgments, str(value))


@pytest.fixture
def relevance_clock(request: pytest.FixtureRequest) -> Any:
    """Freezes time (tick=False) at relevance_now, or the marker's now=, for the whole test; yields the instant."""
    import time_machine

    instant = marker_settings(request, state_of(request.config)).now
    with time_machine.travel(instant, tick=False):
        yield instant


@pytest.fixture
def relevance_snapshot(request: pytest.FixtureRequest, relevance_judgments: Judgments, relevance_clock: Any) -> Any:
    """Compare a run with the committed baseline: ``assert relevance_snapshot == run``."""
    from pytest_relevance.config.settings import SettingError

    settings = marker_settings(request, state_of(request.config))
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
            state_of(config), request.node, relevance_judgments, settings, corpus, corpus_file
        )
        return snapshot
    pytest.fail(message, pytrace=False)


def _input(load: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """Call a loader; bad input becomes one clean fixture error instead of a traceback."""
    try:
        return load(*args, **kwargs)
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
    state = state_of(config)
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
    # the embedded engine's index cache: what it did (a note) or could not do (a warning, one per cache directory)
    cache_note, cache_warning = getattr(index, "cache_note", None), getattr(index, "cache_warning", None)
    if cache_note:
        state.notes.append(cache_note)
    if cache_warning:
        state.cache_warnings.setdefault(str(getattr(engine, "cache_dir", None)), cache_warning)
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
        counted=bool(state.settings.max_cost),
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
    settings = marker_settings(request, state_of(request.config))
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
