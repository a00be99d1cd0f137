"""query_string and simple_query_string, parsed as Lucene parses them and built as Elasticsearch builds them.

query_string is Lucene's classic QueryParser (QueryParser.jj): a lexer with the grammar's token kinds and states
(default, boost, range), and one function per production (Query, MultiTerm, Clause, Term), with QueryParserBase's
addClause / addMultiTermClauses rules and splitOnWhitespace false (consecutive bare terms are analyzed together).
Elasticsearch's QueryStringQueryParser then builds each part over the resolved fields: a dis_max (the type's tie,
or `tie_breaker`) of per-field match, phrase, prefix, wildcard, fuzzy, regexp or range queries; a purely negative
boolean gets a match_all filter; `minimum_should_match` applies only when the result is a boolean query.

simple_query_string is Lucene's SimpleQueryParser, its state machine ported as written (operators fold left, an
unclosed quote or parenthesis is ignored, only a trailing `*` is a prefix), with Elasticsearch's
SimpleQueryStringQueryParser building terms as most_fields (dis_max tie 1), phrases as phrase (tie 0), prefix and
fuzzy terms as a dis_max tie 1 of per-field queries.

Both build a small tree of Lucene queries first (so the shape, which decides float rounding and where
`minimum_should_match` applies, is Lucene's) and then score it with the engine's clause builders.
"""

from __future__ import annotations

import bisect
import contextlib
import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.queries.compound import boolean
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.full_text import dis_max, match_field, phrase, term_disjunction
from pytest_relevance.engines.embedded.queries.multi_term import (
    CONSTANT,
    Rewrite,
    edits_for,
    fuzzy_expansions,
    fuzzy_rewrite,
    index_prefix_docs,
    index_prefix_query,
    literal_prefix,
    lucene_regexp,
    parse_rewrite,
    regexp_operators,
    rewritten,
    rewritten_parts,
    searched_value,
    top_terms,
    wildcard_regex,
)
from pytest_relevance.engines.embedded.queries.options import (
    allowed,
    boost_of,
    minimum_should_match,
    number,
    value_tokens,
)
from pytest_relevance.engines.embedded.queries.registry import evaluate, query
from pytest_relevance.engines.embedded.scores import Scores

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex

MUST, SHOULD, MUST_NOT, FILTER = "must", "should", "must_not", "filter"


# ---------------------------------------------------------------- the query tree


@dataclass
class Bool:
    clauses: list[tuple[str, Any]] = dataclass_field(default_factory=list)
    msm: int = 0


@dataclass
class DisMax:
    parts: list[Any]
    tie: float


@dataclass
class Boost:
    node: Any
    boost: float


@dataclass
class Leaf:
    """One Lucene query on one field: kind is match (`text` analyzed, `occur` between its tokens), term, phrase,
    prefix, wildcard, fuzzy, regexp, range, exists, all or none; or dsl, a multi_match over several fields (the
    cross_fields, phrase_prefix and bool_prefix types, which Elasticsearch builds with the multi_match code)."""

    kind: str
    field: str = ""
    text: str = ""
    occur: str = SHOULD
    slop: int = 0
    edits: int = 0
    bounds: dict[str, str] = dataclass_field(default_factory=dict)
    msm: Any = None
    spec: dict[str, Any] = dataclass_field(default_factory=dict)  # dsl: the multi_match this part is


NONE = Leaf("none")
ALL = Leaf("all")


def with_boost(node: Any, boost: float) -> Any:
    """A BoostQuery unless the boost is 1 or the query matches nothing (as Elasticsearch's wrapWithBoost)."""
    if node is None or boost == 1.0 or node is NONE:
        return node
    return Boost(node, boost)


def dis_max_of(parts: list[Any], tie: float) -> Any:
    """Elasticsearch's combineGrouped: no query for no part, the part itself for one, else a dis_max."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else DisMax(parts, tie)


class Builder:
    """Elasticsearch's per-field query building, shared by both parsers."""

    def __init__(self, index: EmbeddedIndex, options: dict[str, Any], path: str, weights: dict[str, float],
                 lenient: bool) -> None:  # fmt: skip
        self.index, self.options, self.path = index, options, path
        self.weights, self.lenient = weights, lenient
        self.occur = MUST if str(options.get("default_operator", "or")).lower() == "and" else SHOULD
        self.analyzer = options.get("analyzer")

    def refuse(self, problem: str) -> Leaf:
        """A field that cannot take this kind of query: MatchNoDocs when lenient, else Elasticsearch's error."""
        if self.lenient:
            return NONE
        raise Invalid(f"{self.path}.query", problem)

    def mapped(self, field: str) -> bool:
        """An unmapped field is Elasticsearch's MatchNoDocsQuery (newUnmappedFieldQuery), also when required."""
        return field in self.index.kinds

    def match(self, field: str, text: str) -> Any:
        """MatchQueryParser on one field; None when the text analyzes to no token (zero_terms_query NULL)."""
        index = self.index
        if not self.mapped(field):
            return NONE
        kind = index.kinds[field]
        if kind == "text":
            index.check_field(field, f"{self.path}.query")
            if not index.search_terms(field, text, self.analyzer, self.path):
                return None
        elif kind == "keyword":
            index.check_field(field, f"{self.path}.query")
        elif kind not in ("number", "date", "boolean"):
            return self.refuse(f"field {field!r} of type [{index.fields[field].type}] cannot be searched with text")
        else:
            try:
                index.equal(field, [text], 1.0, f"{self.path}.query")
            except Invalid:
                return self.refuse(f"{text!r} does not fit the {kind} field {field!r}")
        return Leaf("match", field, text, self.occur)

    def multi_match(self, weights: dict[str, float], text: str, tie: float) -> Any:
        parts = [with_boost(self.match(f, text), w) for f, w in weights.items()]
        return dis_max_of(parts, tie)

    def phrase(self, weights: dict[str, float], text: str, slop: int, tie: float) -> Any:
        parts = []
        for field, weight in weights.items():
            if not self.mapped(field):
                parts.append(NONE)
                continue
            kind = self.index.kinds[field]
            if kind == "text":
                self.index.check_field(field, f"{self.path}.query")
                quote = self.options.get("quote_analyzer") or self.analyzer
                if not self.index.search_graph(field, text, quote, quote=True, path=self.path)[0]:
                    continue
                parts.append(with_boost(Leaf("phrase", field, text, slop=slop), weight))
            else:
                parts.append(with_boost(self.match(field, text), weight))
        return dis_max_of(parts, tie)

    def normalized(self, field: str, text: str) -> str:
        """Analyzer.normalize: a keyword field's normalizer; a text field's search analyzer lowercases."""
        return text.lower() if self.index.kinds[field] == "text" else self.index.normalize(field, text)

    def multi_term(self, kind: str, field: str, text: str, edits: int = 0) -> Any:
        """prefix, wildcard, fuzzy or regexp on one field, on text and keyword fields only."""
        if not self.mapped(field):
            return NONE
        if self.index.kinds[field] not in ("text", "keyword"):
            return self.refuse(f"Can only use {kind} queries on keyword and text fields - not on [{field}] "
                               f"which is of type [{self.index.fields[field].type}]")  # fmt: skip
        self.index.check_field(field, f"{self.path}.query")
        if kind == "prefix" and self.options.get("analyze_wildcard") and self.index.kinds[field] == "text":
            return self.analyzed_prefix(field, text)
        if kind == "wildcard":
            text = _normalize_wildcard(lambda chunk: self.normalized(field, chunk), text)
        elif kind == "regexp":
            text = searched_value(self.index, field, text)
            _regexp_parts(text, self.path)
        else:
            text = self.normalized(field, text)
        return Leaf(kind, field, text, edits=edits)

    def analyzed_prefix(self, field: str, text: str) -> Any:
        """`analyze_wildcard`: the prefix text through the search analyzer; the last token is the prefix, the ones
        before it terms, joined by the default operator (getPossiblyAnalyzedPrefixQuery / newPossiblyAnalyzedQuery);
        no token: no query."""
        terms, positions = self.index.search_tokens(field, text, self.analyzer, path=self.path)
        groups: list[list[str]] = []
        for term, position, previous in zip(terms, positions, [None, *positions], strict=False):
            if position == previous:
                groups[-1].append(term)
            else:
                groups.append([term])
        if not groups:
            return None
        if len(groups) == 1 and len(groups[0]) == 1:
            return Leaf("prefix", field, groups[0][0])
        clauses: list[tuple[str, Any]] = []
        for at, group in enumerate(groups):
            last = at == len(groups) - 1
            if len(group) == 1:
                clauses.append((self.occur, Leaf("prefix" if last else "term", field, group[0])))
            elif last:
                clauses.append((self.occur, Bool([(SHOULD, Leaf("prefix", field, t)) for t in group])))
            else:
                raise Unsupported("analyze_wildcard on a prefix whose analysis stacks synonyms", self.path)
        return Bool(clauses)


