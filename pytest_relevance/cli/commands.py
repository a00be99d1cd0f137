"""The `pytest-relevance` console script: the metric core outside pytest, for TREC files and CI scripts."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_relevance.cli import online
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.trec import ScatteredQuery, ScoredQueries, gc_paused, read_qrels_bytes, read_run_bytes
from pytest_relevance.metrics.ranking import (
    DEFAULT_METRICS,
    MetricSpecError,
    mean,
    parse_metrics,
    rank_scored,
    score_ranked,
    score_scored_run,
)

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_relevance.judgments.model import Judgments


def _evaluate(args: argparse.Namespace) -> int:
    with gc_paused():  # millions of objects that hold no cycles: the collector's passes over them were pure cost
        return _evaluate_files(args)


def _evaluate_files(args: argparse.Namespace) -> int:
    metrics = parse_metrics(args.metric or DEFAULT_METRICS)
    # ids as bytes: compared as trec_eval compares them, never decoded
    qrels = read_qrels_bytes(args.qrels) if args.qrels is not None else _project_qrels()
    queries = ScoredQueries(args.run)
    try:  # each query scored as soon as it is read: the run is never all in memory
        scores = {
            qid: score_ranked(qrels[qid], rank_scored(ranked), metrics) for qid, ranked in queries if qid in qrels
        }
        warnings = queries.warnings()
    except ScatteredQuery:  # a query's lines are not together: read the whole run first, as trec_eval does
        scored, warnings = read_run_bytes(args.run)
        scores = score_scored_run(qrels, scored, metrics)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    per_query = {qid.decode(): values for qid, values in scores.items()}
    if not per_query:
        raise RelevanceInputError(args.run, f"no query of this run is judged in {args.qrels}; check the query ids")
    means = {m.spec: mean(values[m.spec] for values in per_query.values()) for m in metrics}
    if args.format == "json":
        out: dict[str, object] = {"all": means}
        if args.per_query:
            out["per_query"] = per_query
        print(json.dumps(out, indent=2, sort_keys=True))
        return 0
    width = max(len("queries"), *(len(m.spec) for m in metrics)) + 2
    qwidth = max([3, *(len(q) for q in per_query)]) + 2 if args.per_query else 5
    lines = []
    if args.per_query:
        for qid in sorted(per_query):
            lines += [f"{m.spec:<{width}}{qid:<{qwidth}}{per_query[qid][m.spec]:.4f}" for m in metrics]
    lines.append(f"{'queries':<{width}}{'all':<{qwidth}}{len(per_query)}")
    lines += [f"{m.spec:<{width}}{'all':<{qwidth}}{means[m.spec]:.4f}" for m in metrics]
    print("\n".join(lines))
    return 0


def _project_qrels() -> dict[bytes, dict[bytes, int]]:
    """The project's judgments (relevance_judgments) as qrels: a TREC qrels file read as it is, YAML or CSV grades as
    the whole numbers trec_eval's qrels hold."""
    from pathlib import Path

    from pytest_relevance.config import project
    from pytest_relevance.judgments.model import load_judgments

    start = Path.cwd()
    path = project.fill({"judgments": "relevance_judgments"}, start)["judgments"]
    if path is None:
        problem = "not given, and no project's relevance_judgments to read instead (no pytest ini file was found "
        raise RelevanceInputError("QRELS", problem + "from here up); give the qrels file before the run")
    if Path(path).suffix.lower() not in (".yaml", ".yml", ".csv"):
        return read_qrels_bytes(path)
    qrels: dict[bytes, dict[bytes, int]] = {}
    for query in load_judgments(path).queries:
        for doc, grade in query.grades.items():
            if not float(grade).is_integer():
                raise RelevanceInputError(
                    path, f"query {query.id!r}: the grade {grade:g} of {doc!r} is not a whole number, which qrels "
                    "need; pass a qrels file",
                )  # fmt: skip
            qrels.setdefault(query.id.encode(), {})[doc.encode()] = int(grade)
    return qrels


def _load(path: str) -> list[dict[str, Any]]:
    """Test reports from a JSON report file, or minimal ones (the recorded values, as baseline) from a baseline file."""
    from pathlib import Path

    from pytest_relevance.gate.baseline_file import load_baseline
    from pytest_relevance.gate.report import from_baseline, from_file
    from pytest_relevance.util.files import read_json

    source = Path(path)
    data = read_json(source)
    if isinstance(data, dict) and data.get("pytest-relevance-report") == 1:
        return [from_file(report) for report in data["tests"]]
    return [from_baseline(test, entry) for test, entry in sorted(load_baseline(source).items())]


