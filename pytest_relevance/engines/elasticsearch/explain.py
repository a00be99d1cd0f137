"""The server's `_explain` output mapped onto `pytest_relevance.explain.tree.Node`, the tree the embedded engine
records.

Lucene's explanations carry no template paths, only descriptions. Those that have been stable since Elasticsearch 7
(Lucene 8) are parsed into kinds and details: `weight(title:boot in 12) [PerFieldSimilarity], result of:` with its
`score(freq=...)`, `idf`, `tf` children (BM25 leaves: freq, docFreq, docCount, dl, avgdl, boost, idf, tf, k1, b; the
`tfNorm` form of Elasticsearch 6 too), `sum of:`, `max of:`, `max plus 0.3 times others of:`, `function score,
product of:`, `function score, score mode [multiply]`, a `min of:` with `maxBoost`, `Function for field released:`
(a decay: origin, offset, the document's value), `field value function: ln2p(doc['popularity'].value?:0.0 *
factor=1.0)`, `script score function...`, `match filter: ...`, a rescorer's `primaryWeight`/`secondaryWeight`, and
the no-match forms. Any other description is kept whole in `details["description"]`, kind `other`.

A node's path is its parent's, then what the node is: `[title:boot]` for a term, `.decay(released)`,
`.field_value_factor(popularity)`, `.script`, `.weight`, and `kind[i]` (i counting the siblings of that kind) for
a combination. Two states of one template explained by the same server give the same paths to the same clauses,
which is what an explanation diff needs; they are not the embedded engine's template paths.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pytest_relevance.explain.tree import Node

_WEIGHT = re.compile(r"^weight\((?P<query>.*) in \d+\) \[[^\]]*\], result of:$", re.S)
_TERM = re.compile(r"^(?P<field>[^:\s()]+):(?P<term>.+?)(?:\^(?P<boost>[\d.]+))?$", re.S)
_SYNONYM = re.compile(r"^Synonym\((?P<inner>.*)\)$", re.S)
_DIS_MAX = re.compile(r"^max plus (?P<tie>[\d.Ee+-]+) times others of:$")
_SCORE_MODE = re.compile(r"^function score, score mode \[(?P<mode>\w+)\]$")
_DECAY = re.compile(r"^Function for field (?P<field>.+):$")
_DECAY_FORMULA = re.compile(
    r"^(?P<shape>exp\(-0\.5\*pow|exp\(- |max\(0\.0).*?(?P<input>-?[\d.Ee+-]+)\(=doc value\).*?"
    r"(?P<origin>-?[\d.Ee+-]+)\(=origin\).*?(?P<offset>-?[\d.Ee+-]+)\(=offset\)",
    re.S,
)
_FIELD_VALUE = re.compile(
    r"^field value function(?:\(_name: [^)]*\))?: (?P<modifier>\w*)\(doc\['(?P<field>[^']+)'\]\.value"
    r"(?:\?:(?P<missing>[^ ]+))? \* factor=(?P<factor>[^)]+)\)$"
)
_SCRIPT = re.compile(r"idOrCode='(?P<source>.*?)', options=", re.S)
_RESCORE_MODES = {"sum of:": "total", "product of:": "multiply", "avg of:": "avg", "max of:": "max", "min of:": "min"}
_FACTORS = {"weight": "weight", "primaryWeight": "query_weight", "secondaryWeight": "rescore_query_weight"}
_NO_MATCH = (
    "no matching",
    "No matching",
    "Failure to meet condition",
    "No match",
    "not match",
    "no match on",
    "match on prohibited clause",
)
_LEAF_NUMBERS = {  # (Elasticsearch 7+ description, Elasticsearch 6 description) -> detail
    "freq": ("freq, occurrences of term within document", "termFreq="),
    "k1": ("k1, term saturation parameter", "parameter k1"),
    "b": ("b, length normalization parameter", "parameter b"),
    "dl": ("dl, length of field", "fieldLength"),
    "avgdl": ("avgdl, average length of field", "avgFieldLength"),
    "docFreq": ("n, number of documents containing term", "docFreq"),
    "docCount": ("N, total number of documents with field", "docCount"),
}


def from_elasticsearch(explanation: Mapping[str, Any], matched: bool = True, path: str = "query") -> Node:
    """The tree of one `_explain` answer (its `explanation` object and `matched`), rooted at `path`."""
    root = _node(explanation, path)
    if matched:
        return root
    # the server names the clause in its words (`no match on required clause (title:boot)`): that is what failed
    clauses = [n for _, n in root.walk() if n.kind == "no_match" and "clause (" in str(n.details["description"])]
    failed = str(clauses[0].details["description"]) if clauses else ""
    details = {**root.details, **({"failed": failed} if failed else {})}
    return Node(root.path, root.kind, 0.0, details, root.children, False)


def _flat(explanation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [d for d in explanation.get("details") or [] if isinstance(d, Mapping)]


def _node(explanation: Mapping[str, Any], path: str) -> Node:
    description = str(explanation.get("description", ""))
    value = float(explanation.get("value") or 0.0)
    details = _flat(explanation)
    if any(description.startswith(prefix) for prefix in _NO_MATCH):
        return Node(path, "no_match", 0.0, {"description": description}, _children(details, path), False)
    weight = _WEIGHT.match(description)
    if weight:
        return _bm25(weight["query"], value, details, path)
    combined = _combination(description, value, details, path)
    if combined is not None:
        return combined
    return _function(description, value, details, path)


def _combination(description: str, value: float, details: list[Mapping[str, Any]], path: str) -> Node | None:
    """sum, max, dis_max and function_score nodes (with their children), or None."""
    # QueryRescorer: `<score_mode> of:` over the first pass x primaryWeight and the rescore query x secondaryWeight
    mode = _RESCORE_MODES.get(description)
    if mode is not None and any(_has(d, "primaryWeight") for d in details):
        return Node(path, "rescore", value, {"score_mode": mode}, _children(details, path))
    if description == "sum of:":
        return Node(path, "sum", value, {}, _children(details, path))
    if description == "max of:":
        return Node(path, "max", value, {"tie_breaker": 0.0}, _children(details, path))
    if tie := _DIS_MAX.match(description):
        return Node(path, "dis_max", value, {"tie_breaker": float(tie["tie"])}, _children(details, path))
    if description == "function score, product of:":
        return Node(path, "function_score", value, {"boost_mode": "multiply"}, _children(details, path))
    if scored := _SCORE_MODE.match(description):
        return Node(path, "function_score", value, {"score_mode": scored["mode"]}, _children(details, path))
    if description == "min of:" and details and str(details[-1].get("description")) == "maxBoost":
        max_boost = float(details[-1].get("value") or 0.0)
        return Node(path, "function_score", value, {"max_boost": max_boost}, _children(details[:-1], path))
    factor = _FACTORS.get(str(details[-1].get("description"))) if len(details) == 2 else None
    if description == "product of:" and factor is not None:
        # a function and its weight, a rescore's query and its weight: one node, the weight a detail
        inner = _node(details[0], path)
        weight = float(details[-1].get("value") or 0.0)
        return Node(inner.path, inner.kind, value, {**inner.details, factor: weight}, inner.children, inner.matched)
    if description.endswith("product of:"):
        kind = "filter" if description.startswith("match on required clause") else "product"
        return Node(path, kind, value, {"description": description} if kind == "product" else {},
                    _children(details, path))  # fmt: skip
    return None


def _function(description: str, value: float, details: list[Mapping[str, Any]], path: str) -> Node:
    """A function of function_score, a filter, a constant, or a node kept as its description."""
    if decay := _DECAY.match(description):
        out: dict[str, float | str] = {"field": decay["field"]}
        formula = str(details[0].get("description", "")) if details else ""
        if numbers := _DECAY_FORMULA.match(formula):
            shape = {"exp(-0.5*pow": "gauss", "exp(- ": "exp", "max(0.0": "linear"}[numbers["shape"]]
            out.update(function=shape, input=float(numbers["input"]), origin=float(numbers["origin"]),
                       offset=float(numbers["offset"]))  # fmt: skip
        return Node(f"{path}.decay({decay['field']})", "decay", value, out)
    if factor := _FIELD_VALUE.match(description):
        out = {"field": factor["field"], "modifier": factor["modifier"] or "none", "factor": float(factor["factor"])}
        if factor["missing"] is not None:
            out["missing"] = float(factor["missing"])
        return Node(f"{path}.field_value_factor({factor['field']})", "field_value_factor", value, out)
    if description.startswith("script score function"):
        script = _SCRIPT.search(description)
        out = {"source": script["source"]} if script else {"description": description}
        return Node(f"{path}.script", "script", value, out, _children(details, f"{path}.script"))
    if description == "weight" or description == "No function matched":
        return Node(f"{path}.weight", "weight", value, {"weight": value})
    if description.startswith("match filter:") or description == "# clause":
        return Node(f"{path}.filter", "filter", 0.0, {"matched": 1.0, "description": description})
    if description in ("*:*", "maxBoost") or description.startswith("ConstantScore("):
        return Node(f"{path}.constant", "constant", value, {"description": description})
    return Node(path, "other", value, {"description": description}, _children(details, path))


def _bm25(query: str, value: float, details: list[Mapping[str, Any]], path: str) -> Node:
    """A `weight(field:term in doc)` leaf: what it scored, with the numbers of its score explanation."""
    synonym = _SYNONYM.match(query)
    if synonym:
        terms = [t.split(":", 1) for t in synonym["inner"].split()]
        field, term = terms[0][0], "(" + "|".join(t[1] for t in terms if len(t) == 2) + ")"
    else:
        parsed = _TERM.match(query)
        field, term = (parsed["field"], parsed["term"]) if parsed else ("", query)
    out: dict[str, float | str] = {"field": field, "term": term, "boost": 1.0}
    for child in _walk(details):
        text = str(child.get("description", ""))
        number = float(child.get("value") or 0.0)
        if text == "boost":
            out["boost"] = number
        elif text.startswith("idf"):
            out["idf"] = number
        elif text.startswith(("tf, computed", "tfNorm")):
            out["tf"] = number
        else:
            for key, (modern, old) in _LEAF_NUMBERS.items():
                if text.startswith((modern, old)):
                    out[key] = number
    return Node(f"{path}[{field}:{term}]" if field else f"{path}[{term}]", "bm25", value, out)


def _walk(details: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    out, stack = [], list(reversed(details))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(_flat(node)))
    return out


def _has(explanation: Any, *descriptions: str) -> bool:
    if isinstance(explanation, list):
        return any(_has(e, *descriptions) for e in explanation)
    return any(str(d.get("description")) in descriptions for d in _flat(explanation))


def _children(details: list[Mapping[str, Any]], path: str) -> tuple[Node, ...]:
    """The children of a combination, each path numbered among its siblings of the same kind."""
    nodes = [_node(d, path) for d in details]
    counts: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    out = []
    for child in nodes:
        if child.path == path:  # a combination: named by its kind and place among siblings of that kind
            child = _renamed(child, f"{path}.{child.kind}[{counts[child.kind]}]")
            counts[child.kind] += 1
        seen[child.path] += 1
        if seen[child.path] > 1:  # a second script, a term in two clauses: numbered as the embedded engine does
            child = _renamed(child, f"{child.path}#{seen[child.path]}")
        out.append(child)
    return tuple(out)


def _renamed(node: Node, path: str) -> Node:
    """The subtree with `path` in place of its root's path, in its own and its descendants' paths."""
    old = node.path
    children = tuple(_renamed(c, path + c.path[len(old) :]) for c in node.children)
    return Node(path, node.kind, node.value, node.details, children, node.matched)