def _normalize_wildcard(normalize: Any, pattern: str) -> str:
    """QueryParserBase.analyzeWildcard: the text between wildcards and escapes is normalized, they stay."""
    out, last = [], 0
    for found in re.finditer(r"(\\.)|([?*]+)", pattern):
        if found.start() > last:
            out.append(normalize(pattern[last : found.start()]))
        out.append(found.group())
        last = found.end()
    if last < len(pattern):
        out.append(normalize(pattern[last:]))
    return "".join(out)


# ---------------------------------------------------------------- scoring the tree


def run(builder: Builder, node: Any, boost: float) -> Scores:
    """The tree's scores: boosts multiply down (float32), booleans sum their scoring clauses, leaves are the
    engine's clause builders (BM25 terms, phrases and blended fuzzy terms; constant-score multi-term queries)."""
    index, path = builder.index, builder.path
    if isinstance(node, Boost):
        return run(builder, node.node, float(F32(node.boost) * F32(boost))).boosted(node.boost)
    if isinstance(node, DisMax):
        return dis_max(index, [run(builder, p, boost) for p in node.parts], node.tie)
    if isinstance(node, Bool):
        parts: dict[str, list[Scores]] = {MUST: [], SHOULD: [], MUST_NOT: [], FILTER: []}
        for occur, child in node.clauses:
            if occur == SHOULD and node.msm <= 1 and isinstance(child, Leaf):
                inlined = _inlined(builder, child, boost)
                if inlined is not None:
                    parts[SHOULD].extend(inlined)
                    continue
            parts[occur].append(run(builder, child, 0.0 if occur in (MUST_NOT, FILTER) else boost))
        if not (parts[MUST] or parts[SHOULD] or parts[FILTER]):
            return Scores.none(index.n)  # Lucene: a purely negative boolean matches nothing
        return boolean(index, parts[MUST], parts[SHOULD], parts[MUST_NOT], parts[FILTER], node.msm, flatten=True)
    leaf: Leaf = node
    if leaf.kind == "none":
        return Scores.none(index.n)
    if leaf.kind == "all":
        return Scores.constant(np.ones(index.n, dtype=bool), boost)
    field = leaf.field
    if leaf.kind == "match":
        spec = {"query": leaf.text, "operator": "and" if leaf.occur == MUST else "or", "lenient": builder.lenient}
        if builder.analyzer is not None:
            spec["analyzer"] = builder.analyzer
        if leaf.msm is not None:
            spec["minimum_should_match"] = leaf.msm
        if "auto_generate_synonyms_phrase_query" in builder.options:
            spec["auto_generate_synonyms_phrase_query"] = builder.options["auto_generate_synonyms_phrase_query"]
        return match_field(index, field, spec, path, boost)
    if leaf.kind == "term":
        return term_disjunction(index, field, [leaf.text], boost, None, path)
    if leaf.kind == "phrase":
        quote = builder.options.get("quote_analyzer") or builder.analyzer
        return phrase(index, field, leaf.text, leaf.slop, boost, path, quote)
    if leaf.kind == "exists":
        return Scores.constant(index.has_value(field), boost)
    if leaf.kind == "range":
        return evaluate(index, {"range": {field: leaf.bounds}}, f"{path}.query", boost)
    if leaf.kind == "dsl":
        return evaluate(index, leaf.spec, f"{path}.query", boost)
    on_prefixes = index_prefix_query(index, field, leaf.text, boost) if leaf.kind == "prefix" else None
    if on_prefixes is not None:  # a search_as_you_type field: SearchAsYouTypeFieldType.prefixQuery
        return on_prefixes
    found, rewrite = _multi_term(builder, leaf)
    return rewritten(index, field, found, rewrite, boost, path)


