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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.config import project
from pytest_relevance.config.keys import SETTINGS
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs import synonyms_sets
from pytest_relevance.util import revisions

if TYPE_CHECKING:
    from pytest_relevance.engines.base import Engine
    from pytest_relevance.gate.pipeline import Explainer

NODEID = "pytest-relevance diff"
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
        self.root, self.ini_keys = self.ini.parent, keys
        flags = {project.OVERRIDES[dest]: value for dest, value in overrides.items() if value is not None}
        settings = project.resolver(start, flags)
        self.values = {key: settings.value(key) for key in SETTINGS}

    def path(self, key: str) -> Path:
        """A path setting as the plugin resolves it (against the rootdir, here the ini file's directory)."""
        return (self.root / self.values[key]).resolve()

    def cache_dir(self) -> Path:
        """pytest's cache directory as pytest finds it: the ini's `cache_dir` (default .pytest_cache) against the
        rootdir, so that diff shares the gate's index cache wherever the project keeps it."""
        return self.root / Path(self.ini_keys.get("cache_dir", ".pytest_cache")).expanduser()

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
    judgments = project_judgments(proj)
    before_commit = revisions.commit_of(top, ref)
    after_commit = revisions.commit_of(top, against) if against is not None else None
    with tempfile.TemporaryDirectory(prefix="pytest-relevance-diff-") as scratch:
        before = _side_at(proj, top, ref, before_commit, Path(scratch), "before")
        after = (
            _side_at(proj, top, against, after_commit, Path(scratch), "after")
            if against is not None and after_commit is not None
            else Side("working tree", {key: proj.path(key) for key in _SIDE_INPUTS}, "after", proj.sets())
        )
        with frozen(settings.now), contextlib.ExitStack() as opened:
            old = _measure(proj, before, judgments, settings, opened)
            new = _measure(proj, after, judgments, settings, opened)

            def explain(movers: Sequence[dict[str, Any]], verdict: Any) -> None:
                explain_movers(movers, old.fixture, new.fixture, limit)

            return _compare(proj, before.label, after.label, old, new, judgments, settings, explain)


def add_overrides(parser: Any, dests: Iterable[str], from_ini: str) -> None:
    """A `--FLAG` for each setting of `project.OVERRIDES` named in `dests`, the same for every command."""
    for dest in dests:
        parser.add_argument(
            f"--{dest.replace('_', '-')}", dest=dest, help=f"overrides {project.OVERRIDES[dest]}{from_ini}"
        )


def human_judgments(proj: Project, settings: Any) -> Any:
    """relevance_human_judgments (people's re-grades of judge-graded documents), as the plugin reads it; None when
    it is not set."""
    from pytest_relevance.config.settings import HUMAN_MISSING
    from pytest_relevance.judgments.model import load_judgments

    if not settings.human_judgments:
        return None
    path = proj.path("relevance_human_judgments")
    if not path.is_file():
        raise RelevanceInputError(path, HUMAN_MISSING)
    return load_judgments(path)


def project_judgments(proj: Project) -> Any:
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
def frozen(instant: Any) -> Iterator[None]:
    """relevance_now, as every relevance test runs under it: decay origins and scripts read the clock."""
    import time_machine

    with time_machine.travel(instant, tick=False):
        yield


@dataclass
class Measured:
    run: Any
    inputs: dict[str, Any]
    #: the fields the metrics beyond relevance read (None when none is gated)
    fields: Any
    #: the side's fixture index, open until the movers are explained
    fixture: Any
    corpus_size: int
    corpus_path: Path


def _measure(proj: Project, side: Side, judgments: Any, settings: Any, opened: contextlib.ExitStack) -> Measured:
    """One side's index built (or loaded from the index cache pytest's runs share), every judged query run, and
    the run evaluated as the gate evaluates it; the index is closed when `opened` is."""
    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.inputs.corpus import CorpusFile
    from pytest_relevance.inputs.templates import load_template
    from pytest_relevance.judgments.model import content_version
    from pytest_relevance.util.fingerprints import index_inputs, judgments_inputs

    corpus = CorpusFile(side.paths["relevance_corpus"], proj.values["relevance_id_field"])
    config_path, query_path = side.paths["relevance_index_config"], side.paths["relevance_query"]
    index, config = open_index(proj, corpus, config_path, side.sets, side.key, opened)
    inputs = index_inputs(corpus.fingerprint, config_path, config, query_path)
    inputs |= judgments_inputs(Path(judgments.source), content_version(judgments.queries))
    template = load_template(query_path)
    fixture = FixtureIndex(
        index, template, judgments, settings.now, settings.depth, str(query_path), 1, None, inputs,
        counted=bool(settings.max_cost),
    )  # fmt: skip
    result = fixture.run()
    fields = corpus_fields(corpus, settings.metrics)
    return Measured(result, inputs, fields, fixture, len(getattr(index, "ids", None) or corpus), corpus.path)


