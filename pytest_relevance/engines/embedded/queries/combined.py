"""combined_fields: Elasticsearch's CombinedFieldsQueryBuilder over Lucene's CombinedFieldQuery (BM25F).

The fields are scored as one field holding all their text: per query position one CombinedFieldQuery whose
frequency in a document is the weighted sum of the term's frequencies in the fields, whose length is the weighted
sum of the fields' (decoded) lengths, re-encoded into one norm byte, whose document frequency is the largest of the
(field, term) pairs and whose collection statistics are the fields' merged (largest document count, weighted sum
of the total term frequencies). So a term in a short title counts as a term of the document, not as a rare term of
the title field, which is what makes it differ from multi_match.
"""

from __future__ import annotations

import fnmatch
import math
from collections import Counter
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.java import F32, utf16_key
from pytest_relevance.engines.embedded.queries.errors import Invalid
from pytest_relevance.engines.embedded.queries.full_text import (
    TokenGraph,
    graph_match,
    no_terms,
    phrase_groups,
    synonym_groups,
)
from pytest_relevance.engines.embedded.queries.options import allowed, boost_of, minimum_should_match
from pytest_relevance.engines.embedded.queries.registry import query
from pytest_relevance.engines.embedded.recorder import RECORDING
from pytest_relevance.engines.embedded.scores import Clause, Scores, accumulate
from pytest_relevance.engines.embedded.scoring import BM25, LENGTH_TABLE, encode_lengths, idf

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex
    from pytest_relevance.engines.embedded.index import TextField

_KEYS = {"query", "fields", "operator", "minimum_should_match", "zero_terms_query",
         "auto_generate_synonyms_phrase_query", "boost"}  # fmt: skip
NAME = "combined_fields"


def parse_fields(index: EmbeddedIndex, fields: Any, path: str) -> list[tuple[str, float]]:
    """The `fields` as QueryParserHelper resolves them for combined_fields: `name^boost` (a boost below 1 is
    Elasticsearch's refusal), patterns expanded over the fields that can be searched as text (a keyword among them
    is then refused like a named one), a field reached twice gets the product of its boosts, unmapped fields are
    left out. Sorted by name, as CombinedFieldQuery keeps its fields."""
    if isinstance(fields, str):
        fields = [fields]
    if not isinstance(fields, list) or not fields:
        raise Invalid(f"{path}.fields", f"In [{NAME}] query, at least one field must be provided")
    weights: dict[str, float] = {}
    for entry in fields:
        name, caret, weight = str(entry).partition("^")
        try:
            boost = float(F32(weight)) if caret else 1.0
        except ValueError:
            raise Invalid(f"{path}.fields", f"{entry!r}: the boost after ^ is not a number") from None
        if not boost >= 1.0:
            raise Invalid(f"{path}.fields", f"[{NAME}] requires field boosts to be >= 1.0 (got {entry!r})")
        if "*" in name:
            found = [f for f in index.kinds if fnmatch.fnmatchcase(f, name) and index.kinds[f] in ("text", "keyword")]
        else:
            found = [name] if name in index.kinds else []
        for field in found:
            weights[field] = float(F32(weights[field]) * F32(boost)) if field in weights else boost
    return sorted(weights.items(), key=lambda item: utf16_key(item[0]))