def _multi_term(builder: Builder, leaf: Leaf) -> tuple[list[tuple[str, float]], Rewrite]:
    """The terms (with their boosts) a prefix, wildcard, regexp or fuzzy leaf expands to, and its rewrite."""
    index, path, options = builder.index, builder.path, builder.options
    target = index.postings_field(leaf.field, path)
    if leaf.kind == "fuzzy":
        prefix_length = int(number(options, "fuzzy_prefix_length", path, 0))
        max_expansions = int(number(options, "fuzzy_max_expansions", path, 50))
        transpositions = bool(options.get("fuzzy_transpositions", True))
        # QueryStringQueryParser.getFuzzyQuerySingle gives fieldType.fuzzyQuery no rewrite: `fuzzy_rewrite` is
        # checked (a name parseRewriteMethod does not know is an error) but fuzzy terms keep FuzzyQuery's default
        rewrite = Rewrite("blended", max_expansions)
        return fuzzy_expansions(target, leaf.text, leaf.edits, prefix_length, transpositions, max_expansions), rewrite
    accept: Callable[[str], object] | None
    if leaf.kind == "prefix":
        start, accept = leaf.text, None
    elif leaf.kind == "wildcard":
        compiled = re.compile(wildcard_regex(leaf.text), re.DOTALL)
        start, accept = literal_prefix(leaf.text), compiled.fullmatch
    else:
        parts = _regexp_parts(leaf.text, path)
        start, accept = "", lambda term: all(part.fullmatch(term) is not None for part in parts)
    terms = target.sorted_terms
    low = bisect.bisect_left(terms, start)
    high = bisect.bisect_left(terms, start + "\U0010ffff") if start else len(terms)
    found = [(term, 1.0) for term in terms[low:high] if accept is None or accept(term)]
    return found, parse_rewrite(options, "rewrite", path, CONSTANT)


def _inlined(builder: Builder, leaf: Leaf, boost: float) -> list[Scores] | None:
    """A multi-term leaf whose rewrite is a boolean query of term clauses (any but a constant score): its term
    clauses, which Lucene's BooleanQuery rewrite inlines into an enclosing disjunction (so they are summed with
    its other clauses, not first with each other). None for any other leaf."""
    if leaf.kind not in ("prefix", "wildcard", "regexp", "fuzzy"):
        return None
    if leaf.kind == "prefix" and index_prefix_docs(builder.index, leaf.field, leaf.text) is not None:
        return None  # one constant-score term on the search_as_you_type field's ._index_prefix
    found, rewrite = _multi_term(builder, leaf)
    if rewrite.kind == "constant":
        return None
    parts = rewritten_parts(
        builder.index, leaf.field, top_terms(found, rewrite.size), rewrite.kind, boost, builder.path
    )
    return [Scores.of(builder.index.n, docs, values) for docs, values in parts]


def _regexp_parts(pattern: str, path: str) -> list[re.Pattern[str]]:
    """Lucene's RegExp (flags ALL) as the patterns a term must all match; one it cannot read is refused, as
    Elasticsearch refuses the query."""
    try:
        operators = regexp_operators("ALL", path)
        return [re.compile(part, re.DOTALL | re.ASCII) for part in lucene_regexp(pattern, f"{path}.query", operators)]
    except re.error as exc:
        raise Invalid(f"{path}.query", f"{pattern!r} is not a regular expression this engine reads ({exc})") from None


def apply_msm(node: Any, msm: Any, path: str) -> Any:
    """Queries.maybeApplyMinimumShouldMatch: only a BooleanQuery takes it, counting its optional clauses."""
    if msm is None:
        return node
    if isinstance(node, Bool):
        should = sum(1 for occur, _ in node.clauses if occur == SHOULD)
        required = minimum_should_match(msm, should, path)
        return Bool(node.clauses, required) if required > 0 else node
    if isinstance(node, Leaf) and node.kind == "match":
        return Leaf("match", node.field, node.text, node.occur, msm=msm)  # a multi-token match is a BooleanQuery
    return node


# ---------------------------------------------------------------- fields


def _searchable(index: EmbeddedIndex, name: str) -> bool:
    """What a field pattern expands to (QueryParserHelper.resolveMappingField): indexed fields that hold text or
    values a term can match; doc-values-only fields and metadata fields are skipped."""
    spec = index.fields[name]
    if name.startswith("_") or not spec.index:
        return False
    if spec.kind == "text":
        return name in index.text
    return spec.kind in ("keyword", "number", "date", "boolean")


def resolve_fields(
    index: EmbeddedIndex, entries: list[str], path: str, suffix: str | None = None, all_types: bool = False
) -> dict[str, float]:
    """QueryParserHelper.resolveMappingFields: `name^boost` entries, patterns expanded over the searchable fields,
    a field reached twice gets the product of its boosts; `suffix` (quote_field_suffix) replaces a field by
    `field + suffix` where that one is mapped. `all_types` keeps unsearchable fields a pattern reaches (as
    query_string's `field:` prefix does)."""
    resolved: dict[str, float] = {}
    for entry in entries:
        name, _, weight = str(entry).partition("^")
        try:
            boost = float(F32(float(weight))) if weight else 1.0
        except ValueError:
            raise Invalid(f"{path}.fields", f"{entry!r}: the boost after ^ is not a number") from None
        pattern = "*" in name
        matches = [f for f in index.kinds if fnmatch.fnmatchcase(f, name)] if pattern else [name]
        for found in matches:
            if found not in index.kinds:
                continue
            if suffix is not None and found + suffix in index.kinds:
                found += suffix
            if pattern and not all_types and not _searchable(index, found):
                continue
            resolved[found] = float(F32(resolved.get(found, 1.0)) * F32(boost))
    return resolved


def field_weights(index: EmbeddedIndex, options: dict[str, Any], path: str, key: str) -> tuple[dict[str, float], bool]:
    """The fields searched and whether lenient is the default (any entry is `*`): `fields`, else `default_field`
    (query_string), else the index's `index.query.default_field`."""
    entries: Any = options.get("fields")
    if entries is None or entries == []:
        entries = options.get(key) if key else None
    if entries is None or entries == []:
        entries = index.mapping.query_default_field
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise Invalid(f"{path}.fields", "needs a list of fields, e.g. ['title^3', 'description']")
    every = any(e.partition("^")[0] == "*" for e in entries)
    return resolve_fields(index, entries, path), every


# ---------------------------------------------------------------- simple_query_string: SimpleQueryParser

_SIMPLE_FLAGS = {"ALL": -1, "NONE": 0, "AND": 1, "NOT": 2, "OR": 4, "PREFIX": 8, "PHRASE": 16, "PRECEDENCE": 32,
                 "ESCAPE": 64, "WHITESPACE": 128, "FUZZY": 256, "NEAR": 512, "SLOP": 512}  # fmt: skip
AND_OP, NOT_OP, OR_OP, PREFIX_OP, PHRASE_OP, PRECEDENCE_OP, ESCAPE_OP, WHITESPACE_OP, FUZZY_OP, NEAR_OP = (
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512
)  # fmt: skip
_WHITESPACE = " \t\n\r"


