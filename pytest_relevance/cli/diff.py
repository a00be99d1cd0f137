"""`pytest-relevance diff`: what a change does to ranking, with no baseline at all.

The project's relevance configuration (its pytest ini, read as the plugin reads it) is measured twice in one
process: with the corpus, index config and query template of a git revision (default HEAD), and with those of the
working tree (or of a second revision), always on the working tree's judgments, so both sides are graded alike. The
earlier side's evaluation becomes a baseline entry (the one `--relevance-update` would write) and the later side is
judged against it by the gate's own `decide`: the rows, movers, what moved in each ranking and churn are the ones a
failing gate would show, so `diff` before a commit predicts the gate after it. On top of that every changed row gets
its p-value (the gate computes one only for a drop beyond tolerance), and the unjudged documents that came into
the top k are listed, ready for `pytest-relevance pool`.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_relevance.config import project
from pytest_relevance.config.keys import SETTINGS
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs import synonyms_sets
from pytest_relevance.util import revisions

NODEID = "pytest-relevance diff"
#: settings a flag may override (flag dest -> ini key)
OVERRIDES = {
    "judgments": "relevance_judgments",
    "topics": "relevance_topics",
    "corpus": "relevance_corpus",
    "index_config": "relevance_index_config",
    "query": "relevance_query",
    "metrics": "relevance_metrics",
    "tolerance": "relevance_tolerance",
    "id_field": "relevance_id_field",
}
_SIDE_INPUTS = ("relevance_corpus", "relevance_index_config", "relevance_query")


@dataclass(frozen=True)
class Side:
    """One revision's inputs: `label` names it in the output; `paths` maps each input key to the file to read."""

    label: str
    paths: dict[str, Path]
    #: "before" or "after": an Elasticsearch index name's suffix
    key: str
    #: the synonyms sets (relevance_synonyms_sets) as this side has them
    sets: dict[str, Path]


class Project:
    """The settings as the plugin would read them in this project, with the flags given applied."""

    def __init__(self, start: Path, overrides: Mapping[str, str | None]) -> None:
        found = project.find_ini(start)
        if found is None:
            raise RelevanceInputError(start, "no pytest ini file was found from here up; run diff inside the project")
        self.ini, keys = found
        self.root = self.ini.parent
        self.values = {key: keys.get(key, default).strip() for key, (_, default) in SETTINGS.items()}
        for dest, value in overrides.items():
            if value is not None:
                self.values[OVERRIDES[dest]] = value

    def path(self, key: str) -> Path:
        """A path setting as the plugin resolves it (against the rootdir, here the ini file's directory)."""
        return (self.root / self.values[key]).resolve()

    def sets(self) -> dict[str, Path]:
        """relevance_synonyms_sets, each file resolved against the rootdir."""
        return synonyms_sets.parse(self.values[synonyms_sets.KEY], self.root)

    def settings(self) -> Any:
        from pytest_relevance.config.settings import SettingError, read

        try:
            return read(self.values.__getitem__)
        except SettingError as exc:
            raise RelevanceInputError(self.ini, str(exc)) from None


def run(
    start: Path, ref: str, against: str | None, overrides: Mapping[str, str | None], limit: int | None
) -> dict[str, Any]:
    """The diff of `ref` -> `against` (None: the working tree) as a JSON-serializable model the renderers read;
    `limit`: documents explained per mover (None: every one its change lists)."""
    from pytest_relevance.explain.why import explain_movers

    proj = Project(start, overrides)
    top = revisions.toplevel(proj.root)
    settings = proj.settings()
    judgments = _judgments(proj)
    before_commit = revisions.commit_of(top, ref)
    after_commit = revisions.commit_of(top, against) if against is not None else None
    with tempfile.TemporaryDirectory(prefix="pytest-relevance-diff-") as scratch:
        before = _side_at(proj, top, ref, before_commit, Path(scratch), "before")
        after = (
            _side_at(proj, top, against, after_commit, Path(scratch), "after")
            if against is not None and after_commit is not None
            else Side("working tree", {key: proj.path(key) for key in _SIDE_INPUTS}, "after", proj.sets())
        )
        with _frozen(settings.now), contextlib.ExitStack() as opened:
            old = _measure(proj, before, judgments, settings, opened)
            new = _measure(proj, after, judgments, settings, opened)
            model = _compare(before.label, after.label, old, new, judgments, settings)
            movers = model["report"]["movers"]
            explain_movers(movers["lost"] + movers["gained"], old.fixture, new.fixture, limit)
    return model


