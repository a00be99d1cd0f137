"""The embedded engine: tantivy in process, so the demo gate runs with no server.

It reads Elasticsearch's own formats (a create-index body, a search body), so one configuration serves both engines.
Text fields go to tantivy (BM25, k1 1.2, b 0.75, as Lucene); keyword, numeric, date and boolean fields are kept as
Python columns for filters and functions. A query is evaluated over *every* matching document (no top-N slice), so
recency and popularity functions rescore the whole match set and the top k is exact. One writer thread and one
commit make every build identical; ties are broken by doc id, ascending, as the Elasticsearch engine's sort does.

Supported query DSL: match, multi_match (best_fields, most_fields), match_phrase, bool, term, terms, range, exists,
match_all, match_none, dis_max, constant_score, function_score (gauss, exp, linear, field_value_factor, weight).
Anything else is an error naming the construct, where it is, and that the Elasticsearch engine supports it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import version
from typing import Any

from pytest_relevance.clock import resolve_date
from pytest_relevance.engines.base import Hits
from pytest_relevance.errors import RelevanceInputError

Scores = dict[int, float]
ANALYZERS = ("standard", "english", "simple", "whitespace", "keyword")
NUMERIC = ("long", "integer", "short", "byte", "float", "double", "half_float", "scaled_float")
SUPPORTED = (
    "match, multi_match, match_phrase, bool, term, terms, range, exists, match_all, match_none, dis_max, "
    "constant_score, function_score"
)
_BODY_KEYS = {"query", "size", "_source", "track_total_hits", "timeout"}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$")
_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


_ANALYZERS: dict[str, Any] = {}


def _analyzer(name: str) -> Any:
    """The tantivy analyzer standing in for an Elasticsearch one; built once per process and name."""
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
    _ANALYZERS[name] = builder.build()
    return _ANALYZERS[name]


class EmbeddedEngine:
    """Opens an in-memory tantivy index from a corpus and an Elasticsearch create-index body."""

    def open(
        self, corpus: Sequence[dict[str, Any]], index_config: dict[str, Any], id_field: str, source: str = "index"
    ) -> EmbeddedIndex:
        return EmbeddedIndex(corpus, index_config, id_field, source)


class EmbeddedIndex:
    def __init__(self, corpus: Sequence[dict[str, Any]], config: dict[str, Any], id_field: str, source: str) -> None:
        import tantivy

        self.identity = f"embedded tantivy {version('tantivy')}"
        self.source, self.template_source = source, "the query template"
        self.ids = [str(doc[id_field]) for doc in corpus]
        self.text: dict[str, str] = {}  # text field -> its tantivy field name
        self.analyzers: dict[str, str] = {}  # text field -> analyzer name
        self.columns: dict[str, list[list[Any]]] = {}  # field -> per document, its values
        self.kinds: dict[str, str] = {}
        properties = (config.get("mappings") or {}).get("properties")
        if not isinstance(properties, dict) or not properties:
            raise RelevanceInputError(source, "the index config needs mappings.properties (an Elasticsearch body)")
        self._map_fields(properties, "")
        builder = tantivy.SchemaBuilder()
        for name, internal in self.text.items():
            builder.add_text_field(internal, stored=False, tokenizer_name=f"es_{self.analyzers[name]}",
                                   index_option="position")  # fmt: skip
        builder.add_integer_field("_ord", stored=False, indexed=False, fast=True)
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema)
        for analyzer in set(self.analyzers.values()):
            self.index.register_tokenizer(f"es_{analyzer}", _analyzer(analyzer))
        writer = self.index.writer(heap_size=200_000_000, num_threads=1)
        for ordinal, doc in enumerate(corpus):
            fields: dict[str, Any] = {"_ord": ordinal}
            for name, internal in self.text.items():
                values = _values(doc, name)
                if values:
                    fields[internal] = [str(v) for v in values]
            writer.add_document(tantivy.Document(**fields))
            for name, kind in self.kinds.items():
                if kind != "text":
                    self.columns[name].append(self._convert(name, kind, _values(doc, name), ordinal))
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        self.handlers: dict[str, Callable[[Any, str], Scores]] = {
            "match": self._match, "multi_match": self._multi_match, "match_phrase": self._match_phrase,
            "bool": self._bool, "term": self._term, "terms": self._terms, "range": self._range,
            "exists": self._exists, "match_all": self._match_all, "match_none": lambda spec, path: {},
            "dis_max": self._dis_max, "constant_score": self._constant_score, "function_score": self._function_score,
        }  # fmt: skip

    # ------------------------------------------------------------ mapping

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
                self.text[name] = f"f{len(self.text)}"
                self.analyzers[name] = analyzer
            elif kind in ("keyword", "date", "boolean", *NUMERIC):
                self.columns[name] = []
            else:
                raise RelevanceInputError(
                    self.source,
                    f"field {name!r}: type {kind!r} is not supported by the embedded engine (text, keyword, date, "
                    "numbers, boolean); the elasticsearch engine supports it",
                )
            self.kinds[name] = "number" if kind in NUMERIC else kind
            for sub, sub_spec in (spec.get("fields") or {}).items():
                self._map_fields({sub: sub_spec}, f"{name}.")

    def _convert(self, name: str, kind: str, values: list[Any], ordinal: int) -> list[Any]:
        try:
            if kind == "date":
                return [resolve_date(v).timestamp() * 1000 for v in values]
            if kind == "number":
                return [float(v) for v in values]
            if kind == "boolean":
                return [v if isinstance(v, bool) else str(v).lower() == "true" for v in values]
            return [str(v) for v in values]
        except (TypeError, ValueError) as exc:
            raise RelevanceInputError(
                self.source, f"document {self.ids[ordinal]!r}: field {name!r} is mapped as {kind}: {exc}"
            ) from None

    # ------------------------------------------------------------ searching

    def search_many(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str) -> dict[str, Hits]:
        self.template_source = source
        results = {}
        for qid, body in bodies.items():
            unknown = set(body) - _BODY_KEYS
            if unknown:
                raise self._unsupported(", ".join(sorted(unknown)), "the search body", qid)
            try:
                scores = self._node(body["query"], "query")
            except _Unsupported as exc:
                raise self._unsupported(exc.construct, exc.path, qid) from None
            ranked = sorted(scores.items(), key=lambda item: (-item[1], self.ids[item[0]]))
            results[qid] = [(self.ids[o], s) for o, s in ranked[:size]]
        return results

    def _unsupported(self, construct: str, path: str, qid: str) -> RelevanceInputError:
        return RelevanceInputError(
            self.template_source,
            f"query {qid!r}: {construct!r} at {path} is not supported by the embedded engine (supported: "
            f"{SUPPORTED}); the elasticsearch engine supports it",
        )

    def close(self) -> None:
        self.searcher = None

    def _node(self, query: Any, path: str) -> Scores:
        if not isinstance(query, dict) or len(query) != 1:
            raise _Unsupported(f"{query!r}"[:60], path)
        (name, spec), = query.items()  # fmt: skip
        handler = self.handlers.get(name)
        if handler is None:
            raise _Unsupported(name, path)
        return handler(spec, f"{path}.{name}")

    def _field_spec(self, spec: Any, path: str, key: str) -> tuple[str, dict[str, Any]]:
        if not isinstance(spec, dict) or len(spec) != 1:
            raise _Unsupported(f"{spec!r}"[:60], path)
        (field, value), = spec.items()  # fmt: skip
        if field not in self.kinds:
            raise RelevanceInputError(self.template_source, f"{path}: field {field!r} is not in the index mappings")
        return field, value if isinstance(value, dict) else {key: value}

    def _analyze(self, field: str, text: str) -> list[str]:
        return _analyzer(self.analyzers[field]).analyze(str(text))

    def _text_query(self, field: str, tokens: list[str], operator: str, boost: float, slop: int | None) -> Scores:
        import tantivy

        if not tokens:
            return {}
        internal = self.text[field]
        if slop is not None and len(tokens) > 1:
            query = tantivy.Query.phrase_query(self.schema, internal, tokens, slop=slop)
        else:
            occur = tantivy.Occur.Must if operator == "and" else tantivy.Occur.Should
            query = tantivy.Query.boolean_query(
                [(occur, tantivy.Query.term_query(self.schema, internal, t)) for t in tokens]
            )
        hits = self.searcher.search(query, limit=max(1, len(self.ids)), count=False).hits
        ordinals = self.searcher.fast_field_values("_ord", [address for _, address in hits])
        return {o: score * boost for (score, _), o in zip(hits, ordinals, strict=True)}

    def _match(self, spec: Any, path: str) -> Scores:
        field, options = self._field_spec(spec, path, "query")
        _allowed(options, {"query", "operator", "boost"}, path)
        operator = str(options.get("operator", "or")).lower()
        if self.kinds[field] != "text":
            return self._equal(field, [options["query"]], float(options.get("boost", 1.0)))
        tokens = self._analyze(field, options["query"])
        return self._text_query(field, tokens, operator, float(options.get("boost", 1.0)), None)

    def _match_phrase(self, spec: Any, path: str) -> Scores:
        field, options = self._field_spec(spec, path, "query")
        _allowed(options, {"query", "slop", "boost"}, path)
        if self.kinds[field] != "text":
            raise _Unsupported(f"match_phrase on the {self.kinds[field]} field {field!r}", path)
        tokens = self._analyze(field, options["query"])
        return self._text_query(field, tokens, "and", float(options.get("boost", 1.0)), int(options.get("slop", 0)))

    def _multi_match(self, spec: Any, path: str) -> Scores:
        _allowed(spec, {"query", "fields", "type", "tie_breaker", "operator", "boost"}, path)
        kind = spec.get("type", "best_fields")
        if kind not in ("best_fields", "most_fields"):
            raise _Unsupported(f"multi_match type {kind}", path)
        per_field = []
        for entry in spec.get("fields") or []:
            field, _, weight = str(entry).partition("^")
            if field not in self.kinds:
                raise RelevanceInputError(self.template_source, f"{path}: field {field!r} is not in the index mappings")
            options = {"query": spec["query"], "operator": spec.get("operator", "or"), "boost": float(weight or 1)}
            per_field.append(self._match({field: options}, path))
        tie = float(spec.get("tie_breaker", 0.0 if kind == "best_fields" else 1.0))
        combined = _dis_max(per_field, tie) if kind == "best_fields" else _sum(per_field)
        return _scale(combined, float(spec.get("boost", 1.0)))

    def _dis_max(self, spec: Any, path: str) -> Scores:
        _allowed(spec, {"queries", "tie_breaker", "boost"}, path)
        parts = [self._node(q, f"{path}.queries[{i}]") for i, q in enumerate(spec.get("queries", []))]
        return _scale(_dis_max(parts, float(spec.get("tie_breaker", 0.0))), float(spec.get("boost", 1.0)))

    def _bool(self, spec: Any, path: str) -> Scores:
        _allowed(spec, {"must", "should", "must_not", "filter", "minimum_should_match", "boost"}, path)

        def clauses(key: str) -> list[Scores]:
            items = spec.get(key) or []
            items = items if isinstance(items, list) else [items]
            return [self._node(q, f"{path}.{key}[{i}]") for i, q in enumerate(items)]

        must, should, must_not, filters = clauses("must"), clauses("should"), clauses("must_not"), clauses("filter")
        required = must + filters
        if required:
            candidates = set.intersection(*(set(c) for c in required))
        elif should:
            candidates = set().union(*should)
        else:
            candidates = set(range(len(self.ids)))
        for excluded in must_not:
            candidates -= excluded.keys()
        minimum = _minimum_should_match(spec.get("minimum_should_match"), len(should), bool(required))
        boost = float(spec.get("boost", 1.0))
        out = {}
        for doc in candidates:
            matched = [c[doc] for c in should if doc in c]
            if len(matched) >= minimum:
                out[doc] = (sum(c[doc] for c in must) + sum(matched)) * boost
        return out

    def _term(self, spec: Any, path: str) -> Scores:
        field, options = self._field_spec(spec, path, "value")
        _allowed(options, {"value", "boost"}, path)
        boost = float(options.get("boost", 1.0))
        if self.kinds[field] == "text":
            return self._text_query(field, [str(options["value"])], "or", boost, None)
        return self._equal(field, [options["value"]], boost)

    def _terms(self, spec: Any, path: str) -> Scores:
        boost = float(spec.get("boost", 1.0)) if isinstance(spec, dict) else 1.0
        fields = {k: v for k, v in spec.items() if k != "boost"} if isinstance(spec, dict) else spec
        field, options = self._field_spec(fields, path, "values")
        if not isinstance(options.get("values"), list):
            raise _Unsupported("terms without a list of values", path)
        return self._equal(field, options["values"], boost)

    def _equal(self, field: str, wanted: list[Any], boost: float) -> Scores:
        kind = self.kinds[field]
        targets = set(self._convert(field, kind, wanted, 0))
        return {o: boost for o, values in enumerate(self.columns[field]) if targets.intersection(values)}

    def _range(self, spec: Any, path: str) -> Scores:
        field, options = self._field_spec(spec, path, "gte")
        _allowed(options, {"gte", "gt", "lte", "lt", "boost", "format"}, path)
        kind = self.kinds[field]
        if kind == "text":
            raise _Unsupported(f"range on the text field {field!r}", path)
        bounds = {}
        for key in ("gte", "gt", "lte", "lt"):
            if key in options:
                value = options[key]
                bounds[key] = (
                    resolve_date(value).timestamp() * 1000
                    if kind == "date"
                    else self._convert(field, kind, [value], 0)[0]
                )
        tests = {"gte": lambda v, b: v >= b, "gt": lambda v, b: v > b, "lte": lambda v, b: v <= b,
                 "lt": lambda v, b: v < b}  # fmt: skip
        boost = float(options.get("boost", 1.0))
        return {
            o: boost
            for o, values in enumerate(self.columns[field])
            if any(all(tests[k](v, b) for k, b in bounds.items()) for v in values)
        }

    def _exists(self, spec: Any, path: str) -> Scores:
        field = spec.get("field") if isinstance(spec, dict) else None
        if field not in self.kinds:
            raise RelevanceInputError(self.template_source, f"{path}: field {field!r} is not in the index mappings")
        if self.kinds[field] == "text":
            return {o: 1.0 for o, doc in enumerate(self._texts(field)) if doc}
        return {o: 1.0 for o, values in enumerate(self.columns[field]) if values}

    def _texts(self, field: str) -> list[bool]:
        import tantivy

        hits = self.searcher.search(tantivy.Query.exists_query(self.text[field]), limit=len(self.ids)).hits
        present = set(self.searcher.fast_field_values("_ord", [a for _, a in hits]))
        return [o in present for o in range(len(self.ids))]

    def _match_all(self, spec: Any, path: str) -> Scores:
        boost = float((spec or {}).get("boost", 1.0))
        return dict.fromkeys(range(len(self.ids)), boost)

    def _constant_score(self, spec: Any, path: str) -> Scores:
        _allowed(spec, {"filter", "boost"}, path)
        matched = self._node(spec["filter"], f"{path}.filter")
        return dict.fromkeys(matched, float(spec.get("boost", 1.0)))

    def _function_score(self, spec: Any, path: str) -> Scores:
        _allowed(
            spec,
            {"query", "functions", "score_mode", "boost_mode", "boost", "max_boost", "min_score", "gauss", "exp",
             "linear", "field_value_factor", "weight"},
            path,
        )  # fmt: skip
        base = self._node(spec.get("query", {"match_all": {}}), f"{path}.query")
        functions = spec.get("functions")
        if functions is None:
            single = {k: v for k, v in spec.items() if k in ("gauss", "exp", "linear", "field_value_factor", "weight")}
            functions = [single] if single else []
        compiled = [self._function(f, f"{path}.functions[{i}]") for i, f in enumerate(functions)]
        score_mode, boost_mode = spec.get("score_mode", "multiply"), spec.get("boost_mode", "multiply")
        if score_mode not in _SCORE_MODES:
            raise _Unsupported(f"score_mode {score_mode}", path)
        if boost_mode not in _BOOST_MODES:
            raise _Unsupported(f"boost_mode {boost_mode}", path)
        max_boost, boost = float(spec.get("max_boost", math.inf)), float(spec.get("boost", 1.0))
        min_score = spec.get("min_score")
        out = {}
        for doc, score in base.items():
            applied = [fn(doc) for matches, fn in compiled if matches is None or doc in matches]
            value = min(_SCORE_MODES[score_mode](applied), max_boost) if applied else 1.0
            final = _BOOST_MODES[boost_mode](score, value) * boost
            if min_score is None or final >= float(min_score):
                out[doc] = final
        return out

    def _function(self, spec: Any, path: str) -> tuple[set[int] | None, Callable[[int], float]]:
        _allowed(spec, {"filter", "weight", "gauss", "exp", "linear", "field_value_factor"}, path)
        matches = set(self._node(spec["filter"], f"{path}.filter")) if "filter" in spec else None
        weight = float(spec.get("weight", 1.0))
        kinds = [k for k in ("gauss", "exp", "linear", "field_value_factor") if k in spec]
        if len(kinds) > 1:
            raise _Unsupported(" and ".join(kinds) + " in one function", path)
        if not kinds:
            return matches, lambda doc: weight
        kind = kinds[0]
        if kind == "field_value_factor":
            return matches, self._field_value_factor(spec[kind], f"{path}.{kind}", weight)
        return matches, self._decay(kind, spec[kind], f"{path}.{kind}", weight)

    def _field_value_factor(self, spec: Any, path: str, weight: float) -> Callable[[int], float]:
        _allowed(spec, {"field", "factor", "modifier", "missing"}, path)
        field = spec.get("field")
        if field not in self.columns or self.kinds[field] != "number":
            raise RelevanceInputError(self.template_source, f"{path}: field {field!r} is not a numeric field")
        modifier = spec.get("modifier", "none")
        if modifier not in _MODIFIERS:
            raise _Unsupported(f"modifier {modifier}", path)
        factor, missing = float(spec.get("factor", 1.0)), spec.get("missing")
        column = self.columns[field]

        def value(doc: int) -> float:
            values = column[doc]
            if not values and missing is None:
                raise RelevanceInputError(
                    self.template_source,
                    f"{path}: document {self.ids[doc]!r} has no {field!r}; give field_value_factor a 'missing' value",
                )
            return _MODIFIERS[modifier](factor * (values[0] if values else float(missing))) * weight

        return value

    def _decay(self, kind: str, spec: Any, path: str, weight: float) -> Callable[[int], float]:
        options = {k: v for k, v in spec.items() if k != "multi_value_mode"} if isinstance(spec, dict) else {}
        field, params = self._field_spec(options, path, "origin")
        _allowed(params, {"origin", "scale", "offset", "decay"}, path)
        if "origin" not in params or "scale" not in params:
            raise RelevanceInputError(self.template_source, f"{path}: a decay needs origin and scale (origin: now)")
        date = self.kinds[field] == "date"
        if not date and self.kinds[field] != "number":
            raise _Unsupported(f"{kind} decay on the {self.kinds[field]} field {field!r}", path)
        origin = resolve_date(params["origin"]).timestamp() * 1000 if date else float(params["origin"])
        scale = _distance(params["scale"], date, path)
        offset = _distance(params.get("offset", 0), date, path)
        decay = float(params.get("decay", 0.5))
        curve = _DECAYS[kind](scale, decay)
        column = self.columns[field]

        def value(doc: int) -> float:
            values = column[doc]
            if not values:
                return 1.0 * weight
            distance = min(max(0.0, abs(v - origin) - offset) for v in values)
            return curve(distance) * weight

        return value


class _Unsupported(Exception):
    def __init__(self, construct: str, path: str) -> None:
        super().__init__(construct)
        self.construct, self.path = construct, path


def _values(doc: Mapping[str, Any], name: str) -> list[Any]:
    """A (possibly dotted, possibly multi-valued) field's values; a sub-field (title.keyword) reads its parent."""
    value: Any = doc
    for part in name.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, Mapping):
            return []
        # else: a multi-field such as title.keyword, which indexes its parent's value again
    if value is None:
        return []
    return [v for v in value if v is not None] if isinstance(value, list) else [value]


