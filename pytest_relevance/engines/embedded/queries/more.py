"""terms_set and more_like_this, built as Elasticsearch 8 builds them.

terms_set is TermsSetQueryBuilder's Lucene CoveringQuery: one term query per listed value (the field's termQuery,
unanalyzed; duplicates count twice), a document matching when it holds at least as many of them as its own
minimum (read from a numeric field, computed by a script that sees `params.num_terms`, or since 8.10 the
`minimum_should_match` spec over the number of terms; at least 1, and a document without a value never matches),
scored as the double sum of the matching term scores, cast to float32 (CoveringScorer).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.painless import from_json
from pytest_relevance.engines.embedded.queries import (
    F32,
    Invalid,
    Scores,
    accumulate,
    allowed,
    boost_of,
    field_spec,
    minimum_should_match,
    query,
)
from pytest_relevance.engines.embedded.queries.scripts import compile_script, run_script
from pytest_relevance.engines.embedded.queries.term_level import term

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded import EmbeddedIndex

_MSM_KEYS = ("minimum_should_match_field", "minimum_should_match_script", "minimum_should_match")


@query("terms_set")
def terms_set(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "terms")
    allowed(options, {"terms", "boost", *_MSM_KEYS}, path, every="terms_set")
    values = options.get("terms")
    if not isinstance(values, list) or any(isinstance(v, dict | list) or v is None for v in values):
        raise Invalid(f"{path}.terms", "needs a list of values, e.g. terms: [a, b]")
    given = [key for key in _MSM_KEYS if options.get(key) is not None]
    if len(given) > 1:  # TermsSetQueryBuilder's setters refuse a second source
        raise Invalid(path, f"[terms_set] takes one of {', '.join(_MSM_KEYS)}; got {' and '.join(given)}")
    boost = boost_of(options, path, boost)
    if not values:  # Queries.newMatchNoDocsQuery: no terms supplied
        return Scores.none(index.n)
    if not given:
        raise Invalid(path, "No minimum should match has been specified (minimum_should_match_field, "
                            "minimum_should_match_script or minimum_should_match)")  # fmt: skip
    clauses = []
    for i, value in enumerate(values):
        part = term(index, {field: {"value": value}}, f"{path}.terms[{i}]", boost)
        clauses.append(([(part.docs, part.values)], 1))
    docs, sums, counts = accumulate(index, clauses)
    required = _required(index, options, given[0], len(values), docs, path)
    keep = counts >= np.maximum(required, 1)
    return Scores.of(index.n, docs[keep], sums[keep].astype(F32))


def _required(index: EmbeddedIndex, options: dict[str, Any], key: str, count: int, docs: np.ndarray, path: str) -> Any:
    """How many terms each candidate document must hold (float64; +inf where it has no value, so it cannot)."""
    if key == "minimum_should_match":
        return float(minimum_should_match(options[key], count, path))
    if key == "minimum_should_match_field":
        name = options[key]
        if not isinstance(name, str) or name not in index.kinds:
            raise Invalid(f"{path}.{key}", f"failed to find minimum_should_match field [{name}]")
        if index.kinds[name] not in ("number", "date"):
            raise Invalid(f"{path}.{key}", f"[{name}] is of type [{index.fields[name].type}]; the number of terms to "
                                           "match is read from a numeric field's doc values")  # fmt: skip
        first = index.doc_values(name)
        assert first is not None
        values = np.trunc(first[docs])  # SortedNumericDocValues as longs: the document's first (smallest) value
        return np.where(np.isnan(values), np.inf, values)
    script = compile_script(options[key], f"{path}.{key}")
    script = dataclasses.replace(script, params={**script.params, "num_terms": from_json(count)})
    values = run_script(index, script, docs, np.zeros(docs.size))
    return np.nan_to_num(np.trunc(values), nan=0.0)  # TermsSetQueryScript.runAsLong: Number.longValue()
