"""`pytest-relevance tune`: a parameter sweep of the project's query template that reports its winner honestly.

The project is read as `diff` reads it (its pytest ini, flags overriding), the index is opened once per index config
(from the index cache a pytest run shares; the Elasticsearch engine answers each variant's queries in batches), and
each variant is one query pass through the gate's own `FixtureIndex` and `evaluate` under the frozen clock. The
sweep and its decision are the `tune` package's; this module loads, measures, writes the pool file and the patch.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_relevance.cli.diff import Project, add_overrides, corpus_fields, frozen, open_index, project_judgments
from pytest_relevance.config import project
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.tune.space import FILES, Space, parse_space

#: the flags that override the project's settings (see `project.OVERRIDES`): the tolerance is not the sweep's
OVERRIDES = [dest for dest in project.OVERRIDES if dest != "tolerance"]
TOP_POOLED = 5  # the variants whose unjudged documents the pool file holds: the best on the tune part


@dataclass(frozen=True)
class Options:
    params: Sequence[str]
    strategy: str
    trials: int | None
    split: float
    seed: int
    objective: str | None
    alpha: float
    correction: str
    pool: Path | None


def run(
    start: Path,
    overrides: Mapping[str, str | None],
    options: Options,
    progress: Callable[[int, int, str, float], None] | None = None,
) -> dict[str, Any]:
    """The sweep's model (tune.sweep.decide) with the patch that applies the winner, and the pool file written."""
    from pytest_relevance.tune import split, strategies, sweep
    from pytest_relevance.tune.space import label

    proj = Project(start, overrides)
    settings = proj.settings()
    judgments = project_judgments(proj)
    source = "--param" if options.params else f"{proj.ini}: relevance_tune"
    space = parse_space("; ".join(options.params) or proj.values["relevance_tune"], source, proj.root)
    with frozen(settings.now), contextlib.ExitStack() as opened:
        measure = _Measure(proj, space, source, judgments, settings, opened)
        goal = sweep.objective(settings.metrics, options.objective, list(judgments.groups))
        parts = split.split(judgments, options.split, options.seed)
        chooser = strategies.make(options.strategy, space, options.trials, options.seed)
        total = (
            space.size if options.strategy == "grid" else min(options.trials or strategies.DEFAULT_TRIALS, space.size)
        )
        current = measure.current()
        tune_ids = [q for q in judgments.groups[goal.stratum] if q in parts.tune]  # what the objective scores

        def shown(done: int, params: dict[str, Any], score: float) -> None:
            if progress is not None:
                progress(done, total, label(params), score)

        trials = sweep.run(chooser, measure, goal, tune_ids, shown)
        model = sweep.decide(
            options.strategy, space, current, trials, judgments, parts, goal, options.alpha, options.correction,
            options.seed, settings.snapshot_depth,
        )  # fmt: skip
        model["patch"] = _patch(proj, model["winner"]["params"])
        if options.pool is not None:
            ranked = sorted(range(len(trials)), key=lambda i: -goal.score(trials[i].evaluation, tune_ids))
            best = [trials[i].evaluation.run for i in ranked[:TOP_POOLED]]
            model["pool"] = _pool(measure.corpus, judgments, best, options.pool, model["judged_k"])
    return model


def _shown(proj: Project, path: Path) -> str:
    """A project file as the ini names it: relative to the ini file's directory."""
    return path.relative_to(proj.root).as_posix() if path.is_relative_to(proj.root) else str(path)


