"""Synonyms sets for the embedded engine: Elasticsearch's Synonyms API keeps them on the server, so a filter's
`synonyms_set: <id>` names nothing an in-process index can read. `relevance_synonyms_sets = "id=path ..."` maps
each id to a local file of rules in the Solr format (the format of `synonyms_path` files, which the Synonyms API
takes rule by rule), and the index config is read with each `synonyms_set` replaced by a `synonyms_path` to that
file, relative to the config's directory: so the set's file is fingerprinted, cached and explained like any file
the config references. The Elasticsearch engine sends the config as written: its sets are the server's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError

KEY = "relevance_synonyms_sets"


def parse(value: str, root: Path) -> dict[str, Path]:
    """`id=path ...` (paths relative to `root`) -> id -> the file; bad input names the setting and the entry."""
    sets: dict[str, Path] = {}
    for entry in value.split():
        name, sep, path = entry.partition("=")
        if not sep or not name or not path:
            raise RelevanceInputError(KEY, f"{entry!r} is not id=path; write e.g. 'products=synonyms/products.txt'")
        if name in sets:
            raise RelevanceInputError(KEY, f"the synonyms set {name!r} is given twice")
        sets[name] = root / path
    return sets


def resolve(config: Any, sets: Mapping[str, Path], config_path: Path) -> Any:
    """The index config with every `synonyms_set: <id>` read from its local file (see the module docstring)."""
    if not isinstance(config, dict):
        return config
    found = _filters(config)
    if not found:
        return config
    resolved = {**config, "settings": _copy(config.get("settings"))}
    for where, spec in _filters(resolved):
        name = str(spec.pop("synonyms_set"))
        if name not in sets:
            known = ", ".join(sorted(sets)) or "none"
            raise RelevanceInputError(
                config_path,
                f"{where}.synonyms_set: no synonyms set {name!r} (the sets live on the server; for the embedded "
                f'engine map it to a local file of rules: {KEY} = "{name}=path/to/{name}.txt"; sets given: {known})',
            )
        if not sets[name].is_file():
            raise RelevanceInputError(sets[name], f"the synonyms set {name!r} ({KEY}) is not a file")
        spec["synonyms_path"] = os.path.relpath(sets[name], config_path.parent)
    return resolved


def _filters(config: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(key path, definition) of every token filter that names a synonyms set, in the nested or the dotted form
    of the settings."""
    settings = config.get("settings")
    if not isinstance(settings, dict):
        return []
    out = []
    for prefix, holder in (("settings", settings), ("settings.index", settings.get("index"))):
        analysis = holder.get("analysis") if isinstance(holder, dict) else None
        filters = analysis.get("filter") if isinstance(analysis, dict) else None
        if isinstance(filters, dict):
            out += [
                (f"{prefix}.analysis.filter.{name}", spec)
                for name, spec in filters.items()
                if isinstance(spec, dict) and "synonyms_set" in spec
            ]
    return out


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_copy(inner) for inner in value]
    return value