def _judgments(proj: Project) -> Any:
    from pytest_relevance.judgments.model import load_judgments

    topics = proj.values["relevance_topics"]
    path = proj.path("relevance_judgments")
    if not path.is_file():
        raise RelevanceInputError(path, "judgments not found; set relevance_judgments (or pass --judgments)")
    return load_judgments(path, proj.path("relevance_topics") if topics else None)


def _side_at(proj: Project, top: Path, ref: str, commit: str, scratch: Path, key: str) -> Side:
    """The inputs as `commit` has them: the three files, then every file the index config of that revision
    references, at the same relative paths."""
    from pytest_relevance.inputs.corpus import load_mapping
    from pytest_relevance.util.fingerprints import referenced_files

    scratch = scratch / key
    label = f"{ref} ({commit[:7]})" if ref != commit[: len(ref)] else commit[:7]
    files = {key: proj.path(key) for key in _SIDE_INPUTS}
    written = revisions.materialize(top, commit, files.values(), scratch, label)
    working_config = files["relevance_index_config"]
    sets = proj.sets()
    config = synonyms_sets.resolve(load_mapping(written[working_config]), sets, working_config)
    extra = {(working_config.parent / name).resolve() for name in referenced_files(config)}
    written |= revisions.materialize(top, commit, sorted(extra), scratch, label)
    at = {name: written[path.resolve()] for name, path in sets.items() if path.resolve() in written}
    return Side(label, {name: written[path] for name, path in files.items()}, key, at)


@contextlib.contextmanager
def _frozen(instant: Any) -> Iterator[None]:
    """relevance_now, as every relevance test runs under it: decay origins and scripts read the clock."""
    import time_machine

    with time_machine.travel(instant, tick=False):
        yield


@dataclass
class Measured:
    evaluation: Any
    inputs: dict[str, Any]
    engine: str
    #: the side's fixture index, open until the movers are explained
    fixture: Any


def _measure(proj: Project, side: Side, judgments: Any, settings: Any, opened: contextlib.ExitStack) -> Measured:
    """One side's index built (or loaded from the index cache pytest's runs share), every judged query run, and
    the run evaluated as the gate evaluates it; the index is closed when `opened` is."""
    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.evaluation.evaluation import evaluate
    from pytest_relevance.inputs.corpus import CorpusFile, load_mapping
    from pytest_relevance.inputs.templates import load_template
    from pytest_relevance.judgments.model import content_version
    from pytest_relevance.metrics.ranking import BEYOND
    from pytest_relevance.util.fingerprints import index_inputs, judgments_inputs

    id_field = proj.values["relevance_id_field"]
    corpus = CorpusFile(side.paths["relevance_corpus"], id_field)
    config_path, query_path = side.paths["relevance_index_config"], side.paths["relevance_query"]
    config = load_mapping(config_path)
    if proj.values["relevance_engine"] == "embedded":  # the server keeps its own synonyms sets
        config = synonyms_sets.resolve(config, side.sets, config_path)
    index = _engine(proj, side.key).open(corpus, config, id_field, str(config_path))
    opened.callback(index.close)
    inputs = index_inputs(corpus.fingerprint, config_path, config, query_path)
    inputs |= judgments_inputs(Path(judgments.source), content_version(judgments.queries))
    template = load_template(query_path)
    fixture = FixtureIndex(index, template, judgments, settings.now, settings.depth, str(query_path), 1, None, inputs)
    result = fixture.run()
    fields = None
    if any(m.name in BEYOND for m in settings.metrics):
        documents = corpus.load()
        fields = CorpusFields(documents, id_field, corpus.path, documents.lines)
    evaluation = evaluate(result, judgments, settings.metrics, fields, settings.now)
    return Measured(evaluation, inputs, result.engine, fixture)


