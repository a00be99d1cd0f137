"""Dense vectors: exact (brute force) k nearest neighbours with Elasticsearch's score transforms, as the `knn` query,
the `knn` section of a search body, and a retriever. Every document with a vector is compared, so the k nearest
are the true ones, not an approximation's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.queries.errors import Invalid
from pytest_relevance.engines.embedded.queries.options import allowed, boost_of, number
from pytest_relevance.engines.embedded.queries.registry import evaluate, query
from pytest_relevance.engines.embedded.scores import Scores

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex

_KNN_KEYS = {"field", "query_vector", "k", "num_candidates", "filter", "boost", "similarity", "inner_hits",
             "query_vector_builder", "rescore_vector"}  # fmt: skip


def similarity_scores(index: EmbeddedIndex, field: str, vector: np.ndarray, docs: np.ndarray) -> tuple[Any, Any]:
    """(raw similarity, Elasticsearch's score) of the query vector against the documents' vectors."""
    matrix = index.vectors[field][docs].astype(np.float64)
    kind = index.vector_similarity.get(field, "cosine")
    query_vector = vector.astype(np.float64)
    if kind == "l2_norm":
        raw = np.sqrt(np.square(matrix - query_vector).sum(axis=1))
        return raw, 1.0 / (1.0 + raw * raw)
    dot = matrix @ query_vector
    if kind == "dot_product":
        return dot, (1.0 + dot) / 2.0
    if kind == "max_inner_product":
        return dot, np.where(dot < 0, 1.0 / (1.0 - dot), dot + 1.0)
    norms = np.sqrt(np.square(matrix).sum(axis=1)) * np.sqrt(np.square(query_vector).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = dot / norms
    return cosine, (1.0 + cosine) / 2.0


def nearest(index: EmbeddedIndex, spec: Any, path: str, boost: float, default_k: int) -> Scores:
    """The k documents nearest to `query_vector` among those with a vector (and matching `filter`)."""
    opensearch = [key for key, value in (spec.items() if isinstance(spec, dict) else ()) if key not in _KNN_KEYS
                  and isinstance(value, dict) and "vector" in value]  # fmt: skip
    if opensearch:  # {field: {vector, k}}: the k-NN plugin's form, which KnnVectorQueryBuilder's parser refuses
        raise Invalid(f"{path}.{opensearch[0]}", f"[knn] unknown field [{opensearch[0]}], as Elasticsearch 8 refuses "
                      "it: {field: {vector: ..., k: ...}} is the OpenSearch k-NN plugin's form; Elasticsearch's knn "
                      "takes field, query_vector and k (the embedded engine runs that)")  # fmt: skip
    options = allowed(spec, _KNN_KEYS, path, parser="knn")
    if options.get("query_vector_builder") is not None:
        problem = "needs a model on the server; give query_vector (the elasticsearch engine runs it)"
        raise Invalid(f"{path}.query_vector_builder", problem)
    field = options.get("field")
    index.check_field(field, path)
    if field not in index.vectors:
        raise Invalid(f"{path}.field", f"{field!r} is not a dense_vector field")
    try:
        vector = np.array(options.get("query_vector"), dtype=np.float32)
    except (TypeError, ValueError):
        raise Invalid(f"{path}.query_vector", "expected a list of numbers") from None
    dims = index.vectors[field].shape[1]
    if vector.shape != (dims,):
        raise Invalid(f"{path}.query_vector", f"has {vector.size} values; the field {field!r} has {dims} dims")
    k = int(number(options, "k", path, options.get("num_candidates") or default_k))
    if k < 1:
        raise Invalid(f"{path}.k", "must be at least 1")
    candidates = index.has_value(field)
    if options.get("filter") is not None:
        filters = options["filter"] if isinstance(options["filter"], list) else [options["filter"]]
        for i, item in enumerate(filters):
            candidates = candidates & evaluate(index, item, f"{path}.filter[{i}]").matched
    docs = np.flatnonzero(candidates)
    raw, score = similarity_scores(index, field, vector, docs)
    if options.get("similarity") is not None:
        threshold = number(options, "similarity", path)
        kind = index.vector_similarity.get(field, "cosine")
        keep = raw <= threshold if kind == "l2_norm" else raw >= threshold
        docs, score = docs[keep], score[keep]
    score = score.astype(F32)
    order = np.lexsort((index.id_rank[docs], -score))[:k]
    docs, score = docs[order], score[order]
    order = np.argsort(docs)
    return Scores.of(index.n, docs[order], (score[order] * F32(boost_of(options, path, boost))).astype(F32))


@query("knn")
def knn(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    return nearest(index, spec, path, boost, 10)