class _Measure:
    """Each variant's evaluation: its template bound to its values, run on the index of its index config (each
    opened once, on first use)."""

    def __init__(
        self, proj: Project, space: Space, source: str, judgments: Any, settings: Any, opened: contextlib.ExitStack
    ) -> None:
        from pytest_relevance.inputs.corpus import CorpusFile
        from pytest_relevance.inputs.templates import load_template, placeholders
        from pytest_relevance.tune.space import check_placeholders

        self.proj, self.space, self.judgments, self.settings, self.opened = proj, space, judgments, settings, opened
        self.corpus = CorpusFile(proj.path("relevance_corpus"), proj.values["relevance_id_field"])
        self.query_path, self.config_path = proj.path("relevance_query"), proj.path("relevance_index_config")
        files = {p.name: [(proj.root / v).resolve() for v in p.values] for p in space.params if p.is_file}
        self.templates = {path: load_template(path) for path in [self.query_path, *files.get("template", [])]}
        variants = files.get("template", [self.query_path])
        check_placeholders(
            space,
            [(_shown(proj, path), placeholders(self.templates[path])) for path in variants],
            placeholders(self.templates[self.query_path]),
            source,
        )
        self.indexes: dict[Path, Any] = {}
        self.fields = corpus_fields(self.corpus, settings.metrics)

    def current(self) -> Any:
        """The project's template as the gate runs it (parameters it has at their current values)."""
        return self._evaluate(self.query_path, self.config_path, self.space.placeholders())

    def __call__(self, params: dict[str, Any]) -> Any:
        template = (self.proj.root / params["template"]).resolve() if "template" in params else self.query_path
        config = (self.proj.root / params["index_config"]).resolve() if "index_config" in params else self.config_path
        values = {k: v for k, v in params.items() if k not in FILES}
        return self._evaluate(template, config, values)

    def _evaluate(self, template: Path, config: Path, values: dict[str, Any]) -> Any:
        from pytest_relevance.engines.base import FixtureIndex
        from pytest_relevance.evaluation.evaluation import evaluate
        from pytest_relevance.inputs.templates import bind

        body = bind(self.templates[template], values)
        fixture = FixtureIndex(self._index(config), body, self.judgments, self.settings.now, self.settings.depth,
                               str(template))  # fmt: skip
        return evaluate(fixture.run(), self.judgments, self.settings.metrics, self.fields, self.settings.now)

    def _index(self, config_path: Path) -> Any:
        if config_path not in self.indexes:
            key = f"tune{len(self.indexes)}"
            self.indexes[config_path] = open_index(
                self.proj, self.corpus, config_path, self.proj.sets(), key, self.opened
            )[0]
        return self.indexes[config_path]


def substitute(text: str, values: Mapping[str, Any]) -> str:
    """A template file's text with the values written in place of their placeholders: a quoted whole placeholder
    of a number becomes the bare number (`"{{boost}}"` -> `2.5`), any other its text, so that the file reads as
    one written by hand."""
    from pytest_relevance.tune.space import show

    for name, value in values.items():
        placeholder = r"\{\{\s*" + re.escape(name) + r"\s*\}\}"
        shown = show(value).replace("\\", "\\\\")  # a replacement's own backslashes are escapes
        if isinstance(value, int | float) and not isinstance(value, bool):
            text = re.sub(r"([\"'])" + placeholder + r"\1", shown, text)
        text = re.sub(placeholder, shown, text)
    return text


def carried(current: str, variant: str, values: Mapping[str, Any]) -> str:
    """The current file with each line of the variant template that holds a parameter written, filled, over the line
    of the current file it matches (the same text, the parameters' places aside), so that a copy of the template
    with its own comments still patches only the values. A line that matches none: the whole variant, filled."""
    names = "|".join(re.escape(name) for name in values)
    hole = re.compile(r"[\"']?\{\{\s*(?:" + names + r")\s*\}\}[\"']?")
    lines = current.splitlines(True)
    taken: set[int] = set()
    for line in variant.splitlines(True):
        if not hole.search(line):
            continue
        pattern = re.compile("(.+?)".join(re.escape(part) for part in hole.split(line.rstrip("\r\n"))))
        at = next((i for i, old in enumerate(lines) if i not in taken and pattern.fullmatch(old.rstrip("\r\n"))), None)
        if at is None:
            return substitute(variant, values)
        taken.add(at)
        ending = lines[at][len(lines[at].rstrip("\r\n")) :]
        lines[at] = substitute(line.rstrip("\r\n"), values) + ending
    return "".join(lines)