def _engine(proj: Project, side: str) -> Any:
    """The engine relevance_engine names. The embedded one uses the index cache a pytest run in this project
    uses, so a diff after a gate run (or the other way round) builds nothing twice; the elasticsearch one opens an
    index of its own per side, named, created and deleted as the gate's are."""
    import os
    import uuid

    name = proj.values["relevance_engine"]
    if name == "embedded":
        from pytest_relevance.engines.embedded import EmbeddedEngine

        return EmbeddedEngine(proj.root / ".pytest_cache" / "d" / "relevance-index")
    if name != "elasticsearch":
        raise RelevanceInputError(
            proj.ini, f"relevance_engine = {name!r}: diff runs on the built-in engines (embedded, elasticsearch)"
        )
    from pytest_relevance.engines.elasticsearch.engine import ElasticsearchEngine, check_url, make_client

    def value(key: str) -> str:
        return proj.values[key] or os.environ.get(key.upper(), "")

    url = value("relevance_es_url")
    if not url:
        raise RelevanceInputError(
            proj.ini, "relevance_engine = elasticsearch needs relevance_es_url (or RELEVANCE_ES_URL)"
        )
    check_url(url)
    client = make_client(url, *(value(f"relevance_es_{key}") for key in ("api_key", "user", "password", "ca_certs")))
    index = f"relevance-diff-{uuid.uuid4().hex[:12]}-{side}"
    batch, concurrency = int(proj.values["relevance_es_batch"]), int(proj.values["relevance_es_concurrency"])
    return ElasticsearchEngine(client, index, url, batch, concurrency)


def _compare(before: str, after: str, old: Measured, new: Measured, judgments: Any, settings: Any) -> dict[str, Any]:
    from pytest_relevance.evaluation.diagnostics import diagnose
    from pytest_relevance.evaluation.significance import change_p
    from pytest_relevance.gate.baseline_file import DIGITS
    from pytest_relevance.gate.verdict import decide
    from pytest_relevance.reports.model import build

    entry = decide(
        NODEID, None, old.evaluation, judgments, old.engine, settings, update=True, reason=before, inputs=old.inputs
    ).entry
    assert entry is not None
    verdict = decide(NODEID, entry, new.evaluation, judgments, new.engine, settings, inputs=new.inputs)
    diagnostics = diagnose(new.evaluation, judgments, settings.min_judged, settings.floor_margin, None, (), None)
    report = build(NODEID, verdict, diagnostics)
    by_spec = {m.spec: m for m in new.evaluation.metrics}
    for row in report["rows"]:
        if row["p"] is None and row["delta"]:
            ids = judgments.groups[row["stratum"]]
            row["p"] = change_p(
                by_spec[row["metric"]], ids, new.evaluation, entry["queries"], entry.get("rankings"),
                entry.get("rankings_depth"), DIGITS,
            )  # fmt: skip
    report["since_baseline"] = (verdict.since or "").replace("since the baseline", f"since {before}")
    return {
        "before": before,
        "after": after,
        "queries": len(judgments.queries),
        "depth": settings.snapshot_depth,
        "report": report,
        "came_in": _came_in(old.evaluation.run, new.evaluation.run, judgments, settings.snapshot_depth),
    }


def _came_in(
    before: Mapping[str, list[str]], after: Mapping[str, list[str]], judgments: Any, depth: int
) -> dict[str, list[str]]:
    """Per query, the unjudged documents in the later side's top `depth` that the earlier side's lacked: what a
    judge should grade before trusting the numbers (`pytest-relevance pool` lists them)."""
    came: dict[str, list[str]] = {}
    for qid, ranked in after.items():
        seen, grades = set(before.get(qid, [])[:depth]), judgments[qid].grades
        new = [doc for doc in ranked[:depth] if doc not in seen and doc not in grades]
        if new:
            came[qid] = new
    return came
