"""THE way a relevance setting gets its value, for the plugin and every command: the flag, then the ini file, then
(for the Elasticsearch connection and its secrets) the environment, then the default; a path against the rootdir.

The plugin reads flags and ini values from pytest's config, a command from its own flags and the project's ini file
(`project.find_ini`, found as pytest finds it); both hand them to `Resolver`, so a setting can never mean one thing
under pytest and another on the command line.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_relevance.config.keys import SETTINGS

#: secrets are read from the environment or the ini file only: a flag would land in shell history and CI logs
NO_FLAG = ("relevance_es_api_key", "relevance_es_password")
#: settings the environment may give (RELEVANCE_ES_URL, ...), when neither a flag nor the ini does
FROM_ENV = (
    "relevance_es_url",
    "relevance_es_api_key",
    "relevance_es_user",
    "relevance_es_password",
    "relevance_es_ca_certs",
    "relevance_clicks_log",
)
#: settings whose value is a path, resolved against the rootdir (the ini file's directory); `paths` reads the
#: settings that are several
PATHS = ("relevance_judgments", "relevance_topics", "relevance_corpus", "relevance_index_config", "relevance_query")


@dataclass(frozen=True)
class Resolver:
    """`flag(key)`: the value a flag gave, or None; `ini(key)`: the ini file's value, or None (or the default, as
    pytest's getini answers); `root`: the directory relative paths are read from (None outside a project)."""

    flag: Callable[[str], object | None]
    ini: Callable[[str], object | None]
    root: Path | None

    def value(self, key: str) -> str:
        """flag > ini > environment (FROM_ENV keys) > default, as text without surrounding blanks."""
        value = None if key in NO_FLAG else self.flag(key)
        if value is None:
            value = self.ini(key)
        if value is None:
            value = SETTINGS[key][1]
        if key in FROM_ENV and not value:
            value = os.environ.get(key.upper(), "")
        return str(value).strip()

    def path(self, key: str) -> Path | None:
        """A path setting against the rootdir; None when it is empty, or relative outside a project."""
        value = self.value(key)
        if not value:
            return None
        path = Path(value)
        if path.is_absolute():
            return path
        return self.root / path if self.root is not None else None

    def paths(self, key: str) -> list[Path]:
        """A setting of several paths (blank-separated), each against the rootdir as `path` reads one; relative ones
        are dropped outside a project."""
        root, found = self.root, [Path(part) for part in self.value(key).split()]
        return [
            path if path.is_absolute() or root is None else root / path for path in found if path.is_absolute() or root
        ]