def _patch(proj: Project, params: Mapping[str, Any]) -> str:
    """A unified diff that makes the project's template (and index config) the winner's, against the ini's paths."""
    values = {k: v for k, v in params.items() if k not in FILES}
    query, config = proj.values["relevance_query"], proj.values["relevance_index_config"]
    pairs = [
        (proj.path("relevance_query"), (proj.root / params.get("template", query)).resolve(), values),
        (proj.path("relevance_index_config"), (proj.root / params.get("index_config", config)).resolve(), {}),
    ]
    out: list[str] = []
    for target, source, filled in pairs:
        before, variant = target.read_text(encoding="utf-8"), source.read_text(encoding="utf-8")
        after = carried(before, variant, filled) if filled and target != source else substitute(variant, filled)
        name = _shown(proj, target)
        out.extend(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{name}", f"b/{name}"))
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def _pool(corpus: Any, judgments: Any, rankings: list[Any], path: Path, k: int) -> dict[str, Any]:
    """The unjudged documents in the top k of the best variants (judged@k's cut), to grade before trusting a
    winner: `pytest-relevance merge` folds the grades in, and the sweep runs again on them."""
    from pytest_relevance.judgments.pool import pool, title_fields, write_pool

    documents = {d[corpus.id_field]: d for d in corpus.load()}
    fields = title_fields(documents.values())
    rows = pool(judgments, rankings, k, documents, fields)
    write_pool(path, rows, fields)
    documents_pooled = len({row["doc_id"] for row in rows})
    return {"path": str(path), "pairs": len(rows), "documents": documents_pooled, "variants": len(rankings)}


def progress(done: int, total: int, label: str, score: float) -> None:
    """One line on stderr, rewritten in place, while a long sweep runs on a terminal."""
    if sys.stderr.isatty():
        end = "\n" if done == total else ""
        print(
            f"\rtune: trial {done}/{total}  {label}  tune score {score:.4f}\033[K", end=end, file=sys.stderr, flush=True
        )


def add_parser(commands: Any, handler: Callable[[Any], int], from_ini: str) -> None:
    """The `tune` subcommand's flags."""
    from pytest_relevance.tune.correction import CORRECTIONS
    from pytest_relevance.tune.strategies import DEFAULT_TRIALS, STRATEGIES

    tune = commands.add_parser(
        "tune",
        help="sweep the query template's {{param}} placeholders; the winner is chosen on part of the queries and "
        "reported on the held-out rest, tested against the current template with a correction for every variant",
    )
    tune.add_argument(
        "--param",
        action="append",
        metavar="NAME=SPEC",
        help="a parameter and its values: 'boost=1..5 step 0.5', 'tie=0,0.3,0.7', 'template=a.yaml,b.yaml' "
        "(repeatable; default: the project's relevance_tune)",
    )
    tune.add_argument("--strategy", choices=STRATEGIES, default="grid", help="tpe needs pytest-relevance[tune]")
    tune.add_argument(
        "--trials", type=int, help=f"the budget of variants (grid: every point; random and tpe: {DEFAULT_TRIALS})"
    )
    tune.add_argument("--split", type=float, default=0.5, help="the share of each stratum's queries to tune on")
    tune.add_argument("--seed", type=int, default=0, help="seeds the split, the sampling and the sign flips")
    tune.add_argument("--objective", metavar="[GROUP.]METRIC", help="what the winner is chosen by (default: the "
                      "first per-query metric, over all queries)")  # fmt: skip
    tune.add_argument("--alpha", type=float, default=0.05, help="the family-wise level of `better` (default 0.05)")
    tune.add_argument("--correction", choices=CORRECTIONS, default="max-t", help="max-t (default) or holm")
    tune.add_argument(
        "--pool", metavar="PATH", help="write the best variants' unjudged documents to grade (.csv/.yaml)"
    )
    tune.add_argument("--format", choices=("table", "md", "json"), default="table", help="md: one pull-request comment")
    add_overrides(tune, OVERRIDES, from_ini)
    tune.set_defaults(handler=handler)


def options(args: Any) -> Options:
    from pytest_relevance.evaluation.significance import SMALLEST_P

    if not SMALLEST_P < args.alpha < 1:
        raise RelevanceInputError(
            "--alpha", f"{args.alpha:g} is not a level the sign-flip test can reach; write e.g. 0.05"
        )
    return Options(
        args.param or (), args.strategy, args.trials, args.split, args.seed, args.objective, args.alpha,
        args.correction, Path(args.pool) if args.pool else None,
    )  # fmt: skip


def render(model: dict[str, Any], form: str) -> str:
    import json

    from pytest_relevance.reports.tune import render_tune, tune_lines

    if form == "json":
        return json.dumps(model, indent=2, ensure_ascii=False) + "\n"
    if form == "md":
        return render_tune(model)
    return "\n".join(tune_lines(model)) + "\n"