def simple_flags(value: Any, path: str) -> int:
    """SimpleQueryStringFlag.resolveFlags: `AND|OR|PREFIX` (case-insensitive), or a number (negative: ALL)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return -1 if value < 0 else value
    flags = 0
    for name in str(value).split("|"):
        name = name.strip().upper()
        if not name:
            continue
        if name not in _SIMPLE_FLAGS:
            raise Invalid(f"{path}.flags", f"{name!r} is not a flag ({', '.join(sorted(_SIMPLE_FLAGS))})")
        if _SIMPLE_FLAGS[name] == -1:
            return -1
        flags |= _SIMPLE_FLAGS[name]
    return flags


class _State:
    def __init__(self, start: int, end: int) -> None:
        self.index, self.length = start, end
        self.current: str | None = None
        self.previous: str | None = None
        self.not_count = 0
        self.top: Any = None


class SimpleParser:
    """Lucene's SimpleQueryParser, state for state, with Elasticsearch's query factories."""

    def __init__(self, builder: Builder, flags: int) -> None:
        self.builder, self.flags = builder, flags
        self.default = builder.occur

    def on(self, flag: int) -> bool:
        return self.flags & flag != 0

    def parse(self, text: str) -> Any:
        if text.strip() == "*":
            return ALL
        self.data = text
        state = _State(0, len(text))
        self.sub_query(state)
        return state.top if state.top is not None else NONE

    def sub_query(self, state: _State) -> None:
        data = self.data
        while state.index < state.length:
            char = data[state.index]
            if char == "(" and self.on(PRECEDENCE_OP):
                self.consume_sub_query(state)
            elif char == ")" and self.on(PRECEDENCE_OP):
                state.index += 1
            elif char == '"' and self.on(PHRASE_OP):
                self.consume_phrase(state)
            elif char == "+" and self.on(AND_OP):
                if state.current is None and state.top is not None:
                    state.current = MUST
                state.index += 1
            elif char == "|" and self.on(OR_OP):
                if state.current is None and state.top is not None:
                    state.current = SHOULD
                state.index += 1
            elif char == "-" and self.on(NOT_OP):
                state.not_count += 1
                state.index += 1
                continue
            elif char in _WHITESPACE and self.on(WHITESPACE_OP):
                state.index += 1
            else:
                self.consume_token(state)
            state.not_count = 0

    def consume_sub_query(self, state: _State) -> None:
        data = self.data
        state.index += 1
        start = state.index
        precedence, escaped = 1, False
        while state.index < state.length:
            if not escaped:
                char = data[state.index]
                if char == "\\" and self.on(ESCAPE_OP):
                    escaped = True
                    state.index += 1
                    continue
                if char == "(":
                    precedence += 1
                elif char == ")":
                    precedence -= 1
                    if precedence == 0:
                        break
            escaped = False
            state.index += 1
        if state.index == state.length:
            state.index = start  # no closing parenthesis: the opening one is ignored
        elif state.index == start:
            state.current = None
            state.index += 1
        else:
            sub = _State(start, state.index)
            self.sub_query(sub)
            self.build_tree(state, sub.top)
            state.index += 1

    def consume_phrase(self, state: _State) -> None:
        data = self.data
        state.index += 1
        start = state.index
        copied: list[str] = []
        escaped = has_slop = False
        while state.index < state.length:
            if not escaped:
                char = data[state.index]
                if char == "\\" and self.on(ESCAPE_OP):
                    escaped = True
                    state.index += 1
                    continue
                if char == '"':
                    if state.length > state.index + 1 and data[state.index + 1] == "~" and self.on(NEAR_OP):
                        state.index += 1
                        if state.length > state.index + 1:
                            has_slop = True
                    break
            escaped = False
            copied.append(data[state.index])
            state.index += 1
        if state.index == state.length:
            state.index = start  # no closing quote: the opening one is ignored
        elif state.index == start:
            state.current = None
            state.index += 1
        else:
            slop = self.fuzziness(state) if has_slop else 0
            self.build_tree(state, self.new_phrase("".join(copied), slop))
            state.index += 1

    def consume_token(self, state: _State) -> None:
        data = self.data
        copied: list[str] = []
        escaped = prefix = fuzzy = False
        while state.index < state.length:
            if not escaped:
                char = data[state.index]
                if char == "\\" and self.on(ESCAPE_OP):
                    escaped = True
                    prefix = False
                    state.index += 1
                    continue
                if self.token_finished(state):
                    break
                if copied and char == "~" and self.on(FUZZY_OP):
                    fuzzy = True
                    break
                prefix = bool(copied) and char == "*" and self.on(PREFIX_OP)
            escaped = False
            copied.append(data[state.index])
            state.index += 1
        if not copied:
            return
        token = "".join(copied)
        if fuzzy and self.on(FUZZY_OP):
            edits = min(self.fuzziness(state), 2)
            branch = self.new_default(token) if edits == 0 else self.new_fuzzy(token, edits)
        elif prefix:
            branch = self.new_prefix(token[:-1])
        else:
            branch = self.new_default(token)
        self.build_tree(state, branch)

    def build_tree(self, state: _State, branch: Any) -> None:
        if branch is None:
            return
        if state.not_count % 2 == 1:
            branch = Bool([(MUST_NOT, branch), (SHOULD, ALL)])
        if state.top is None:
            state.top = branch
        else:
            if state.current is None:
                state.current = self.default
            if state.previous != state.current:
                state.top = Bool([(state.current, state.top)])
            state.top = Bool([*state.top.clauses, (state.current, branch)], state.top.msm)
            state.previous = state.current
        state.current = None

    def fuzziness(self, state: _State) -> int:
        """parseFuzziness: the digits after `~` up to the end of the token; none: 2; unreadable: 0."""
        data = self.data
        if data[state.index] != "~":
            return 0
        digits: list[str] = []
        while state.index < state.length:
            state.index += 1
            if state.index < state.length:
                if self.token_finished(state):
                    break
                digits.append(data[state.index])
        text = "".join(digits)
        if not text:
            return 2
        try:
            return max(int(text), 0) if re.fullmatch(r"[+-]?\d+", text) else 0
        except ValueError:
            return 0

    def token_finished(self, state: _State) -> bool:
        char = self.data[state.index]
        return (
            (char == '"' and self.on(PHRASE_OP))
            or (char == "|" and self.on(OR_OP))
            or (char == "+" and self.on(AND_OP))
            or (char in "()" and self.on(PRECEDENCE_OP))
            or (char in _WHITESPACE and self.on(WHITESPACE_OP))
        )

    # Elasticsearch's SimpleQueryStringQueryParser factories

    def new_default(self, text: str) -> Any:
        return self.builder.multi_match(self.builder.weights, text, 1.0)

    def new_phrase(self, text: str, slop: int) -> Any:
        builder = self.builder
        weights = builder.weights
        suffix = builder.options.get("quote_field_suffix")
        if suffix is not None:
            weights = resolve_fields(builder.index, [f"{f}^{w}" for f, w in weights.items()], builder.path, suffix)
        return builder.phrase(weights, text, slop, 0.0)

    def new_fuzzy(self, text: str, edits: int) -> Any:
        weights = self.builder.weights
        parts = [with_boost(self.builder.multi_term("fuzzy", f, text, edits), w) for f, w in weights.items()]
        return dis_max_of(parts, 1.0)

    def new_prefix(self, text: str) -> Any:
        parts = [with_boost(self.builder.multi_term("prefix", f, text), w) for f, w in self.builder.weights.items()]
        return dis_max_of(parts, 1.0)


# ---------------------------------------------------------------- query_string: the classic QueryParser

_TERM_EXCLUDED = set(' \t\n\r\u3000+-!():^[]"{}~*?\\/')
_SPACE = set(" \t\n\r\u3000")
_POST_MULTI_TERM_DISALLOWED = {"COLON", "STAR", "FUZZY_SLOP", "CARAT", "AND", "OR"}


@dataclass
class Token:
    """One token of QueryParserTokenManager: its kind (the grammar's name), its text and where it starts."""

    kind: str
    image: str
    at: int


def _term_end(text: str, at: int, wild: bool, first: bool = True) -> int:
    """The end of the longest TERM (or, with `wild`, WILDTERM) starting at `at`; `at` when none starts there.
    `first`: the first character must be a term start character (not `+` or `-`)."""
    i = at
    while i < len(text):
        char = text[i]
        if char == "\\":
            if i + 1 >= len(text):
                break
            i += 2
        elif wild and char in "*?":
            i += 1
        elif char in _TERM_EXCLUDED and not (not first and char in "+-"):
            break
        else:
            i += 1
        first = False
    return i


class ClassicSyntaxError(Exception):
    """Lucene's ParseException or TokenMgrError: the text is not in the grammar (Elasticsearch refuses it)."""


def lex(text: str) -> list[Token]:
    """QueryParserTokenManager: the longest match in the current state, the earlier token kind on a tie."""
    tokens: list[Token] = []
    i, state = 0, "DEFAULT"
    while True:
        if state != "BOOST":
            while i < len(text) and text[i] in _SPACE:
                i += 1
        if i >= len(text):
            if state == "BOOST":
                raise ClassicSyntaxError("a boost '^' needs a number after it")
            tokens.append(Token("EOF", "", i))
            return tokens
        char = text[i]
        if state == "BOOST":
            found = re.compile(r"\d+(?:\.\d+)?").match(text, i)
            if not found:
                raise ClassicSyntaxError(f"a boost '^' needs a number after it, found {text[i : i + 10]!r}")
            tokens.append(Token("NUMBER", found.group(), i))
            i, state = found.end(), "DEFAULT"
            continue
        if state == "RANGE":
            if char in "]}":
                tokens.append(Token("RANGEIN_END" if char == "]" else "RANGEEX_END", char, i))
                i, state = i + 1, "DEFAULT"
                continue
            if char == '"':
                found = re.compile(r'"(?:[^"]|\\")+"').match(text, i)
                if found:
                    tokens.append(Token("RANGE_QUOTED", found.group(), i))
                    i = found.end()
                    continue
            found = re.compile(r"[^ \]}]+").match(text, i)
            assert found is not None
            image = found.group()
            tokens.append(Token("RANGE_TO" if image == "TO" else "RANGE_GOOP", image, i))
            i = found.end()
            continue
        single = {"(": "LPAREN", ")": "RPAREN", ":": "COLON", "^": "CARAT", "[": "RANGEIN_START",
                  "{": "RANGEEX_START"}  # fmt: skip
        if char in single:
            tokens.append(Token(single[char], char, i))
            i += 1
            state = "BOOST" if char == "^" else "RANGE" if char in "[{" else state
            continue
        if char in "+-!":
            if i + 1 < len(text) and text[i + 1] in _SPACE:
                tokens.append(Token("BAREOPER", text[i : i + 2], i))
                i += 2
            else:
                tokens.append(Token({"+": "PLUS", "-": "MINUS", "!": "NOT"}[char], char, i))
                i += 1
            continue
        if char == '"':
            found = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL).match(text, i)
            if not found:
                raise ClassicSyntaxError(f"a quote '\"' without its closing quote at {text[i : i + 20]!r}")
            tokens.append(Token("QUOTED", found.group(), i))
            i = found.end()
            continue
        if char == "~":  # "~" then term characters (digits, and a "." between them, are term characters too)
            end = _term_end(text, i + 1, False, first=False)
            tokens.append(Token("FUZZY_SLOP", text[i:end], i))
            i = end
            continue
        if char == "/":
            found = re.compile(r"/(?:[^/]|\\/)*/", re.DOTALL).match(text, i)
            if not found:
                raise ClassicSyntaxError(f"a '/' without its closing '/' at {text[i : i + 20]!r}")
            tokens.append(Token("REGEXPTERM", found.group(), i))
            i = found.end()
            continue
        term_end = _term_end(text, i, False)
        wild_end = _term_end(text, i, True)
        if wild_end == i:
            raise ClassicSyntaxError(f"unexpected character {char!r} at {text[i : i + 20]!r}")
        image = text[i:wild_end]
        if wild_end == term_end:
            kind = {"AND": "AND", "&&": "AND", "OR": "OR", "||": "OR", "NOT": "NOT"}.get(image, "TERM")
        elif image == "*":
            kind = "STAR"
        elif wild_end == term_end + 1 and text[term_end] == "*" and term_end > i:
            kind = "PREFIXTERM"
        else:
            kind = "WILDTERM"
        tokens.append(Token(kind, image, i))
        i = wild_end


