"""`Analysis`: the analyzers, normalizers and components one index config defines in `settings.analysis`, on top
of the built-ins, as the mapping asks for them by name."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_relevance.engines.embedded.analysis.analyzer import Analyzer
from pytest_relevance.engines.embedded.analysis.registry import Registry


class Analysis:
    """The analyzers and normalizers of one index config (its `settings.analysis`), built-ins always available."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    @classmethod
    def from_settings(cls, settings: Mapping | None, source: str | Path, base_dir: Path | None = None) -> Analysis:
        """Build from a create-index body's `settings` (plain or under `index`); `source` names the config file in
        errors, `base_dir` resolves `*_path` files (synonyms, stop words, mappings) as Elasticsearch's config dir."""
        return cls(Registry(settings, str(source), base_dir))

    def check_definitions(self) -> None:
        """Refuse the config if any analysis component it defines cannot be built, used or not, as Elasticsearch's
        index creation does."""
        self._registry.check_definitions()

    def analyzer(self, name: str, key_path: str) -> Analyzer:
        """The analyzer called `name` (custom or built-in); `key_path` says where the name was used, for errors."""
        return self._registry.analyzer(name, key_path)

    def normalizer(self, name: str, key_path: str) -> Analyzer:
        """The normalizer called `name` (custom or the built-in `lowercase`), as a keyword-tokenizer analyzer."""
        return self._registry.normalizer(name, key_path)

    @property
    def warnings(self) -> list[str]:
        """What the config sets that Elasticsearch accepts and ignores (an option no factory reads, an unknown
        `_name_` in a stop list), each a message naming the file and key, for the user to see."""
        return list(self._registry.warnings.values())

    def has_analyzer(self, name: str) -> bool:
        """Whether the config defines `name` (the `default` / `default_search` overrides are looked up this way)."""
        return self._registry.has_analyzer(name)

    def setting(self, name: str, default: Any) -> Any:
        """An index-level setting (`max_result_window`...), written nested, dotted or under `index`."""
        return self._registry.settings.get(name, default)

    def updateable_filters(self, name: str) -> list[str]:
        """The token filters of analyzer `name` marked `updateable: true`, which Elasticsearch allows only at
        search time (it refuses a mapping that indexes with them)."""
        return self._registry.updateable_filters(name)
