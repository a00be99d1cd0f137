"""The persistent index cache: a loaded index answers exactly as a fresh build, any changed input misses it, a
damaged entry is rebuilt, xdist workers build once, and pytest's cache options govern it."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_embedded import CRANFIELD, DEMO_TEST, cranfield_to

from pytest_relevance.engines.base import FixtureIndex
from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.engines.embedded.store import FORMAT, KEEP, MANIFEST, index_key
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs import corpus as corpus_module
from pytest_relevance.inputs.clock import parse_instant
from pytest_relevance.inputs.corpus import CorpusFile, load_corpus, load_mapping
from pytest_relevance.inputs.templates import load_template
from pytest_relevance.judgments.model import load_judgments
from pytest_relevance.util.fingerprints import blob_sha1

ROOT = Path(__file__).resolve().parent.parent.parent
NOW = parse_instant("2026-01-15T12:00:00Z")


def open_twice(folder: Path, cache: Path) -> tuple[EmbeddedIndex, EmbeddedIndex]:
    """A fresh build (saved to the cache) and the same index loaded from it."""
    corpus, config = load_corpus(folder / "corpus.ndjson"), load_mapping(folder / "index.yaml")
    engine = EmbeddedEngine(cache)
    built = engine.open(corpus, config, "id", str(folder / "index.yaml"))
    loaded = engine.open(corpus, config, "id", str(folder / "index.yaml"))
    assert built.cache_note is not None and built.cache_note.startswith("index: built in ")
    assert loaded.cache_note is not None and loaded.cache_note.startswith(f"index: cached ({len(corpus):,} docs")
    return built, loaded


def assert_same(fresh: Any, loaded: Any, where: str) -> None:
    """Every attribute a build leaves on a field, array for array (dtype included) and value for value."""
    left, right = vars(fresh), vars(loaded)
    assert set(left) == set(right), where
    for name, value in left.items():
        other = right[name]
        if isinstance(value, np.ndarray):
            assert value.dtype == other.dtype and np.array_equal(value, other, equal_nan=True), f"{where}.{name}"
        elif isinstance(value, int | float | str | bool | dict | list | tuple) or value is None:
            assert value == other, f"{where}.{name}"
        else:
            assert type(value) is type(other), f"{where}.{name}"


def assert_answers_alike(folder: Path, tmp_path: Path) -> None:
    built, loaded = open_twice(folder, tmp_path / "cache")
    for group in ("text", "keyword", "numeric", "geo"):
        for name, field in getattr(built, group).items():
            assert_same(field, getattr(loaded, group)[name], f"{group} {name}")
    assert np.array_equal(built.id_rank, loaded.id_rank) and built.fields.keys() == loaded.fields.keys()
    judgments = load_judgments(folder / "judgments.yaml")
    fixture = FixtureIndex(built, load_template(folder / "query.yaml"), judgments, NOW, 100, "query.yaml")
    bodies = fixture.bodies()
    fresh, cached = built.search_many(bodies, 100, "query.yaml"), loaded.search_many(bodies, 100, "query.yaml")
    assert len(fresh) == len(judgments.queries) and any(fresh.values())
    assert cached == fresh  # ids and float scores, bit for bit


def test_a_cached_demo_index_answers_every_query_as_a_fresh_build(tmp_path: Path) -> None:
    assert_answers_alike(ROOT / "fixtures", tmp_path)


@pytest.mark.skipif(not CRANFIELD.is_dir(), reason="../shared/data/cranfield is not present")
def test_a_cached_cranfield_index_answers_every_query_as_a_fresh_build(tmp_path: Path) -> None:
    folder = tmp_path / "cranfield"
    folder.mkdir()
    cranfield_to(folder)
    assert_answers_alike(folder, tmp_path)


def test_nested_dynamic_and_vector_fields_are_restored(tmp_path: Path) -> None:
    (tmp_path / "corpus.ndjson").write_text(
        json.dumps({"id": "a", "v": [1, 0], "at": {"lat": 1, "lon": 2}, "extra": "red shoes", "n": [{"t": "x y"}]})
        + "\n"
        + json.dumps({"id": "b", "v": [0, 1], "extra": "blue", "count": 3, "n": [{"t": "y"}, {"t": "z"}]})
        + "\n"
    )
    (tmp_path / "index.yaml").write_text(
        "mappings:\n  properties:\n    v: {type: dense_vector, dims: 2}\n    at: {type: geo_point}\n"
        "    n: {type: nested, properties: {t: {type: text}}}\n"
    )
    built, loaded = open_twice(tmp_path, tmp_path / "cache")
    assert loaded.dynamic == built.dynamic == {"id": "", "extra": "", "count": 3} and "extra.keyword" in loaded.keyword
    assert np.array_equal(built.vectors["v"], loaded.vectors["v"])
    assert_same(built.geo["at"], loaded.geo["at"], "geo at")
    child, fresh_child = loaded.nested["n"][0], built.nested["n"][0]
    assert_same(fresh_child.text["n.t"], child.text["n.t"], "nested n.t")
    body = {"query": {"nested": {"path": "n", "query": {"match": {"n.t": "y"}}, "score_mode": "sum"}}}
    assert loaded.search_many({"q": body}, 10, "q") == built.search_many({"q": body}, 10, "q")


def test_a_cached_index_never_parses_a_lazily_read_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = ROOT / "fixtures"
    config, source = load_mapping(folder / "index.yaml"), str(folder / "index.yaml")
    built = EmbeddedEngine(tmp_path).open(CorpusFile(folder / "corpus.ndjson"), config, "id", source)
    parsed: list[Path] = []
    monkeypatch.setattr(corpus_module, "load_corpus", lambda path, id_field: parsed.append(path))
    corpus = CorpusFile(folder / "corpus.ndjson")
    loaded = EmbeddedEngine(tmp_path).open(corpus, config, "id", source)
    assert loaded.cache_note is not None and loaded.cache_note.startswith("index: cached (1,122 docs")
    assert parsed == []  # the ids and line numbers came from the entry
    assert loaded.ids == built.ids and loaded.corpus_lines == built.corpus_lines == list(range(1, 1123))
    monkeypatch.undo()
    assert [doc["id"] for doc in corpus] == built.ids  # read on demand, as the relevance_corpus fixture does


def test_a_corpus_edited_between_its_fingerprint_and_its_parse_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.ndjson"
    path.write_text('{"id": "a"}\n')
    corpus = CorpusFile(path)
    assert corpus.fingerprint == blob_sha1(b'{"id": "a"}\n')
    path.write_text('{"id": "b"}\n')
    with pytest.raises(RelevanceInputError, match="changed while this run read it"):
        list(corpus)


def test_the_corpus_fingerprint_is_gits_blob_id(tmp_path: Path) -> None:
    assert blob_sha1(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object of "hello\n"
    (tmp_path / "c.ndjson").write_bytes(b'{"id": "a"}\n')
    assert load_corpus(tmp_path / "c.ndjson").fingerprint == blob_sha1(b'{"id": "a"}\n')


def test_changing_any_input_misses_the_cache(tmp_path: Path) -> None:
    (tmp_path / "syn.txt").write_text("shoe, boot\n")
    config = {
        "settings": {"analysis": {"filter": {"s": {"type": "synonym", "synonyms_path": "syn.txt"}},
                                  "analyzer": {"a": {"tokenizer": "standard", "filter": ["lowercase", "s"]}}}},
        "mappings": {"properties": {"title": {"type": "text", "analyzer": "a"}}},
    }  # fmt: skip
    source = str(tmp_path / "index.yaml")
    key = index_key("c0", config, "id", source)
    assert index_key("c0", config, "id", source) == key
    assert index_key("c1", config, "id", source) != key
    assert index_key("c0", config, "sku", source) != key
    other = json.loads(json.dumps(config))
    other["mappings"]["properties"]["title"]["analyzer"] = "standard"
    assert index_key("c0", other, "id", source) != key
    (tmp_path / "syn.txt").write_text("shoe, boot, clog\n")  # the file the config references
    assert index_key("c0", config, "id", source) != key

    (tmp_path / "corpus.ndjson").write_text('{"id": "a", "title": "boot"}\n')
    (tmp_path / "index.yaml").write_text(json.dumps(config))
    engine = EmbeddedEngine(tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    opened = lambda: engine.open(load_corpus(tmp_path / "corpus.ndjson"), config, "id", source)  # noqa: E731
    assert opened().cache_note.startswith("index: built")
    assert opened().cache_note.startswith("index: cached")
    (tmp_path / "syn.txt").write_text("boot, clog\n")
    index = opened()
    assert index.cache_note.startswith("index: built")
    assert index.search_many({"q": {"query": {"match": {"title": "clog"}}}}, 10, "q")["q"][0][0] == "a"
    (tmp_path / "corpus.ndjson").write_text('{"id": "a", "title": "clog"}\n')
    assert opened().cache_note.startswith("index: built")


def test_only_the_most_recently_used_entries_are_kept(tmp_path: Path) -> None:
    config = {"mappings": {"properties": {"title": {"type": "text"}}}}
    engine = EmbeddedEngine(tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    corpora = []
    for n in range(KEEP + 2):
        (tmp_path / f"c{n}.ndjson").write_text(json.dumps({"id": "a", "title": f"t{n}"}) + "\n")
        corpora.append(load_corpus(tmp_path / f"c{n}.ndjson"))
    for corpus in corpora[:KEEP]:
        assert engine.open(corpus, config, "id", "i").cache_note.startswith("index: built")
    time.sleep(0.01)
    assert engine.open(corpora[0], config, "id", "i").cache_note.startswith("index: cached")  # used again
    for corpus in corpora[KEEP:]:
        engine.open(corpus, config, "id", "i")
    entries = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    assert len(entries) == KEEP
    assert engine.open(corpora[0], config, "id", "i").cache_note.startswith("index: cached")
    assert engine.open(corpora[1], config, "id", "i").cache_note.startswith("index: built")  # the least recent


def reseal(entry: Path, **changes: Any) -> None:
    """Rewrite the manifest as the cache would, its checksums those of the files now there (and `changes` made to
    it): a forgery that matches, or the cache's own write of an entry that differs."""
    manifest = json.loads((entry / MANIFEST).read_text())
    del manifest["sha256"]
    for name in manifest["files"]:
        manifest["files"][name] = hashlib.sha256((entry / name).read_bytes()).hexdigest()
    manifest.update(changes)
    seal = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
    (entry / MANIFEST).write_text(json.dumps({**manifest, "sha256": seal}))


