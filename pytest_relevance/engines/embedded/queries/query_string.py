"""query_string and simple_query_string: the query syntaxes users type, parsed into the same clauses as the DSL.

query_string follows Lucene's classic QueryParser: terms, "phrases"~slop, term~fuzzy, prefix* and wild?card terms,
field:term, ^boost, AND / OR / NOT and && / || / !, + and -, (grouping), _exists_:field, and the classic rule for
mixing conjunctions. Each bare term searches every field of `fields` (boosts and `*` patterns allowed) as a
best_fields multi_match (dis_max with `tie_breaker`, 0 by default). simple_query_string follows Lucene's
SimpleQueryParser: + (and), | (or), - (not: everything but), "phrase"~slop, prefix*, term~fuzzy, (grouping), limited
by `flags`; its terms search the fields as most_fields. Fuzzy, prefix and wildcard terms are lowercased, not
analyzed, as Elasticsearch normalizes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.queries import (
    F32,
    Invalid,
    Scores,
    Unsupported,
    accumulate,
    allowed,
    boost_of,
    evaluate,
    minimum_should_match,
    number,
    query,
)
from pytest_relevance.engines.embedded.queries.compound import boolean
from pytest_relevance.engines.embedded.queries.full_text import dis_max, field_weights, phrase, term_disjunction
from pytest_relevance.engines.embedded.queries.multi_term import (
    blended,
    check_rewrite,
    edits_for,
    fuzzy_expansions,
    literal_prefix,
    wildcard_regex,
)

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded import EmbeddedIndex

MUST, SHOULD, MUST_NOT = "must", "should", "must_not"


@dataclass
class Term:
    text: str
    field: str | None = None
    boost: float = 1.0
    fuzzy: str | None = None  # the edit distance as written after ~ ("" for the default, AUTO)
    phrase: bool = False
    slop: int | None = None  # None: the query's phrase_slop


@dataclass
class Group:
    clauses: list[tuple[str, Any]] = dataclass_field(default_factory=list)
    boost: float = 1.0


@dataclass
class Special:
    kind: str  # exists, all, range
    name: str = ""
    bounds: dict[str, str] = dataclass_field(default_factory=dict)


def _bounds(match: re.Match[str]) -> dict[str, str]:
    """`[a TO b]` (inclusive), `{a TO b}` (exclusive), `*` open, or `>=a`, `<b`: range query bounds."""
    if match.group("cmp"):
        key = {">=": "gte", ">": "gt", "<=": "lte", "<": "lt"}[match.group("cmp")]
        return {key: match.group("bound")}
    out = {}
    if match.group("lo") != "*":
        out["gte" if match.group("lo_in") == "[" else "gt"] = match.group("lo")
    if match.group("hi") != "*":
        out["lte" if match.group("hi_in") == "]" else "lt"] = match.group("hi")
    return out


_CLASSIC = re.compile(
    r"\s*(?:(?P<range>(?P<rfield>[\w.*]+):(?:(?P<lo_in>[\[{])\s*(?P<lo>\S+)\s+TO\s+(?P<hi>[^\]}\s]+)\s*(?P<hi_in>[\]}])"
    r"|(?P<cmp>>=|<=|>|<)(?P<bound>[^\s()]+)))"
    r"|(?P<open>\()|(?P<close>\))(?:\^(?P<gboost>[\d.]+))?|(?P<op>&&|\|\||AND\b|OR\b|NOT\b|[+\-!])"
    r'|(?P<term>(?:(?P<field>[\w.*]+):)?(?:"(?P<phrase>(?:[^"\\]|\\.)*)"|(?P<word>(?:[^\s()"\\:^~]|\\.)+))'
    r"(?:~(?P<fuzzy>[\d.]*))?(?:\^(?P<boost>[\d.]+))?))"
)


def parse_classic(text: str, default_and: bool, path: str) -> Group:
    """Lucene's classic QueryParser grammar, with its rule for combining conjunctions and modifiers."""
    stack: list[Group] = [Group()]
    conj, mods = None, None
    at = 0
    while at < len(text):
        match = _CLASSIC.match(text, at)
        if not match or match.end() == at:
            if not text[at:].strip():
                break
            raise Invalid(f"{path}.query", f"cannot parse the query string at {text[at : at + 20]!r}")
        at = match.end()
        if match.group("op"):
            op = match.group("op")
            if op in ("AND", "&&"):
                conj = MUST
            elif op in ("OR", "||"):
                conj = SHOULD
            else:
                mods = {"+": MUST, "-": MUST_NOT, "!": MUST_NOT, "NOT": MUST_NOT}[op]
            continue
        if match.group("open"):
            stack.append(Group())
            stack[-1].clauses.append(("pending", (conj, mods)))
            conj = mods = None
            continue
        if match.group("close"):
            if len(stack) == 1:
                raise Invalid(f"{path}.query", "a ')' without its '('")
            group = stack.pop()
            (_, (conj, mods)), *group.clauses = group.clauses
            group.boost = float(match.group("gboost") or 1)
            _add_clause(stack[-1], conj, mods, group, default_and)
            conj = mods = None
            continue
        node: Any
        name, word = match.group("field"), match.group("word")
        if match.group("range"):
            node = Special("range", match.group("rfield"), _bounds(match))
        elif name == "_exists_":
            node = Special("exists", word or match.group("phrase") or "")
        elif word == "*" and name in (None, "*"):
            node = Special("all")
        else:
            phrase_text = match.group("phrase")
            node = Term(
                (phrase_text if phrase_text is not None else word).replace("\\", ""),
                name, float(match.group("boost") or 1), None if phrase_text is not None else match.group("fuzzy"),
                phrase_text is not None,
                int(float(match.group("fuzzy"))) if phrase_text is not None and match.group("fuzzy") else None,
            )  # fmt: skip
        _add_clause(stack[-1], conj, mods, node, default_and)
        conj = mods = None
    if len(stack) != 1:
        raise Invalid(f"{path}.query", "a '(' without its ')'")
    return stack[0]


