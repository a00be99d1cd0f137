"""The project's relevance settings as the command line reads them: the `relevance_*` keys of the pytest ini file
found from the working directory up, as pytest finds it (pytest.ini, .pytest.ini, pyproject.toml's
`[tool.pytest.ini_options]`, tox.ini's `[pytest]`, setup.cfg's `[tool:pytest]`, the first in the nearest directory),
with the plugin's defaults for keys it does not set and paths relative to the ini file's directory, as the plugin
resolves them against the rootdir. So `pytest-relevance pool` inside a project needs none of the five paths again;
a flag still wins.
"""

from __future__ import annotations

import configparser
import tomllib
from collections.abc import Mapping
from pathlib import Path

from pytest_relevance.config.resolver import Resolver
from pytest_relevance.errors import RelevanceInputError

#: the settings a command that measures the project (`diff`, `tune`) takes as flags too, each overriding its ini key
#: (flag dest -> ini key); `tune` takes all but the tolerance, which its decision does not read
OVERRIDES = {
    "judgments": "relevance_judgments",
    "topics": "relevance_topics",
    "corpus": "relevance_corpus",
    "index_config": "relevance_index_config",
    "query": "relevance_query",
    "metrics": "relevance_metrics",
    "tolerance": "relevance_tolerance",
    "id_field": "relevance_id_field",
}


def find_ini(start: Path) -> tuple[Path, dict[str, str]] | None:
    """(the ini file, its pytest keys) of the nearest directory from `start` up that has one, or None."""
    for folder in (start, *start.parents):
        for name in ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
            path = folder / name
            if path.is_file() and (keys := _keys(path)) is not None:
                return path, keys
    return None


def _keys(path: Path) -> dict[str, str] | None:
    """The pytest keys the file holds, or None when it is not a pytest configuration (pytest.ini always is)."""
    try:
        if path.suffix == ".toml":
            table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("pytest", {})
            options = table.get("ini_options") if isinstance(table, dict) else None
            if not isinstance(options, dict):
                return None
            return {key: " ".join(map(str, v)) if isinstance(v, list) else str(v) for key, v in options.items()}
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(path.read_text(encoding="utf-8"), str(path))
    except (tomllib.TOMLDecodeError, configparser.Error, UnicodeDecodeError) as exc:
        raise RelevanceInputError(path, f"cannot read it as pytest's configuration ({exc})") from None
    section = {"setup.cfg": "tool:pytest"}.get(path.name, "pytest")
    if parser.has_section(section):
        return dict(parser.items(section))
    return {} if path.name in ("pytest.ini", ".pytest.ini") else None


def resolver(start: Path, flags: Mapping[str, object | None] | None = None) -> Resolver:
    """The resolver of the project around `start`: `flags` (setting key -> a flag's value, None when not given),
    then its ini file's keys, the environment and the defaults; paths against the ini file's directory (none outside
    a project)."""
    found = find_ini(start)
    ini, keys = found if found is not None else (None, {})
    given = dict(flags or {})
    return Resolver(given.get, keys.get, ini.parent if ini is not None else None)


def fill(values: Mapping[str, str], start: Path) -> dict[str, str | None]:
    """`values` (flag dest -> setting key) turned into dest -> the project's value for that key (a path made
    absolute against the ini file's directory), or the plugin's default. Outside a project a path is None: there is
    no directory its default is relative to. The caller keeps a flag that was given."""
    from pytest_relevance.config.resolver import PATHS

    settings = resolver(start)
    out: dict[str, str | None] = {}
    for dest, key in values.items():
        if key in PATHS:
            path = settings.path(key)
            out[dest] = str(path) if path is not None else None
        else:
            out[dest] = settings.value(key) or None
    return out


def missing(flag: str, key: str, start: Path) -> RelevanceInputError:
    """The error for a path neither a flag nor a project gives."""
    where = (
        "no pytest ini file was found from here up"
        if find_ini(start) is None
        else "the project's pytest ini leaves it empty"
    )
    return RelevanceInputError(flag, f"not given, and {where} to read {key} from; pass {flag} PATH")
