"""`synonyms_set: <id>` on the embedded engine: the set's rules from the local file relevance_synonyms_sets names,
fingerprinted and cached as a file the index config references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs import synonyms_sets

CONFIG = {
    "settings": {
        "analysis": {
            "filter": {"prod": {"type": "synonym_graph", "synonyms_set": "products", "updateable": True}},
            "analyzer": {"search": {"tokenizer": "standard", "filter": ["lowercase", "prod"]}},
        }
    },
    "mappings": {"properties": {"title": {"type": "text", "search_analyzer": "search"}}},
}


def test_a_set_becomes_a_synonyms_path_relative_to_the_config(tmp_path: Path) -> None:
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "products.txt").write_text("sneakers, trainers\n")
    (tmp_path / "fixtures").mkdir()
    sets = synonyms_sets.parse("products=sets/products.txt", tmp_path)
    resolved = synonyms_sets.resolve(CONFIG, sets, tmp_path / "fixtures" / "index.yaml")
    spec = resolved["settings"]["analysis"]["filter"]["prod"]
    assert spec["synonyms_path"] == "../sets/products.txt" and "synonyms_set" not in spec
    assert "synonyms_set" in CONFIG["settings"]["analysis"]["filter"]["prod"]  # the config itself is left alone


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("products", "relevance_synonyms_sets: 'products' is not id=path"),
        ("a=x.txt a=y.txt", "relevance_synonyms_sets: the synonyms set 'a' is given twice"),
    ],
)
def test_a_bad_setting_names_itself(tmp_path: Path, value: str, message: str) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        synonyms_sets.parse(value, tmp_path)
    assert str(caught.value).startswith(message)


def test_an_unknown_set_or_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        synonyms_sets.resolve(CONFIG, {}, tmp_path / "index.yaml")
    assert "settings.analysis.filter.prod.synonyms_set: no synonyms set 'products'" in str(caught.value)
    assert 'relevance_synonyms_sets = "products=path/to/products.txt"' in str(caught.value)
    with pytest.raises(RelevanceInputError, match=r"the synonyms set 'products' .* is not a file"):
        synonyms_sets.resolve(CONFIG, {"products": tmp_path / "gone.txt"}, tmp_path / "index.yaml")


def test_a_set_the_plugin_did_not_resolve_says_how_to_map_it() -> None:
    """Where the config reaches the analysis as written (`pytest-relevance analyze` on it, say)."""
    from pytest_relevance.engines.embedded.analysis import Analysis

    settings = {"analysis": CONFIG["settings"]["analysis"]}
    with pytest.raises(RelevanceInputError) as caught:
        Analysis.from_settings(settings, "cfg.yaml", None).analyzer("search", "test")
    assert str(caught.value) == (
        "cfg.yaml: settings.analysis.filter.prod.synonyms_set: the synonyms set 'products' lives on the server "
        "(the Synonyms API); for the embedded engine map it to a local file of rules with "
        'relevance_synonyms_sets = "id=path"'
    )


def _project(pytester: pytest.Pytester, sets: str) -> None:
    fixtures = pytester.path / "fixtures"
    fixtures.mkdir()
    docs = [{"id": "a", "title": "running sneakers"}, {"id": "b", "title": "trainers for kids"}]
    (fixtures / "corpus.ndjson").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (fixtures / "index.yaml").write_text(json.dumps(CONFIG))
    (fixtures / "query.yaml").write_text('query:\n  match:\n    title: "{{query}}"\n')
    judgments = "version: v1\nqueries:\n  - {id: q1, text: trainers, grades: {a: 3, b: 1}}\n"
    (fixtures / "judgments.yaml").write_text(judgments)
    (pytester.path / "sets").mkdir()
    (pytester.path / "sets" / "products.txt").write_text("sneakers, trainers\n")
    pytester.makeini(f"[pytest]\nrelevance_metrics = ndcg@10\nrelevance_synonyms_sets = {sets}\n")
    pytester.makepyfile(
        test_gate="def test_demo(relevance_index, relevance_snapshot):\n"
        "    assert relevance_snapshot == relevance_index.run()\n"
    )


def test_the_gate_reads_the_set_and_a_changed_set_is_an_index_config_change(pytester: pytest.Pytester) -> None:
    _project(pytester, "products=sets/products.txt")
    assert pytester.runpytest("-p", "no:randomly", "--relevance-update").ret == 0
    baseline = json.loads((pytester.path / "relevance-baseline.json").read_text())
    entry = baseline["entries"]["test_gate.py::test_demo"]
    assert entry["rankings"]["q1"] == ["a", "b"]  # sneakers is a synonym of trainers: both match
    assert "../sets/products.txt" in entry["inputs"]["index config files"]
    (pytester.path / "sets" / "products.txt").write_text("boots, trainers\n")
    result = pytester.runpytest("-p", "no:randomly", "-v")
    result.stdout.fnmatch_lines(["*index config changed*"])
    assert result.ret == 1  # a no longer matches: the cached index was not reused


def test_an_unmapped_set_fails_the_fixture_naming_it(pytester: pytest.Pytester) -> None:
    _project(pytester, "others=sets/products.txt")
    result = pytester.runpytest("-p", "no:randomly")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*no synonyms set 'products'*sets given: others*"])
    assert "Traceback" not in result.stdout.str()
