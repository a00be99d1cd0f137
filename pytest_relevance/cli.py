"""The `pytest-relevance` console script: the metric core outside pytest, for TREC files and CI scripts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.metrics import (
    DEFAULT_METRICS,
    MetricSpecError,
    mean,
    parse_metrics,
    rank_scored,
    score_ranked,
    score_scored_run,
)
from pytest_relevance.trec import ScatteredQuery, ScoredQueries, gc_paused, read_qrels_bytes, read_run_bytes


def _evaluate(args: argparse.Namespace) -> int:
    with gc_paused():  # millions of objects that hold no cycles: the collector's passes over them were pure cost
        return _evaluate_files(args)


def _evaluate_files(args: argparse.Namespace) -> int:
    metrics = parse_metrics(args.metric or DEFAULT_METRICS)
    qrels = read_qrels_bytes(args.qrels)  # ids as bytes: compared as trec_eval compares them, never decoded
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


def _load(path: str) -> list[dict]:
    """Test reports from a JSON report file, or minimal ones (current values only) from a baseline file."""
    import json
    from pathlib import Path

    from pytest_relevance.baseline import load_baseline

    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RelevanceInputError(source, "no such file") from None
    except json.JSONDecodeError as exc:
        raise RelevanceInputError(source, f"not valid JSON ({exc.msg})", exc.lineno) from None
    if isinstance(data, dict) and data.get("pytest-relevance-report") == 1:
        return data["tests"]
    reports = []
    for test, entry in sorted(load_baseline(source).items()):
        rows = [
            {
                "stratum": stratum,
                "metric": metric,
                "n": values.get("n", 0),
                "baseline": None,
                "current": value,
                "delta": None,
                "status": "new",
                "tolerance": None,
                "floor": None,
                "p": None,
            }
            for stratum, values in entry["strata"].items()
            for metric, value in values.items()
            if metric != "n"
        ]
        first = next(iter(entry["metrics"]), "")
        per_query = {
            q: {m: {"baseline": None, "current": v} for m, v in vals.items()} for q, vals in entry["queries"].items()
        }
        reports.append(
            {
                "test": test,
                "engine": entry["engine"],
                "judgments": entry["judgments"],
                "tolerance": entry["tolerance"],
                "status": "baseline",
                "rows": rows,
                "judged": {"k": 10, "min": 0.8, "per_stratum": {}, "most_unjudged": []},
                "coverage": None,
                "duplicates": {},
                "hints": [],
                "warnings": [],
                "movers": {"metric": first, "lost": [], "gained": []},
                "per_query": per_query,
            }
        )
    return reports


def _compare(args: argparse.Namespace) -> int:
    from pytest_relevance.baseline import Row, Tolerance

    old = {r["test"]: r for r in _load(args.old)}
    new = {r["test"]: r for r in _load(args.new)}
    lines, regressed = [], False
    header = ("test", "stratum.metric", "old", "new", "delta", "")
    for test in sorted(set(old) | set(new)):
        if test not in new or test not in old:
            lines.append((test, "", "", "", "", "only in " + ("OLD" if test in old else "NEW")))
            continue
        tolerance = Tolerance.parse(new[test].get("tolerance") or "0.005")
        before = {(r["stratum"], r["metric"]): r["current"] for r in old[test]["rows"]}
        for row in new[test]["rows"]:
            key = (row["stratum"], row["metric"])
            if key not in before:
                lines.append((test, f"{key[0]}.{key[1]}", "", f"{row['current']:.4f}", "", "new"))
                continue
            change = Row(*key, before[key], row["current"], tolerance.get(*key), row["n"])  # the gate's own rule
            regressed = regressed or change.status == "regression"
            status = {"regression": "REGRESSION", "improvement": "improved"}.get(change.status, "")
            lines.append(
                (
                    test,
                    f"{key[0]}.{key[1]}",
                    f"{before[key]:.4f}",
                    f"{row['current']:.4f}",
                    f"{change.delta:+.4f}",
                    status,
                )
            )
    if args.format == "md":
        print("| " + " | ".join(header) + " |\n|---|---|---:|---:|---:|---|")
        print("\n".join("| " + " | ".join(line) + " |" for line in lines))
    else:
        widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(len(header))]
        for line in [header, *lines]:
            print("  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)).rstrip())
    return 1 if regressed else 0


def _report(args: argparse.Namespace) -> int:
    from pytest_relevance.reports.data import write

    write(args.html, _load(args.source))
    print(f"wrote {args.html}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-relevance", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    evaluate = commands.add_parser(
        "evaluate",
        help="score a TREC run against TREC qrels, as trec_eval does",
        description="Score a TREC run file against a TREC qrels file. Documents are ordered by score, then doc id "
        "descending (trec_eval's order; the rank column is ignored). Only queries in both files are scored.",
    )
    evaluate.add_argument("qrels", help="qrels file: qid 0 docno grade")
    evaluate.add_argument("run", help="run file: qid Q0 docno rank score tag")
    evaluate.add_argument(
        "-m", "--metric", action="append", help=f"metric spec, repeatable (default: {' '.join(DEFAULT_METRICS)})"
    )
    evaluate.add_argument("--per-query", action="store_true", help="also print every query's values")
    evaluate.add_argument("--format", choices=("table", "json"), default="table")
    evaluate.set_defaults(handler=_evaluate)
    compare = commands.add_parser(
        "compare",
        help="delta table between two baseline or JSON report files; exit 1 when NEW regresses beyond tolerance",
    )
    compare.add_argument("old")
    compare.add_argument("new")
    compare.add_argument("--format", choices=("table", "md"), default="table")
    compare.set_defaults(handler=_compare)
    report = commands.add_parser("report", help="render the HTML report from a baseline or JSON report file")
    report.add_argument("source")
    report.add_argument("--html", required=True, metavar="PATH")
    report.set_defaults(handler=_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: bad input is one line on stderr and exit status 2, never a traceback."""
    args = _parser().parse_args(argv)
    try:
        return args.handler(args)
    except (RelevanceInputError, MetricSpecError) as exc:
        print(f"pytest-relevance: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