def _check_fields(index: EmbeddedIndex, fields: list[tuple[str, float]], path: str) -> list[TextField]:
    """Elasticsearch's refusals, in its order: a per-field similarity or a default one other than BM25, a field
    that is not text, fields whose search analyzers differ; then Lucene's, norms on some fields only."""
    at = f"{path}.fields"
    for field, _ in fields:
        spec = index.fields[field]
        if "similarity" in spec.params:
            raise Invalid(at, f"[{NAME}] queries cannot be used with per-field similarities (field [{field}])")
        if spec.similarity.kind != "BM25":
            raise Invalid(at, f"[{NAME}] queries can only be used with the [BM25] similarity")
    shared = None
    targets = []
    for field, _ in fields:
        spec = index.fields[field]
        if index.kinds[field] != "text":
            raise Invalid(at, f"Field [{field}] of type [{spec.type}] does not support [{NAME}] queries")
        index.check_field(field, at)
        analyzer = spec.search_analyzer
        assert analyzer is not None
        if shared is not None and analyzer.name != shared:
            raise Invalid(at, f"All fields in [{NAME}] query must have the same search analyzer")
        shared = analyzer.name
        targets.append(index.text[field])
    present = [t for t in targets if t.doc_count]
    if len({t.with_norms for t in present}) > 1:
        raise Invalid(at, "CombinedFieldQuery requires norms to be consistent across fields: some fields cannot  "
                      "have norms enabled, while others have norms disabled")  # fmt: skip
    return targets


class CombinedFields:
    """The fields of one combined_fields query with their weights, and the pseudo field's statistics
    (CombinedFieldWeight.mergeCollectionStatistics): the largest document count, and the total term frequencies
    summed with their weights into a Java long (truncated at each step, as `long += double` does). It gives a
    graph query (multi-word synonyms) its leaves, as CombinedFieldsBuilder overrides QueryBuilder's."""

    def __init__(
        self, index: EmbeddedIndex, fields: list[tuple[str, float]], targets: list[TextField], path: str
    ) -> None:
        self.index, self.path, self.n = index, path, index.n
        self.members = [(name, F32(weight), target) for (name, weight), target in zip(fields, targets, strict=True)]
        doc_count, total = 0, 0
        for _, weight, target in self.members:
            if target.doc_count:
                doc_count = max(doc_count, target.doc_count)
                total = int(total + float(weight) * target.sum_total_term_freq)
        similarity = targets[0].similarity
        self.bm25 = BM25(similarity.k1, similarity.b, doc_count, total)
        self.with_norms = any(t.with_norms for t in targets if t.doc_count)
        self.name = "+".join(name for name, _, _ in self.members)
        self.has_positions = all(t.has_positions for t in targets)

    def norms(self, docs: np.ndarray) -> np.ndarray:
        """MultiNormsLeafSimScorer: the weighted sum of the fields' decoded lengths in float32, rounded
        (Math.round) and encoded again (SmallFloat.intToByte4); norm 1 when no field has norms."""
        if not self.with_norms:
            return np.ones(docs.size, dtype=np.uint8)
        total = np.zeros(docs.size, dtype=F32)
        for _, weight, target in self.members:
            if target.with_norms:
                total += weight * LENGTH_TABLE[target.norms[docs]]
        return encode_lengths(np.floor(total.astype(np.float64) + 0.5).astype(np.int64))

    def terms(self, terms: Sequence[Any], boost: float, required: int | None) -> Scores:
        """A boolean query of one CombinedFieldQuery per entry (a tuple: the terms stacked at one position), in
        which a document must match `required` of them (None: one). BooleanQuery's rewrite merges identical
        clauses, their boosts summed."""
        clauses: list[Clause] = []
        for group, count in Counter(g if isinstance(g, tuple) else (g,) for g in terms).items():
            docs, scores = self.clause(group, float(F32(count) * F32(boost)))
            if docs.size:
                clauses.append(([(docs, scores)], count))
        docs, total, hits = accumulate(self.index, clauses)
        keep = hits >= (required or 1)
        return Scores.of(self.n, docs[keep], total[keep].astype(F32))

    def phrase(self, terms: list[str], positions: list[int], boost: float) -> list[Scores]:
        """CombinedFieldsBuilder.analyzePhrase: a disjunction of one phrase per field, boosted by its weight."""
        groups = [[t] for t in terms]
        return [
            phrase_groups(self.index, name, groups, positions, 0, boost if weight == 1 else float(F32(boost) * weight),
                          self.path)
            for name, weight, _ in self.members
        ]  # fmt: skip

    def clause(self, terms: tuple[str, ...], boost: float) -> tuple[np.ndarray, np.ndarray]:
        """One CombinedFieldQuery: (ordinals, float32 scores) of the documents holding any term in any field."""
        found = []
        doc_freq = 0
        for _, weight, target in self.members:
            for term in sorted(set(terms), key=lambda t: t.encode()):
                postings = target.postings(term)
                if postings is not None:
                    found.append((weight, postings))
                    doc_freq = max(doc_freq, postings.doc_freq)
        if not found:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=F32)
        docs = np.unique(np.concatenate([p.docs for _, p in found]))
        freqs = np.zeros(docs.size, dtype=F32)
        for weight, postings in found:  # WeightedDisiWrapper.freq: weight x freq, summed in float
            freqs[np.searchsorted(docs, postings.docs)] += weight * postings.freqs.astype(F32)
        norms = self.norms(docs)
        term_idf = idf(doc_freq, self.bm25.doc_count)
        scores = self.bm25.score(self.bm25.weight(boost, term_idf), freqs, norms)
        recorder = RECORDING.get()
        if recorder is not None:
            term = terms[0] if len(terms) == 1 else f"({'|'.join(sorted(set(terms)))})"
            pseudo = SimpleNamespace(bm25=self.bm25, norms=self.norms(np.arange(self.n)))
            recorder.bm25(f"{self.path}[{self.name}:{term}]", self.name, term, pseudo, boost, doc_freq, term_idf, docs,
                          freqs, scores)  # fmt: skip
        return docs, scores


