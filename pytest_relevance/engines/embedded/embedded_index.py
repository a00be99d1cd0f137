"""`EmbeddedIndex`: one corpus indexed under one Elasticsearch create-index body, and what queries ask of it.

It builds the fields (`index.py`'s postings and columns, per `mapping.py`) from the documents, converts query values
as the field's type reads them, and runs a search body (`search.py`) over every document at once; nested objects are
child indexes of the same class. Its `state` is what `store.py` saves and loads.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from pytest_relevance.engines.base import Hits
from pytest_relevance.engines.embedded.analysis import Analyzer
from pytest_relevance.engines.embedded.analysis.filters import StackedTokens
from pytest_relevance.engines.embedded.cost import COUNTING, Counting
from pytest_relevance.engines.embedded.dates import (
    DEFAULT_FORMAT,
    DEFAULT_NANOS_FORMAT,
    DateFormat,
    DateFormatError,
    DateParseError,
    date_format,
    index_millis,
    query_millis,
)
from pytest_relevance.engines.embedded.geo_point import parse_point
from pytest_relevance.engines.embedded.index import GeoField, KeywordField, NumericField, Stored, TextField
from pytest_relevance.engines.embedded.mapping import Field, IndexMapping, dynamic_fields, flag
from pytest_relevance.engines.embedded.plugins import needs_plugin, plugin_of
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unmapped, Unsupported
from pytest_relevance.engines.embedded.queries.registry import HANDLERS
from pytest_relevance.engines.embedded.scores import Scores
from pytest_relevance.engines.embedded.search import explain, search
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.cost import COUNTERS, QueryCost
from pytest_relevance.explain.tree import Node

ENGINE_VERSION = "9"  # bumped when scoring or analysis changes, so baselines from an older engine are not compared
IDENTITY = f"embedded {ENGINE_VERSION} (Lucene 9 analysis and BM25)"
_NULL = object()  # an explicit null of a token_count field, which indexes its null_value uncounted


class EmbeddedIndex:
    def __init__(
        self,
        corpus: Sequence[dict[str, Any]],
        config: dict[str, Any],
        id_field: str,
        source: str,
        saved: Mapping[str, Any] | None = None,
    ) -> None:
        """Analyze and index the corpus, or, given the `state()` a build of the same inputs saved, take its arrays
        instead (the mapping and its analyzers are always made from the config: queries analyze with them)."""
        self.identity = IDENTITY
        #: how the index came to be when a cache was asked for (built, loaded), for the terminal summary
        self.cache_note: str | None = None
        #: why the cache could not be used (it cannot be written), for a RelevanceWarning said once a session
        self.cache_warning: str | None = None
        self.source, self.template_source = source, "the query template"
        self.corpus_source = str(getattr(corpus, "path", "the corpus"))
        # a saved index holds the ids and lines: a corpus read lazily (corpus.CorpusFile) is then never parsed
        if saved is None:
            self.corpus_lines: Sequence[int | None] = getattr(corpus, "lines", None) or [None] * len(corpus)
            self.ids = [str(doc[id_field]) for doc in corpus]
        else:
            self.corpus_lines, self.ids = saved["lines"], saved["ids"]
        self.id_array = np.array(self.ids, dtype=object)
        self.n = len(self.ids)
        self.ordinal = {doc_id: o for o, doc_id in enumerate(self.ids)}
        # rank of each ordinal in id order: the tiebreak among equal scores
        if saved is None:
            self.id_rank = np.empty(self.n, dtype=np.int64)
            self.id_rank[np.argsort(self.id_array, kind="stable")] = np.arange(self.n)
        elif len(self.corpus_lines) != self.n or not isinstance(saved["id_rank"], np.ndarray):
            raise ValueError(f"the saved index holds {self.n} ids and {len(self.corpus_lines)} line numbers")
        else:
            self.id_rank = saved["id_rank"]
        self.function_cache: dict[tuple[Any, ...], Any] = {}
        self._dates: dict[Any, float] = {}
        # scratch arrays the query handlers sum into and leave zeroed (queries run one at a time per index)
        self.scratch_sum, self.scratch_best = np.zeros(self.n), np.zeros(self.n)
        self.scratch_count = np.zeros(self.n, dtype=np.int16)
        self.scratch_mark = np.zeros(self.n, dtype=bool)
        base_dir = Path(source).parent if Path(source).parent.is_dir() else None
        config, self.vector_similarity = _without_vector_similarity(config)
        self.mapping = IndexMapping(config, source, base_dir)
        #: what the config sets that Elasticsearch accepts but ignores (key path: why), for the plugin to warn of
        self.config_warnings: list[str] = self.mapping.analysis.warnings
        self.fields: dict[str, Field] = dict(self.mapping.fields)
        #: each field the mappings lack, with a value of its first value's type (what dynamic mapping maps it by)
        self.dynamic = self._unmapped(corpus) if saved is None else dict(saved["dynamic"])
        for name, first in self.dynamic.items():
            for field in dynamic_fields(name, first, self.mapping):
                self.fields[field.name] = field
        self.mapping.check_copy_to(self.fields)
        self.scaling = {
            n: float(f.params["scaling_factor"]) for n, f in self.fields.items() if f.type == "scaled_float"
        }
        # the vector and feature types the mapping parser leaves as "other" get kinds of their own here
        special = {"dense_vector", "rank_feature", "geo_point"}
        self.kinds = {n: f.type if f.type in special else f.kind for n, f in self.fields.items()}
        self.vectors: dict[str, np.ndarray] = {}  # dense_vector field -> float32 (n, dims), NaN rows when absent
        self.geo: dict[str, GeoField] = {}
        self.text: dict[str, TextField] = {}
        self.keyword: dict[str, KeywordField] = {}
        self.numeric: dict[str, NumericField] = {}
        self._declare_fields()
        # fields inside a `nested` object live in documents of their own (one per object), as in Lucene's block
        # join: the parent index holds no values for them, the `nested` query reaches them through a child index
        self.nested: dict[str, tuple[EmbeddedIndex, np.ndarray]] = {}
        outer = {f.nested for f in self.fields.values() if f.nested}
        paths = sorted(p for p in outer if not any(p.startswith(f"{q}.") for q in outer))
        children = {path: (child, parents) for path, child, parents in saved["nested"]} if saved is not None else {}
        if saved is not None and set(children) != set(paths):
            raise ValueError("the saved nested objects are not the mapping's")
        for path in paths:
            if saved is None:
                self.nested[path] = self._child_index(corpus, config, path, source)
            else:
                child, parents = children[path]
                self.nested[path] = (EmbeddedIndex([], _child_config(config, path), "_child", source, child), parents)
        if saved is None:
            try:
                self._fill(corpus)
            except StackedTokens as exc:
                raise RelevanceInputError(source, f"mappings: {exc}") from None
        else:
            self._restore(saved)

    def state(self) -> dict[str, Any]:
        """Everything the build computed, as JSON values and numpy arrays (names in lists of pairs, never keys: a
        field may be called anything), for `EmbeddedIndex(..., saved=state)` to restore."""
        return {
            "ids": self.ids,
            "lines": list(self.corpus_lines),
            "id_rank": self.id_rank,
            "dynamic": list(map(list, self.dynamic.items())),
            **{group: [[name, f.state()] for name, f in fields.items()] for group, fields in self._stored().items()},
            "vectors": [[name, matrix] for name, matrix in self.vectors.items()],
            "nested": [[path, child.state(), parents] for path, (child, parents) in self.nested.items()],
        }

    def _stored(self) -> dict[str, Mapping[str, Stored]]:
        return {"text": self.text, "keyword": self.keyword, "numeric": self.numeric, "geo": self.geo}

    def _restore(self, saved: Mapping[str, Any]) -> None:
        for group, fields in self._stored().items():
            states = dict(saved[group])
            if set(states) != set(fields):
                raise ValueError(f"the saved {group} fields are not the mapping's")
            for name, field in fields.items():
                field.restore(states[name])
        vectors = dict(saved["vectors"])
        if set(vectors) != set(self.vectors) or any(v.ndim != 2 or len(v) != self.n for v in vectors.values()):
            raise ValueError("the saved dense_vector fields are not the mapping's")
        self.vectors = vectors

    def _declare_fields(self) -> None:
        memos: dict[Any, Any] = {}  # what the analyzers' per-term functions gave, shared by the fields of this build
        for name, field in self.fields.items():
            if not field.index and field.kind == "text":
                continue
            if field.kind == "text":
                assert field.analyzer is not None and field.search_analyzer is not None
                quote = field.search_quote_analyzer or field.search_analyzer
                self.text[name] = TextField(
                    name, field.analyzer, field.search_analyzer.term_lists, quote.term_lists,
                    field.similarity, field.norms, field.index_options, field.position_increment_gap, memos,
                )  # fmt: skip
            elif field.kind == "keyword":
                self.keyword[name] = KeywordField(name, field.similarity)
            elif field.kind in ("number", "date", "boolean") or field.type == "rank_feature":
                self.numeric[name] = NumericField(name)
            elif field.type == "geo_point":
                self.geo[name] = GeoField(name)
            elif field.type == "dense_vector":
                self.vectors[name] = np.full((self.n, int(field.params.get("dims") or 0)), np.nan, dtype=np.float32)

    def _fill(self, corpus: Sequence[dict[str, Any]]) -> None:
        """Every document's values into the fields (a multi-field reads its parent's, copy_to adds the sources')."""
        copies: dict[str, list[str]] = {
            name: [] if field.nested else [field.parent or name] for name, field in self.fields.items()
        }
        for name, field in self.fields.items():
            for target in field.copy_to:  # into a root field, from a nested object too: its parent's field
                if not self.fields[target].nested:
                    copies[target].append(field.parent or name)
        for name, field in self.fields.items():  # search_as_you_type's subfields index what its root indexes
            if field.internal and field.parent is not None:
                copies[name] = copies[field.parent]
        nulls = self._null_values()
        own = {name: field.parent or name for name, field in self.fields.items()}
        counted = {name: field for name, field in self.fields.items() if field.type == "token_count"}
        constants = {
            name: self._constant(name, own[name], corpus)
            for name, field in self.fields.items()
            if field.type == "constant_keyword" and name in self.keyword
        }
        for ordinal, doc in enumerate(corpus):
            for name, text in self.text.items():
                values = [v for path in copies[name] for v in _values(doc, path)]
                text.add([self._text_value(v, name, ordinal) for v in values])
            for name, keyword in self.keyword.items():
                if name in constants:
                    constant = constants[name]
                    if constant is not None:
                        keyword.add(ordinal, [constant])
                    continue
                values = _source_values(doc, copies[name], own[name], nulls.get(name))
                if values:
                    keyword.add(ordinal, self._keywords(name, values, ordinal))
            for name, column in self.numeric.items():
                if name in counted:
                    values = _source_values(doc, copies[name], own[name], _NULL if name in nulls else None)
                    values = [
                        nulls[name] if v is _NULL else self._token_count(counted[name], v, ordinal) for v in values
                    ]
                else:
                    values = _source_values(doc, copies[name], own[name], nulls.get(name))
                if values:
                    column.add(ordinal, [self._convert(name, self.kinds[name], v, ordinal) for v in values])
            for name in self.vectors:
                values = _values(doc, self.fields[name].parent or name)
                if values:
                    self._vector(name, values, ordinal)
            for name, geo in self.geo.items():
                values = _geo_values(doc, self.fields[name].parent or name)
                if values:
                    geo.add(ordinal, [self._point(name, v, ordinal) for v in values])
        for text in self.text.values():
            text.freeze()
        columns: list[KeywordField | NumericField | GeoField] = [*self.keyword.values(), *self.numeric.values()]
        for other in (*columns, *self.geo.values()):
            other.freeze(self.n)

    # ------------------------------------------------------------ mapping and documents

    def _null_values(self) -> dict[str, Any]:
        """Each searched field's `null_value`, checked once against its type: Elasticsearch indexes it in place of
        an explicit null (a JSON null, also inside an array) of the field itself, and refuses a mapping whose
        null_value does not fit."""
        out = {}
        for name, field in self.fields.items():
            if field.params.get("null_value") is None or field.kind not in ("keyword", "number", "date", "boolean"):
                continue  # a mapper without null_value was refused with the mapping; the others' is not searched
            value = field.params["null_value"]
            try:
                self._convert_value(field.kind, value, name)
            except (TypeError, ValueError) as exc:
                raise RelevanceInputError(
                    self.source, f"field {name!r}: null_value {value!r} is not a {field.kind} ({exc})"
                ) from None
            out[name] = value
        return out

    def _child_index(
        self, corpus: Sequence[dict[str, Any]], config: dict[str, Any], path: str, source: str
    ) -> tuple[EmbeddedIndex, np.ndarray]:
        """The objects under a nested path as documents of their own, and the parent ordinal of each."""
        children, parents = [], []
        for ordinal, doc in enumerate(corpus):
            for k, item in enumerate(_values(doc, path)):
                if isinstance(item, Mapping):
                    child: dict[str, Any] = dict(item)
                    for part in reversed(path.split(".")):
                        child = {part: child}
                    children.append({**child, "_child": f"{self.ids[ordinal]}#{k}"})
                    parents.append(ordinal)
        nested = EmbeddedIndex(children, _child_config(config, path), "_child", source)
        return nested, np.array(parents, dtype=np.int64)

    def _constant(self, name: str, path: str, corpus: Sequence[dict[str, Any]]) -> str | None:
        """A constant_keyword's value, which every document has (Elasticsearch answers its queries from the mapping
        alone): the mapping's `value`, else the first document's; a document with another value is refused."""
        value = self.fields[name].params.get("value")
        value = None if value is None else self._convert_value("keyword", value)
        for ordinal, doc in enumerate(corpus):
            for item in _values(doc, path):
                found = self._convert(name, "keyword", item, ordinal)
                if value is None:
                    value = found
                elif found != value:
                    raise self._document_error(
                        ordinal, f"field {name!r} is a constant_keyword of value {value!r} but holds {found!r}"
                    )
        return value

    def _token_count(self, field: Field, value: Any, ordinal: int) -> int:
        """What a token_count field indexes for a value: Elasticsearch's count of its analyzer's positions, holes
        left by removed tokens included (or, with `enable_position_increments: false`, the tokens that advance)."""
        assert field.analyzer is not None
        _, positions, last = field.analyzer.term_lists_end(self._text_value(value, field.name, ordinal))
        if flag(field.params.get("enable_position_increments", True)):
            return last + 1
        return len(set(positions))

    def _point(self, name: str, value: Any, ordinal: int) -> tuple[float, float]:
        try:
            return parse_point(value)
        except (TypeError, ValueError) as exc:
            raise self._document_error(ordinal, f"field {name!r} is a geo_point but holds {value!r} ({exc})") from None

    def _vector(self, name: str, values: list[Any], ordinal: int) -> None:
        matrix = self.vectors[name]
        if matrix.shape[1] == 0:  # dims left out of the mapping: the first vector sets them, as Elasticsearch does
            matrix = self.vectors[name] = np.full((self.n, len(values)), np.nan, dtype=np.float32)
        try:
            vector = np.array(values, dtype=np.float32)
        except (TypeError, ValueError):
            raise self._document_error(ordinal, f"field {name!r} is a dense_vector but holds non-numbers") from None
        if vector.shape != (matrix.shape[1],) or not np.isfinite(vector).all():
            raise self._document_error(
                ordinal, f"field {name!r} is a dense_vector of {matrix.shape[1]} dims but holds {len(values)} values"
            )
        matrix[ordinal] = vector

    def _unmapped(self, corpus: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Fields the documents have and the mappings do not, with their first value, which Elasticsearch's dynamic
        mapping maps them by (a dynamic template's mapping, else a string text plus a keyword sub-field). Each new
        field follows the `dynamic` of its nearest enclosing object: none under `false` (kept in _source, not
        indexed), an error under `strict`, and under `runtime` too (runtime fields are not the engine's)."""
        found: dict[str, Any] = {}
        seen: set[str] = set(self.fields)
        objects = set(self.mapping.objects) | {name.rsplit(".", 1)[0] for name in self.fields if "." in name}

        def introduce(name: str, ordinal: int) -> bool:
            """Whether dynamic mapping maps the new field (or object) `name`."""
            dynamic = self.mapping.dynamic_at(name)
            if dynamic == "strict":
                parent = name.rsplit(".", 1)[0] if "." in name else "_doc"
                raise self._document_error(
                    ordinal,
                    f"field {name!r} is not in the mappings: mapping set to strict, dynamic introduction of "
                    f"[{name.rsplit('.', 1)[-1]}] within [{parent}] is not allowed; add it to mappings.properties",
                )
            if dynamic == "runtime":
                raise self._document_error(
                    ordinal,
                    f"field {name!r} is not in the mappings, and dynamic: runtime maps it as a runtime field "
                    "(searched from _source), which the embedded engine does not have; map it under "
                    "mappings.properties, or set dynamic to true or false",
                )
            return flag(dynamic)

        def new_object(name: str, ordinal: int) -> bool:
            """Whether to read inside a new object: as an object template maps it (its `enabled`, its
            `dynamic`), else as a plain object."""
            objects.add(name)
            found_template = self.mapping.template_for(name, "object")
            if found_template is None:
                return True
            template, spec = found_template
            extra = sorted(set(spec) - {"type", "enabled", "dynamic", "properties"})
            if spec["type"] not in _OBJECT_VALUED:  # a keyword, text, long... field cannot hold an object
                raise self._document_error(
                    ordinal,
                    f"dynamic template [{template.name}] maps the object {name!r} as type {spec['type']!r}, so "
                    "Elasticsearch refuses the document (failed to parse: an object is not a value of that type); "
                    "give the template a match_mapping_type (string, long, ...) that leaves objects out",
                )
            if spec["type"] != "object" or extra:
                raise self._document_error(
                    ordinal,
                    f"dynamic template [{template.name}] maps the object {name!r} with "
                    f"{extra or ['type ' + repr(spec['type'])]}; the embedded engine maps objects from templates "
                    "with `enabled`, `dynamic` and `properties` only: map it under mappings.properties",
                )
            if "dynamic" in spec:
                self.mapping.object_dynamic[name] = spec["dynamic"]
            if not flag(spec.get("enabled", True)):
                self.mapping.disabled.add(name)
                return False
            if spec.get("properties"):  # mapped as declared; `found` keeps the object for dynamic_fields to map
                found[name] = {}
                for field in self.mapping.build_dynamic_object(name, spec, template):
                    seen.add(field.name)
                    parts = field.name.split(".")
                    objects.update(".".join(parts[:end]) for end in range(name.count(".") + 2, len(parts)))
            return True

        def visit(value: Any, prefix: str, ordinal: int) -> None:
            for key, inner in value.items():
                name = f"{prefix}{key}"
                if name in self.fields and self.fields[name].type == "rank_features" and isinstance(inner, Mapping):
                    # each key a feature of its own: a rank_feature field `name.key` (RankFeaturesFieldMapper)
                    found.update({f"{name}.{feature}": {"rank_features": name} for feature in inner})
                    continue
                if name in seen or self.mapping.is_disabled(name):
                    continue
                first = inner[0] if isinstance(inner, list) and inner else inner
                if isinstance(first, Mapping):
                    if name in objects or (introduce(name, ordinal) and new_object(name, ordinal)):
                        visit(first, f"{name}.", ordinal)
                    continue
                if name in objects:
                    continue
                if first is None:  # maps nothing, but strict refuses even a null (DocumentParser.parseNullValue)
                    if inner is None and self.mapping.dynamic_at(name) == "strict":
                        introduce(name, ordinal)
                    continue
                if not introduce(name, ordinal):
                    continue
                seen.add(name)
                found[name] = _type_sample(first, self.mapping)

        for ordinal, doc in enumerate(corpus):
            visit(doc, "", ordinal)
        return found

    def _keywords(self, name: str, values: list[Any], ordinal: int) -> list[str]:
        """Keyword values as indexed: normalized, and those longer than ignore_above left out."""
        field = self.fields[name]
        out = [self._convert(name, "keyword", v, ordinal) for v in values]
        limit = field.params.get("ignore_above")
        if isinstance(limit, int):
            out = [v for v in out if len(v) <= limit]
        if field.normalizer is not None:
            out = [self.normalize(name, v) for v in out]
        return out

    def normalize(self, name: str, value: str) -> str:
        normalizer = self.fields[name].normalizer
        if normalizer is None:
            return value
        terms = normalizer.term_lists(value)[0]
        return terms[0] if terms else ""

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
            if name in self.scaling:
                return self.scaled(name, self._convert_value(kind, value))
            return self._convert_value(kind, value, name)
        except DateParseError as exc:  # DocumentParser's mapper_parsing_exception, which refuses the whole document
            raise self._document_error(
                ordinal,
                f"field {name!r} is mapped as date but holds {json.dumps(value, default=str)[:80]} "
                f"(mapper_parsing_exception: {exc}, so Elasticsearch refuses the document; give the field a format "
                "that reads it)",
            ) from None
        except (TypeError, ValueError) as exc:
            raise self._document_error(
                ordinal, f"field {name!r} is mapped as {kind} but holds {json.dumps(value, default=str)[:80]} ({exc})"
            ) from None

    def _convert_value(self, kind: str, value: Any, name: str | None = None) -> Any:
        if isinstance(value, dict | list):
            raise ValueError("an object, not a single value")
        if kind == "keyword":
            return ("true" if value else "false") if isinstance(value, bool) else str(value)
        if kind == "date":
            assert name is not None
            key = (name, type(value), value)  # a field's values repeat (days, months): each is read once
            found = self._dates.get(key)
            if found is None:
                nanos = self.fields[name].type == "date_nanos"
                found = self._dates[key] = index_millis(value, self.date_format_of(name), nanos)
            return found
        if kind == "rank_feature":
            number = float(value)
            if not np.isfinite(number) or number <= 0:
                raise ValueError("a rank_feature must be a positive number")
            # stored with 9 significant bits, as Lucene's FeatureField: the low 15 bits of the float32 dropped
            return float(
                (np.array([number], dtype=np.float32).view(np.uint32) & np.uint32(0xFFFF8000)).view(np.float32)[0]
            )
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

    def scaled(self, field: str, value: float) -> float:
        """A scaled_float value as Elasticsearch keeps it: the long Math.round(value x scaling_factor), read back
        divided by the factor."""
        factor = self.scaling[field]
        return math.floor(value * factor + 0.5) / factor

    def date_format_of(self, field: str) -> DateFormat:
        """The field's `format` (checked when the mapping was read), else DateFieldMapper's default for its type."""
        default = DEFAULT_NANOS_FORMAT if self.fields[field].type == "date_nanos" else DEFAULT_FORMAT
        return date_format(str(self.fields[field].params.get("format") or default))

    def date_query_value(
        self, field: str, value: Any, path: str, round_up: bool = False, fmt: Any = None, zone: Any = None
    ) -> float:
        """DateFieldType.parseToLong: a query's date (a bound, a term, an origin) read with the query's `format`
        or else the field's, with date math, rounded up when `round_up`, in `zone` when the value names none."""
        try:
            reader = self.date_format_of(field) if fmt is None else date_format(str(fmt))
            return query_millis(value, reader, round_up, zone, self.fields[field].type == "date_nanos")
        except DateFormatError as exc:
            raise Invalid(path, f"{exc} (Elasticsearch refuses the query)") from None
        except DateParseError as exc:
            raise Invalid(
                path, f"{value!r} does not fit the date field {field!r} ({exc}; Elasticsearch refuses the query)"
            ) from None

    def convert_query_value(self, field: str, value: Any, path: str) -> Any:
        """A value from the template, in the field's stored representation; a bad one names the template key."""
        if self.kinds[field] == "date":
            return self.date_query_value(field, value, path)
        try:
            return self._convert_value(self.kinds[field], value)
        except (TypeError, ValueError) as exc:
            raise Invalid(path, f"{value!r} does not fit the {self.kinds[field]} field {field!r} ({exc})") from None

    # ------------------------------------------------------------ what the query handlers use

    def check_field(self, field: Any, path: str) -> str:
        """The field name, after refusing a field a query cannot search as Elasticsearch 8 refuses it."""
        if not isinstance(field, str):
            raise Invalid(path, f"field {field!r} is not a field name")
        if field not in self.kinds:
            raise Unmapped(path, f"field {field!r} is not in the index mappings")
        spec = self.fields[field]
        if self.kinds[field] == "text" and not spec.index:
            raise Invalid(path, f"field {field!r} has index: false, so Elasticsearch cannot search it either")
        if self.kinds[field] == "other" or (self.kinds[field] == "text" and field not in self.text):
            plugin = plugin_of(spec.type)
            if plugin is not None:
                raise Invalid(path, needs_plugin(f"a query on the {spec.type} field {field!r}", plugin))
            raise Unsupported(f"a query on the {spec.type} field {field!r}", path)
        if not spec.index and not flag(spec.params.get("doc_values", True)):
            raise Invalid(
                path, f"field {field!r} has index: false and doc_values: false, so Elasticsearch cannot search it"
            )
        return field

    def postings_field(self, field: str, path: str) -> TextField | KeywordField:
        if field in self.text:
            return self.text[field]
        if field in self.keyword:
            return self.keyword[field]
        raise Invalid(
            path,
            f"field {field!r} is of type [{self.fields[field].type}]; Elasticsearch runs this query on keyword and "
            "text fields only",
        )

    def search_tokens(
        self, field: str, text: str, analyzer: str | None = None, quote: bool = False, path: str = "query"
    ) -> tuple[Sequence[str], list[int]]:
        """The query text analyzed as Elasticsearch does for this field: a query-time `analyzer` if given, else
        the field's search analyzer (its search_quote_analyzer for phrases)."""
        tokenize: Callable[[str], tuple[Sequence[str], Sequence[int]]]
        if analyzer is not None:
            tokenize = self.mapping.analysis.analyzer(str(analyzer), f"{path}.analyzer").term_lists
        else:
            target = self.text[field]
            tokenize = target.quote_tokenize if quote else target.search_tokenize
        terms, positions = tokenize(text)
        return terms, list(positions)

    def search_graph(
        self, field: str, text: str, analyzer: str | None = None, quote: bool = False, path: str = "query"
    ) -> tuple[list[str], list[int], list[int]]:
        """The query text's terms, positions and position lengths, which `search_tokens` drops: a synonym_graph's
        multi-word synonyms are paths of several tokens, and Elasticsearch builds a query per path."""
        chain: Analyzer | None
        if analyzer is not None:
            chain = self.mapping.analysis.analyzer(str(analyzer), f"{path}.analyzer")
        else:
            spec = self.fields[field]
            chain = spec.search_quote_analyzer or spec.search_analyzer if quote else spec.search_analyzer
        assert chain is not None
        return chain.query_lists(text)

    def search_terms(self, field: str, text: str, analyzer: str | None = None, path: str = "query") -> Sequence[str]:
        return self.search_tokens(field, text, analyzer, path=path)[0]

    def has_value(self, field: str) -> np.ndarray:
        if field in self.text:
            return self.text[field].has_value
        if field in self.geo:
            return self.geo[field].has_value
        if field in self.vectors:
            return ~np.isnan(self.vectors[field][:, 0]) if self.vectors[field].shape[1] else np.zeros(self.n, bool)
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
                term = self.normalize(field, self.convert_query_value(field, value, path))
                matched[self.keyword[field].docs_of(term)] = True
        elif kind == "date":  # DateFieldType.termQuery: the range from the value to its round-up, both included
            column = self.numeric[field]
            for value in wanted:
                low = self.date_query_value(field, value, path)
                high = self.date_query_value(field, value, path, round_up=True)
                matched |= column.any((column.values >= low) & (column.values <= high))
        else:
            column = self.numeric[field]
            targets = [self.convert_query_value(field, value, path) for value in wanted]
            if field in self.scaling:
                targets = [self.scaled(field, value) for value in targets]
            matched = column.any(np.isin(column.values, targets))
        return Scores.constant(matched, boost)

    # ------------------------------------------------------------ searching

    def search_many(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str) -> dict[str, Hits]:
        self.template_source = source
        results = {}
        for qid, body in bodies.items():
            with _as_input_error(source, qid):
                results[qid] = search(self, body, size)
        return results

    def profile(
        self, bodies: Mapping[str, dict[str, Any]], size: int, source: str, repeats: int
    ) -> dict[str, QueryCost]:
        """The counts of each body's search (`cost`), the same on every one of `repeats` timed runs."""
        self.template_source = source
        costs = {}
        for qid, body in bodies.items():
            seconds, counted = [], []
            with _as_input_error(source, qid):
                for _ in range(repeats):
                    counting = Counting()
                    token = COUNTING.set(counting)
                    started = time.perf_counter()
                    try:
                        search(self, body, size)
                    finally:
                        seconds.append(time.perf_counter() - started)
                        COUNTING.reset(token)
                    counted.append(counting)
            first = counted[0]
            if any(c.totals != first.totals for c in counted[1:]):  # the counts describe the query, not a run
                raise RelevanceInputError(source, f"query {qid!r}: the embedded engine counted its work differently "
                                          "on a repeat; please report this as a bug of pytest-relevance")  # fmt: skip
            costs[qid] = QueryCost({c: first.totals.get(c, 0) for c in COUNTERS}, first.clauses, tuple(seconds))
        return costs

    def explain(
        self, body: dict[str, Any], doc_ids: Sequence[str], size: int, source: str, query_id: str
    ) -> dict[str, Node]:
        """The score tree of each document for one body (`pytest_relevance.explain.tree`), the root's value the score
        the document gets in `search_many` of the same body and size."""
        self.template_source = source
        missing = [doc for doc in doc_ids if doc not in self.ordinal]
        if missing:
            raise RelevanceInputError(self.corpus_source, f"no document with the id {missing[0]!r} (asked to explain)")
        ordinals = np.array([self.ordinal[doc] for doc in doc_ids], dtype=np.int64)
        with _as_input_error(source, query_id):
            trees = explain(self, body, ordinals, size)
        return dict(zip(doc_ids, trees, strict=True))

    def analyze(self, texts: Sequence[str], analyzer: str | None, field: str | None) -> list[dict[str, Any]]:
        return self.mapping.analyze(texts, analyzer, field)

    def close(self) -> None:
        self.function_cache.clear()


@contextmanager
def _as_input_error(source: str, qid: str) -> Iterator[None]:
    """A construct the engine does not run, or a parameter Elasticsearch refuses, as one line naming the query."""
    try:
        yield
    except Unsupported as exc:
        construct = exc.construct if " " in exc.construct else repr(exc.construct)
        supported = ", ".join(exc.among if exc.among is not None else sorted(HANDLERS))
        raise RelevanceInputError(
            source,
            f"query {qid!r}: {construct} at {exc.path} is not supported by the embedded engine "
            f"(supported: {supported}); the elasticsearch engine supports it",
        ) from None
    except Invalid as exc:
        raise RelevanceInputError(source, f"query {qid!r}: {exc.path}: {exc.problem}") from None
    except StackedTokens as exc:
        raise RelevanceInputError(source, f"query {qid!r}: {exc}") from None


# field types whose value may be a JSON object: an object template mapping a new object as another type maps it
# as a field Elasticsearch would parse the object into
_OBJECT_VALUED = frozenset(("object", "nested", "flattened", "geo_point", "geo_shape", "point", "shape", "join"))


def _type_sample(value: Any, mapping: IndexMapping) -> Any:
    """A JSON value of the same type as a field's first value: all `dynamic_fields` reads of it (a string
    kept whole when date detection maps it as a date, which needs its text to pick the format)."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value if mapping.detect_date(value) is not None else ""
    return None


def _child_config(config: dict[str, Any], path: str) -> dict[str, Any]:
    """The create-index body of a nested path's own index: its properties at the root (under the same path, so
    field names stay the parent's), plus `_child`, the id each object gets."""
    properties: Any = (config.get("mappings") or {}).get("properties") or {}
    for part in path.split("."):
        properties = (properties.get(part) or {}).get("properties") or {}
    inner: dict[str, Any] = {"properties": _copies_within(properties, f"{path}.")}
    for part in reversed(path.split(".")[1:]):
        inner = {"properties": {part: inner}}
    child_properties = {path.split(".")[0]: inner, "_child": {"type": "keyword"}}
    return {**config, "mappings": {"dynamic": False, "properties": child_properties}}


def _copies_within(properties: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """A nested path's properties with only the copy_to targets inside it: a copy into the root document is the
    parent index's to make."""
    out: dict[str, Any] = {}
    for key, spec in properties.items():
        if isinstance(spec, Mapping) and "copy_to" in spec:
            targets = [spec["copy_to"]] if isinstance(spec["copy_to"], str) else list(spec["copy_to"])
            spec = {**spec, "copy_to": [t for t in targets if str(t).startswith(prefix)]}
        if isinstance(spec, Mapping) and isinstance(spec.get("properties"), Mapping):
            spec = {**spec, "properties": _copies_within(spec["properties"], prefix)}
        out[key] = spec
    return out


def _without_vector_similarity(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The body without the `similarity` of dense_vector fields (a vector metric, not a scoring similarity the
    mapping parser would look up), and those metrics by field."""
    metrics: dict[str, str] = {}

    def strip(properties: Any, prefix: str) -> Any:
        if not isinstance(properties, Mapping):
            return properties
        out = {}
        for key, spec in properties.items():
            if isinstance(spec, Mapping) and spec.get("type") == "dense_vector" and "similarity" in spec:
                metrics[f"{prefix}{key}"] = str(spec["similarity"])
                spec = {k: v for k, v in spec.items() if k != "similarity"}
            elif isinstance(spec, Mapping) and isinstance(spec.get("properties"), Mapping):
                spec = {**spec, "properties": strip(spec["properties"], f"{prefix}{key}.")}
            out[key] = spec
        return out

    mappings = config.get("mappings")
    if not isinstance(mappings, Mapping) or not isinstance(mappings.get("properties"), Mapping):
        return config, metrics
    properties = strip(mappings["properties"], "")
    return {**config, "mappings": {**mappings, "properties": properties}}, metrics


def _geo_values(doc: Mapping[str, Any], name: str) -> list[Any]:
    """A geo_point's values: one point ([lon, lat] or an object) or a list of points."""
    raw = doc.get(name) if name in doc else None
    if raw is None:
        values = _values(doc, name)
        if len(values) == 2 and all(isinstance(v, int | float) for v in values):
            return [values]
        return values
    if isinstance(raw, list) and len(raw) == 2 and all(isinstance(v, int | float) for v in raw):
        return [raw]
    return raw if isinstance(raw, list) else [raw]


def _source_values(doc: Mapping[str, Any], paths: list[str], own: str, null_value: Any) -> list[Any]:
    """A field's values from the paths it reads (its own first, then its copy_to sources); with a null_value, an
    explicit null of its own path is indexed as that value (copy_to copies no nulls)."""
    if null_value is None or not paths or paths[0] != own:
        return [v for path in paths for v in _values(doc, path)]
    values = [null_value if v is None else v for v in _values(doc, own, nulls=True)]
    for path in paths[1:]:
        values += _values(doc, path)
    return values


def _values(doc: Mapping[str, Any], name: str, nulls: bool = False) -> list[Any]:
    """A field's values: a dotted path through objects and arrays of objects (flattened, as Elasticsearch indexes
    them), keys that themselves contain dots included; None values are left out, or kept as None with `nulls`."""
    if name in doc:  # the common case: a top-level key
        value = doc[name]
        if value is None:
            return [None] if nulls else []
        if not isinstance(value, list):
            return [value]
    out: list[Any] = []

    def walk(value: Any, parts: list[str]) -> None:
        if value is None:
            if nulls and not parts:
                out.append(None)
            return
        if isinstance(value, list):
            for item in value:
                walk(item, parts)
            return
        if not parts:
            out.append(value)
            return
        if isinstance(value, Mapping):
            for k in range(len(parts), 0, -1):
                key = ".".join(parts[:k])
                if key in value:
                    walk(value[key], parts[k:])
                    return

    walk(doc, name.split("."))
    return out
