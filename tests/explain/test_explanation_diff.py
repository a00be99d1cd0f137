"""The explanation diff: two score trees of one document reduced to the clauses that changed, as one line."""

from __future__ import annotations

from pytest_relevance.explain.tree import Node
from pytest_relevance.explain.why import moved, today_only, tree_rows, why

FS = "query.function_score"
MM = f"{FS}.query.multi_match"


def _tree(score: float, title: float, boost: float, term: str = "boots", decay: float = 0.93) -> Node:
    leaf = Node(f"{MM}[title][title:{term}]", "bm25", title, {"freq": 1.0, "boost": boost, "docFreq": 12})
    field = Node(f"{MM}[title]", "sum", title, {"boost": boost}, (leaf,))
    match = Node(MM, "dis_max", title, {"tie_breaker": 0.3}, (field,))
    gauss = Node(f"{FS}.functions[0].gauss", "decay", decay, {"scale": "365d", "origin": "now"})
    return Node(FS, "function_score", score, {"boost_mode": "multiply"}, (match, gauss))


def test_a_changed_boost_names_the_clause_and_what_held_still() -> None:
    line = why("p0569", 5, 9, _tree(12.31, 9.10, 3.0), _tree(8.02, 3.03, 1.0))
    assert line.startswith("p0569 5 -> 9: 12.31 -> 8.02; ")
    assert f"{MM}[title] 9.1 -> 3.03 (boost 3 -> 1)" in line
    assert f"{FS}.functions[0].gauss 0.93 unchanged" in line
    assert "analysis" not in line


def test_an_analysis_change_is_one_part_not_a_removed_and_an_added_leaf() -> None:
    line = why("p0140", 6, 11, _tree(12.3, 9.1, 3.0, "boots"), _tree(10.0, 7.2, 3.0, "boot"))
    assert "analysis: title 'boots' -> 'boot'" in line
    assert "removed:" not in line and "added:" not in line


def test_a_changed_decay_is_named_with_its_parameter() -> None:
    old, new = _tree(12.0, 9.0, 3.0), _tree(6.0, 9.0, 3.0, decay=0.5)
    new = Node(new.path, new.kind, new.value, new.details, (new.children[0], Node(
        f"{FS}.functions[0].gauss", "decay", 0.5, {"scale": "30d", "origin": "now"}
    )))  # fmt: skip
    line = why("d", 1, 4, old, new)
    assert f"{FS}.functions[0].gauss 0.93 -> 0.5 (scale 365d -> 30d)" in line
    assert f"{MM} 9 unchanged" in line


def test_no_longer_matching_names_the_failed_clause() -> None:
    gone = Node(FS, "no_match", 0.0, {"failed": "bool.filter[0] term category=boots"}, (), matched=False)
    line = why("p1", 2, None, _tree(5.0, 4.0, 3.0), gone)
    assert line == "p1 2 -> out: 5 -> no match; no longer matches: bool.filter[0] term category=boots"


def test_added_and_removed_clauses_are_named_once_at_their_top() -> None:
    old = _tree(10.0, 8.0, 3.0)
    extra = Node(f"{FS}.functions[1].field_value_factor", "field_value_factor", 1.8, {"field": "popularity"})
    new = Node(FS, "function_score", 18.0, old.details, (*old.children, extra))
    line = why("p2", 9, 3, old, new)
    assert f"added: {FS}.functions[1].field_value_factor 1.8" in line
    assert line.count("added:") == 1


def test_a_side_without_the_document() -> None:
    assert why("p3", None, 4, None, _tree(1.0, 1.0, 1.0)) == "p3 out -> 4: not in the baseline corpus"
    assert today_only("p3", 2, 7, _tree(8.02, 3.03, 1.0)).startswith("p3 2 -> 7: now 8.02; ")


def test_the_relevant_documents_that_moved_most_come_first() -> None:
    change = {
        "fell": [{"doc": "a", "before": 1, "after": 2}, {"doc": "b", "before": 2, "after": None}],
        "rose": [{"doc": "c", "before": 9, "after": 3}],
        "came": [{"doc": "d", "before": None, "after": 5}],
    }
    assert moved(change, 2) == [("b", 2, None), ("c", 9, 3)]
    assert [doc for doc, _, _ in moved(change, None)] == ["b", "c", "a", "d"]  # what came in comes last


def test_tree_rows_mark_what_changed() -> None:
    old, new = _tree(12.31, 9.10, 3.0), _tree(8.02, 3.03, 1.0)
    from pytest_relevance.explain.tree import flatten

    rows = tree_rows(old, flatten(new))
    changed = {text.split()[0]: flag for _, text, flag in rows}
    assert changed[FS] and changed[f"{MM}[title]"]
    assert not changed[f"{FS}.functions[0].gauss"]