def discard_escapes(text: str) -> str:
    """QueryParserBase.discardEscapeChar: `\\x` is x, `\\uXXXX` the character with that code."""
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(text):
            raise ClassicSyntaxError("Term can not end with escape character.")
        if text[i + 1] == "u":
            digits = text[i + 2 : i + 6]
            if len(digits) < 4:
                raise ClassicSyntaxError("Truncated unicode escape sequence.")
            if not re.fullmatch(r"[0-9a-fA-F]{4}", digits):
                raise ClassicSyntaxError(f"Non-hex character in Unicode escape sequence: {digits}")
            out.append(chr(int(digits, 16)))
            i += 6
            continue
        out.append(text[i + 1])
        i += 2
    return "".join(out)


_CLAUSE_START = {"AND", "OR", "NOT", "PLUS", "MINUS", "TERM", "STAR", "PREFIXTERM", "WILDTERM", "REGEXPTERM",
                 "NUMBER", "BAREOPER", "RANGEIN_START", "RANGEEX_START", "QUOTED", "LPAREN"}  # fmt: skip
_TERM_KINDS = {"TERM", "STAR", "PREFIXTERM", "WILDTERM", "REGEXPTERM", "NUMBER", "BAREOPER"}


class ClassicParser:
    """QueryParser.jj's productions over the token list, with QueryStringQueryParser's query factories."""

    def __init__(self, builder: Builder, default_field: str | None, tie: float) -> None:
        self.builder = builder
        self.default_field = default_field  # None: the resolved fields of the query
        self.tie = tie
        self.and_default = builder.occur == MUST
        self.phrase_slop = int(number(builder.options, "phrase_slop", builder.path, 0))
        self.allow_leading = bool(builder.options.get("allow_leading_wildcard", True))

    def parse(self, text: str) -> Any:
        if not text.strip():
            return NONE
        self.tokens = lex(text)
        self.at = 0
        node = self.query(self.default_field)
        if self.peek().kind != "EOF":
            raise ClassicSyntaxError(f"unexpected {self.peek().image!r} at character {self.peek().at}")
        return node

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.at + ahead, len(self.tokens) - 1)]

    def take(self, kind: str) -> Token:
        token = self.peek()
        if token.kind != kind:
            found = "the end" if token.kind == "EOF" else repr(token.image)
            raise ClassicSyntaxError(f"expected {kind.lower()}, found {found} at character {token.at}")
        self.at += 1
        return token

    def multi_term_ahead(self) -> bool:
        return (self.peek().kind == "TERM" and self.peek(1).kind == "TERM"
                and self.peek(2).kind not in _POST_MULTI_TERM_DISALLOWED)  # fmt: skip

    def query(self, field: str | None) -> Any:
        clauses: list[tuple[str, Any]] = []
        first: Any = None
        if self.multi_term_ahead():
            first = self.multi_term(field, clauses)
        else:
            mods = self.modifiers()
            node = self.clause(field)
            self.add_clause(clauses, None, mods, node)
            if mods is None:
                first = node
        while True:
            if self.multi_term_ahead():
                self.multi_term(field, clauses)
            elif self.peek().kind in _CLAUSE_START:
                conj = self.conjunction()
                mods = self.modifiers()
                node = self.clause(field)
                self.add_clause(clauses, conj, mods, node)
            else:
                break
        if len(clauses) == 1 and first is not None:
            return first
        return self.boolean(clauses)

    def conjunction(self) -> str | None:
        kind = self.peek().kind
        if kind in ("AND", "OR"):
            self.at += 1
            return MUST if kind == "AND" else SHOULD
        return None

    def modifiers(self) -> str | None:
        kind = self.peek().kind
        if kind in ("PLUS", "MINUS", "NOT"):
            self.at += 1
            return MUST if kind == "PLUS" else MUST_NOT
        return None

    def multi_term(self, field: str | None, clauses: list[tuple[str, Any]]) -> Any:
        words = [self.take("TERM").image]
        while self.peek().kind == "TERM" and self.peek(1).kind not in _POST_MULTI_TERM_DISALLOWED:
            words.append(self.take("TERM").image)
        node = self.field_query(field, discard_escapes(" ".join(words)))
        self.add_multi_term_clauses(clauses, node)
        return node

    def clause(self, field: str | None) -> Any:
        if self.peek().kind in ("TERM", "STAR") and self.peek(1).kind == "COLON":
            token = self.peek()
            field = "*" if token.kind == "STAR" else discard_escapes(token.image)
            self.at += 2
        if self.peek().kind == "LPAREN":
            self.at += 1
            node = self.query(field)
            self.take("RPAREN")
            boost = None
            if self.peek().kind == "CARAT":
                self.at += 1
                boost = self.take("NUMBER").image
            return self.handle_boost(node, boost)
        return self.term(field)

    def term(self, field: str | None) -> Any:
        token = self.peek()
        boost = fuzzy = None
        if token.kind in _TERM_KINDS:
            self.at += 1
            boost, fuzzy = self.term_modifiers()
            image = token.image[0] if token.kind == "BAREOPER" else token.image
            return self.handle_boost(self.bare(field, token.kind, image, fuzzy), boost)
        if token.kind in ("RANGEIN_START", "RANGEEX_START"):
            self.at += 1
            low = self.range_part()
            self.take("RANGE_TO")
            high = self.range_part()
            end = self.peek()
            if end.kind not in ("RANGEIN_END", "RANGEEX_END"):
                raise ClassicSyntaxError(f"a range needs ']' or '}}' at character {end.at}")
            self.at += 1
            if self.peek().kind == "CARAT":
                self.at += 1
                boost = self.take("NUMBER").image
            node = self.range(field, low, high, token.kind == "RANGEIN_START", end.kind == "RANGEIN_END")
            return self.handle_boost(node, boost)
        if token.kind == "QUOTED":
            self.at += 1
            boost, fuzzy = self.term_modifiers()
            slop = self.phrase_slop
            if fuzzy is not None:
                with contextlib.suppress(ValueError):
                    slop = int(float(fuzzy[1:]))
            return self.handle_boost(self.phrase(field, discard_escapes(token.image[1:-1]), slop), boost)
        found = "the end" if token.kind == "EOF" else repr(token.image)
        raise ClassicSyntaxError(f"expected a term, a phrase, a range or '(', found {found} at character {token.at}")

    def term_modifiers(self) -> tuple[str | None, str | None]:
        boost = fuzzy = None
        if self.peek().kind == "CARAT":
            self.at += 1
            boost = self.take("NUMBER").image
            if self.peek().kind == "FUZZY_SLOP":
                fuzzy = self.take("FUZZY_SLOP").image
        elif self.peek().kind == "FUZZY_SLOP":
            fuzzy = self.take("FUZZY_SLOP").image
            if self.peek().kind == "CARAT":
                self.at += 1
                boost = self.take("NUMBER").image
        return boost, fuzzy

    def range_part(self) -> str | None:
        token = self.peek()
        if token.kind not in ("RANGE_GOOP", "RANGE_QUOTED", "RANGE_TO"):
            raise ClassicSyntaxError(f"a range bound is missing at character {token.at}")
        self.at += 1
        if token.kind == "RANGE_QUOTED":
            return discard_escapes(token.image[1:-1])
        return None if token.image == "*" else discard_escapes(token.image)

    @staticmethod
    def handle_boost(node: Any, boost: str | None) -> Any:
        if boost is None or node is None:
            return node
        return Boost(node, float(F32(float(boost))))

    def add_clause(self, clauses: list[tuple[str, Any]], conj: str | None, mods: str | None, node: Any) -> None:
        """QueryParserBase.addClause."""
        if clauses and conj == MUST and clauses[-1][0] != MUST_NOT:
            clauses[-1] = (MUST, clauses[-1][1])
        if clauses and self.and_default and conj == SHOULD and clauses[-1][0] != MUST_NOT:
            clauses[-1] = (SHOULD, clauses[-1][1])
        if node is None:
            return
        prohibited = mods == MUST_NOT
        if self.and_default:
            required = not prohibited and conj != SHOULD
        else:
            required = mods == MUST or (conj == MUST and not prohibited)
        clauses.append((MUST_NOT if prohibited else MUST if required else SHOULD, node))

    def add_multi_term_clauses(self, clauses: list[tuple[str, Any]], node: Any) -> None:
        """QueryParserBase.addMultiTermClauses: a boolean of plain terms joins the clause list term by term."""
        if node is None:
            return
        if isinstance(node, Bool) and all(isinstance(c, Leaf) and c.kind == "term" for _, c in node.clauses):
            clauses.extend(node.clauses)
            return
        occur = MUST if self.and_default else SHOULD
        if isinstance(node, Bool):
            clauses.extend((occur, c) for _, c in node.clauses)
        else:
            clauses.append((occur, node))

    @staticmethod
    def boolean(clauses: list[tuple[str, Any]]) -> Any:
        """getBooleanQuery, with Elasticsearch's fixNegativeQueryIfNeeded (a match_all filter when every clause is
        prohibited)."""
        if not clauses:
            return None
        if all(occur == MUST_NOT for occur, _ in clauses):
            return Bool([*clauses, (FILTER, ALL)])
        return Bool(list(clauses))

    # QueryStringQueryParser's factories

    def fields_for(self, field: str | None, quoted: bool) -> dict[str, float]:
        """extractMultiFields: the query's fields for a part without a field (quote_field_suffix applied to a
        quoted one), every searchable field for `*:` when `*` is the default, else the named field or pattern."""
        builder = self.builder
        suffix = builder.options.get("quote_field_suffix") if quoted else None
        if field is not None and field == "*" and self.default_field == "*":
            return builder.weights
        if field is None:
            if suffix is None:
                return builder.weights
            entries = [f"{f}^{w}" for f, w in builder.weights.items()]
            return resolve_fields(builder.index, entries, builder.path, suffix)
        return resolve_fields(builder.index, [field], builder.path, suffix, all_types=field != "*")

    def field_query(self, field: str | None, text: str) -> Any:
        """getFieldQuery(field, text, quoted=false): `>=`/`<` ranges, _exists_, else a match over the fields (one
        field: Lucene's createFieldQuery, a boolean of its tokens)."""
        if field == "_exists_":
            return self.exists(text)
        if field is not None and len(text) > 1 and text[0] in "<>":
            inclusive = len(text) > 2 and text[1] == "="
            value = text[2:] if inclusive else text[1:]
            if text[0] == ">":
                return self.range(field, value, None, inclusive, True)
            return self.range(field, None, value, True, inclusive)
        fields = self.fields_for(field, False)
        if not fields:
            return NONE
        kind = self.builder.options.get("type")
        if kind == "phrase":  # every part of the text a phrase, slop phrase_slop
            return self.builder.phrase(fields, text, self.phrase_slop, self.tie)
        if kind in ("cross_fields", "phrase_prefix", "bool_prefix"):
            return self.multi_match_type(kind, fields, text)
        if len(fields) == 1:
            ((name, weight),) = fields.items()
            return with_boost(self.single_field(name, text), weight)
        return self.builder.multi_match(fields, text, self.tie)

    def multi_match_type(self, kind: str, fields: dict[str, float], text: str) -> Any:
        """A part of the text as the multi_match of that type over the fields (MultiMatchQueryParser.parse); no
        query when it analyzes to no token in every field (zero_terms_query NULL)."""
        builder, index = self.builder, self.builder.index
        if all(index.kinds[f] == "text" and not index.search_terms(f, text, builder.analyzer, builder.path)
               for f in fields):  # fmt: skip
            return None
        spec: dict[str, Any] = {"query": text, "fields": [f"{f}^{w}" for f, w in fields.items()], "type": kind,
                                "tie_breaker": self.tie, "lenient": builder.lenient,
                                "operator": "and" if builder.occur == MUST else "or"}  # fmt: skip
        if builder.analyzer is not None:
            spec["analyzer"] = builder.analyzer
        if kind == "phrase_prefix":
            spec["slop"] = self.phrase_slop
        return Leaf("dsl", spec={"multi_match": spec})

    def single_field(self, name: str, text: str) -> Any:
        """One field's query, shaped as Lucene's QueryBuilder makes it: a term, or a boolean of terms."""
        builder, index = self.builder, self.builder.index
        node = builder.match(name, text)
        if not isinstance(node, Leaf) or node.kind != "match" or index.kinds[name] != "text":
            return node
        terms, positions, lengths = index.search_graph(name, text, builder.analyzer, path=builder.path)
        if len(set(positions)) != len(positions) or (lengths and max(lengths) > 1):
            return node  # synonyms: a SynonymQuery or graph, which the match leaf builds
        if len(terms) == 1:
            return Leaf("term", name, terms[0])
        return Bool([(builder.occur, Leaf("term", name, t)) for t in terms])

    def phrase(self, field: str | None, text: str, slop: int) -> Any:
        if field == "_exists_":
            return self.exists(text)
        fields = self.fields_for(field, True)
        if not fields:
            return NONE
        return self.builder.phrase(fields, text, slop, self.tie)

    def exists(self, name: str) -> Any:
        if name not in self.builder.index.kinds:
            return NONE
        self.builder.index.check_field(name, f"{self.builder.path}.query")
        return Leaf("exists", name)

    def range(self, field: str | None, low: str | None, high: str | None, low_in: bool, high_in: bool) -> Any:
        fields = self.fields_for(field, False)
        parts = []
        for name, weight in fields.items():
            bounds = {}
            if low is not None:
                bounds["gte" if low_in else "gt"] = low
            if high is not None:
                bounds["lte" if high_in else "lt"] = high
            if self.builder.index.kinds[name] == "date" and self.builder.options.get("time_zone") is not None:
                bounds["time_zone"] = self.builder.options["time_zone"]
            if self.builder.index.kinds[name] in ("text", "keyword"):
                self.builder.index.check_field(name, f"{self.builder.path}.query")
            parts.append(with_boost(Leaf("range", name, bounds=bounds), weight))
        return dis_max_of(parts, self.tie) or NONE

    def bare(self, field: str | None, kind: str, image: str, fuzzy: str | None) -> Any:
        """handleBareTokenQuery."""
        builder = self.builder
        if kind in ("STAR", "WILDTERM"):
            actual = field if field is not None else self.default_field
            if image == "*" and actual == "*":
                return ALL
            if image == "*":
                if actual is not None and "*" not in actual:
                    return self.exists(actual)
                names = self.fields_for(field, False)
                return dis_max_of([with_boost(self.exists(n), w) for n, w in names.items()], self.tie) or NONE
            if not self.allow_leading and image[:1] in ("*", "?"):
                raise ClassicSyntaxError("'*' or '?' not allowed as first character in WildcardQuery")
            return self.multi("wildcard", field, image)
        if kind == "PREFIXTERM":
            text = discard_escapes(image[:-1])
            if not self.allow_leading and text.startswith("*"):
                raise ClassicSyntaxError("'*' not allowed as first character in PrefixQuery")
            return self.multi("prefix", field, text)
        if kind == "REGEXPTERM":
            return self.multi("regexp", field, image[1:-1])
        text = discard_escapes(image)
        if fuzzy is not None:
            if fuzzy == "~":  # the query's `fuzziness` (AUTO by default), by the term's length
                edits = edits_for(builder.options.get("fuzziness", "AUTO"), text, builder.path)
            else:
                edits = slop_edits(fuzzy[1:])
            return self.multi("fuzzy", field, text, edits)
        return self.field_query(field, text)

    def multi(self, kind: str, field: str | None, text: str, edits: int = 0) -> Any:
        fields = self.fields_for(field, False)
        if not fields:
            return NONE
        parts = [with_boost(self.builder.multi_term(kind, f, text, edits), w) for f, w in fields.items()]
        return dis_max_of(parts, self.tie)


