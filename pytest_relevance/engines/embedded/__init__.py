"""The embedded engine: an in-process index of numpy arrays, so the demo gate runs with no server.

It reads Elasticsearch's own formats (a create-index body, a search body), so one configuration serves both engines.
Text is analyzed as Lucene analyzes it (`analysis/`, `mapping.py`) into an inverted index scored with BM25 exactly
as Elasticsearch 8 scores it (`scoring.py`); keyword, numeric, date, boolean, geo_point, rank_feature and
dense_vector fields are columns over document ordinals; nested objects are child indexes. A query is evaluated over
*every* document at once (no top-N slice), so recency and popularity functions rescore the whole match set and the
top k is exact. Ties are broken by doc id, ascending, as the Elasticsearch engine's sort does.

The query DSL lives in `queries/`, one function per query type; anything else is an error naming the construct and
where it is: Elasticsearch 8's own refusal for what it rejects, the plugin for a plugin's construct (`plugins.py`),
and that the Elasticsearch engine supports it only for what Elasticsearch 8 itself runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_relevance.engines.embedded.embedded_index import IDENTITY, EmbeddedIndex

__all__ = ["IDENTITY", "EmbeddedEngine", "EmbeddedIndex"]


class EmbeddedEngine:
    """Opens an in-memory index from a corpus and an Elasticsearch create-index body; with a `cache_dir`, an index
    built once is saved there and loaded by later runs and sibling xdist workers (`store.py`)."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = cache_dir

    def sibling(self, suffix: str) -> EmbeddedEngine:
        """The engine that opens a second index beside the first (the baseline's, to explain a failure): this one,
        as in-memory indexes share nothing."""
        return self

    def open(
        self, corpus: Sequence[dict[str, Any]], index_config: dict[str, Any], id_field: str, source: str = "index"
    ) -> EmbeddedIndex:
        if self.cache_dir is None:
            return EmbeddedIndex(corpus, index_config, id_field, source)
        from pytest_relevance.engines.embedded.store import open_cached

        return open_cached(self.cache_dir, corpus, index_config, id_field, source)