def open_index(
    proj: Project, corpus: Any, config_path: Path, sets: Mapping[str, Path], key: str, opened: contextlib.ExitStack
) -> tuple[Any, Any]:
    """(the index, the index config it was opened with) of `config_path` on the project's engine (`key` names it
    apart from the command's other indexes), the embedded engine given the synonyms sets `sets` (a server keeps its
    own); closed when `opened` is. diff opens one per side, tune one per index config it sweeps."""
    from pytest_relevance.inputs.corpus import load_mapping

    config = load_mapping(config_path)
    if proj.values["relevance_engine"] == "embedded":
        config = synonyms_sets.resolve(config, sets, config_path)
    index = engine_for(proj, key).open(corpus, config, corpus.id_field, str(config_path))
    opened.callback(index.close)
    return index, config


def corpus_fields(corpus: Any, metrics: Sequence[Any]) -> Any:
    """The corpus fields the metrics beyond relevance read, None when none of them is measured (the corpus is then
    never loaded whole)."""
    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.metrics.ranking import BEYOND

    if not any(m.name in BEYOND for m in metrics):
        return None
    documents = corpus.load()
    return CorpusFields(documents, corpus.id_field, corpus.path, documents.lines)


def engine_for(proj: Project, side: str) -> Engine:
    """The engine relevance_engine names, from the factory the plugin uses: a plugin's engine (the hook's
    implementations in the installed plugins and the rootdir's conftest.py), else a built-in one. The embedded one
    uses the index cache a pytest run in this project uses (pytest's cache_dir), so a diff after a gate run (or the
    other way round) builds nothing twice; the elasticsearch one opens an index of its own per side, named, created
    and deleted as the gate's are."""
    import uuid

    from pytest_relevance.engines.factory import (
        EngineSettings,
        EngineUnavailable,
        ProjectConfig,
        make_engine,
        plugin_engines,
    )

    settings = EngineSettings(
        name=proj.values["relevance_engine"],
        cache_dir=proj.cache_dir() / "d" / "relevance-index",
        index_name=f"relevance-diff-{uuid.uuid4().hex[:12]}-{side}",
        es_url=proj.values["relevance_es_url"],
        es_api_key=proj.values["relevance_es_api_key"],
        es_user=proj.values["relevance_es_user"],
        es_password=proj.values["relevance_es_password"],
        es_ca_certs=proj.values["relevance_es_ca_certs"],
        es_batch=int(proj.values["relevance_es_batch"]),
        es_concurrency=int(proj.values["relevance_es_concurrency"]),
    )
    try:
        return make_engine(settings, plugin_engines(proj.root, ProjectConfig(proj.root, proj.ini_keys, {})))
    except EngineUnavailable as exc:
        raise RelevanceInputError(proj.ini, str(exc)) from None


def _compare(
    proj: Project,
    before: str,
    after: str,
    old: Measured,
    new: Measured,
    judgments: Any,
    settings: Any,
    explain: Explainer,
) -> dict[str, Any]:
    """The later side checked against the earlier one by the gate's own pipeline: the earlier side's run made an
    entry as an update would, the later side compared with it, every change given its p-value (a diff reports all
    of them, not only regressions) and every mover explained."""
    from pytest_relevance.gate.pipeline import Check, Provenance, check

    entry = check(
        old.run,
        Check(NODEID, judgments, settings, update=True, reason=before, inputs=old.inputs, corpus=old.fields),
    ).verdict.entry
    assert entry is not None
    agreement = proj.root / settings.judge_agreement if settings.judge_agreement else None
    provenance = Provenance(new.corpus_path, proj.values["relevance_id_field"], agreement)
    checked = check(
        new.run,
        Check(
            NODEID,
            judgments,
            settings,
            entry=entry,
            inputs=new.inputs,
            corpus=new.fields,
            corpus_size=new.corpus_size,
            provenance=provenance,
            explain=explain,
            explain_every_change=True,
            every_p=True,
            human=human_judgments(proj, settings),
        ),
    )
    report = checked.report
    report["since_baseline"] = (checked.verdict.since or "").replace("since the baseline", f"since {before}")
    return {
        "before": before,
        "after": after,
        "queries": len(judgments.queries),
        "depth": settings.snapshot_depth,
        "report": report,
        "came_in": _came_in(old.run, new.run, judgments, settings.snapshot_depth),
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