def slop_edits(spec: str) -> int:
    """The edits of `term~spec`: QueryStringQueryParser.getFuzzyDistance reads `spec` with Fuzziness.fromString,
    so a fraction is refused there ("roam~0.8", which Lucene's own QueryParserBase would turn into edits by the
    term's length with FuzzyQuery.floatToEdits), and so is a distance other than 0, 1 or 2, with its messages."""
    try:
        value = F32(float(spec))
    except ValueError:
        raise ClassicSyntaxError(f"fuzziness cannot be [{spec}].") from None
    if value % F32(1) > 0:
        raise ClassicSyntaxError(
            f"fuzziness needs to be one of 0.0, 1.0 or 2.0 but was {np.format_float_positional(value)}"
        )
    edits = int(value)
    if edits not in (0, 1, 2):
        raise ClassicSyntaxError(f"Valid edit distances are [0, 1, 2] but was [{edits}]")
    return edits


# ---------------------------------------------------------------- the query types

_COMMON = {"query", "fields", "default_operator", "analyzer", "lenient", "boost", "_name",
           "minimum_should_match", "fuzzy_max_expansions", "fuzzy_prefix_length", "fuzzy_transpositions",
           "analyze_wildcard", "auto_generate_synonyms_phrase_query", "quote_field_suffix"}  # fmt: skip