def _allowed(options: Any, keys: set[str], path: str) -> None:
    if not isinstance(options, dict):
        raise _Unsupported(f"{options!r}"[:60], path)
    extra = sorted(set(options) - keys)
    if extra:
        raise _Unsupported(f"{path.rsplit('.', 1)[-1]}.{extra[0]}", path)


def _sum(parts: list[Scores]) -> Scores:
    out: Scores = {}
    for part in parts:
        for doc, score in part.items():
            out[doc] = out.get(doc, 0.0) + score
    return out


def _dis_max(parts: list[Scores], tie: float) -> Scores:
    out: Scores = {}
    for doc in set().union(*parts) if parts else set():
        scores = [p[doc] for p in parts if doc in p]
        best = max(scores)
        out[doc] = best + tie * (sum(scores) - best)
    return out


def _scale(scores: Scores, boost: float) -> Scores:
    return scores if boost == 1.0 else {d: s * boost for d, s in scores.items()}


def _minimum_should_match(value: Any, count: int, has_required: bool) -> int:
    if value is None:
        return 0 if has_required or count == 0 else 1
    text = str(value).strip()
    if text.endswith("%"):
        percent = float(text[:-1])
        n = math.floor(count * abs(percent) / 100)
        return max(0, count - n) if percent < 0 else n
    n = int(text)
    return max(0, count + n) if n < 0 else min(n, count)