def _add_clause(group: Group, conj: str | None, mods: str | None, node: Any, default_and: bool) -> None:
    """QueryParserBase.addClause: AND makes the previous clause required, OR (with AND default) optional."""
    clauses = group.clauses
    if clauses and conj == MUST and clauses[-1][0] != MUST_NOT:
        clauses[-1] = (MUST, clauses[-1][1])
    if clauses and default_and and conj == SHOULD and clauses[-1][0] != MUST_NOT:
        clauses[-1] = (SHOULD, clauses[-1][1])
    prohibited = mods == MUST_NOT
    required = (not prohibited and conj != SHOULD) if default_and else (mods == MUST or conj == MUST)
    clauses.append((MUST_NOT if prohibited else MUST if required else SHOULD, node))


_FLAGS = {"ALL", "NONE", "AND", "OR", "NOT", "PREFIX", "PHRASE", "PRECEDENCE", "ESCAPE", "WHITESPACE", "FUZZY",
          "NEAR", "SLOP"}  # fmt: skip


def parse_simple(text: str, default_and: bool, flags: set[str], path: str) -> Group:
    """Lucene's SimpleQueryParser: operators fold left; `-x` is everything but x."""
    on = (lambda flag: flag in flags or "ALL" in flags) if "NONE" not in flags else (lambda flag: False)
    default = MUST if default_and else SHOULD
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"(?:~\d+)?|[+|\-()]|[^\s+|\-()"]+(?:~\d*)?', text)

    def expression(at: int) -> tuple[Any, int]:
        top: Any = None
        operation = None
        pending = default
        negate = False
        while at < len(tokens):
            token = tokens[at]
            at += 1
            if token == "+" and on("AND"):
                pending = MUST
                continue
            if token == "|" and on("OR"):
                pending = SHOULD
                continue
            if token == "-" and on("NOT"):
                negate = not negate
                continue
            if token == ")" and on("PRECEDENCE"):
                return top, at
            if token == "(" and on("PRECEDENCE"):
                branch, at = expression(at)
            else:
                branch = _simple_term(token, on)
            if branch is None:
                continue
            if negate:
                branch = Group([(MUST_NOT, branch), (SHOULD, Special("all"))])
                negate = False
            if top is None:
                top = branch
            elif isinstance(top, Group) and operation == pending and top.boost == 1.0:
                top.clauses.append((pending, branch))
            else:
                top = Group([(pending, top), (pending, branch)])
            operation, pending = pending, default
        return top, at

    top, _ = expression(0)
    return top if isinstance(top, Group) else Group([(SHOULD, top)] if top is not None else [])