_TIES = {"best_fields": 0.0, "most_fields": 1.0, "phrase": 0.0, "cross_fields": 0.0, "phrase_prefix": 0.0,
         "bool_prefix": 1.0}  # fmt: skip


def _operator(options: dict[str, Any], path: str) -> None:
    if str(options.get("default_operator", "or")).lower() not in ("or", "and"):
        raise Invalid(f"{path}.default_operator", f"{options['default_operator']!r} is not 'or' or 'and'")


@query("query_string")
def query_string(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    keys = {"default_field", "tie_breaker", "type", "fuzziness", "phrase_slop", "allow_leading_wildcard", "escape",
            "enable_position_increments", "max_determinized_states", "rewrite", "fuzzy_rewrite",
            "time_zone", "quote_analyzer"}  # fmt: skip
    if isinstance(spec, dict):  # objects are its `unknown token`; an array other than fields, an unknown key
        value_tokens({k: v for k, v in spec.items() if not isinstance(v, list)}, "query_string", path)
    options = allowed(spec, _COMMON | keys, path, every="query_string")
    parse_rewrite(options, "rewrite", path, CONSTANT)
    fuzzy_rewrite(options, "fuzzy_rewrite", path, 50)
    kind = options.get("type", "best_fields")
    if kind not in _TIES:
        raise Unsupported(f"query_string type {kind}", path)
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the query string)")
    _operator(options, path)
    default = options.get("default_field")
    if default is not None and options.get("fields"):
        raise Invalid(path, "cannot use [fields] parameter in conjunction with [default_field] (Elasticsearch's "
                      "refusal: give one of them)")  # fmt: skip
    if default is not None:
        weights, every = field_weights(index, {"fields": [default]}, path, "")
        default_field: str | None = "*" if every else str(default)
    else:
        weights, every = field_weights(index, options, path, "")
        default_field = "*" if every else None
    lenient = bool(options.get("lenient", every))
    builder = Builder(index, options, path, weights, lenient)
    tie = number(options, "tie_breaker", path, _TIES[kind])
    text = str(options["query"])
    if options.get("escape"):
        text = re.sub(r'([\\+\-!():^\[\]"{}~*?|&/])', r"\\\1", text)
    try:
        parsed = ClassicParser(builder, default_field, tie).parse(text)
    except ClassicSyntaxError as exc:
        raise Invalid(f"{path}.query", f"Elasticsearch cannot parse the query string {text!r}: {exc}") from None
    if parsed is None:
        return Scores.none(index.n)
    if isinstance(parsed, Bool) and parsed.clauses and all(o == MUST_NOT for o, _ in parsed.clauses):
        parsed = Bool([*parsed.clauses, (FILTER, ALL)])
    parsed = apply_msm(parsed, options.get("minimum_should_match"), path)
    return run(builder, parsed, boost_of(options, path, boost))


@query("simple_query_string")
def simple_query_string(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    if isinstance(spec, dict):  # SimpleQueryStringBuilder.fromXContent's refusals, by the key's kind of value
        for key, value in spec.items():
            if key in _COMMON or key == "flags":
                continue
            if isinstance(value, dict):
                problem = f"unknown token [START_OBJECT] after [{key}]"
            else:
                problem = f"query does not support [{key}]" if isinstance(value, list) else f"unsupported field [{key}]"
            raise Invalid(path, f"[simple_query_string] {problem}, as Elasticsearch 8 refuses it")
    options = allowed(spec, _COMMON | {"flags"}, path)
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the query string)")
    _operator(options, path)
    flags = simple_flags(options.get("flags", "ALL"), path)
    weights, every = field_weights(index, options, path, "")
    builder = Builder(index, options, path, weights, bool(options.get("lenient", every)))
    parsed = SimpleParser(builder, flags).parse(str(options["query"]))
    parsed = apply_msm(parsed, options.get("minimum_should_match"), path)
    return run(builder, parsed, boost_of(options, path, boost))