def _distance(value: Any, date: bool, path: str) -> float:
    if not date:
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    match = _DURATION.match(str(value).strip())
    if not match:
        raise RelevanceInputError("the query template", f"{path}: cannot read the duration {value!r} (e.g. 30d, 12h)")
    return float(match.group(1)) * _MS[match.group(2)]


def _gauss(scale: float, decay: float) -> Callable[[float], float]:
    sigma2 = -(scale**2) / (2 * math.log(decay))
    return lambda d: math.exp(-(d**2) / (2 * sigma2))


def _exp(scale: float, decay: float) -> Callable[[float], float]:
    rate = math.log(decay) / scale
    return lambda d: math.exp(rate * d)


def _linear(scale: float, decay: float) -> Callable[[float], float]:
    s = scale / (1.0 - decay)
    return lambda d: max(0.0, (s - d) / s)


_DECAYS = {"gauss": _gauss, "exp": _exp, "linear": _linear}
_MODIFIERS: dict[str, Callable[[float], float]] = {
    "none": lambda v: v,
    "log": lambda v: math.log10(v),
    "log1p": lambda v: math.log10(v + 1),
    "log2p": lambda v: math.log10(v + 2),
    "ln": math.log,
    "ln1p": math.log1p,
    "ln2p": lambda v: math.log(v + 2),
    "square": lambda v: v * v,
    "sqrt": math.sqrt,
    "reciprocal": lambda v: 1.0 / v,
}
_SCORE_MODES: dict[str, Callable[[list[float]], float]] = {
    "multiply": math.prod,
    "sum": sum,
    "avg": lambda xs: sum(xs) / len(xs),
    "first": lambda xs: xs[0],
    "max": max,
    "min": min,
}
_BOOST_MODES: dict[str, Callable[[float, float], float]] = {
    "multiply": lambda q, f: q * f,
    "replace": lambda q, f: f,
    "sum": lambda q, f: q + f,
    "avg": lambda q, f: (q + f) / 2,
    "max": max,
    "min": min,
}