def _simple_term(token: str, on: Any) -> Term | None:
    if token.startswith('"') and on("PHRASE"):
        body, _, slop = token[1:].rpartition('"')
        return Term(body.replace("\\", ""), phrase=True, slop=int(slop[1:]) if slop and on("SLOP") else None)
    word, _, fuzz = token.partition("~")
    word = word.strip('"')
    if not word:
        return None
    if not on("PREFIX"):
        word = word.replace("*", "")
    fuzzy = fuzz if "~" in token and on("FUZZY") else None
    return Term(word, fuzzy=fuzzy)


class _Evaluator:
    def __init__(self, index: EmbeddedIndex, options: dict[str, Any], path: str, simple: bool) -> None:
        self.index, self.options, self.path, self.simple = index, options, path, simple
        fields = options.get("fields") or options.get("default_field") or "*"
        self.fields = field_weights(index, fields, path)
        self.lenient = bool(options.get("lenient", fields == "*" or fields == ["*"]))
        self.tie = 1.0 if simple else number(options, "tie_breaker", path, 0.0)
        self.default_and = str(options.get("default_operator", "or")).lower() == "and"

    def group(self, group: Group, boost: float) -> Scores:
        boost = float(F32(group.boost) * F32(boost))
        parts: dict[str, list[Scores]] = {MUST: [], SHOULD: [], MUST_NOT: []}
        for occur, node in group.clauses:
            scores = self.node(node, boost)
            if scores is not None:
                parts[occur].append(scores)
        if not any(parts.values()):
            return Scores.none(self.index.n)
        if len(parts[SHOULD]) == 1 and not parts[MUST] and not parts[MUST_NOT]:
            return parts[SHOULD][0]
        return boolean(self.index, parts[MUST], parts[SHOULD], parts[MUST_NOT], [])

    def node(self, node: Any, boost: float) -> Scores | None:
        if isinstance(node, Group):
            return self.group(node, boost)
        if isinstance(node, Special):
            if node.kind == "all":
                return Scores.constant(np.ones(self.index.n, dtype=bool), boost)
            if node.name not in self.index.kinds:  # an unmapped field: Elasticsearch's MatchNoDocsQuery
                return Scores.none(self.index.n)
            if node.kind == "range":
                self.index.check_field(node.name, f"{self.path}.query")
                return evaluate(self.index, {"range": {node.name: node.bounds}}, f"{self.path}.query", boost)
            self.index.check_field(node.name, f"{self.path}.query")
            return Scores.constant(self.index.has_value(node.name), boost)
        boost = float(F32(node.boost) * F32(boost))
        targets = self.fields
        if node.field is not None:
            if "*" not in node.field and node.field not in self.index.kinds:
                return Scores.none(self.index.n)  # an unmapped field matches nothing, also as a required clause
            targets = field_weights(self.index, [node.field], f"{self.path}.query")
        if node.phrase and self.options.get("quote_field_suffix") is not None:
            targets = self.quoted(targets)
        per_field = [s for name, weight in targets if (s := self.term(node, name, float(F32(weight) * F32(boost))))]
        if not per_field:
            return None
        return dis_max(self.index, per_field, self.tie)

    def quoted(self, targets: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """Where a quoted part searches: each field's `field + quote_field_suffix` when that field is mapped, else the
        field itself; fields that end up the same multiply their weights (QueryParserHelper.resolveMappingFields)."""
        suffix = str(self.options["quote_field_suffix"])
        merged: dict[str, float] = {}
        for name, weight in targets:
            if name + suffix in self.index.kinds:
                name += suffix
            merged[name] = float(F32(merged.get(name, 1.0)) * F32(weight))
        return list(merged.items())

    def term(self, node: Term, name: str, boost: float) -> Scores | None:
        index, kind = self.index, self.index.kinds[name]
        if kind not in ("text", "keyword"):
            try:
                return index.equal(name, [node.text], boost, f"{self.path}.query")
            except Invalid:
                # a MatchNoDocsQuery, as Elasticsearch's lenient parser builds: it still fails a required clause
                if self.lenient:
                    return Scores.none(index.n)
                raise
        text = node.text
        if node.phrase:
            if kind != "text":
                return term_disjunction(index, name, [index.normalize(name, text)], boost, None, self.path)
            slop = node.slop if node.slop is not None else int(number(self.options, "phrase_slop", self.path, 0))
            return phrase(index, name, text, slop, boost, self.path, self.options.get("quote_analyzer"))
        if node.fuzzy is not None:
            word = text.lower() if kind == "text" else index.normalize(name, text)
            fuzziness = node.fuzzy or self.options.get("fuzziness", "AUTO")
            edits = edits_for(fuzziness if fuzziness != "" else "AUTO", word, self.path)
            prefix_length = int(number(self.options, "fuzzy_prefix_length", self.path, 0))
            max_expansions = int(number(self.options, "fuzzy_max_expansions", self.path, 50))
            transpositions = bool(self.options.get("fuzzy_transpositions", True))
            target = index.postings_field(name, self.path)
            found = fuzzy_expansions(target, word, edits, prefix_length, transpositions, max_expansions)
            docs, total, _ = accumulate(index, [(blended(index, name, found, boost, self.path), 1)])
            return Scores.of(index.n, docs, total.astype(F32))
        if "*" in text or "?" in text:
            pattern = text.lower() if kind == "text" else text
            compiled = re.compile(wildcard_regex(pattern), re.DOTALL)
            target = index.postings_field(name, self.path)
            matched = np.zeros(index.n, dtype=bool)
            start = literal_prefix(pattern)
            for term in target.sorted_terms:
                if term.startswith(start) and compiled.fullmatch(term):
                    postings = target.postings(term)
                    if postings is not None:
                        matched[postings.docs] = True
            return Scores.constant(matched, boost)
        if kind == "keyword":
            return term_disjunction(index, name, [index.normalize(name, text)], boost, None, self.path)
        terms = index.search_terms(name, text, self.options.get("analyzer"), self.path)
        if not terms:
            return None
        required = len(terms) if self.default_and else None
        return term_disjunction(index, name, list(terms), boost, required, self.path)


_COMMON = {"query", "fields", "default_operator", "analyzer", "quote_analyzer", "lenient", "boost",
           "minimum_should_match", "fuzzy_max_expansions", "fuzzy_prefix_length", "fuzzy_transpositions",
           "analyze_wildcard", "auto_generate_synonyms_phrase_query", "quote_field_suffix"}  # fmt: skip


def _top(evaluator: _Evaluator, parsed: Group, boost: float, path: str) -> Scores:
    """The parsed query; `minimum_should_match` applies to its top-level optional clauses."""
    msm = evaluator.options.get("minimum_should_match")
    if msm is None:
        return evaluator.group(parsed, boost)
    parts: dict[str, list[Scores]] = {MUST: [], SHOULD: [], MUST_NOT: []}
    for occur, node in parsed.clauses:
        scores = evaluator.node(node, boost)
        if scores is not None:
            parts[occur].append(scores)
    required = minimum_should_match(msm, len(parts[SHOULD]), path)
    return boolean(evaluator.index, parts[MUST], parts[SHOULD], parts[MUST_NOT], [], required)


@query("query_string")
def query_string(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    keys = {"default_field", "tie_breaker", "type", "fuzziness", "phrase_slop", "allow_leading_wildcard", "escape",
            "enable_position_increments", "max_determinized_states", "rewrite", "time_zone"}  # fmt: skip
    options = allowed(spec, _COMMON | keys, path)
    check_rewrite(options, path)
    if options.get("type", "best_fields") not in ("best_fields", "most_fields"):
        raise Unsupported(f"query_string type {options['type']}", path)
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the query string)")
    evaluator = _Evaluator(index, options, path, simple=False)
    if options.get("type") == "most_fields":
        evaluator.tie = 1.0
    parsed = parse_classic(str(options["query"]), evaluator.default_and, path)
    return _top(evaluator, parsed, boost_of(options, path, boost), path)


@query("simple_query_string")
def simple_query_string(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec, _COMMON | {"flags"}, path)
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the query string)")
    flags = {f.strip().upper() for f in str(options.get("flags", "ALL")).split("|")}
    unknown = sorted(flags - _FLAGS)
    if unknown:
        raise Invalid(f"{path}.flags", f"{unknown[0]!r} is not a flag ({', '.join(sorted(_FLAGS))})")
    evaluator = _Evaluator(index, options, path, simple=True)
    parsed = parse_simple(str(options["query"]), evaluator.default_and, flags, path)
    return _top(evaluator, parsed, boost_of(options, path, boost), path)
