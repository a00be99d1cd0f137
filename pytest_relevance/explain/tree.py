"""Score explanations: one tree per document, the same shape on both engines, so two states can be compared.

A `Node` is one clause of the rendered template that took part in a document's score. Its `path` is where the
clause sits in the search body, as the embedded engine's handlers name it and error messages show it
(`query.function_score.query.multi_match`); nodes the template has no key for extend their parent's path:

- a field of a multi-field query: `...multi_match[title]` (the field's boost is in `details`, not in the path, so a
  changed boost is the same node with another value); a cross_fields group `...multi_match[title+description]` and
  one of its terms `...multi_match[title+description][boot]`;
- a term (BM25) leaf: `<clause>[field:term]` (the term as analyzed), a phrase `<clause>[field:"hike boot"]`,
  synonyms stacked at one position `<clause>[field:(boot|boots)]`, a fuzzy expansion by the term it reached;
- a function of function_score: `...function_score.functions[0].gauss` (or `...function_score.gauss` for the
  single-function form), its filter `...functions[0].filter.term`;
- beyond the query: `rescore` (`rescore[0]`, ... for a list), `knn`, `post_filter.<type>`. A body with any of these
  has a root `search` over them and the query's tree; a body that is a query alone has the query's node as root.

A path the same explanation reaches twice (one clause evaluated at two places of a token graph) gets `#2`, `#3`...
in the order the engine evaluates them, which both states of an unchanged template share. `flatten` gives the
`{path: node}` mapping an explanation diff aligns by; `line` and `render` are the text forms. A root that did not
match says in `details["failed"]` what failed where it is cheap to know: the path of the required clause it misses
(or excludes it), `should (no clause matched)`, or the stage that removed it after scoring (`min_score`,
`collapse`, `rescore`). The Elasticsearch engine's trees have the same kinds and details, with paths made from the
server's descriptions (`engines/elasticsearch_explain.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Detail = float | str

# kinds of node (Node.kind)
KINDS = (
    "bm25",  # one term, phrase or synonym clause scored by the field's similarity
    "sum",  # a boolean query: the matching clauses' scores summed (in double, then float)
    "max",  # a dis_max with tie_breaker 0: the best clause
    "dis_max",  # the best clause plus tie_breaker x the others
    "product",  # a score multiplied by a factor (boosting's negative_boost, a rescorer's multiply)
    "function_score",  # a query's score combined with its functions' (score_mode, boost_mode, max_boost)
    "decay",  # gauss, exp or linear of a field's distance from an origin
    "field_value_factor",  # modifier(factor x a field's value)
    "script",  # a script_score function or query
    "weight",  # a function that is its weight alone, or random_score
    "filter",  # a clause that decides matching only (bool filter and must_not, function filters, post_filter)
    "constant",  # a constant score (match_all, range, exists, constant_score, a term on a number)
    "rescore",  # a rescorer's combination of the query's score and its rescore query's
    "knn",  # the vector similarity of a document among the k nearest
    "no_match",  # a document the query does not match
    "other",  # a node the engine has no finer kind for (its description is in details)
)


@dataclass(frozen=True)
class Node:
    """One clause's contribution to one document's score.

    `value` is the float32 score the clause gave the document (as a Python float, so it prints and compares as
    the engine computed it); `details` the numbers behind it (for BM25: term, field, freq, docFreq, docCount, dl,
    avgdl, boost, idf, tf; for a decay: field, origin, scale, offset, decay, input; for a filter: matched);
    `matched` whether the clause matched the document (a node that did not is kept, with value 0, so that "no
    longer matches" can be said).
    """

    path: str
    kind: str
    value: float
    details: Mapping[str, Detail] = field(default_factory=dict)
    children: tuple[Node, ...] = ()
    matched: bool = True

    def walk(self) -> Iterator[tuple[int, Node]]:
        """Every node of the tree with its depth, parents first, children in evaluation order."""
        stack: list[tuple[int, Node]] = [(0, self)]
        while stack:
            depth, node = stack.pop()
            yield depth, node
            stack.extend((depth + 1, child) for child in reversed(node.children))


def as_dict(node: Node) -> dict[str, Any]:
    """The tree as JSON data (reports store it so): Python floats, which JSON round-trips exactly."""
    return {"path": node.path, "kind": node.kind, "value": node.value, "matched": node.matched,
            "details": dict(node.details), "children": [as_dict(child) for child in node.children]}  # fmt: skip


def from_dict(data: Mapping[str, Any]) -> Node:
    """The tree `as_dict` made."""
    children = tuple(from_dict(child) for child in data.get("children", ()))
    return Node(data["path"], data["kind"], float(data["value"]), dict(data.get("details", {})), children,
                bool(data.get("matched", True)))  # fmt: skip


def flatten(root: Node) -> dict[str, Node]:
    """`{path: node}` over the whole tree: what an explanation diff aligns two trees by."""
    return {node.path: node for _, node in root.walk()}


_SHOWN = ("boost", "freq", "docFreq", "docCount", "dl", "avgdl", "idf", "tf", "tie_breaker", "score_mode", "boost_mode",
          "max_boost", "factor", "modifier", "input", "origin", "scale", "offset", "decay", "weight",
          "query_weight", "rescore_query_weight", "failed", "description")  # fmt: skip


def _number(value: Detail) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def line(node: Node) -> str:
    """One line for a node: path, value, kind and the details a reader compares (`... 9.1 bm25 freq=2 ...`)."""
    if not node.matched:
        failed = node.details.get("failed")
        return f"{node.path} no match" + (f" (failed: {failed})" if failed else "")
    shown = " ".join(f"{key}={_number(node.details[key])}" for key in _SHOWN if key in node.details)
    return f"{node.path} {node.value:.6g} {node.kind}" + (f" {shown}" if shown else "")


def render(root: Node, indent: str = "  ") -> str:
    """The tree as indented lines, one node per line under its parent, each path shown after the part its nearest
    ancestor's path already says (`.query.multi_match`, `[title:boot]`)."""
    lines: list[str] = []
    ancestors: list[str] = []
    for depth, node in root.walk():
        del ancestors[depth:]
        prefix = next((a for a in reversed(ancestors) if node.path.startswith(a) and node.path != a), "")
        shown = line(node)
        lines.append(indent * depth + shown[len(prefix) :])
        ancestors.append(node.path)
    return "\n".join(lines)