def flip_a_byte(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * at)] ^= 0xFF
    path.write_bytes(bytes(data))


def damage(entry: Path, how: str) -> None:
    index, arrays, manifest = entry / "index.json", entry / "arrays.npy", entry / MANIFEST
    if how == "index.json ids swapped":  # a hand edit that changes the ranking: the gate would score another index
        state = json.loads(index.read_text())
        state["ids"][0], state["ids"][1] = state["ids"][1], state["ids"][0]
        index.write_text(json.dumps(state))
    elif how == "index.json not UTF-8":
        index.write_bytes(b"\xff" + index.read_bytes())
    elif how.endswith("byte flipped"):
        flip_a_byte(entry / how.split()[0], 0.3)
    elif how == "arrays.npy truncated":
        arrays.write_bytes(arrays.read_bytes()[:1000])
    elif how.endswith("missing"):
        (entry / how.split()[0]).unlink()
    elif how == "manifest.json truncated":
        manifest.write_text(manifest.read_text()[:-10])
    elif how == "manifest.json not UTF-8":
        manifest.write_bytes(b"\xfe" + manifest.read_bytes())
    elif how == "manifest.json a digest changed":  # still JSON, still a hex digest, but not the one sealed
        text = manifest.read_text()
        at = text.index('"index.json": "') + len('"index.json": "')
        manifest.write_text(text[:at] + ("1" if text[at] != "1" else "2") + text[at + 1 :])
    elif how == "other format":
        reseal(entry, format=FORMAT + 1)
    elif how == "forged, index.json not UTF-8":
        index.write_bytes(b"\xff\xfe")
        reseal(entry)
    elif how == "forged, index.json not JSON":
        index.write_text("{")
        reseal(entry)
    elif how == "forged, arrays.npy not bytes":
        np.save(arrays, np.zeros(4))
        reseal(entry)
    else:
        raise AssertionError(how)


