"""The embedded inverted index against the token stream it is built from.

The index takes shortcuts for speed (a tokenizer term -> term id map, positions derived from token counts, one stable
sort); the oracle here is `Analyzer.analyze_values`, the token-by-token path that mirrors Lucene's FieldInvertState
and that the Lucene reference data checks. Every posting, position and document length must agree with it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_relevance.engines.embedded.analysis import Analysis
from pytest_relevance.engines.embedded.index import TextField
from pytest_relevance.engines.embedded.mapping import Similarity
from pytest_relevance.engines.embedded.scoring import encode_lengths

SETTINGS = {
    "analysis": {
        "char_filter": {"tags": {"type": "html_strip"}},
        "filter": {
            "syn": {"type": "synonym_graph", "synonyms": ["wifi, wireless network", "tv => television"]},
            "protect": {"type": "keyword_marker", "keywords": ["running"]},
        },
        "analyzer": {
            # a char filter runs on each text before the tokenizer
            "stripped": {"tokenizer": "standard", "char_filter": ["tags"], "filter": ["lowercase", "stop"]},
            # shingles have no list form: the index goes through the whole token stream
            "shingled": {"tokenizer": "standard", "filter": ["lowercase", "shingle"]},
            "graph": {"tokenizer": "standard", "filter": ["lowercase", "syn"]},
            # per-term filters with a keyword mark: the per-term path, through the marks
            "marked": {"tokenizer": "standard", "filter": ["lowercase", "protect", "porter_stem"]},
        },
    }
}
ANALYSIS = Analysis.from_settings(SETTINGS, "index.yaml")
WORDS = ["the", "The", "of", "a", "Runs", "running", "runner's", "wifi", "wireless", "network", "tv", "café", "x1",
         "and", "To", "be", "stand", "stands", "-", "...", "<b>tv</b>", "&amp;", "R&amp;D", "<br/>the"]  # fmt: skip

values = st.lists(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join), max_size=4)


def expected(analyzer_name: str, docs: list[list[str]], gap: int) -> tuple[dict, list[int]]:
    """term -> [(doc, positions)] and the length of each document, from the token stream."""
    analyzer = ANALYSIS.analyzer(analyzer_name, "test")
    postings: dict[str, dict[int, list[int]]] = {}
    lengths = []
    for doc, doc_values in enumerate(docs):
        tokens = analyzer.analyze_values(doc_values, gap)
        for token in tokens:
            postings.setdefault(token.term, {}).setdefault(doc, []).append(token.position)
        # BM25's length discounts overlapping tokens (a stacked synonym adds no length), as Lucene's default
        lengths.append(len({t.position for t in tokens}))
    return {term: sorted((d, sorted(p)) for d, p in by_doc.items()) for term, by_doc in postings.items()}, lengths


def built(analyzer_name: str, docs: list[list[str]], gap: int) -> tuple[dict, list[int]]:
    analyzer = ANALYSIS.analyzer(analyzer_name, "test")
    field = TextField("t", analyzer, analyzer.term_lists, analyzer.term_lists, Similarity(), gap=gap)
    for doc_values in docs:
        field.add(doc_values)
    field.freeze()
    out = {}
    for term in field.vocab:
        found = field.postings(term)
        if found is None:
            continue
        out[term] = [(int(doc), field.positions_of(found, i).tolist()) for i, doc in enumerate(found.docs.tolist())]
        assert found.freqs.tolist() == [len(p) for _, p in out[term]]
    return out, field.norms.tolist()


@pytest.mark.parametrize("name", ["english", "standard", "stripped", "graph", "marked", "shingled"])
@settings(max_examples=150, deadline=None)
@given(docs=st.lists(values, max_size=6), gap=st.sampled_from([0, 1, 100]))
def test_postings_equal_the_token_stream(name: str, docs: list[list[str]], gap: int) -> None:
    postings, norms = built(name, docs, gap)
    want, lengths = expected(name, docs, gap)
    assert postings == want
    assert norms == encode_lengths(np.array(lengths, dtype=np.int64)).tolist()


def test_each_analyzer_takes_the_path_meant_for_it() -> None:
    """Per-term filters only: no stream stage; a graph filter: its list form runs text by text between per-term
    runs; char filters run on each text first; a filter without a list form (shingle): no plan, the whole stream."""
    plans = {name: ANALYSIS.analyzer(name, "t").index_plan for name in ("english", "marked", "graph", "stripped")}
    english, marked, graph, stripped = plans.values()
    assert english is not None and not english.middle and english.suffix is None
    assert english.prefix("Runner's") == "runner" and english.prefix("the") is None
    assert marked is not None and marked.prefix("running") == "running" and marked.prefix("runs") == "run"
    assert graph is not None and len(graph.middle) == 1 and graph.prefix("TV") == "tv" and graph.suffix is not None
    assert stripped is not None and stripped.split_many(["<b>R&amp;D</b> the", "x"]) == (["R", "D", "the", "x"], [3, 1])
    assert ANALYSIS.analyzer("shingled", "t").index_plan is None


def test_a_long_run_without_words_is_indexed() -> None:
    """300 dashes: longer than max_token_length, but no word at all (it used to stop the index build)."""
    field = TextField("t", ANALYSIS.analyzer("english", "t"), str.split, str.split, Similarity())
    field.add(["-" * 300, "runs " + "=" * 300])
    field.freeze()
    assert list(field.vocab) == ["run"]
    assert ANALYSIS.analyzer("stripped", "t").analyze(":" * 300) == []


@pytest.mark.parametrize("name", ["english", "graph"])
def test_batches_cut_anywhere_give_the_same_postings(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values are analyzed BATCH at a time; with a batch of 7 values, documents straddle many batches."""
    import random

    from pytest_relevance.engines.embedded import index

    monkeypatch.setattr(index, "BATCH", 7)
    rng = random.Random(5)
    docs = [[" ".join(rng.choices(WORDS, k=rng.randint(0, 9))) for _ in range(rng.randint(0, 4))] for _ in range(60)]
    postings, norms = built(name, docs, 100)
    want, lengths = expected(name, docs, 100)
    assert postings == want
    assert norms == encode_lengths(np.array(lengths, dtype=np.int64)).tolist()
