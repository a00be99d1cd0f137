"""Query templates: an Elasticsearch search body with `{{query}}`, `{{now}}` and per-query `{{params}}`.

Rendering happens client side on the parsed body, not on its text: a string that is exactly one placeholder takes
the parameter's value and type (a number stays a number), placeholders inside longer strings are interpolated, and
whatever the user typed can never break out of its string (no quoting or escaping to get wrong). Date math on `now`
is then anchored to the frozen instant.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs.clock import anchor, iso
from pytest_relevance.util.files import load_document, read_text

if TYPE_CHECKING:
    from pytest_relevance.judgments.model import Query

SEARCHES = ("query", "knn", "retriever")  # what a search body searches with; at least one is needed
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")


def load_template(path: str | Path) -> dict[str, Any]:
    """A search body from YAML or JSON; errors name the file."""
    path = Path(path)
    if not path.is_file():
        raise RelevanceInputError(path, "query template not found; set relevance_query to its path")
    body = load_document(path, read_text(path))
    if not isinstance(body, dict) or not any(key in body for key in SEARCHES):
        raise RelevanceInputError(
            path, "a query template is a search body: a mapping with a 'query', 'knn' or 'retriever' key"
        )
    return body


def has_query_placeholder(template: Any) -> bool:
    """Whether `{{query}}` appears anywhere in the template (keys included): without it every query gets the same
    results, which is almost always a mistake worth a warning."""
    if isinstance(template, dict):
        return any(has_query_placeholder(k) or has_query_placeholder(v) for k, v in template.items())
    if isinstance(template, list):
        return any(has_query_placeholder(v) for v in template)
    return isinstance(template, str) and any(m.group(1) == "query" for m in _PLACEHOLDER.finditer(template))


def render(
    template: Any, text: str, params: dict[str, Any], instant: datetime, query_id: str, source: str = "template"
) -> Any:
    """The body for one query: placeholders filled, `now` anchored, in one walk of the template."""
    values = {**params, "query": text, "now": iso(instant)}

    def fill(node: Any, kept: frozenset[str]) -> Any:
        if isinstance(node, dict):
            return {key(k, kept): fill(v, _kept_in(node, k, kept)) for k, v in node.items()}
        if isinstance(node, list):
            return [fill(v, kept) for v in node]
        if not isinstance(node, str):
            return node
        if "{{" not in node:
            return anchor(node, instant) if node.startswith("now") else node
        return _fill_string(node, values, instant, query_id, source, kept)

    def key(node: Any, kept: frozenset[str]) -> Any:
        """A name: its placeholders filled, never date math (a script's `params.now` is a name)."""
        if not isinstance(node, str) or "{{" not in node:
            return node
        return _interpolate(node, values, query_id, source, kept)

    return fill(template, frozenset())


def _kept_in(parent: dict[Any, Any], key: Any, kept: frozenset[str]) -> frozenset[str]:
    """The placeholders left as written under `parent[key]`: a phrase suggester's `collate` is a template
    Elasticsearch renders itself, with `{{suggestion}}` (each suggestion) and the collate's own `params`."""
    if key != "collate" or not isinstance(parent.get("field"), str) or not isinstance(parent[key], dict):
        return kept
    own = parent[key].get("params")
    return kept | {"suggestion"} | (set(own) if isinstance(own, dict) else set())


def render_all(template: Any, queries: Iterable[Query], instant: datetime, source: str = "template") -> dict[str, Any]:
    """Every query's body, as `render` makes it, for a tenth of the cost: the template is walked once (its own
    `now` anchored, each placeholder's place noted), and each body is a copy of that frame made by `marshal` in C,
    with the query's values set in the noted places. Every body is its own objects, so an engine that changes one
    changes no other. A frame marshal cannot copy (a YAML date) or a placeholder in a key takes `render` per query.
    """
    places: list[tuple[list[Any], str, frozenset[str]]] = []
    try:
        # no container twice: _frame built each anew
        frame = marshal.dumps(_frame(template, instant, [], places, frozenset()))
    except (ValueError, _PlaceholderInKey):
        return {q.id: render(template, q.text, dict(q.params), instant, q.id, source) for q in queries}
    now = iso(instant)
    bodies = {}
    for query in queries:
        body = marshal.loads(frame)
        values = {**query.params, "query": query.text, "now": now}
        for path, node, kept in places:
            parent = body
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]] = _fill_string(node, values, instant, query.id, source, kept)
        bodies[query.id] = body
    return bodies