# each damage, and what the note says of it (the file first)
DAMAGES = {
    "index.json ids swapped": "index.json does not match its checksum in manifest.json",
    "index.json not UTF-8": "index.json does not match its checksum in manifest.json",
    "index.json byte flipped": "index.json does not match its checksum in manifest.json",
    "arrays.npy byte flipped": "arrays.npy does not match its checksum in manifest.json",
    "arrays.npy truncated": "arrays.npy does not match its checksum in manifest.json",
    "arrays.npy missing": "arrays.npy: FileNotFoundError",
    "index.json missing": "index.json: FileNotFoundError",
    "manifest.json byte flipped": "manifest.json",
    "manifest.json truncated": "manifest.json: JSONDecodeError",
    "manifest.json not UTF-8": "manifest.json: UnicodeDecodeError",
    "manifest.json missing": "manifest.json: FileNotFoundError",
    "manifest.json a digest changed": "manifest.json does not match its own checksum",
    "other format": f"manifest.json was written by another version (format {FORMAT + 1}",
    "forged, index.json not UTF-8": "index.json: UnicodeDecodeError",
    "forged, index.json not JSON": "index.json: JSONDecodeError",
    "forged, arrays.npy not bytes": "arrays.npy holds float64 in 1 dimensions, not bytes",
}


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_entry_is_rebuilt_with_a_note_naming_the_file_and_never_trusted(tmp_path: Path, how: str) -> None:
    folder = ROOT / "fixtures"
    built, _ = open_twice(folder, tmp_path)
    (entry,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert sorted(p.name for p in entry.iterdir()) == ["arrays.npy", "index.json", MANIFEST]
    damage(entry, how)
    corpus, config = load_corpus(folder / "corpus.ndjson"), load_mapping(folder / "index.yaml")
    index = EmbeddedEngine(tmp_path).open(corpus, config, "id", str(folder / "index.yaml"))
    assert index.cache_note is not None
    assert index.cache_note.startswith("index: built in ")
    assert f"the cached entry {entry} was unusable, {DAMAGES[how]}" in index.cache_note
    assert index.cache_note.endswith("; rebuilt)")
    again = EmbeddedEngine(tmp_path).open(corpus, config, "id", str(folder / "index.yaml"))
    assert again.cache_note is not None and again.cache_note.startswith("index: cached")
    assert again.ids == built.ids
    body = {"query": {"match": {"title": "wireless headphones"}}}
    assert again.search_many({"q": body}, 10, "q") == built.search_many({"q": body}, 10, "q")


# ---------------------------------------------------------------- through pytest


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(ROOT / "fixtures", pytester.path / "fixtures")
    pytester.makeini("[pytest]\nrelevance_metrics = ndcg@10\n")
    return pytester


def test_runs_share_the_index_and_pytests_cache_options_apply(project: pytest.Pytester) -> None:
    project.makepyfile(test_gate=DEMO_TEST)
    gate = lambda *args: project.runpytest_inprocess("-p", "no:hypothesispytest", *args)  # noqa: E731
    built, loaded = "index: built in * s, cached", "index: cached (1,122 docs, loaded in * ms)"
    first = gate("--relevance-update")
    assert first.ret == 0
    first.stdout.fnmatch_lines([built])
    second = gate()
    assert second.ret == 0
    second.stdout.fnmatch_lines([loaded])
    gate("--relevance-rebuild").stdout.fnmatch_lines([built])
    gate().stdout.fnmatch_lines([loaded])
    gate("--cache-clear").stdout.fnmatch_lines([built])
    shutil.rmtree(project.path / ".pytest_cache")
    plain = gate("-p", "no:cacheprovider")
    assert plain.ret == 0
    plain.stdout.no_fnmatch_line("index: *")  # built as without a cache, and nothing said about it
    assert not (project.path / ".pytest_cache").exists()


@pytest.mark.parametrize(
    "how", ["index.json not UTF-8", "index.json ids swapped", "arrays.npy truncated", "manifest.json byte flipped"]
)
def test_a_run_on_a_damaged_entry_rebuilds_it_and_passes_with_the_note(project: pytest.Pytester, how: str) -> None:
    project.makepyfile(test_gate=DEMO_TEST)
    gate = lambda *args: project.runpytest_inprocess("-p", "no:hypothesispytest", *args)  # noqa: E731
    assert gate("--relevance-update").ret == 0
    (entry,) = (project.path / ".pytest_cache" / "d" / "relevance-index").glob("[!.]*")
    damage(entry, how)
    result = gate()
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [f"index: built in * s, cached (the cached entry {entry} was unusable, {DAMAGES[how]}*"]
    )
    gate().stdout.fnmatch_lines(["index: cached (1,122 docs, loaded in * ms)"])