def _compared(old: dict[str, Any], new: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """One test's rows (stratum.metric) and queries, old against new: the rows and the reasons they cannot be
    compared are the gate's own check of NEW (as an evaluation) against OLD (as the entry), see `gate.recorded`; bad
    input names the file it is in (a bad tolerance NEW's, an entry the gate refuses OLD's)."""
    from pathlib import Path

    from pytest_relevance.config.keys import SETTINGS
    from pytest_relevance.config.settings import read
    from pytest_relevance.gate import recorded
    from pytest_relevance.gate.pipeline import Check, check_evaluation

    settings = recorded.settings_of(new, read(lambda name: SETTINGS[name][1]), args.new)
    problems, rows = [], []
    if new["rows"]:  # a record without rows (none the plugin writes) has nothing the check decides
        judgments = recorded.judgments_of(new, args.new)
        # narrowed: a metric OLD holds and NEW does not is not compared, as it never was
        spec = Check(new["test"], judgments, settings, recorded.entry_of(old), narrowed=True, baseline=Path(args.old))
        verdict = check_evaluation(recorded.evaluation_of(new), spec, str(new.get("engine"))).verdict
        problems = verdict.problems
        rows = [
            {
                "stratum": c.row.stratum,
                "metric": c.row.metric,
                "old": c.row.before,
                "new": c.row.after,
                "delta": c.row.delta,
                "status": c.status,
            }
            for c in ([] if problems else verdict.rows)
        ]
    olds, news = recorded.per_query(old), recorded.per_query(new)
    queries = []
    for qid in sorted(set(olds) | set(news)):
        before, after = olds.get(qid, {}), news.get(qid, {})
        for metric in dict.fromkeys([*after, *before]):
            a, b = before.get(metric), after.get(metric)
            delta = None if a is None or b is None else round(b - a, 4)
            queries.append({"query": qid, "metric": metric, "old": a, "new": b, "delta": delta})
    if args.changed_only:
        rows = [r for r in rows if r["delta"] != 0]
        queries = [q for q in queries if q["delta"] != 0]
    if problems:
        return {"test": new["test"], "only_in": None, "problems": problems, "rows": [], "queries": []}
    return {"test": new["test"], "only_in": None, "rows": rows, "queries": queries}


def _compare(args: argparse.Namespace) -> int:
    old = {r["test"]: r for r in _load(args.old)}
    new = {r["test"]: r for r in _load(args.new)}
    tests = []
    for test in sorted(set(old) | set(new)):
        if test in old and test in new:
            tests.append(_compared(old[test], new[test], args))
        else:
            tests.append({"test": test, "only_in": "old" if test in old else "new", "rows": [], "queries": []})
    regressed = any(r["status"] == "regression" for t in tests for r in t["rows"])
    refused = [(t["test"], problem) for t in tests for problem in t.get("problems", [])]
    for test, problem in refused:  # the gate says "cannot compare" here: so does compare, exit 2 as for bad input
        print(f"pytest-relevance: error: cannot compare {test}: {problem}", file=sys.stderr)
    code = 2 if refused else 1 if regressed else 0
    if args.format == "json":
        print(json.dumps({"regressed": regressed, "comparable": not refused, "tests": tests}, indent=2))
        return code

    def number(x: float | None, sign: str = "") -> str:
        return "" if x is None else f"{x:{sign}.4f}"

    header = ("test", "stratum.metric / query", "old", "new", "delta", "")
    lines = []
    for t in tests:
        if t["only_in"]:
            lines.append((t["test"], "", "", "", "", f"only in {t['only_in'].upper()}"))
        lines += [(t["test"], "", "", "", "", f"CANNOT COMPARE: {problem}") for problem in t.get("problems", [])]
        for r in t["rows"]:
            # "not significant": beyond tolerance, but relevance_alpha (as NEW recorded it) forgives it, as the gate did
            shown = {
                "regression": "REGRESSION",
                "improvement": "improved",
                "new": "new",
                "not significant": "not significant",
            }
            status = shown.get(r["status"], "")
            cells = (number(r["old"]), number(r["new"]), number(r["delta"], "+"), status)
            lines.append((t["test"], f"{r['stratum']}.{r['metric']}", *cells))
        if args.changed_only:  # every query of a suite would drown the table: only the changed ones
            for q in t["queries"]:
                only = "" if q["delta"] is not None else "only in " + ("OLD" if q["new"] is None else "NEW")
                cells = (number(q["old"]), number(q["new"]), number(q["delta"], "+"), only)
                lines.append((t["test"], f"{q['query']} {q['metric']}", *cells))
    if args.format == "md":
        print("| " + " | ".join(header) + " |\n|---|---|---:|---:|---:|---|")
        print("\n".join("| " + " | ".join(line) + " |" for line in lines))
    else:
        widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(len(header))]
        for line in [header, *lines]:
            print("  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)).rstrip())
    return code


def _report(args: argparse.Namespace) -> int:
    from pytest_relevance.reports.sinks import write

    reports = _load(args.source)
    for path in write(args.html, reports):
        print(f"wrote {path}: the report of {len(reports)} test(s) from {args.source}")
    return 0


def _pool(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime
    from pathlib import Path

    from pytest_relevance.inputs.corpus import load_corpus
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.judgments.pool import pool, read_rankings, title_fields, write_pool
    from pytest_relevance.judgments.provenance import content_hash, parse_age, stale_grades
    from pytest_relevance.util.files import check_output

    try:
        max_age = parse_age(args.max_age) if args.max_age else None
    except ValueError as exc:
        raise RelevanceInputError("--max-age", str(exc)) from None
    if args.judge and not args.corpus:
        raise RelevanceInputError("--judge", "needs --corpus: the judge is given the documents to grade")
    judgments = load_judgments(args.judgments, args.topics)
    rankings = [ranking for source in args.sources for ranking in read_rankings(Path(source))]
    if args.propose_expectations:
        return _propose_expectations(judgments, rankings, Path(args.output))
    documents = {d[args.id_field]: d for d in load_corpus(args.corpus, args.id_field)} if args.corpus else {}

    def corpus_hashes() -> dict[str, str] | None:  # asked only when some grade records a hash
        return {doc: content_hash(fields) for doc, fields in documents.items()} if documents else None

    stale = stale_grades(judgments, datetime.now(UTC), max_age, corpus_hashes)
    hashes = {doc: content_hash(documents[doc]) for _, doc in stale if doc in documents}
    fields = args.field or title_fields(documents.values())
    rows = pool(judgments, rankings, args.depth, documents, fields, stale, hashes)
    output = Path(args.output)
    check_output(output)
    if output.suffix.lower() not in (".csv", ".yaml", ".yml"):  # said before a judge is paid, not after
        raise RelevanceInputError(output, "the suffix names the format: .csv, .yaml or .yml")
    if not args.judge:
        write_pool(output, rows, fields)
    else:  # the judgments the judge graded into are put back if the pool file cannot be written
        original = Path(args.judgments).read_bytes()
        rows = _judged(args, judgments, rows, documents, output)
        try:
            write_pool(output, rows, fields)
        except BaseException:
            Path(args.judgments).write_bytes(original)
            raise
    docs = len({row["doc_id"] for row in rows})
    again = f", {len(stale)} of them stale grades to judge again" if stale else ""
    left = " left for people" if args.judge else ""
    print(
        f"wrote {args.output}: {len(rows)} (query, document) pairs to judge{left}, {docs} documents, top "
        f"{args.depth}{again}"
    )
    return 0


def _propose_expectations(judgments: Judgments, rankings: list[dict[str, list[str]]], output: Path) -> int:
    """`pool --propose-expectations`: `{query, doc, rank: 1}` for each query whose highest-graded document every
    ranking puts first, as an `expect:` list to paste into the judgments (judgments.expectations)."""
    from pytest_relevance.judgments.expectations import propose, yaml_line
    from pytest_relevance.util.files import check_output, write_output

    check_output(output)
    if output.suffix.lower() not in (".yaml", ".yml"):
        raise RelevanceInputError(output, "expectations are YAML: name the output .yaml or .yml")
    proposed = propose(judgments, rankings)
    lines = [
        "# known-item expectations proposed by `pytest-relevance pool --propose-expectations`: the highest-graded",
        "# document each query ranks first now. Keep the ones that matter and add them to the judgments' expect: list.",
        "expect:",
        *(yaml_line(expectation) for expectation in proposed),
    ]
    write_output(output, "\n".join(lines) + "\n")
    print(f"wrote {output}: {len(proposed)} expectations (of {len(judgments)} judged queries) to review")
    return 0


def _judged(
    args: argparse.Namespace,
    judgments: Judgments,
    rows: list[dict[str, Any]],
    documents: Mapping[str, Mapping[str, Any]],
    output: Path,
) -> list[dict[str, Any]]:
    """The judge's grades written into the judgments (and its cache next to the pool file); the rows it left (stale
    grades, for people) returned for the pool file."""
    from pathlib import Path

    from pytest_relevance.judgments.judge import CACHE_NAME, grade, load_judge, read_cache, write_cache
    from pytest_relevance.judgments.pool import apply_changes

    judge = load_judge(args.judge)
    cache_path = output.parent / CACHE_NAME
    graded = grade(judge, judgments, rows, documents, read_cache(cache_path))
    count = sum(len(grades) for grades in graded.changes.values())
    if not count:
        print(f"judge {judge.name}: nothing to grade; {args.judgments} and {cache_path} left as they were")
        return [row for row in rows if row.get("stale")]
    path = Path(args.judgments)
    original = path.read_bytes()
    old = judgments.version
    new = apply_changes(path, judgments, graded.changes, None, Path(args.topics) if args.topics else None)
    try:
        write_cache(cache_path, graded.cache)
    except BaseException:  # the judgments go back as they were: nothing is half-written
        path.write_bytes(original)
        raise
    print(
        f"judge {judge.name} graded {count} (query, document) pairs ({graded.cached} of them from the cache) into "
        f"{args.judgments}: judgments version {old} -> {new}"
    )
    print(f"wrote {cache_path}: {len(graded.cache)} cached grades ({count - graded.cached} new)")
    return [row for row in rows if row.get("stale")]


def _merge(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pytest_relevance.judgments.pool import merge_file

    old, new, added, blank = merge_file(
        Path(args.judgments), Path(args.filled), args.version, Path(args.topics) if args.topics else None
    )
    skipped = f"; {blank} rows left without a grade" if blank else ""
    if not added:
        print(f"nothing to merge from {args.filled}{skipped}")
        return 0
    print(f"merged {added} grades into {args.judgments}{skipped}; judgments version {old} -> {new}")
    print("commit the judgments on their own, then re-baseline: pytest --relevance-update --relevance-reason '...'")
    return 0


def _analyze(args: argparse.Namespace) -> int:
    """Elasticsearch's `_analyze` on the embedded engine: what an analyzer (or a field's index analyzer) makes of
    the text, for seeing what an analyzer change does."""
    from pathlib import Path

    from pytest_relevance.config import project
    from pytest_relevance.engines.factory import analyze
    from pytest_relevance.inputs.corpus import load_mapping

    if args.index_config is not None:
        config, source, base = load_mapping(args.index_config), args.index_config, Path(args.index_config).parent
    elif args.field is not None:  # a field is the config's
        raise project.missing("--index-config", "relevance_index_config", Path.cwd())
    else:  # a built-in analyzer (standard, english, ...) needs no config
        config, source, base = {}, "--analyzer", Path.cwd()
    tokens = analyze(config, source, base, args.text, args.analyzer, args.field)
    if args.format == "json":
        print(json.dumps({"tokens": tokens}, indent=2, ensure_ascii=False))
        return 0
    header = ["token", "start_offset", "end_offset", "position"]
    if any("positionLength" in t for t in tokens):
        header.append("positionLength")
    rows = [header, *([str(t.get(key, 1)) for key in header] for t in tokens)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    return 0


def _diff(args: argparse.Namespace) -> int:
    """What a change does to ranking, without a baseline (pytest_relevance.cli.diff): exit 0 unless asked to fail."""
    from pathlib import Path

    from pytest_relevance.cli import diff
    from pytest_relevance.config.project import OVERRIDES
    from pytest_relevance.explain.why import DEFAULT_DOCUMENTS
    from pytest_relevance.reports.markdown import render_diff
    from pytest_relevance.reports.terminal import diff_lines

    overrides = {dest: getattr(args, dest) for dest in OVERRIDES}
    model = diff.run(Path.cwd(), args.ref, args.against, overrides, None if args.verbose else DEFAULT_DOCUMENTS)
    if args.format == "md":
        print(render_diff(model), end="")
    elif args.format == "json":
        print(json.dumps(model, indent=2, ensure_ascii=False))
    else:
        print("\n".join(diff_lines(model)))
    regressed = any(row["status"] == "regression" for row in model["report"]["rows"])
    return 1 if args.fail_on_regression and regressed else 0


def _tune(args: argparse.Namespace) -> int:
    """A parameter sweep of the template, its winner reported on held-out queries (pytest_relevance.cli.tune)."""
    from pathlib import Path

    from pytest_relevance.cli import tune

    model = tune.run(Path.cwd(), {d: getattr(args, d) for d in tune.OVERRIDES}, tune.options(args), tune.progress)
    print(tune.render(model, args.format), end="")
    return 0


def _explain(args: argparse.Namespace) -> int:
    """Why documents score what they do for one query: the template rendered for a judged query (by id) or a free
    text, on the embedded engine, each document's score tree printed indented (pytest_relevance.explain.tree)."""
    from pathlib import Path

    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.engines.factory import EngineSettings, make_engine
    from pytest_relevance.explain.tree import render
    from pytest_relevance.inputs.clock import parse_instant
    from pytest_relevance.inputs.corpus import load_corpus, load_mapping
    from pytest_relevance.inputs.templates import load_template
    from pytest_relevance.judgments.model import Judgments, load_judgments
    from pytest_relevance.metrics.ranking import depth

    try:
        instant = parse_instant(args.now)
    except (TypeError, ValueError):
        raise RelevanceInputError(
            "--now", f"{args.now!r} is not an ISO 8601 instant, e.g. 2026-01-15T12:00:00Z"
        ) from None
    judgments = load_judgments(args.judgments, args.topics) if args.judgments else Judgments((), "", "no judgments")
    template = load_template(args.query)
    config = load_mapping(args.index_config)
    corpus = load_corpus(args.corpus, args.id_field or "id")
    engine = make_engine(EngineSettings("embedded"), lambda name: None)
    index = engine.open(corpus, config, args.id_field or "id", str(args.index_config))
    fixture = FixtureIndex(index, template, judgments, instant, depth(parse_metrics(args.metrics)), str(args.query))
    trees = fixture.explain(args.text, args.doc_ids)
    text, params, query_id = fixture.query_of(args.text)
    hits = fixture.search(text, **params)
    ranks = {doc: rank for rank, (doc, _) in enumerate(hits, 1)}
    title = f"{query_id} {text!r}" if query_id != "<explain>" else repr(text)
    print(f"query {title} on {Path(args.corpus).name}, frozen at {args.now}")
    for doc, root in trees.items():
        where = f"rank {ranks[doc]}" if doc in ranks else f"not in the top {fixture.depth}"
        if doc not in ranks and len(hits) < fixture.depth:
            where = f"not among the {len(hits)} hits"
        score = f"score {root.value:.6g}" if root.matched else "no match"
        print(f"\n{doc}: {score}, {where}")
        print(render(root))
    return 0


def _clicks(args: argparse.Namespace) -> int:
    """Grades from UBI click logs (pytest_relevance.judgments.clicks), written atomically and read back before they
    replace anything: a file that would not load is never left behind."""
    from pathlib import Path

    from pytest_relevance.judgments.clicks import (
        MAX_RANK,
        MAX_SCALE,
        Options,
        grade,
        parse_date,
        parse_strata,
        read_log,
    )
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.util.files import check_output, write_output

    if not 1 <= args.max_rank <= MAX_RANK:
        raise RelevanceInputError(
            "--max-rank",
            f"{args.max_rank} is not a number of positions: give how many results the log's users "
            f"were shown (the workbench's maxRank), from 1 to {MAX_RANK:,}",
        )
    if args.min_impressions is not None and args.min_impressions < 0:
        raise RelevanceInputError("--min-impressions", f"{args.min_impressions} is negative: give 0 or more")
    actions = _actions(args.action or ["click"])
    if args.model == "srw" and args.action:
        raise RelevanceInputError("--action", "the workbench's model counts click events only: drop --action")
    if args.model == "pbm" and any(weight != 1 for weight in actions.values()):
        raise RelevanceInputError("--action", "pbm models a click as happening or not: give action names, no weights")
    for flag, value, end in (("--since", args.since, False), ("--until", args.until, True)):
        if value is not None:
            try:
                parse_date(value, end)
            except ValueError as exc:
                raise RelevanceInputError(flag, str(exc)) from None
    try:
        shares = parse_strata(args.strata)
    except ValueError as exc:
        raise RelevanceInputError("--strata", str(exc)) from None
    scale = None
    if args.scale is not None:
        found = re.fullmatch(r"(\d{1,9})-(\d{1,9})", args.scale)
        if found is None or not int(found[1]) < int(found[2]) <= MAX_SCALE:
            raise RelevanceInputError(
                "--scale", f"{args.scale!r} is not a grade range LOW-HIGH with LOW < HIGH <= {MAX_SCALE}, such as 0-3"
            )
        scale = (int(found[1]), int(found[2]))
    if args.sample is not None and args.sample < 1:
        raise RelevanceInputError("--sample", f"{args.sample} is not a number of queries per stratum (1 or more)")
    output = Path(args.output)
    if output.suffix.lower() not in (".yaml", ".yml"):
        raise RelevanceInputError(output, "the judgments are written as YAML: name the output .yaml or .yml")
    minimum = args.min_impressions if args.min_impressions is not None else 0 if args.model == "srw" else 10
    options = Options(
        args.model, args.max_rank, actions, minimum, args.since, args.until, scale, shares, args.sample, args.seed
    )
    check_output(output)
    ids: dict[str, str] = {}
    if args.ids_from is not None:  # the texts' existing ids, first query of a text first
        for query in reversed(load_judgments(args.ids_from, args.topics).queries):
            ids[query.text] = query.id
    result = grade(read_log(args.events), options, args.strict, ids)
    for line in result.problems.lines():
        print(f"warning: {line}", file=sys.stderr)

    def loads(written: Path) -> None:
        try:
            load_judgments(written)
        except RelevanceInputError as exc:  # a bug here, not the user's input: said, and nothing left behind
            raise RelevanceInputError(
                output, f"not written: the judgments made would not load ({exc.problem})"
            ) from None

    write_output(output, result.text, loads)
    strata = ", ".join(f"{stratum} {result.queries[stratum]}" for stratum in ("head", "torso", "tail"))
    print(
        f"wrote {args.output}: {sum(result.queries.values())} queries ({strata}), {result.pairs} graded pairs; "
        f"{result.below} pairs below {minimum} impressions left ungraded; version {result.version}"
    )
    if args.ids_from is not None:
        print(f"{result.known} of the queries have their ids from {args.ids_from} (the others the hash of their text)")
    return 0


def _import(args: argparse.Namespace) -> int:
    """Another tool's judgments as this project's YAML (one query a line), written only once they read back."""
    from pathlib import Path

    from pytest_relevance.judgments.formats import read
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.judgments.pool import _query_line
    from pytest_relevance.util.files import check_output, write_output

    output = Path(args.output)
    if output.suffix.lower() not in (".yaml", ".yml"):
        raise RelevanceInputError(output, "the judgments are written as YAML: name the output .yaml or .yml")
    check_output(output)
    judgments = read(args.format, Path(args.file), Path(args.topics) if args.topics else None)
    lines = [f"# imported from {args.format} {Path(args.file).name} by pytest-relevance import", "queries:"]
    lines += [f"  - {_query_line(q, q.grades)}" for q in judgments.queries]
    versions = []

    def same(written: Path) -> None:
        read_back = load_judgments(written)
        if [(q.id, q.text, q.stratum, dict(q.grades)) for q in read_back.queries] != [
            (q.id, q.text, q.stratum, dict(q.grades)) for q in judgments.queries
        ]:
            raise RelevanceInputError(output, "not written: the judgments would not read back the same")
        versions.append(read_back.version)

    write_output(output, "\n".join(lines) + "\n", same)
    grades = sum(len(q.grades) for q in judgments.queries)
    print(f"wrote {args.output}: {len(judgments)} queries, {grades} grades from {args.file}; version {versions[0]}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pytest_relevance.judgments.formats import topics, write
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.util.files import check_output, write_output

    if args.topics_output and args.format != "trec":
        raise RelevanceInputError("--topics-output", f"only trec has a topics file; {args.format} holds the texts")
    outputs = [Path(args.output), *([Path(args.topics_output)] if args.topics_output else [])]
    for output in outputs:
        check_output(output)
    judgments = load_judgments(args.judgments, args.topics)
    write_output(outputs[0], write(args.format, judgments, args.index))
    grades = sum(len(q.grades) for q in judgments.queries)
    print(f"wrote {args.output}: {len(judgments)} queries, {grades} grades as {args.format}")
    if args.topics_output:
        write_output(outputs[1], topics(judgments))
        print(f"wrote {args.topics_output}: the {len(judgments)} queries' texts (TREC topics)")
    return 0


def _agreement(args: argparse.Namespace) -> int:
    """Cohen's kappa and the confusion matrix of two judgments files on the pairs both graded (see agreement.py)."""
    from pathlib import Path

    from pytest_relevance.judgments.agreement import WEIGHTINGS, agreement, shared_grades
    from pytest_relevance.judgments.model import load_judgments

    for path in (args.first, args.second):
        if not Path(path).is_file():
            raise RelevanceInputError(path, "judgments file not found: pass the path of a YAML, CSV or qrels file")
    first = load_judgments(args.first, args.topics)
    second = load_judgments(args.second, args.topics)
    pairs = shared_grades(first, second)
    if not pairs:
        raise RelevanceInputError(
            args.second,
            f"no (query id, doc id) pair is graded both here and in {args.first}: compare files that grade the same "
            "documents of the same query ids",
        )
    result = agreement(pairs)
    labels = [f"{grade:g}" for grade in result.grades]
    if args.format == "json":
        report = {
            "first": args.first,
            "second": args.second,
            "pairs": result.pairs,
            "kappa": result.kappa,
            "grades": list(result.grades),
            "matrix": [list(row) for row in result.matrix],
        }
        print(json.dumps(report, indent=2))
        return 0
    shown = {name: "undefined" if value is None else f"{value:.4f}" for name, value in result.kappa.items()}
    print(f"{result.pairs} (query, document) pairs graded in both {args.first} and {args.second}")
    print("Cohen's kappa: " + ", ".join(f"{name} {shown[name]}" for name in WEIGHTINGS))
    if None in result.kappa.values():
        print("(undefined: both files give every shared pair the same grade, so there is no chance agreement to beat)")
    print(f"\nrows: {args.first}; columns: {args.second}")
    rows = [["", *labels], *([label, *map(str, row)] for label, row in zip(labels, result.matrix, strict=True))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
    return 0


def _actions(specs: Sequence[str]) -> dict[str, float]:
    """`--action purchase=3`: the action names that count as clicks, each with its weight (1 unless given)."""
    actions: dict[str, float] = {}
    for spec in specs:
        name, _, weight = spec.partition("=")
        name = name.lower()  # action names compare case-insensitively, as the workbench's do
        try:
            value = float(weight) if weight else 1.0
        except ValueError:
            value = -1.0
        if not name or name == "impression" or not 0 < value < float("inf"):
            raise RelevanceInputError("--action", f"{spec!r} is not NAME or NAME=WEIGHT (an action, a weight > 0)")
        actions[name] = value
    return actions


def _positive(text: str) -> int:
    """A count of at least 1 (argparse names the flag when this raises): a depth of 0 pools nothing, a negative one
    would quietly cut the end off every list."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return number


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-relevance", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    evaluate = commands.add_parser(
        "evaluate",
        help="score a TREC run against TREC qrels, as trec_eval does",
        description="Score a TREC run file against a TREC qrels file. Documents are ordered by score, then doc id "
        "descending (trec_eval's order; the rank column is ignored). Only queries in both files are scored.",
    )
    evaluate.add_argument(
        "qrels", nargs="?", help="qrels file: qid 0 docno grade (default: the project's relevance_judgments)"
    )
    evaluate.add_argument("run", help="run file: qid Q0 docno rank score tag")
    evaluate.add_argument(
        "-m", "--metric", action="append", help=f"metric spec, repeatable (default: {' '.join(DEFAULT_METRICS)})"
    )
    evaluate.add_argument("--per-query", action="store_true", help="also print every query's values")
    evaluate.add_argument("--format", choices=("table", "json"), default="table")
    evaluate.set_defaults(handler=_evaluate)
    compare = commands.add_parser(
        "compare",
        help="delta table between two baseline or JSON report files; exit 1 when NEW regresses beyond tolerance, 2 "
        "when a test's numbers cannot be compared (judgments, engine or metric definitions differ)",
    )
    compare.add_argument("old")
    compare.add_argument("new")
    compare.add_argument(
        "--format",
        choices=("table", "md", "json"),
        default="table",
        help="json adds every query's old and new value per metric",
    )
    compare.add_argument(
        "--changed-only",
        action="store_true",
        help="only the values that changed; the table and md formats then also list the queries that changed",
    )
    compare.set_defaults(handler=_compare)
    report = commands.add_parser("report", help="render the HTML report from a baseline or JSON report file")
    report.add_argument("source")
    report.add_argument("--html", required=True, metavar="PATH")
    report.set_defaults(handler=_report)
    pool = commands.add_parser(
        "pool",
        help="write the unjudged documents of the top k (current and baseline) to a CSV or YAML file to grade",
        description="Pool, for every judged query, the unjudged documents in the top k of the rankings in SOURCES "
        "(baseline files and JSON reports from --relevance-report), most frequent first, with the query text and "
        "the documents' title-like fields; a rater fills in the grade column, then `pytest-relevance merge`.",
    )
    pool.add_argument("sources", nargs="+", metavar="SOURCE", help="a baseline file or a JSON report")
    pool.add_argument("--judgments", help="the judgments file (YAML, CSV or TREC qrels)" + _FROM_INI)
    pool.add_argument("--topics", help="topics file, for TREC qrels judgments" + _FROM_INI)
    pool.add_argument("--corpus", help="the corpus, for the documents' title-like fields" + _FROM_INI)
    pool.add_argument("--id-field", help="the corpus' document id field (default: the project's, else id)")
    pool.add_argument("--field", action="append", help="corpus field to show (repeatable; default: title-like)")
    pool.add_argument("--depth", type=_positive, default=10, help="pool the top DEPTH of every ranking (default: 10)")
    pool.add_argument("-o", "--output", required=True, metavar="PATH", help="the file to write: .csv or .yaml")
    pool.add_argument(
        "--judge",
        metavar="MODULE[:FUNCTION]",
        help="grade the pooled documents with this judge (a pytest_relevance_judge implementation, or a function of "
        "its signature) into the judgments, with provenance; needs --corpus. Cached next to the output",
    )
    pool.add_argument(
        "--max-age",
        metavar="AGE",
        help="also put up grades dated longer ago than AGE (e.g. 180d) for judging again; with --corpus, so are "
        "grades whose document changed since",
    )
    pool.add_argument(
        "--propose-expectations",
        action="store_true",
        help="write, instead of a pool, known-item expectations {query, doc, rank: 1} for each query whose "
        "highest-graded document every SOURCE ranks first (a YAML expect: list to review and add to the judgments)",
    )
    pool.set_defaults(handler=_pool)
    merge = commands.add_parser(
        "merge",
        help="fold a filled pool file into the judgments and set a new judgments version",
        description="Add the grades of a filled pool file to the judgments. A grade that contradicts an existing "
        "one (or another row) is refused, naming each, and nothing is written. YAML judgments get a new version.",
    )
    merge.add_argument("filled", help="the pool file with grades filled in (.csv or .yaml)")
    merge.add_argument("--judgments", help="the judgments file to update (YAML, CSV or TREC qrels)" + _FROM_INI)
    merge.add_argument("--topics", help="topics file, for TREC qrels judgments" + _FROM_INI)
    merge.add_argument("--version", help="the new judgments version (default: the old one's number + 1)")
    merge.set_defaults(handler=_merge)
    analyze = commands.add_parser(
        "analyze",
        help="the tokens an analyzer of an index config makes of a text, as Elasticsearch's _analyze reports them",
    )
    analyze.add_argument(
        "--index-config",
        metavar="FILE",
        help="Elasticsearch create-index body" + _FROM_INI + "; a built-in --analyzer needs none",
    )
    which = analyze.add_mutually_exclusive_group(required=True)
    which.add_argument("--analyzer", metavar="NAME", help="an analyzer of the config, or a built-in one")
    which.add_argument("--field", metavar="FIELD", help="a mapped field: its index analyzer (or normalizer)")
    analyze.add_argument("text", nargs="+", help="the text; several are analyzed as one multi-valued field")
    analyze.add_argument("--format", choices=("table", "json"), default="table")
    analyze.set_defaults(handler=_analyze, optional={"index_config"})
    diffs = commands.add_parser(
        "diff",
        help="what a change does to ranking: the project's relevance gate measured at a git revision and in the "
        "working tree (or a second revision), on the same judgments, with no baseline",
    )
    diffs.add_argument("ref", nargs="?", default="HEAD", help="the revision to compare with (default: HEAD)")
    diffs.add_argument("--against", metavar="REF2", help="compare with this revision instead of the working tree")
    diffs.add_argument("--format", choices=("text", "md", "json"), default="text", help="md: one pull-request comment")
    diffs.add_argument(
        "-v", "--verbose", action="store_true", help="explain every document that moved (default: two per query)"
    )
    diffs.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 when a drop is beyond tolerance (default: exit 0)"
    )
    from pytest_relevance.cli.diff import add_overrides
    from pytest_relevance.config.project import OVERRIDES

    add_overrides(diffs, OVERRIDES, _FROM_INI)
    diffs.set_defaults(handler=_diff)
    from pytest_relevance.cli.tune import add_parser as add_tune

    add_tune(commands, _tune, _FROM_INI)
    explain = commands.add_parser(
        "explain",
        help="each document's score tree for one query (a judged query's id or a free text), on the embedded engine",
    )
    explain.add_argument("text", metavar="QUERY", help="a query id of the judgments, or the text to search for")
    explain.add_argument("doc_ids", nargs="+", metavar="DOC", help="the documents to explain, by id")
    explain.add_argument("--index-config", metavar="FILE", help="Elasticsearch create-index body" + _FROM_INI)
    explain.add_argument("--query", metavar="FILE", help="the query template" + _FROM_INI)
    explain.add_argument("--corpus", metavar="FILE", help="the corpus" + _FROM_INI)
    explain.add_argument("--judgments", metavar="FILE", help="the judgments, for query ids" + _FROM_INI)
    explain.add_argument("--topics", help="topics file, for TREC qrels judgments" + _FROM_INI)
    explain.add_argument("--id-field", help="the corpus' document id field (default: the project's, else id)")
    explain.add_argument("--now", help="the frozen instant the template's `now` is" + _FROM_INI)
    explain.add_argument("--metrics", help="the metrics, whose deepest cut-off is the search depth" + _FROM_INI)
    explain.set_defaults(handler=_explain, optional={"judgments"}, needed={"corpus"})

    clicks = commands.add_parser(
        "clicks",
        help="judgments from User Behavior Insights click logs, corrected for position bias",
        description="Grade (query, document) pairs from UBI logs (ubi_queries and ubi_events as a bulk body, "
        "documents one a line, or exported hits). The log is validated first: each kind of problem is counted and "
        "its first lines named (--strict makes them errors). Queries get strata by traffic share.",
    )
    clicks.add_argument("events", nargs="+", metavar="EVENTS", help="UBI log files (NDJSON)")
    clicks.add_argument("-o", "--output", required=True, metavar="PATH", help="the judgments file to write (.yaml)")
    clicks.add_argument(
        "--model",
        choices=("coec", "srw", "pbm"),
        default="coec",
        help="coec: clicks over expected clicks (default); srw: the Search Relevance Workbench's COEC exactly; "
        "pbm: the position-based click model fitted by EM",
    )
    clicks.add_argument(
        "--max-rank",
        type=int,
        required=True,
        help="positions 0..MAX_RANK-1 count (the workbench's maxRank; at most 10,000)",
    )
    clicks.add_argument("--since", metavar="DATE", help="only events from DATE (ISO 8601 date or date-time)")
    clicks.add_argument("--until", metavar="DATE", help="only events up to DATE (a date: that whole day)")
    clicks.add_argument(
        "--action",
        action="append",
        metavar="NAME[=WEIGHT]",
        help="an action that counts as a click (a name in any case), repeatable (default: click); e.g. --action "
        "click --action purchase=3",
    )
    clicks.add_argument(
        "--min-impressions", type=int, help="pairs with fewer impressions get no grade (default 10; srw: 0)"
    )
    clicks.add_argument(
        "--scale", metavar="LOW-HIGH", help="map the grades onto LOW..HIGH by quantiles (e.g. 0-3; HIGH at most 100)"
    )
    clicks.add_argument(
        "--judgments",
        dest="ids_from",
        metavar="FILE",
        help="existing judgments (YAML, CSV or TREC qrels with --topics): a query whose text is there gets its id "
        "there (default: every query's id is a hash of its text)",
    )
    clicks.add_argument("--topics", help="topics file, for TREC qrels given to --judgments")
    clicks.add_argument(
        "--strata", default="50/30/20", help="head/torso/tail shares of traffic, in percent (default 50/30/20)"
    )
    clicks.add_argument("--sample", type=int, metavar="N", help="keep a seeded sample of N queries per stratum")
    clicks.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    clicks.add_argument("--strict", action="store_true", help="refuse a log with any problem instead of warning")
    clicks.set_defaults(handler=_clicks)
    formats = ("quepid", "rre", "rank-eval", "srw", "trec")
    imports = commands.add_parser(
        "import",
        help="judgments from Quepid, RRE, an Elasticsearch _rank_eval body, the OpenSearch workbench or TREC qrels",
        description="Read another tool's judgments (quepid: ratings CSV; rre: ratings.json; rank-eval: a _rank_eval "
        "request body; srw: the Search Relevance Workbench's judgment import JSON; trec: qrels with --topics) and "
        "write them as this project's YAML. Queries without ids get a short hash of their text as id.",
    )
    imports.add_argument("format", choices=formats)
    imports.add_argument("file")
    imports.add_argument("--topics", help="topics file, for TREC qrels")
    imports.add_argument("-o", "--output", required=True, metavar="PATH", help="the judgments file to write (.yaml)")
    imports.set_defaults(handler=_import)
    export = commands.add_parser("export", help="write the judgments in another tool's format (see import)")
    export.add_argument("format", choices=formats)
    export.add_argument("--judgments", help="the judgments file (YAML, CSV or TREC qrels)" + _FROM_INI)
    export.add_argument("--topics", help="topics file, for TREC qrels judgments" + _FROM_INI)
    export.add_argument("--index", default="index", help="the index name rre and rank-eval name (default: index)")
    export.add_argument("--topics-output", metavar="PATH", help="trec: also write the topics file here")
    export.add_argument("-o", "--output", required=True, metavar="PATH")
    export.set_defaults(handler=_export)
    agreement = commands.add_parser(
        "agreement",
        help="Cohen's kappa (unweighted, linear, quadratic) and the confusion matrix of two judgments files",
        description="Compare the grades of two judgments files (e.g. a model judge's and humans') on the (query id, "
        "doc id) pairs both graded: Cohen's kappa unweighted and linearly and quadratically weighted, and the "
        "confusion matrix, rows the first file's grades, columns the second's.",
    )
    agreement.add_argument("first", help="judgments file (YAML, CSV or TREC qrels): the matrix rows, e.g. the judge")
    agreement.add_argument("second", help="judgments file: the matrix columns, e.g. the human grades")
    agreement.add_argument("--topics", help="topics file, for TREC qrels judgments")
    agreement.add_argument("--format", choices=("text", "json"), default="text")
    agreement.set_defaults(handler=_agreement)
    online.add_parsers(commands)
    return parser


# The loaders are shared with the plugin, whose hints name its ini keys ("set relevance_corpus to its path"); on the
# command line each of these settings is a flag of the subcommands that load it.
_FLAGS = {
    "relevance_judgments": "--judgments",
    "relevance_topics": "--topics",
    "relevance_corpus": "--corpus",
    "relevance_id_field": "--id-field",
    "relevance_index_config": "--index-config",
}


def _with_flags(message: str) -> str:
    """The message with its hints naming the flag a CLI user can pass, not an ini key they have no file for."""
    return re.sub(r"(?<=\bset )relevance_\w+", lambda key: _FLAGS.get(key[0], key[0]), message)


_FROM_INI = " (default: the project's pytest ini, as the plugin reads it)"
#: flag dest -> (setting, required): what a command takes from the project's pytest ini when the flag is not given
_PROJECT = {
    "judgments": ("relevance_judgments", True),
    "topics": ("relevance_topics", False),
    "corpus": ("relevance_corpus", False),
    "id_field": ("relevance_id_field", False),
    "index_config": ("relevance_index_config", True),
    "query": ("relevance_query", True),
    "now": ("relevance_now", False),
    "metrics": ("relevance_metrics", False),
}


def _from_project(args: argparse.Namespace) -> None:
    """Fill the paths a command was not given from the project's settings (project.py); a flag wins. The project's
    corpus is taken only where the file exists: `pool` shows titles from it, and needs none."""
    from pytest_relevance.config import project

    wanted = {dest: key for dest, (key, _) in _PROJECT.items() if getattr(args, dest, False) is None}
    if not wanted:
        return
    from pathlib import Path

    start = Path.cwd()
    # a command's own needs: `explain` searches the corpus, and takes judgments only for query ids
    optional: set[str] = getattr(args, "optional", set())
    needed: set[str] = getattr(args, "needed", set())
    for dest, value in project.fill(wanted, start).items():
        key, required = _PROJECT[dest]
        required = (required or dest in needed) and dest not in optional
        if not required and value is not None and not Path(value).is_file() and dest in ("corpus", *optional):
            value = None
        setattr(args, dest, value)
        if required and value is None:
            raise project.missing(f"--{dest.replace('_', '-')}", key, start)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: bad input is one line on stderr and exit status 2, never a traceback (a file that cannot be read
    or written, or an input nested too deep, included); nor is a reader that stops early (`| head -1`): status 1,
    as https://docs.python.org/3/library/signal.html#note-on-sigpipe recommends."""
    args = _parser().parse_args(argv)
    try:
        _from_project(args)
        code: int = args.handler(args)
        sys.stdout.flush()  # here, not at exit: output still buffered would meet the closed pipe there, unhandled
    except (RelevanceInputError, MetricSpecError) as exc:
        print(f"pytest-relevance: error: {_with_flags(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # what is still buffered goes to devnull at exit, instead of failing again on the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # a file no reader names itself (a folder given as a file, no permission): which, and why
        print(f"pytest-relevance: error: {exc.filename or 'a file'}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except RecursionError:  # a structure read past the JSON parser (which parse_json guards) nested too deep to walk
        print("pytest-relevance: error: an input is nested too deeply to read: flatten it", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