class _PlaceholderInKey(Exception):
    """A key that is a placeholder: the body's shape then depends on the query, and the frame cannot hold it."""


def _frame(
    node: Any,
    instant: datetime,
    path: list[Any],
    places: list[tuple[list[Any], str, frozenset[str]]],
    kept: frozenset[str],
) -> Any:
    """The template with its own `now` anchored; each string holding a placeholder to fill is noted with its path
    (and the placeholders it keeps, see _kept_in)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if isinstance(key, str) and _PLACEHOLDER.search(key) and _fills(key, kept):
                raise _PlaceholderInKey
            out[key] = _frame(value, instant, [*path, key], places, _kept_in(node, key, kept))
        return out
    if isinstance(node, list):
        return [_frame(value, instant, [*path, i], places, kept) for i, value in enumerate(node)]
    if not isinstance(node, str):
        return node
    if "{{" not in node or not _fills(node, kept):
        return anchor(node, instant) if node.startswith("now") else node
    places.append((path, node, kept))
    return node


def _fills(node: str, kept: frozenset[str]) -> bool:
    """Whether a string has a placeholder this side fills (one Elasticsearch renders itself stays)."""
    return any(m.group(1) not in kept for m in _PLACEHOLDER.finditer(node))


def _fill_string(
    node: str, values: dict[str, Any], instant: datetime, query_id: str, source: str, kept: frozenset[str]
) -> Any:
    whole = _PLACEHOLDER.fullmatch(node.strip())
    if whole and whole.group(1) not in kept:  # the user's query text is never date math, whatever it starts with
        value = _lookup(values, whole.group(1), query_id, source)
        return value if whole.group(1) == "query" else anchor(value, instant)
    filled = _interpolate(node, values, query_id, source, kept)
    # only the template's own literal `now...` is date math: "{{query}} deals" with "now-playing" stays text
    return anchor(filled, instant) if node.startswith("now") else filled


def _interpolate(node: str, values: dict[str, Any], query_id: str, source: str, kept: frozenset[str]) -> str:
    """Each placeholder inside a longer string replaced by its value as text (the kept ones as written)."""
    return _PLACEHOLDER.sub(
        lambda m: m.group(0) if m.group(1) in kept else str(_lookup(values, m.group(1), query_id, source)), node
    )


def _lookup(values: dict[str, Any], name: str, query_id: str, source: str) -> Any:
    value: Any = values
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            raise RelevanceInputError(
                source,
                f"query {query_id!r}: the template uses {{{{{name}}}}} but the query has no param {name!r}; "
                "add it under the query's params in the judgments",
            )
        value = value[part]
    return value


def placeholders(template: Any) -> set[str]:
    """Every placeholder name the template uses, in keys and values (`query` and `now` included): what a parameter
    sweep may fill."""
    if isinstance(template, dict):
        return set().union(*(placeholders(k) | placeholders(v) for k, v in template.items()))
    if isinstance(template, list):
        return set().union(*(placeholders(v) for v in template))
    return {m.group(1) for m in _PLACEHOLDER.finditer(template)} if isinstance(template, str) else set()


def bind(template: Any, values: dict[str, Any]) -> Any:
    """The template with the placeholders named in `values` filled and every other one left for `render`: a string
    that is exactly one of them takes the value and its type (a boost stays a number), one inside a longer string
    takes its text. A parameter sweep binds each variant's values once, then renders the queries as the gate does."""

    def fill(node: Any) -> Any:
        if isinstance(node, dict):
            return {str(fill(k)) if isinstance(k, str) else k: fill(v) for k, v in node.items()}
        if isinstance(node, list):
            return [fill(v) for v in node]
        if not isinstance(node, str) or "{{" not in node:
            return node
        whole = _PLACEHOLDER.fullmatch(node.strip())
        if whole and whole.group(1) in values:
            return values[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), node)

    return fill(template)