def test_two_xdist_workers_build_the_index_once(project: pytest.Pytester) -> None:
    project.makeconftest(  # counts the builds of every process in builds.txt
        "from pytest_relevance.engines.embedded import EmbeddedIndex\n"
        "fill = EmbeddedIndex._fill\n"
        "def counted(self, corpus):\n"
        "    with open('builds.txt', 'a') as out:\n"
        "        out.write('build\\n')\n"
        "    fill(self, corpus)\n"
        "EmbeddedIndex._fill = counted\n"
    )
    project.makepyfile(test_both="def test_search(relevance_index):\n    assert relevance_index.run()\n")
    # --dist each: both workers run the test, so both open the index
    result = project.runpytest_subprocess("-p", "no:hypothesispytest", "-n", "2", "--dist", "each")
    assert result.ret == 0
    result.assert_outcomes(passed=2)
    assert (project.path / "builds.txt").read_text().splitlines() == ["build"]
    result.stdout.fnmatch_lines(["index: cached (1,122 docs, loaded in * ms)"])


def test_search_as_you_type_subfields_and_conditional_analysis_are_restored(tmp_path: Path) -> None:
    """The subfields a search_as_you_type field adds and a condition filter's chain are index state too: a loaded
    index answers the queries routed to them as the build does."""
    titles = ["quick brown fox", "quick brown foxes jump", "the lazy brown dog", "Brown Quick Fox"]
    (tmp_path / "corpus.ndjson").write_text(
        "".join(json.dumps({"id": f"d{i}", "t": t, "body": t}) + "\n" for i, t in enumerate(titles))
    )
    (tmp_path / "index.yaml").write_text(
        "settings:\n  analysis:\n    filter:\n      short_upper:\n        type: condition\n"
        "        filter: [uppercase]\n        script: {source: 'token.getTerm().length() < 5'}\n"
        "    analyzer:\n      cond: {tokenizer: standard, filter: [lowercase, short_upper]}\n"
        "mappings:\n  properties:\n    t: {type: search_as_you_type}\n    body: {type: text, analyzer: cond}\n"
    )
    built, loaded = open_twice(tmp_path, tmp_path / "cache")
    assert {"t._2gram", "t._3gram", "t._index_prefix"} <= loaded.text.keys()
    for name in ("t", "t._2gram", "t._3gram", "t._index_prefix", "body"):
        assert_same(built.text[name], loaded.text[name], f"text {name}")
    bodies = {
        "bool_prefix": {"query": {"multi_match": {"query": "quick bro", "type": "bool_prefix",
                                                  "fields": ["t", "t._2gram", "t._3gram"]}}},
        "phrase_prefix": {"query": {"match_phrase_prefix": {"t": "brown fo"}}},
        "condition": {"query": {"match": {"body": "FOX quick"}}},
        "span": {"query": {"span_near": {"clauses": [{"span_term": {"t": "quick"}}, {"span_term": {"t": "fox"}}],
                                         "slop": 1, "in_order": True}}},
        "combined": {"query": {"combined_fields": {"query": "brown fox", "fields": ["body"]}}},
    }  # fmt: skip
    fresh = built.search_many(bodies, 10, "q")
    assert all(fresh.values()) and loaded.search_many(bodies, 10, "q") == fresh


