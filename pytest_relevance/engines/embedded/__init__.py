"""The embedded engine: an in-process index of numpy arrays, so the demo gate runs with no server.

It reads Elasticsearch's own formats (a create-index body, a search body), so one configuration serves both engines.
Text fields get an inverted index scored with BM25 exactly as Elasticsearch 8 scores it (`scoring.py`); keyword,
numeric, date and boolean fields are columns over document ordinals for filters and functions. A query is evaluated
over *every* document at once (no top-N slice), so recency and popularity functions rescore the whole match set and
the top k is exact. Ties are broken by doc id, ascending, as the Elasticsearch engine's sort does.

The query DSL lives in `queries/`, one function per query type; anything else is an error naming the construct,
where it is, and that the Elasticsearch engine supports it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from typing import Any

import numpy as np

from pytest_relevance.clock import resolve_date
from pytest_relevance.engines.base import Hits
from pytest_relevance.engines.embedded.index import KeywordField, NumericField, TextField, Tokenize
from pytest_relevance.engines.embedded.queries import HANDLERS, Invalid, Scores, Unsupported
from pytest_relevance.engines.embedded.search import search
from pytest_relevance.errors import RelevanceInputError

ANALYZERS = ("standard", "english", "simple", "whitespace", "keyword")
NUMERIC = ("long", "integer", "short", "byte", "float", "double", "half_float", "scaled_float")
ENGINE_VERSION = "2"  # bumped when the scoring changes, so baselines from an older engine are not compared

_ANALYZERS: dict[str, Tokenize] = {}


def _tokenizer(name: str) -> Tokenize:
    """The tantivy analyzer standing in for an Elasticsearch one (consecutive positions); one per process."""
    if name in _ANALYZERS:
        return _ANALYZERS[name]
    import tantivy

    tokenizer, filters = {
        "standard": (tantivy.Tokenizer.simple(), [tantivy.Filter.lowercase()]),
        "english": (
            tantivy.Tokenizer.simple(),
            [tantivy.Filter.lowercase(), tantivy.Filter.stopword("english"), tantivy.Filter.stemmer("english")],
        ),
        "simple": (tantivy.Tokenizer.regex(r"\p{L}+"), [tantivy.Filter.lowercase()]),
        "whitespace": (tantivy.Tokenizer.whitespace(), []),
        "keyword": (tantivy.Tokenizer.raw(), []),
    }[name]
    builder = tantivy.TextAnalyzerBuilder(tokenizer)
    for item in filters:
        builder = builder.filter(item)
    analyze = builder.build().analyze

    def tokenize(text: str) -> tuple[list[str], range]:
        terms = analyze(text)
        return terms, range(len(terms))

    _ANALYZERS[name] = tokenize
    return tokenize


class EmbeddedEngine:
    """Opens an in-memory index from a corpus and an Elasticsearch create-index body."""

    def open(
        self, corpus: Sequence[dict[str, Any]], index_config: dict[str, Any], id_field: str, source: str = "index"
    ) -> EmbeddedIndex:
        return EmbeddedIndex(corpus, index_config, id_field, source)


class EmbeddedIndex:
    def __init__(self, corpus: Sequence[dict[str, Any]], config: dict[str, Any], id_field: str, source: str) -> None:
        self.identity = f"embedded {ENGINE_VERSION}: Lucene 9 BM25, tantivy {version('tantivy')} analyzers"
        self.source, self.template_source = source, "the query template"
        self.corpus_source = str(getattr(corpus, "path", "the corpus"))
        self.corpus_lines: Sequence[int | None] = getattr(corpus, "lines", None) or [None] * len(corpus)
        self.ids = [str(doc[id_field]) for doc in corpus]
        self.n = len(self.ids)
        self.ordinal = {doc_id: o for o, doc_id in enumerate(self.ids)}
        # rank of each ordinal in id order: the tiebreak among equal scores
        self.id_rank = np.empty(self.n, dtype=np.int64)
        self.id_rank[np.argsort(np.array(self.ids, dtype=object), kind="stable")] = np.arange(self.n)
        self.kinds: dict[str, str] = {}
        self.text: dict[str, TextField] = {}
        self.keyword: dict[str, KeywordField] = {}
        self.numeric: dict[str, NumericField] = {}
        self.function_cache: dict[tuple[Any, ...], np.ndarray] = {}
        self._dates: dict[Any, float] = {}
        similarity = ((config.get("settings") or {}).get("index") or {}).get("similarity") or {}
        default = similarity.get("default") or {}
        self.k1, self.b = float(default.get("k1", 1.2)), float(default.get("b", 0.75))
        properties = (config.get("mappings") or {}).get("properties")
        if not isinstance(properties, dict) or not properties:
            raise RelevanceInputError(source, "the index config needs mappings.properties (an Elasticsearch body)")
        self._map_fields(properties, "")
        for ordinal, doc in enumerate(corpus):
            for name, kind in self.kinds.items():
                values = _values(doc, name)
                if kind == "text":
                    self.text[name].add([self._text_value(v, name, ordinal) for v in values])
                elif not values:
                    continue
                elif kind == "keyword":
                    self.keyword[name].add(ordinal, [self._convert(name, kind, v, ordinal) for v in values])
                else:
                    self.numeric[name].add(ordinal, [self._convert(name, kind, v, ordinal) for v in values])
        for field in self.text.values():
            field.freeze()
        for other in (*self.keyword.values(), *self.numeric.values()):
            other.freeze(self.n)

    # ------------------------------------------------------------ mapping and documents

    def _map_fields(self, properties: Mapping[str, Any], prefix: str) -> None:
        for field, spec in properties.items():
            name = f"{prefix}{field}"
            if not isinstance(spec, dict):
                raise RelevanceInputError(self.source, f"mappings.properties.{name} must be a mapping")
            kind = spec.get("type", "object" if "properties" in spec else None)
            if kind == "object":
                self._map_fields(spec.get("properties", {}), f"{name}.")
                continue
            if kind == "text":
                analyzer = spec.get("analyzer", "standard")
                if analyzer not in ANALYZERS or spec.get("search_analyzer", analyzer) != analyzer:
                    raise RelevanceInputError(
                        self.source,
                        f"field {name!r}: analyzer {analyzer!r} is not one the embedded engine has "
                        f"({', '.join(ANALYZERS)}); custom analyzers need the elasticsearch engine",
                    )
                tokenize = _tokenizer(analyzer)
                self.text[name] = TextField(name, tokenize, tokenize, self.k1, self.b)
                self.kinds[name] = "text"
            elif kind == "keyword":
                self.keyword[name] = KeywordField(name)
                self.kinds[name] = "keyword"
            elif kind in ("date", "boolean", *NUMERIC):
                self.numeric[name] = NumericField(name)
                self.kinds[name] = "number" if kind in NUMERIC else kind
            else:
                raise RelevanceInputError(
                    self.source,
                    f"field {name!r}: type {kind!r} is not supported by the embedded engine (text, keyword, date, "
                    "numbers, boolean); the elasticsearch engine supports it",
                )
            for sub, sub_spec in (spec.get("fields") or {}).items():
                self._map_fields({sub: sub_spec}, f"{name}.")

    def _document_error(self, ordinal: int, problem: str) -> RelevanceInputError:
        """A corpus value that does not fit the mapping: named by corpus file, line and document id."""
        return RelevanceInputError(
            self.corpus_source, f"document {self.ids[ordinal]!r}: {problem}", self.corpus_lines[ordinal]
        )

    def _text_value(self, value: Any, name: str, ordinal: int) -> str:
        if isinstance(value, dict | list):
            raise self._document_error(
                ordinal, f"field {name!r} is mapped as text but holds {json.dumps(value)[:80]} (an object)"
            )
        return ("true" if value else "false") if isinstance(value, bool) else str(value)

    def _convert(self, name: str, kind: str, value: Any, ordinal: int) -> Any:
        try:
            return self._convert_value(kind, value)
        except (TypeError, ValueError) as exc:
            raise self._document_error(
                ordinal, f"field {name!r} is mapped as {kind} but holds {json.dumps(value, default=str)[:80]} ({exc})"
            ) from None

    def _convert_value(self, kind: str, value: Any) -> Any:
        if isinstance(value, dict | list):
            raise ValueError("an object, not a single value")
        if kind == "keyword":
            return ("true" if value else "false") if isinstance(value, bool) else str(value)
        if kind == "date":
            key = value
            if key not in self._dates:
                if isinstance(value, bool):
                    raise ValueError("not a date")
                self._dates[key] = resolve_date(value).timestamp() * 1000
            return self._dates[key]
        if kind == "boolean":
            if isinstance(value, bool):
                return float(value)
            if str(value) in ("true", "false"):
                return float(str(value) == "true")
            raise ValueError("not true or false")
        if isinstance(value, bool):
            raise ValueError("not a number")
        number = float(value)
        if not np.isfinite(number):
            raise ValueError("not a finite number")
        return number

    def convert_query_value(self, field: str, value: Any, path: str) -> Any:
        """A value from the template, in the field's stored representation; a bad one names the template key."""
        try:
            return self._convert_value(self.kinds[field], value)
        except (TypeError, ValueError) as exc:
            raise Invalid(path, f"{value!r} does not fit the {self.kinds[field]} field {field!r} ({exc})") from None

    # ------------------------------------------------------------ what the query handlers use

    def check_field(self, field: Any, path: str) -> None:
        if not isinstance(field, str) or field not in self.kinds:
            raise Invalid(path, f"field {field!r} is not in the index mappings")

    def postings_field(self, field: str, path: str) -> TextField | KeywordField:
        if field in self.text:
            return self.text[field]
        if field in self.keyword:
            return self.keyword[field]
        raise Invalid(path, f"field {field!r} is a {self.kinds[field]} field, not text or keyword")

    def search_tokens(self, field: str, text: str) -> tuple[list[str], list[int]]:
        terms, positions = self.text[field].search_tokenize(text)
        return terms, list(positions)

    def search_terms(self, field: str, text: str) -> list[str]:
        return self.search_tokens(field, text)[0]

    def has_value(self, field: str) -> np.ndarray:
        if field in self.text:
            return self.text[field].has_value
        return (self.keyword.get(field) or self.numeric[field]).has_value

    def doc_values(self, field: str) -> np.ndarray | None:
        """Per document, its smallest value (doc values are sorted): numbers and dates as float64 (NaN when
        absent), keywords as strings (None when absent); None for a text field, which has no doc values."""
        if field in self.numeric:
            return self.numeric[field].first
        if field not in self.keyword:
            return None
        key = ("doc_values", field)
        if key not in self.function_cache:
            keyword = self.keyword[field]
            terms = np.array([*keyword.sorted_terms, None], dtype=object)
            rank = np.empty(len(keyword.vocab), dtype=np.int64)
            rank[[keyword.vocab[t] for t in keyword.sorted_terms]] = np.arange(len(keyword.vocab))
            smallest = np.full(self.n, len(keyword.vocab))
            np.minimum.at(smallest, keyword.doc_of, rank[keyword.ids])
            self.function_cache[key] = terms[smallest]
        return self.function_cache[key]

    def doc_value_counts(self, field: str) -> np.ndarray:
        key = ("doc_value_counts", field)
        if key not in self.function_cache:
            column = self.numeric.get(field) or self.keyword.get(field)
            doc_of = column.doc_of if column is not None else np.empty(0, dtype=np.int64)
            self.function_cache[key] = np.bincount(doc_of, minlength=self.n)
        return self.function_cache[key]

    def equal(self, field: str, wanted: list[Any], boost: float, path: str) -> Scores:
        """Documents with any of these exact values (a constant-score query)."""
        matched = np.zeros(self.n, dtype=bool)
        kind = self.kinds[field]
        if kind == "text":
            target = self.text[field]
            for value in wanted:
                postings = target.postings(str(value))
                if postings is not None:
                    matched[postings.docs] = True
        elif kind == "keyword":
            for value in wanted:
                matched[self.keyword[field].docs_of(self.convert_query_value(field, value, path))] = True
        else:
            column = self.numeric[field]
            targets = [self.convert_query_value(field, value, path) for value in wanted]
            matched = column.any(np.isin(column.values, targets))
        return Scores.constant(matched, boost)

    # ------------------------------------------------------------ searching

    def search_many(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str) -> dict[str, Hits]:
        self.template_source = source
        results = {}
        for qid, body in bodies.items():
            try:
                results[qid] = search(self, body, size)
            except Unsupported as exc:
                raise RelevanceInputError(
                    source,
                    f"query {qid!r}: {exc.construct!r} at {exc.path} is not supported by the embedded engine "
                    f"(supported: {', '.join(sorted(HANDLERS))}); the elasticsearch engine supports it",
                ) from None
            except Invalid as exc:
                raise RelevanceInputError(source, f"query {qid!r}: {exc.path}: {exc.problem}") from None
        return results

    def close(self) -> None:
        self.function_cache.clear()


def _values(doc: Mapping[str, Any], name: str) -> list[Any]:
    """A (possibly dotted, possibly multi-valued) field's values; a sub-field (title.keyword) reads its parent."""
    value: Any = doc
    if name in doc:
        value = doc[name]
    else:
        for part in name.split("."):
            if isinstance(value, Mapping) and part in value:
                value = value[part]
            elif isinstance(value, Mapping):
                return []
            # else: a multi-field such as title.keyword, which indexes its parent's value again
    if value is None:
        return []
    return [v for v in value if v is not None] if isinstance(value, list) else [value]
