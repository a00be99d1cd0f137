"""The create-index body as the embedded engine needs it: one `Field` per indexed path, with its analyzers.

Elasticsearch's defaults are applied here, once: a text field without `analyzer` uses the index's `default`
analyzer (else `standard`); its search analyzer is `search_analyzer`, else its own `analyzer` when one is set, else
`default_search`, else the index analyzer; the quote analyzer follows the search analyzer the same way. Multi-fields
become `name.sub` fields of their own; `copy_to` targets are listed on the source field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping as MappingABC
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_relevance.engines.embedded.analysis import Analysis, Analyzer
from pytest_relevance.engines.embedded.analysis.filters import fixed_shingle, ngram
from pytest_relevance.engines.embedded.dates import (
    DEFAULT_DYNAMIC_DATE_FORMATS,
    DEFAULT_FORMAT,
    DateFormatError,
    date_format,
    detect_date,
)
from pytest_relevance.engines.embedded.dynamic_templates import XCONTENT_TYPES, DynamicTemplate, read_dynamic_templates
from pytest_relevance.engines.embedded.plugins import KNN_VECTOR, needs_plugin, plugin_of
from pytest_relevance.errors import RelevanceInputError

__all__ = ["Field", "IndexMapping", "Similarity", "dynamic_fields"]

_ELASTIC = "the elasticsearch engine supports it"
NUMERIC_TYPES = frozenset(
    [
        "long",
        "integer",
        "short",
        "byte",
        "double",
        "float",
        "half_float",
        "scaled_float",
        "unsigned_long",
        "token_count",
    ]
)
_KINDS = {
    "text": "text", "match_only_text": "text", "search_as_you_type": "text", "keyword": "keyword",
    "constant_keyword": "keyword", "wildcard": "keyword", "date": "date", "date_nanos": "date", "boolean": "boolean",
    **{t: "number" for t in NUMERIC_TYPES},
}  # fmt: skip
# Types Elasticsearch has that the embedded engine does not search: they are mapped (so a config that has them
# loads) as kind "other"; a query on them is the query layer's error.
_OTHER = frozenset(
    [
        "ip",
        "geo_point",
        "geo_shape",
        "point",
        "shape",
        "dense_vector",
        "sparse_vector",
        "rank_feature",
        "rank_features",
        "flattened",
        "completion",
        "percolator",
        "join",
        "histogram",
        "alias",
        "binary",
        "integer_range",
        "long_range",
        "float_range",
        "double_range",
        "date_range",
        "ip_range",
        "version",
        "aggregate_metric_double",
        "semantic_text",
        "annotated_text",
        "murmur3",
    ]
)
_CONTAINERS = frozenset(("object", "nested"))
# The parameters each mapper Elasticsearch 8 builds reads (its Builder.getParameters), beyond the ones
# FieldMapper.Builder.parse takes for every type (`type`, `fields`, `copy_to`, `meta`, `synthetic_source_keep`):
# any other key is its "unknown parameter" error. Only the types the embedded engine searches are listed; the
# others are mapped as given (their query is the query layer's error anyway).
_EVERY_MAPPER = frozenset(("type", "fields", "copy_to", "meta", "synthetic_source_keep"))
_TEXT_PARAMETERS = frozenset(
    ("index", "store", "index_options", "norms", "term_vector", "similarity", "analyzer", "search_analyzer",
     "search_quote_analyzer")
)  # fmt: skip
_NUMBER_PARAMETERS = frozenset(
    ("index", "doc_values", "store", "ignore_malformed", "coerce", "null_value", "script", "on_script_error",
     "time_series_dimension", "time_series_metric")
)  # fmt: skip
_DATE_PARAMETERS = frozenset(
    ("index", "doc_values", "store", "format", "locale", "null_value", "ignore_malformed", "script", "on_script_error")
)
_PARAMETERS: dict[str, frozenset[str]] = {
    "text": _TEXT_PARAMETERS | {"position_increment_gap", "fielddata", "fielddata_frequency_filter",
                                "eager_global_ordinals", "index_phrases", "index_prefixes"},
    "match_only_text": frozenset(),
    "search_as_you_type": _TEXT_PARAMETERS | {"doc_values", "max_shingle_size"},
    "keyword": frozenset(
        ("index", "doc_values", "store", "null_value", "eager_global_ordinals", "ignore_above", "index_options",
         "norms", "similarity", "normalizer", "split_queries_on_whitespace", "script", "on_script_error",
         "time_series_dimension")
    ),
    "constant_keyword": frozenset(("value",)),
    "wildcard": frozenset(("ignore_above", "null_value")),
    **{t: _NUMBER_PARAMETERS for t in NUMERIC_TYPES - {"scaled_float", "unsigned_long", "token_count"}},
    "scaled_float": _NUMBER_PARAMETERS - {"script", "on_script_error"} | {"scaling_factor"},
    "unsigned_long": _NUMBER_PARAMETERS - {"coerce", "script", "on_script_error"},
    "token_count": frozenset(("index", "doc_values", "store", "analyzer", "null_value", "enable_position_increments")),
    "date": _DATE_PARAMETERS,
    "date_nanos": _DATE_PARAMETERS,
    "boolean": frozenset(
        ("index", "doc_values", "store", "null_value", "script", "on_script_error", "ignore_malformed",
         "time_series_dimension")
    ),
}  # fmt: skip
# ObjectMapper's and NestedObjectMapper's own keys; any other is "has unsupported parameters"
_OBJECT_PARAMETERS = frozenset(("type", "dynamic", "enabled", "properties", "subobjects", "synthetic_source_keep"))
_NESTED_PARAMETERS = _OBJECT_PARAMETERS | {"include_in_parent", "include_in_root"}
_ENGLISH = frozenset(("", "root", "en", "en_us", "en_gb", "english"))  # date `locale`s with Locale.ROOT's names


@dataclass(frozen=True, slots=True)
class Similarity:
    """How a field scores: BM25 with its parameters (Elasticsearch's default k1 1.2, b 0.75), or boolean."""

    kind: str = "BM25"
    k1: float = 1.2
    b: float = 0.75
    discount_overlaps: bool = True


@dataclass(frozen=True, slots=True)
class Field:
    """One indexed path (`title`, `title.raw`, `author.name`), with what Elasticsearch would use for it."""

    name: str
    type: str  # as written in the mapping
    kind: str  # text, keyword, number, date, boolean or other
    index: bool = True
    norms: bool = True
    analyzer: Analyzer | None = None  # text: the index analyzer; keyword: the normalizer (None: as is)
    search_analyzer: Analyzer | None = None
    search_quote_analyzer: Analyzer | None = None
    normalizer: Analyzer | None = None
    copy_to: tuple[str, ...] = ()
    similarity: Similarity = field(default_factory=Similarity)
    position_increment_gap: int = 100
    index_options: str = "positions"
    parent: str | None = None  # for a multi-field, the field whose values it indexes
    multi_fields: tuple[str, ...] = ()
    nested: str | None = None  # the enclosing `nested` object path, if any
    params: MappingABC[str, Any] = field(default_factory=dict)  # the raw definition (format, ignore_above, ...)
    # search_as_you_type: on the root field its shingle subfields (`._2gram`, ...); on a shingle subfield its size;
    # on both the `._index_prefix` field their prefix queries go to; `internal` marks the subfields, which the
    # root's mapper indexes itself (so copy_to values reach them too)
    shingle_fields: tuple[str, ...] = ()
    shingle_size: int = 0
    prefix_field: str | None = None
    internal: bool = False


class IndexMapping:
    """All fields of a create-index body, plus its analysis (for `_analyze` by analyzer name)."""

    def __init__(self, body: MappingABC[str, Any] | None, source: str | Path, base_dir: Path | None = None) -> None:
        self.source = str(source)
        body = body or {}
        if not isinstance(body, MappingABC):
            raise RelevanceInputError(self.source, "an index config must be an object (an Elasticsearch body)")
        settings = body.get("settings") or {}
        self.analysis = Analysis.from_settings(settings, self.source, base_dir)
        self.analysis.check_definitions()
        self._similarities = self._read_similarities(settings)
        self.max_result_window = self._result_window()
        self.query_default_field = _query_default_field(settings, self.source)
        default = self.analysis.analyzer(
            "default" if self.analysis.has_analyzer("default") else "standard", "settings.analysis.analyzer.default"
        )
        self.default_analyzer = default
        self.default_search_analyzer = (
            self.analysis.analyzer("default_search", "settings.analysis.analyzer.default_search")
            if self.analysis.has_analyzer("default_search")
            else default
        )
        self.default_search_quote_analyzer = (
            self.analysis.analyzer("default_search_quote", "settings.analysis.analyzer.default_search_quote")
            if self.analysis.has_analyzer("default_search_quote")
            else self.default_search_analyzer
        )
        mappings = body.get("mappings") or {}
        if not isinstance(mappings, MappingABC):
            raise RelevanceInputError(self.source, "mappings: must be an object")
        if "properties" not in mappings and len(mappings) == 1:
            (only,) = mappings.values()
            if isinstance(only, MappingABC) and "properties" in only:  # a pre-7 body with a type name
                mappings = only
        if "_all" in mappings:  # removed in 7.0; ignoring it would leave a query on _all matching nothing, silently
            raise RelevanceInputError(
                self.source,
                "mappings._all: Root mapping definition has unsupported parameters:  "
                f"[_all : {_java(mappings['_all'])}], as Elasticsearch 8 refuses it (the _all field was removed in "
                "7.0): copy_to a text field of your own and search that field",
            )
        self.dynamic = mappings.get("dynamic", True)
        self.dynamic_templates = read_dynamic_templates(mappings.get("dynamic_templates"), self.source)
        #: `dynamic` of each object path that sets its own (a new field follows its nearest enclosing object's)
        self.object_dynamic: dict[str, Any] = {}
        self.objects: set[str] = set()  # the object and nested paths the mappings declare
        self.date_detection = flag(mappings.get("date_detection", True))
        self.dynamic_date_formats = self._dynamic_date_formats(mappings)
        self.fields: dict[str, Field] = {}
        # objects with `enabled: false`: Elasticsearch keeps their contents in _source only, neither parsed,
        # indexed nor dynamically mapped, whatever their shape ("" for a disabled root)
        self.disabled: set[str] = set()
        if not flag(mappings.get("enabled", True)):
            self.disabled.add("")
        properties = mappings.get("properties") or {}
        if not isinstance(properties, MappingABC):
            raise RelevanceInputError(self.source, "mappings.properties: must be an object")
        if "" not in self.disabled:
            self._read_properties(properties, "", "mappings.properties", None)
        self.check_copy_to(self.fields)
        self._check_templates()

    def check_copy_to(self, fields: MappingABC[str, Field]) -> None:
        """Every copy_to target is a mapped field (of the explicit mappings, or with the fields dynamic templates
        added, whose copy_to the same rule holds for)."""
        for name, spec in fields.items():
            for target in spec.copy_to:
                if target not in fields:
                    raise RelevanceInputError(self.source, f"{name}: copy_to {target!r}: {self._unmapped_copy(target)}")
                into = fields[target].nested
                if into is not None and not (spec.nested or "").startswith(into):
                    # DocumentParser: a copy may go to the current nested document or one of its parents only
                    raise RelevanceInputError(
                        self.source,
                        f"{name}: copy_to {target!r}: Illegal combination of [copy_to] and [nested] mappings: "
                        "[copy_to] may only copy data to the current nested document or any of its parents, "
                        f"however one [copy_to] directive is trying to copy data from nested object "
                        f"[{spec.nested or 'null'}] to [{into}], as Elasticsearch 8 refuses it",
                    )
                if into is not None and into != spec.nested:
                    raise RelevanceInputError(
                        self.source,
                        f"{name}: copy_to {target!r}: a copy from nested object [{spec.nested}] into its enclosing "
                        f"nested object [{into}] is not supported by the embedded engine (into the root document, "
                        "or within the same nested object, is); the elasticsearch engine supports it",
                    )

    def _dynamic_date_formats(self, mappings: MappingABC[str, Any]) -> tuple[str, ...]:
        """RootObjectMapper's `dynamic_date_formats`: a list of formats (or one), each checked as a format."""
        formats = mappings.get("dynamic_date_formats", list(DEFAULT_DYNAMIC_DATE_FORMATS))
        formats = [formats] if isinstance(formats, str) else formats
        if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
            raise RelevanceInputError(
                self.source, "mappings.dynamic_date_formats: must be a list of date formats (strings)"
            )
        for i, spec in enumerate(formats):
            try:
                date_format(spec)
            except DateFormatError as exc:
                raise RelevanceInputError(self.source, f"mappings.dynamic_date_formats[{i}]: {exc}") from None
        return tuple(formats)

    def detect_date(self, text: str) -> str | None:
        """The format dynamic mapping would map an unmapped string field with, or None (not a date, or
        `date_detection: false`)."""
        return detect_date(text, self.dynamic_date_formats) if self.date_detection and text else None

    def _unmapped_copy(self, target: str) -> str:
        """Why a copy_to target the mappings lack is refused: what Elasticsearch does with it depends on `dynamic`."""
        if self.dynamic == "strict":
            return (
                f"mapping set to strict, dynamic introduction of [{target}] within [_doc] is not allowed, as "
                f"Elasticsearch 8 refuses it at the first document: add {target!r} to mappings.properties"
            )
        if flag(self.dynamic):
            return (
                f"Elasticsearch maps {target!r} dynamically from the values copied there; the embedded engine needs "
                "it mapped: add it to mappings.properties (text, to search its words)"
            )
        return (
            f"with dynamic: {str(self.dynamic).lower()}, Elasticsearch indexes nothing under {target!r}, so a query "
            "on it matches nothing; add it to mappings.properties"
        )

    def dynamic_at(self, name: str) -> str:
        """The `dynamic` a new field `name` is mapped under: its nearest enclosing object's, else the root's
        (ObjectMapper inherits it), lower-cased ("true", "false", "strict", "runtime")."""
        parts = name.split(".")[:-1]
        for end in range(len(parts), 0, -1):
            found = self.object_dynamic.get(".".join(parts[:end]))
            if found is not None:
                return str(found).lower()
        return str(self.dynamic).lower()

    def template_for(self, name: str, xcontent_type: str) -> tuple[DynamicTemplate, dict[str, Any]] | None:
        """The first dynamic template matching a new field (its full path, its leaf name and its JSON type), with
        its mapping for that field (`{name}` and `{dynamic_type}` replaced, the type set), as
        RootObjectMapper.findTemplate and DynamicFieldsBuilder.applyMatchingTemplate pick and read it."""
        leaf = name.rsplit(".", 1)[-1]
        for template in self.dynamic_templates:
            if template.matches(name, leaf, xcontent_type):
                return template, template.mapping_for(leaf, xcontent_type)
        return None

    def build_dynamic(self, name: str, spec: MappingABC[str, Any], template: DynamicTemplate) -> list[Field]:
        """The fields a dynamic template's mapping makes of a new field, read as an explicit mapping would be."""
        if spec.get("type") in _CONTAINERS:
            raise RelevanceInputError(
                self.source,
                f"mappings.dynamic_templates.{template.name}.mapping: maps the field {name!r} as type "
                f"{spec['type']!r}, but its value is not an object (Elasticsearch refuses the document); give the "
                "template a match_mapping_type: object",
            )
        before = set(self.fields)
        try:
            self._add(
                name, spec, f"mappings.dynamic_templates.{template.name}.mapping (for field {name!r})", None, None
            )
        finally:
            added = [self.fields.pop(key) for key in [k for k in self.fields if k not in before]]
        return added

    def build_dynamic_object(self, name: str, spec: MappingABC[str, Any], template: DynamicTemplate) -> list[Field]:
        """The fields an object template's `properties` declare under the new object `name`, read as explicit
        properties are (ObjectMapper.TypeParser parses a template's object mapping as any other); the object
        paths they declare join `objects`."""
        properties = spec.get("properties")
        at = f"mappings.dynamic_templates.{template.name}.mapping.properties (for object {name!r})"
        if not isinstance(properties, MappingABC):
            raise RelevanceInputError(self.source, f"{at}: must be an object")
        before = set(self.fields)
        try:
            self._read_properties(properties, f"{name}.", at, None)
        finally:
            added = [self.fields.pop(key) for key in [k for k in self.fields if k not in before]]
        return added

    def _check_templates(self) -> None:
        """RootObjectMapper.validateDynamicTemplate: Elasticsearch 8 refuses, at index creation, a template whose
        mapping makes no valid field for any JSON type it matches (one with `{name}` cannot be checked up front)."""
        for template in self.dynamic_templates:
            if "{name}" in json.dumps(template.mapping):
                continue
            problem = None
            for xcontent_type in (t for t in XCONTENT_TYPES if t in template.types):
                spec = template.mapping_for(f"__dynamic__{template.name}", xcontent_type)
                if spec["type"] in _CONTAINERS:  # an object template: its properties are checked, as any others
                    if spec.get("properties"):
                        objects = set(self.objects)
                        self.build_dynamic_object(f"__dynamic__{template.name}", spec, template)
                        self.objects = objects
                    problem = None
                    break
                try:
                    self.build_dynamic(f"__dynamic__{template.name}", spec, template)
                except RelevanceInputError as exc:
                    problem = exc.problem
                    continue
                problem = None
                break
            if problem is not None:
                kinds = ", ".join(t for t in XCONTENT_TYPES if t in template.types)
                raise RelevanceInputError(
                    self.source,
                    f"mappings.dynamic_templates.{template.name}: dynamic template [{template.name}] has invalid "
                    f"content, attempted to validate it with the following match_mapping_type: [{kinds}] "
                    f"(Elasticsearch 8 refuses the index): {problem}",
                )

    def is_disabled(self, name: str) -> bool:
        """Whether a path lies inside an object with `enabled: false` (or the root is disabled)."""
        return "" in self.disabled or any(name == d or name.startswith(f"{d}.") for d in self.disabled)

    def field(self, name: str) -> Field | None:
        return self.fields.get(name)

    def analyze(self, texts: Sequence[str], analyzer: str | None = None, field: str | None = None) -> list[dict]:
        """Elasticsearch's `_analyze`: the tokens an analyzer (or a field's index analyzer, or a keyword field's
        normalizer) makes of the texts, several texts analyzed as one multi-valued field."""
        from pytest_relevance.engines.embedded.analysis import tokenizers

        if (analyzer is None) == (field is None):
            raise RelevanceInputError(self.source, "analyze needs an analyzer name or a field name, one of the two")
        if analyzer is not None:
            chosen = self.analysis.analyzer(analyzer, f"analyzer {analyzer!r}")
        else:
            found = self.field(str(field))
            if found is None or found.kind not in ("text", "keyword"):
                known = ", ".join(f.name for f in self.fields.values() if f.kind in ("text", "keyword"))
                raise RelevanceInputError(self.source, f"field {field!r} is not a text or keyword field ({known})")
            chosen = found.analyzer or Analyzer(found.name, tokenizers.keyword())
        return [token.as_elasticsearch() for token in chosen.analyze_values(texts)]

    # reading -------------------------------------------------------------------------------------------------------

    def _result_window(self) -> int:
        """index.max_result_window: how deep from + size may reach (Elasticsearch's default 10,000)."""
        value = self.analysis.setting("max_result_window", 10_000)
        try:
            number = int(str(value))
        except ValueError:
            number = -1
        if number < 1:
            raise RelevanceInputError(
                self.source, f"settings.index.max_result_window: {value!r} is not a whole number >= 1"
            )
        return number

    def _read_similarities(self, settings: MappingABC) -> dict[str, Similarity]:
        nested = settings.get("index")
        index: MappingABC = nested if isinstance(nested, MappingABC) else {}
        defs = dict(settings.get("similarity") or {})
        defs.update(index.get("similarity") or {})
        defs.update(
            {k[len("index.similarity.") :]: v for k, v in settings.items() if k.startswith("index.similarity.")}
        )
        out = {"BM25": Similarity(), "boolean": Similarity("boolean")}
        for name, spec in defs.items():
            path = f"settings.index.similarity.{name}"
            if not isinstance(spec, MappingABC):
                raise RelevanceInputError(self.source, f"{path}: must be an object")
            kind = spec.get("type", "BM25")
            if kind == "boolean":
                out[name] = Similarity("boolean")
            elif kind == "BM25":
                try:
                    out[name] = Similarity(
                        "BM25",
                        float(spec.get("k1", 1.2)),
                        float(spec.get("b", 0.75)),
                        str(spec.get("discount_overlaps", True)).lower() == "true",
                    )
                except (TypeError, ValueError):
                    raise RelevanceInputError(self.source, f"{path}: k1 and b must be numbers") from None
            else:
                raise RelevanceInputError(
                    self.source,
                    f"{path}.type: the similarity {kind!r} is not supported by the embedded engine; {_ELASTIC}",
                )
        if "default" in out:
            out["BM25"] = out["default"]
        return out

    def _read_properties(self, properties: MappingABC, prefix: str, path: str, nested: str | None) -> None:
        for key, spec in properties.items():
            name = f"{prefix}{key}"
            at = f"{path}.{key}"
            if not isinstance(spec, MappingABC):
                raise RelevanceInputError(self.source, f"{at}: a field definition must be an object")
            ftype = spec.get("type", "object" if "properties" in spec or "enabled" in spec else None)
            if ftype in _CONTAINERS:
                self._check_object_parameters(spec, at, key, ftype)
            if ftype == "object" and not flag(spec.get("enabled", True)):
                self.disabled.add(name)
                continue
            if ftype in _CONTAINERS:
                self.objects.add(name)
                if "dynamic" in spec:
                    self.object_dynamic[name] = spec["dynamic"]
                inner = spec.get("properties") or {}
                if not isinstance(inner, MappingABC):
                    raise RelevanceInputError(self.source, f"{at}.properties: must be an object")
                self._read_properties(inner, f"{name}.", f"{at}.properties", name if ftype == "nested" else nested)
                continue
            self._add(name, spec, at, None, nested)

    def _check_parameters(self, spec: MappingABC, at: str, leaf: str, ftype: str) -> None:
        """FieldMapper.Builder.parse: Elasticsearch 8 refuses `boost` on any field (removed in 8.0) and, for a
        type whose parameters are listed, a key its mapper does not read (a misspelling, or a parameter of
        another type) rather than ignoring it."""
        if "boost" in spec:
            raise RelevanceInputError(
                self.source,
                f"{at}.boost: Unknown parameter [boost] on mapper [{leaf}], as Elasticsearch 8 refuses it (index-time "
                f"boosts were removed in 8.0): boost the field in the query instead (`{leaf}^2` in fields)",
            )
        known = _PARAMETERS.get(ftype)
        for key in spec:
            if key == "include_in_all" or (known is not None and key not in known and key not in _EVERY_MAPPER):
                hint = " (the _all field was removed in 7.0): use copy_to" if key == "include_in_all" else None
                raise RelevanceInputError(
                    self.source,
                    f"{at}.{key}: unknown parameter [{key}] on mapper [{leaf}] of type [{ftype}], as Elasticsearch 8 "
                    f"refuses it{hint or _parameters_hint((known or frozenset()) | _EVERY_MAPPER)}",
                )

    def _check_object_parameters(self, spec: MappingABC, at: str, leaf: str, ftype: str) -> None:
        """ObjectMapper.TypeParser reads its own keys; MappingParser.checkNoRemainingFields refuses any other."""
        known = _NESTED_PARAMETERS if ftype == "nested" else _OBJECT_PARAMETERS
        unknown = [key for key in spec if key not in known]
        if unknown:
            listed = "".join(f" [{key} : {_java(spec[key])}]" for key in unknown)
            raise RelevanceInputError(
                self.source,
                f"{at}.{unknown[0]}: Mapping definition for [{leaf}] has unsupported parameters: {listed}, as "
                f"Elasticsearch 8 refuses it{_parameters_hint(known)}",
            )

    def _add(self, name: str, spec: MappingABC, at: str, parent: str | None, nested: str | None) -> None:
        ftype = spec.get("type")
        if not isinstance(ftype, str):
            raise RelevanceInputError(self.source, f"{at}.type: a field needs a type")
        kind = _KINDS.get(ftype, "other" if ftype in _OTHER else None)
        if kind is None:
            raise RelevanceInputError(self.source, f"{at}.type: {_unknown_type(ftype, name)}")
        if name in self.fields and self.fields[name].internal:
            raise RelevanceInputError(self.source, _taken(at, name, self.fields[name].parent, parent is not None))
        self._check_parameters(spec, at, name.rsplit(".", 1)[-1], ftype)
        if kind == "date":
            try:
                reader = date_format(str(spec.get("format") or DEFAULT_FORMAT))
            except DateFormatError as exc:  # Elasticsearch's mapper_parsing_exception at index creation
                raise RelevanceInputError(
                    self.source, f"{at}.format: {exc} (Elasticsearch refuses the mapping: mapper_parsing_exception)"
                ) from None
            locale = str(spec.get("locale", "")).replace("-", "_").lower()
            if reader.reads_names() and locale not in _ENGLISH:  # MMM, EEE, a: month and day names
                raise RelevanceInputError(
                    self.source,
                    f"{at}.locale: the embedded engine reads month and day names in English (Locale.ROOT) only; "
                    f"in {spec['locale']!r} they would be other words ({_ELASTIC})",
                )
        subs = spec.get("fields") or {}
        if not isinstance(subs, MappingABC):
            raise RelevanceInputError(self.source, f"{at}.fields: must be an object of multi-fields")
        copy_to = spec.get("copy_to", ())
        copy_to = (copy_to,) if isinstance(copy_to, str) else tuple(copy_to)
        similarity_name = spec.get("similarity", "BM25")
        similarity = self._similarities.get(similarity_name)
        if similarity is None:
            raise RelevanceInputError(
                self.source,
                f"{at}.similarity: unknown similarity {similarity_name!r}; define it in settings.index.similarity",
            )
        indexed = flag(spec.get("index", True))
        if kind == "keyword" and (ftype == "constant_keyword" or not indexed):
            # Elasticsearch answers these from doc values (a keyword with `index: false`) or from the mapping
            # (constant_keyword: MatchAllDocsQuery): a matching term scores its boost, which is what the boolean
            # similarity gives, not BM25
            similarity = self._similarities["boolean"]
        common: dict[str, Any] = {
            "name": name, "type": ftype, "kind": kind, "index": indexed,
            "copy_to": copy_to, "similarity": similarity, "parent": parent,
            "multi_fields": tuple(f"{name}.{s}" for s in subs), "nested": nested, "params": dict(spec),
        }  # fmt: skip
        if kind == "text":
            configured = "analyzer" in spec
            index_analyzer = (
                self.analysis.analyzer(spec["analyzer"], f"{at}.analyzer") if configured else self.default_analyzer
            )
            updateable = self.analysis.updateable_filters(index_analyzer.name)
            if updateable:  # Elasticsearch's own refusal, at index creation
                raise RelevanceInputError(
                    self.source,
                    f"{at}.analyzer: analyzer {index_analyzer.name!r} contains filters {updateable} that are not "
                    "allowed to run in index time mode (updateable: true); give it as the search_analyzer only",
                )
            if "search_analyzer" in spec:
                search = self.analysis.analyzer(spec["search_analyzer"], f"{at}.search_analyzer")
            else:
                search = index_analyzer if configured else self.default_search_analyzer
            if "search_quote_analyzer" in spec:
                quote = self.analysis.analyzer(spec["search_quote_analyzer"], f"{at}.search_quote_analyzer")
            elif "search_analyzer" in spec or configured:
                quote = search
            else:
                quote = self.default_search_quote_analyzer
            if ftype == "search_as_you_type":
                self._search_as_you_type(name, spec, at, common, index_analyzer, search, quote)
            else:
                gap = spec.get("position_increment_gap", 100)
                if not isinstance(gap, int) or gap < 0:
                    raise RelevanceInputError(
                        self.source, f"{at}.position_increment_gap: must be a non-negative integer"
                    )
                self.fields[name] = Field(
                    **common, norms=flag(spec.get("norms", True)), analyzer=index_analyzer, search_analyzer=search,
                    search_quote_analyzer=quote, position_increment_gap=gap,
                    index_options=spec.get("index_options", "positions"),
                )  # fmt: skip
        elif kind == "keyword":
            normalizer = (
                self.analysis.normalizer(spec["normalizer"], f"{at}.normalizer") if "normalizer" in spec else None
            )
            self.fields[name] = Field(
                **common, norms=flag(spec.get("norms", False)), analyzer=normalizer, search_analyzer=normalizer,
                search_quote_analyzer=normalizer, normalizer=normalizer, index_options="docs",
            )  # fmt: skip
        elif ftype == "token_count":
            if "analyzer" not in spec:
                raise RelevanceInputError(self.source, f"{at}.analyzer: a token_count field needs an analyzer")
            counter = self.analysis.analyzer(spec["analyzer"], f"{at}.analyzer")
            self.fields[name] = Field(**common, norms=False, index_options="docs", analyzer=counter)
        else:
            if ftype == "scaled_float" and not 0 < _number(spec.get("scaling_factor")) < math.inf:
                raise RelevanceInputError(
                    self.source, f"{at}.scaling_factor: a scaled_float needs a positive number scaling_factor"
                )
            self.fields[name] = Field(**common, norms=False, index_options="docs")
        for sub, sub_spec in subs.items():
            if not isinstance(sub_spec, MappingABC):
                raise RelevanceInputError(self.source, f"{at}.fields.{sub}: a multi-field definition must be an object")
            self._add(f"{name}.{sub}", sub_spec, f"{at}.fields.{sub}", name, nested)

    def _search_as_you_type(
        self,
        name: str,
        spec: MappingABC,
        at: str,
        common: dict[str, Any],
        index_analyzer: Analyzer,
        search: Analyzer,
        quote: Analyzer,
    ) -> None:
        """SearchAsYouTypeFieldMapper: the root field as a text field, plus subfields it indexes the same values
        into, each its own Lucene field (own statistics): `._2gram` .. `._{max_shingle_size}gram`, the root's
        analyzers followed by FixedShingleFilter(n) (search and quote analyzer alike: the root's search analyzer
        wrapped), with the root's norms and index_options; `._index_prefix`, the largest shingles' edge n-grams of
        1 to 20 characters (original kept beyond), without norms, searched with the largest shingles (phrases with
        the root's search analyzer as is). All share the root's similarity."""
        leaf = name.rsplit(".", 1)[-1]
        if "position_increment_gap" in spec:
            raise RelevanceInputError(
                self.source,
                f"{at}.position_increment_gap: unknown parameter [position_increment_gap] on mapper [{leaf}] of type "
                "[search_as_you_type], as Elasticsearch 8 refuses it",
            )
        if flag(spec.get("doc_values", False)):
            raise RelevanceInputError(
                self.source,
                f"{at}.doc_values: Cannot set [doc_values] on field of type [search_as_you_type], as Elasticsearch 8 "
                "refuses it",
            )
        raw = spec.get("max_shingle_size", 3)
        number = _number(raw)
        if not math.isfinite(number) or number != int(number):
            raise RelevanceInputError(self.source, f"{at}.max_shingle_size: {raw!r} is not a whole number")
        size = int(number)
        if not 2 <= size <= 4:
            raise RelevanceInputError(
                self.source,
                f"{at}.max_shingle_size: [max_shingle_size] must be at least [2] and at most [4], got [{size}], as "
                "Elasticsearch 8 refuses it",
            )
        norms = flag(spec.get("norms", True))
        options = spec.get("index_options", "positions")
        prefix = f"{name}._index_prefix"
        shingles = tuple(f"{name}._{n}gram" for n in range(2, size + 1))
        for taken in (*shingles, prefix):
            if taken in self.fields:
                raise RelevanceInputError(self.source, _taken(at, taken, name, False))
        self.fields[name] = Field(
            **common, norms=norms, analyzer=index_analyzer, search_analyzer=search, search_quote_analyzer=quote,
            index_options=options, shingle_fields=shingles, prefix_field=prefix,
        )  # fmt: skip
        inner = {"name": name, "kind": "text", "index": common["index"], "similarity": common["similarity"],
                 "parent": name, "nested": common["nested"], "index_options": options, "internal": True}  # fmt: skip
        for n, shingle in enumerate(shingles, start=2):
            searched = search.wrapped([fixed_shingle(n)])
            self.fields[shingle] = Field(
                **{**inner, "name": shingle}, type="search_as_you_type", norms=norms,
                analyzer=index_analyzer.wrapped([fixed_shingle(n)]), search_analyzer=searched,
                search_quote_analyzer=searched, params={"type": "search_as_you_type"}, shingle_size=n,
                prefix_field=prefix,
            )  # fmt: skip
        edges = ngram(1, 20, preserve_original=True, edges_only=True)
        self.fields[prefix] = Field(
            **{**inner, "name": prefix}, type="prefix", norms=False,
            analyzer=index_analyzer.wrapped([fixed_shingle(size, trailing=size - 1), edges]),
            search_analyzer=search.wrapped([fixed_shingle(size)]), search_quote_analyzer=search,
            params={"type": "prefix"},
        )  # fmt: skip


def _taken(at: str, name: str, owner: str | None, multi_field: bool) -> str:
    """Why a field named like a search_as_you_type subfield is refused: the subfield is the search_as_you_type
    field's own, and Elasticsearch refuses a mapping that defines it again (a multi-field of that name is
    MappingLookup's "defined more than once")."""
    said = f"Field [{name}] is defined more than once, as Elasticsearch 8 refuses it: " if multi_field else ""
    return (
        f"{at}: {said}the search_as_you_type field {owner!r} makes the subfield {name!r} itself (Elasticsearch "
        "refuses a mapping that defines it again); name the field otherwise"
    )


def _number(value: Any) -> float:
    """A mapping parameter as Elasticsearch reads a double (a number or a numeric string); NaN when it is not one."""
    if isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def flag(value: Any) -> bool:
    """A boolean mapping parameter: Elasticsearch also takes the strings "true" and "false"."""
    return value if isinstance(value, bool) else str(value).lower() != "false"


def _java(value: Any) -> str:
    """A JSON value as Java's Map.toString prints it in Elasticsearch's messages ({enabled=true})."""
    if isinstance(value, MappingABC):
        return "{" + ", ".join(f"{k}={_java(v)}" for k, v in value.items()) + "}"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _parameters_hint(known: frozenset[str]) -> str:
    """The parameters a mapper reads, for a refusal of one it does not."""
    return f"; its parameters: {', '.join(sorted(known - {'type'}))}"


def _unknown_type(ftype: str, name: str) -> str:
    """Why a field type is not one Elasticsearch 8 maps: a plugin's, removed, or most likely misspelt."""
    if ftype == "knn_vector":
        return KNN_VECTOR
    plugin = plugin_of(ftype)
    if plugin is not None:
        return needs_plugin(f"the field type {ftype!r}", plugin)
    if ftype == "string":  # Elasticsearch 5 split it into text and keyword
        leaf = name.rsplit(".", 1)[-1]
        return (
            f"No handler for type [string] declared on field [{leaf}], as Elasticsearch 8 refuses it (removed in "
            "5.0): map it as text (searched by words) or keyword (exact values)"
        )
    return f"unknown field type {ftype!r}; check the spelling (Elasticsearch types)"


def dynamic_fields(name: str, value: Any, mapping: IndexMapping) -> list[Field]:
    """What Elasticsearch's dynamic mapping makes of an unmapped field from its first value: the first matching
    dynamic template's mapping, else the defaults: a string a date when date detection reads it (with the format
    that read it), else text with a `keyword` multi-field (ignore_above 256), a whole number long, a fraction float,
    a bool boolean."""
    if isinstance(value, MappingABC) and "rank_features" in value:  # a feature of a rank_features field
        parent = mapping.fields[value["rank_features"]]
        return [Field(name, "rank_feature", "other", norms=False, params={**parent.params, "type": "rank_feature"})]
    fmt = mapping.detect_date(value) if isinstance(value, str) else None
    xcontent_type = _xcontent_type(value, fmt)
    if xcontent_type is None:
        return []
    found = mapping.template_for(name, xcontent_type)
    if found is not None:
        template, spec = found
        if xcontent_type == "object":  # an object an object template maps with properties
            return mapping.build_dynamic_object(name, spec, template)
        if fmt is not None and spec.get("type") in ("date", "date_nanos") and "format" not in spec:
            spec = {**spec, "format": fmt}  # the detected format, as applyMatchingTemplate passes it on
        return mapping.build_dynamic(name, spec, template)
    if xcontent_type == "boolean":
        return [Field(name, "boolean", "boolean", norms=False, index_options="docs")]
    if xcontent_type == "long":
        return [Field(name, "long", "number", norms=False, index_options="docs")]
    if xcontent_type == "double":
        return [Field(name, "float", "number", norms=False, index_options="docs")]
    if xcontent_type == "date":
        return [Field(name, "date", "date", norms=False, index_options="docs", params={"type": "date", "format": fmt})]
    default = mapping.default_analyzer
    return [
        Field(name, "text", "text", analyzer=default, search_analyzer=mapping.default_search_analyzer,
              search_quote_analyzer=mapping.default_search_quote_analyzer, multi_fields=(f"{name}.keyword",)),
        Field(f"{name}.keyword", "keyword", "keyword", norms=False, index_options="docs", parent=name,
              params={"type": "keyword", "ignore_above": 256}),
    ]  # fmt: skip


def _xcontent_type(value: Any, date_format_found: str | None) -> str | None:
    """The JSON type dynamic mapping sees in a value (DynamicTemplate.XContentFieldType), None for none."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string" if date_format_found is None else "date"
    if isinstance(value, MappingABC):
        return "object"
    return None


def _query_default_field(settings: MappingABC[str, Any], source: str) -> list[str]:
    """`index.query.default_field`, where query_string and simple_query_string search when a query names neither
    `fields` nor `default_field` (Elasticsearch's default `*`: every searchable field). The setting may be written
    flat (`index.query.default_field`) or nested, as Elasticsearch accepts both."""
    value: Any = None
    for key in ("index.query.default_field", "query.default_field"):
        if key in settings:
            value = settings[key]
    nested: Any = settings.get("index", settings)
    for part in ("query", "default_field"):
        nested = nested.get(part) if isinstance(nested, MappingABC) else None
    value = nested if nested is not None else value
    if value is None:
        return ["*"]
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) and v for v in values):
        raise RelevanceInputError(
            source, f"settings.index.query.default_field: {value!r} is not a field name or a list of field names"
        )
    return list(values)