# ---------------------------------------------------------------- a cache this user cannot write

# a conftest that makes a write to the index cache fail as in another user's folder (the tests run as root, whom no
# chmod stops): os.open, the lock file's creation, or os.utime, the stamp that marks an entry recently used
CANNOT_WRITE = """
import errno, os

def refused(path, *args, **kwargs):
    if "relevance-index" in os.fspath(path):
        raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
    return CALL(path, *args, **kwargs)

CALL, os.{call} = os.{call}, refused
"""
TWO_TESTS = DEMO_TEST + DEMO_TEST.replace("test_demo", "test_demo_again")
MODES = {"serial": [], "xdist": ["-n", "2", "--dist", "each"]}  # each: both workers open the index


def in_memory_warnings(result: pytest.RunResult, cache: Path) -> list[str]:
    """The lines of the run's output that say the index is built in memory; each names the cache folder."""
    lines = [line for line in result.outlines if "the index is built in memory" in line]
    assert all(str(cache) in line for line in lines), lines
    return lines


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", ["lock", "stamp"])
def test_a_cache_this_user_cannot_write_builds_in_memory_with_one_warning(
    project: pytest.Pytester, fault: str, mode: str
) -> None:
    project.makepyfile(test_gate=TWO_TESTS)
    gate = lambda *args: project.runpytest_subprocess("-p", "no:hypothesispytest", *args)  # noqa: E731
    # the baseline, and for the stamp an entry to stamp (the lock: none, so the run takes the lock to build one)
    assert gate("--relevance-update", *(["-p", "no:cacheprovider"] if fault == "lock" else [])).ret == 0
    project.makeconftest(CANNOT_WRITE.format(call="open" if fault == "lock" else "utime"))
    result = gate(*MODES[mode])
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=4 if MODES[mode] else 2, warnings=1)
    cache = project.path / ".pytest_cache" / "d" / "relevance-index"
    (line,) = in_memory_warnings(result, cache)
    assert f"PermissionError: [Errno 13] Permission denied: '{cache}" in line and "RelevanceWarning" in line
    result.stdout.fnmatch_lines(["index: built in * s, not cached"])


