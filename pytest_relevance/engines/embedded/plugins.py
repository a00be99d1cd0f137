"""Names that Elasticsearch's plugins (and OpenSearch's) register: an analysis component, a field type. Such a name
is neither a typo nor something a plain Elasticsearch runs, so a refusal names the plugin a server needs for it."""

from __future__ import annotations

_ICU, _KUROMOJI, _NORI = "analysis-icu", "analysis-kuromoji", "analysis-nori"
_EXTRA, _TEXTIFY = "extra (Wikimedia's, for CirrusSearch)", "extra-analysis-textify (Wikimedia's, for CirrusSearch)"
# the names each plugin registers that its prefix below does not cover (or that a prefix would give another plugin)
_BY_NAME = {
    "icu_token_repair": _TEXTIFY,
    "limited_mapping": _TEXTIFY,
    "acronym_fixer": _TEXTIFY,
    "camelCase_splitter": _TEXTIFY,
    "preserve_original": _EXTRA,
    "preserve_original_recorder": _EXTRA,
    "term_freq": _EXTRA,
    "truncate_norm": _EXTRA,
    "homoglyph_norm": _EXTRA,
    "hiragana_uppercase": _KUROMOJI,
    "katakana_uppercase": _KUROMOJI,
    "murmur3": "mapper-murmur3",
    "annotated_text": "mapper-annotated-text",
}
_BY_PREFIX = (
    ("icu_", _ICU),
    ("kuromoji", _KUROMOJI),
    ("ja_", _KUROMOJI),
    ("nori", _NORI),
    ("smartcn", "analysis-smartcn"),
    ("phonetic", "analysis-phonetic"),
    ("polish", "analysis-stempel"),
    ("stempel", "analysis-stempel"),
    ("ukrainian", "analysis-ukrainian"),
)
# queries that a plugin registers, and whether that plugin is OpenSearch's (which no Elasticsearch server runs)
_LTR = "ltr (o19s's Learning to Rank)"
_QUERIES = {"sltr": (_LTR, False), "neural": ("neural-search", True), "neural_sparse": ("neural-search", True),
            "hybrid": ("neural-search", True)}  # fmt: skip
KNN_VECTOR = (
    "the field type 'knn_vector' is the OpenSearch k-NN plugin's, which Elasticsearch does not have; map the field "
    "as Elasticsearch's dense_vector (with dims), which the embedded engine runs"
)


def plugin_of(name: str) -> str | None:
    """The plugin that registers `name`, or None for a name no plugin here registers."""
    if name in _BY_NAME:
        return _BY_NAME[name]
    return next((plugin for prefix, plugin in _BY_PREFIX if name.startswith(prefix)), None)


def needs_plugin(what: str, plugin: str) -> str:
    return f"{what} needs the {plugin} plugin; the Elasticsearch engine with that plugin runs it"


def plugin_query(name: str) -> str | None:
    """Why the query type `name` is a plugin's, or None when no plugin here registers it."""
    if name not in _QUERIES:
        return None
    plugin, opensearch = _QUERIES[name]
    if opensearch:
        return (
            f"unknown query [{name}]: it is the OpenSearch {plugin} plugin's query, which Elasticsearch does not have"
        )
    return needs_plugin(f"the query [{name}]", plugin)
