"""One engine factory for the plugin and every command: the engine `relevance_engine` names, a plugin's first
(the `pytest_relevance_make_engine` hook), else a built-in one, built from the same settings wherever it is asked for.

The built-in engines are imported here and only here, on demand: a run on Elasticsearch never loads the embedded
engine, and the other packages reach an engine through this module and the protocol in `engines.base`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_relevance.engines.base import Engine
from pytest_relevance.errors import RelevanceInputError

BUILT_IN = ("embedded", "elasticsearch")


@dataclass(frozen=True)
class EngineSettings:
    """What building an engine reads: the relevance_engine name, the embedded engine's cache, and the Elasticsearch
    connection with the name of the index this engine may create (and delete)."""

    name: str
    cache_dir: Path | None = None
    index_name: str = "relevance"
    es_url: str = ""
    es_api_key: str = ""
    es_user: str = ""
    es_password: str = ""
    es_ca_certs: str = ""
    es_batch: int = 100
    es_concurrency: int = 4


class EngineUnavailable(ValueError):
    """No plugin and no built-in engine answers to the name."""


def make_engine(
    settings: EngineSettings,
    from_plugins: Callable[[str], Engine | None],
    es_client: Callable[[], Any] | None = None,
) -> Engine:
    """The engine for `settings.name`: `from_plugins(name)` first, then the built-in ones. `es_client` gives the
    client of the Elasticsearch engine (the plugin's overridable fixture); without it one is made from the URL."""
    engine = from_plugins(settings.name)
    if engine is not None:
        return engine
    if settings.name == "embedded":
        from pytest_relevance.engines.embedded import EmbeddedEngine

        return EmbeddedEngine(settings.cache_dir)
    if settings.name == "elasticsearch":
        from pytest_relevance.engines.elasticsearch.engine import ElasticsearchEngine

        client = es_client() if es_client is not None else es_client_from(settings)
        url = settings.es_url or "the relevance_es_client cluster"
        return ElasticsearchEngine(client, settings.index_name, url, settings.es_batch, settings.es_concurrency)
    raise EngineUnavailable(
        f"relevance_engine = {settings.name!r} is not available (built in: embedded, elasticsearch; others come "
        "from plugins implementing pytest_relevance_make_engine)"
    )


def analyze(
    index_config: Mapping[str, Any], source: str, base: Path, text: str, analyzer: str | None, field: str | None
) -> list[dict[str, Any]]:
    """Elasticsearch's `_analyze` as the embedded engine analyzes, from the index config alone (no corpus, no index):
    the tokens an analyzer, or a field's index analyzer, makes of `text`. Files the config references are read
    relative to `base`; errors name `source`."""
    from pytest_relevance.engines.embedded.mapping import IndexMapping

    tokens: list[dict[str, Any]] = IndexMapping(dict(index_config), source, base).analyze(text, analyzer, field)
    return tokens


def es_client_from(settings: EngineSettings) -> Any:
    """A client for `settings.es_url`, checked first (a bad URL is one line naming relevance_es_url)."""
    from pytest_relevance.engines.elasticsearch.engine import make_client

    if not settings.es_url:
        raise RelevanceInputError(
            "relevance_engine", "relevance_engine = elasticsearch needs relevance_es_url (or RELEVANCE_ES_URL)"
        )
    return make_client(
        settings.es_url, settings.es_api_key, settings.es_user, settings.es_password, settings.es_ca_certs
    )


def check_es_url(url: str) -> None:
    """The URL's shape checked at configure time, before anything connects."""
    from pytest_relevance.engines.elasticsearch.engine import check_url

    check_url(url)


class ProjectConfig:
    """What the engine hook's `config` offers a plugin, outside pytest: the project's ini keys (its own as well as
    the relevance_* ones), the command's flags, and the rootdir."""

    def __init__(self, root: Path, ini: Mapping[str, str], flags: Mapping[str, Any]) -> None:
        self.rootpath, self._ini, self._flags = root, dict(ini), dict(flags)

    def getini(self, name: str) -> str:
        return self._ini.get(name, "")

    def getoption(self, name: str, default: Any = None) -> Any:
        return self._flags.get(name, default)


def plugin_engines(root: Path, config: ProjectConfig) -> Callable[[str], Engine | None]:
    """The engine hook as pytest would call it in this project, for a command outside pytest (first answer wins):
    the implementations in the rootdir's conftest.py, then in the installed pytest plugins (entry points
    `pytest11`). They are loaded only for a name no built-in engine has, so `diff` on the embedded engine imports no
    other plugin."""

    def find(name: str) -> Engine | None:
        if name in BUILT_IN:
            return None
        modules = []
        conftest = root / "conftest.py"
        if conftest.is_file():  # pytest calls the rootdir's conftest before the installed plugins
            modules.append(_load_module(conftest))
        for entry in importlib.metadata.entry_points(group="pytest11"):
            if entry.value.startswith("pytest_relevance."):
                continue
            try:
                modules.append(entry.load())
            except Exception:
                continue
        arguments = {"name": name, "config": config}
        for module in modules:
            hook = getattr(module, "pytest_relevance_make_engine", None)
            if callable(hook):  # as pluggy calls an implementation: with the arguments it declares
                wanted = inspect.signature(hook).parameters
                engine: Engine | None = hook(**{key: value for key, value in arguments.items() if key in wanted})
                if engine is not None:
                    return engine
        return None

    return find


def _load_module(path: Path) -> Any:
    """A conftest.py imported as pytest imports a rootdir conftest: its directory on sys.path, under the name
    `conftest`, so that its own imports of sibling modules work."""
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("conftest", path)
    if spec is None or spec.loader is None:
        raise RelevanceInputError(path, "cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise RelevanceInputError(path, f"cannot be imported ({type(exc).__name__}: {exc})") from None
    return module
