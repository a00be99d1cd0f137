"""The `pytest-relevance` console script: the metric core outside pytest, for TREC files and CI scripts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.metrics import DEFAULT_METRICS, MetricSpecError, mean, parse_metrics, rank_scored, score_run
from pytest_relevance.trec import read_qrels, read_run


def _evaluate(args: argparse.Namespace) -> int:
    metrics = parse_metrics(args.metric or DEFAULT_METRICS)
    qrels = read_qrels(args.qrels)
    scored, warnings = read_run(args.run)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    run = {qid: rank_scored(docs) for qid, docs in scored.items()}
    per_query = {qid: score.values for qid, score in score_run(qrels, run, metrics).items()}
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