@query(NAME)
def combined_fields(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """CombinedFieldsQueryBuilder.doToQuery: the text analyzed once by the fields' shared search analyzer, one
    CombinedFieldQuery per position (the terms stacked there are one pseudo-term, as a SynonymQuery's) in a
    boolean query that `operator` and `minimum_should_match` shape as match's."""
    options = allowed(spec, _KEYS, path, parser=NAME)
    text = options.get("query")
    if text is None:
        raise Invalid(path, f"[{NAME}] requires query value")
    if isinstance(text, dict | list | bool) or (isinstance(text, float) and not math.isfinite(text)):
        raise Invalid(f"{path}.query", f"expected text, got {text!r}"[:200])
    operator = str(options.get("operator", "or")).lower()
    if operator not in ("or", "and"):
        raise Invalid(f"{path}.operator", f"{options['operator']!r} is not 'or' or 'and'")
    auto = options.get("auto_generate_synonyms_phrase_query", True)
    if auto not in (True, False, "true", "false"):
        raise Invalid(f"{path}.auto_generate_synonyms_phrase_query", f"{auto!r} is not true or false")
    zero_terms = options.get("zero_terms_query")
    if zero_terms is not None and str(zero_terms).lower() not in ("none", "all"):
        raise Invalid(f"{path}.zero_terms_query", f"Unsupported [zero_terms_query] value [{zero_terms}]")
    boost = boost_of(options, path, boost)
    fields = parse_fields(index, options.get("fields"), path)
    if not fields:  # every field unmapped: Queries.newUnmappedFieldsQuery
        return Scores.none(index.n)
    targets = _check_fields(index, fields, path)
    terms, positions, lengths = index.search_graph(fields[0][0], str(text), path=path)
    combined = CombinedFields(index, fields, targets, path)
    if len(terms) > 1 and max(lengths) > 1:  # multi-word synonyms: Lucene's graph boolean of these leaves
        return graph_match(index, fields[0][0], TokenGraph(terms, positions, lengths), options, boost, path, combined)
    groups = synonym_groups(terms, positions)
    if not groups:
        return no_terms(index, zero_terms, boost, path)
    if operator == "and":
        required = len(groups)
    elif options.get("minimum_should_match") is not None and len(groups) > 1:
        required = max(minimum_should_match(options["minimum_should_match"], len(groups), path), 1)
    else:
        required = None
    return combined.terms(groups, boost, required)