@pytest.mark.parametrize("mode", MODES)
def test_a_cache_dir_that_cannot_be_made_builds_in_memory_with_one_warning(project: pytest.Pytester, mode: str) -> None:
    (project.path / "blocker").write_text("a file where the cache's folder would be\n")
    project.makeini("[pytest]\nrelevance_metrics = ndcg@10\ncache_dir = blocker/cache\n")
    project.makepyfile(test_gate=TWO_TESTS)
    gate = lambda *args: project.runpytest_subprocess("-p", "no:hypothesispytest", *args)  # noqa: E731
    assert gate("--relevance-update").ret == 0
    for args in ([], ["--relevance-rebuild"]):
        result = gate(*MODES[mode], *args)
        assert result.ret == 0, result.stdout.str()
        result.assert_outcomes(passed=4 if MODES[mode] else 2)  # warnings: also pytest's, about its own cache
        (line,) = in_memory_warnings(result, project.path / "blocker" / "cache" / "d" / "relevance-index")
        assert "RelevanceWarning" in line
    if not MODES[mode]:  # made an error, the warning fails the run with a line, not a traceback
        strict = gate("-W", "error::pytest_relevance.plugin.hooks.RelevanceWarning")
        assert strict.ret == pytest.ExitCode.TESTS_FAILED
        assert "Traceback" not in strict.stdout.str() + strict.stderr.str()
        (line,) = in_memory_warnings(strict, project.path / "blocker" / "cache" / "d" / "relevance-index")
        assert line.startswith("error: the index cache ")
