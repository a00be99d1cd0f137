"""`pytest-relevance online` and `simulate`: counterfactual click estimates of a ranking change from a UBI log, and
click logs with a known truth to check them on (pytest_relevance.online)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.online.estimators import ESTIMATORS, FLOOR, Estimate, Report

ACTIONS = {"click": 1.0}


def add_parsers(commands: Any) -> None:
    """The two subcommands, on the CLI's subparsers."""
    online = commands.add_parser(
        "online",
        help="estimate what a ranking change does to clicks, from a UBI log (DM, IPS, SNIPS, DR, interleaving)",
        description="Estimate the clicks per search of a baseline and a candidate TREC run, and their difference, "
        "from UBI logs recorded under another ranking, without deploying anything. Run qids are matched to the "
        "log's user_query through --topics (qid<TAB>text), else the project's judgments. Every estimator says its "
        "user model and its support; below --min-support an estimate is 'not estimable'. See docs/online.md.",
    )
    online.add_argument("events", nargs="+", metavar="EVENTS", help="UBI log files (NDJSON)")
    online.add_argument("--baseline", required=True, metavar="RUN", help="the current ranking: a TREC run file")
    online.add_argument("--candidate", required=True, metavar="RUN", help="the changed ranking: a TREC run file")
    online.add_argument("--max-rank", type=int, required=True, metavar="K", help="positions 0..K-1 users are shown")
    online.add_argument("--topics", metavar="TSV", help="qid<TAB>query text, to match run qids to the log's queries")
    online.add_argument("--judgments", metavar="FILE", help="judgments whose query texts match run qids" + _INI)
    online.add_argument("--estimator", choices=(*ESTIMATORS, "all"), default="all")
    online.add_argument("--format", choices=("table", "md", "json"), default="table")
    online.add_argument("--seed", type=int, default=0, help="the bootstrap's and the interleaving's seed (0)")
    online.add_argument(
        "--min-support",
        type=float,
        default=FLOOR,
        metavar="SHARE",
        help=f"the share of top-K slots the log must support for a number (default {FLOOR})",
    )
    online.set_defaults(handler=run_online, optional={"judgments"})

    simulate = commands.add_parser(
        "simulate",
        help="write a UBI click log of simulated users with a known truth (PBM, cascade or DBN users)",
        description="Simulate users searching the judged queries, shown a logging run (perturbed per search), "
        "clicking as a user model says with attractiveness from the grades, and write the log as a UBI bulk body. "
        "Prints the exact clicks per search of the logging run and of every --value run under that model.",
    )
    simulate.add_argument("--judgments", metavar="FILE", help="graded judgments: the truth" + _INI)
    simulate.add_argument("--topics", metavar="TSV", help="topics file, for TREC qrels judgments" + _INI)
    simulate.add_argument("--logging", required=True, metavar="RUN", help="the ranking users are shown (TREC run)")
    simulate.add_argument("--max-rank", type=int, required=True, metavar="K", help="results shown per search")
    simulate.add_argument("--searches", type=int, default=20000, metavar="N", help="sessions to draw (20000)")
    simulate.add_argument("--user", choices=("pbm", "cascade", "dbn"), default="pbm")
    simulate.add_argument("--decay", type=float, default=1.0, help="pbm: examination 1/(k+1)^DECAY (1.0)")
    simulate.add_argument("--perseverance", type=float, default=0.9, help="dbn: P(reading on) (0.9)")
    simulate.add_argument("--noise", type=float, default=1.0, help="sd of the per-search rank perturbation (1.0)")
    simulate.add_argument("--skew", type=float, default=1.0, help="Zipf exponent of query traffic (1.0; 0: uniform)")
    simulate.add_argument("--value", action="append", metavar="RUN", help="a run whose exact value to print")
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("-o", "--output", required=True, metavar="PATH", help="the UBI log to write (NDJSON)")
    simulate.set_defaults(handler=run_simulate)


_INI = " (default: the project's pytest ini, as the plugin reads it)"


def read_topics(path: str | Path) -> dict[str, str]:
    """qid<TAB>text[<TAB>stratum] lines."""
    path = Path(path)
    if not path.is_file():
        raise RelevanceInputError(path, "topics file not found: give a qid<TAB>query text file")
    found: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        fields = raw.split("\t")
        if len(fields) not in (2, 3) or not fields[0].strip() or not fields[1].strip():
            raise RelevanceInputError(path, "expected qid<TAB>query text[<TAB>stratum]", number)
        found[fields[0].strip()] = fields[1].strip()
    return found


def rankings(path: str, texts: Mapping[str, str]) -> tuple[dict[str, list[str]], int]:
    """The run's rankings by query text (trec_eval's order: score, then doc id, descending), and how many of its
    qids have no text."""
    from pytest_relevance.judgments.trec import read_run
    from pytest_relevance.metrics.ranking import rank_scored

    if not Path(path).is_file():
        raise RelevanceInputError(path, "run file not found: give a TREC run (qid Q0 doc rank score tag)")
    run, warnings = read_run(path)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    found = {texts[qid]: rank_scored(scores) for qid, scores in run.items() if qid in texts}
    return found, sum(qid not in texts for qid in run)


def _texts(args: argparse.Namespace) -> dict[str, str]:
    if args.topics:
        return read_topics(args.topics)
    if args.judgments:
        from pytest_relevance.judgments.model import load_judgments

        return {q.id: q.text for q in load_judgments(args.judgments).queries}
    raise RelevanceInputError(
        "--topics",
        "run qids cannot be matched to the log's queries: give --topics (qid<TAB>text) or run inside a "
        "project whose relevance_judgments have the query texts",
    )


def run_online(args: argparse.Namespace) -> int:
    """Read and validate the log, fit the PBM, estimate, print."""
    from pytest_relevance.judgments.clicks import read_log, validate
    from pytest_relevance.online.click_model import fit_pbm
    from pytest_relevance.online.estimators import estimate
    from pytest_relevance.online.logged import sessions

    if args.max_rank < 1:
        raise RelevanceInputError("--max-rank", f"{args.max_rank} is not a number of positions: give 1 or more")
    if not 0 <= args.min_support <= 1:
        raise RelevanceInputError("--min-support", f"{args.min_support} is not a share between 0 and 1")
    texts = _texts(args)
    baseline, unmatched = rankings(args.baseline, texts)
    candidate, _ = rankings(args.candidate, texts)
    log = read_log(args.events)
    for line in validate(log, args.max_rank, ACTIONS).lines():
        print(f"warning: {line}", file=sys.stderr)
    data = sessions(log, args.max_rank, ACTIONS)
    if not len(data):
        raise RelevanceInputError(
            log.files[0], f"no search with an impression at positions 0..{args.max_rank - 1}: nothing to estimate from"
        )
    model = fit_pbm(data)
    chosen = ESTIMATORS if args.estimator == "all" else (args.estimator,)
    report = estimate(data, model, baseline, candidate, chosen, args.seed, args.min_support)
    if not report.queries["all"]:
        raise RelevanceInputError(
            args.candidate,
            f"no query of the log has a list in both runs ({len(data.texts)} query texts logged, {unmatched} run "
            "qids without a text): check that --topics maps the runs' qids to the log's user_query texts",
        )
    summary = {
        "events": len(log.events),
        "searches": len(data),
        "query_texts": len(data.texts),
        "propensity": model.propensity_source,
        "max_rank": args.max_rank,
        "min_support": args.min_support,
    }
    if args.format == "json":
        print(json.dumps(as_json(report, summary), indent=2))
    else:
        print("\n".join(lines(report, summary, markdown=args.format == "md")))
    return 0


def _estimate_json(e: Estimate) -> dict[str, Any]:
    return {
        "assumes": e.assumes,
        "unit": e.unit,
        "estimable": e.estimable,
        "baseline": e.baseline,
        "candidate": e.candidate,
        "delta": e.delta,
        "ci": list(e.ci) if e.ci is not None else None,
        "ci_queries": list(e.ci_queries) if e.ci_queries is not None else None,
        "mde": e.mde,
        "support": {"slots": e.support.slots, "ess": e.support.ess, "max_weight": e.support.max_weight},
        "baseline_slots": e.baseline_slots,
    }


def as_json(report: Report, summary: Mapping[str, Any]) -> dict[str, Any]:
    """The report as JSON: per estimator baseline, candidate, delta, ci, support; the same per traffic stratum."""
    groups = {
        group: {
            "queries": report.queries[group],
            "searches": report.searches[group],
            "estimators": {name: _estimate_json(e) for name, e in found.items()},
        }
        for group, found in report.estimates.items()
    }
    overall = groups.pop("all")
    return {**summary, **overall, "strata": groups}


def _number(value: float | None, signed: bool = False) -> str:
    return "-" if value is None else f"{value:+.4f}" if signed else f"{value:.4f}"


def lines(report: Report, summary: Mapping[str, Any], markdown: bool) -> list[str]:
    """A table per group; a not-estimable row says why instead of giving numbers."""
    out = [
        f"{summary['searches']} searches of {summary['query_texts']} query texts in the log ({summary['events']} "
        f"events); {report.queries['all']} queries ({report.searches['all']} searches) have a list in both runs; "
        f"propensities: {summary['propensity']}; support floor {summary['min_support']:g} of the top-"
        f"{summary['max_rank']} slots",
    ]
    head = [
        "estimator",
        "baseline",
        "candidate",
        "delta",
        "95% CI",
        "query-clustered CI",
        "MDE",
        "slots",
        "ESS",
        "max w",
    ]
    for group, found in report.estimates.items():
        out.append("")
        out.append(f"{group}: {report.queries[group]} queries, {report.searches[group]} searches")
        rows = []
        for name, e in found.items():
            if e.estimable and e.ci is not None:
                cells = [_number(e.baseline), _number(e.candidate), _number(e.delta, True)]
                clustered = f"[{e.ci_queries[0]:+.4f}, {e.ci_queries[1]:+.4f}]" if e.ci_queries else "-"
                cells += [f"[{e.ci[0]:+.4f}, {e.ci[1]:+.4f}]", clustered, _number(e.mde)]
            else:
                shown = min(e.support.slots, e.baseline_slots)
                cells = ["not estimable", f"(support {shown:.2f} < {summary['min_support']:g})", "", "", "", ""]
            support = [f"{e.support.slots:.2f}", f"{e.support.ess:.0f}", f"{e.support.max_weight:.1f}"]
            rows.append([f"{name} ({e.unit})", *cells, *support])
        out += _table([head, *rows], markdown)
    found = report.estimates["all"]
    first = next(iter(found.values()))
    out += [
        "",
        f"support: the log shows the candidate's documents in {first.support.slots:.0%} of its top-"
        f"{summary['max_rank']} slots (the baseline's: {first.baseline_slots:.0%}); IPS weights: effective sample "
        f"size {first.support.ess:.0f}, largest {first.support.max_weight:.1f}",
        *(f"{name} assumes: {e.assumes}" for name, e in found.items()),
    ]
    if summary["propensity"] == "pbm-em":
        out.append(
            "propensities: the log never shows a document of a query at two neighbouring positions with clicks at "
            "both, so examination comes from the EM fit alone, with no interval of its own"
        )
    return out


def _table(rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        return [f"| {' | '.join(rows[0])} |", "|" + "---|" * len(rows[0])] + [f"| {' | '.join(r)} |" for r in rows[1:]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def run_simulate(args: argparse.Namespace) -> int:
    """Simulate, write the log, print the exact values."""
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.online import simulator

    for flag, number in (("--max-rank", args.max_rank), ("--searches", args.searches)):
        if number < 1:
            raise RelevanceInputError(flag, f"{number} is not a count: give 1 or more")
    if not 0 <= args.perseverance <= 1:
        raise RelevanceInputError("--perseverance", f"{args.perseverance} is not a probability")
    judgments = load_judgments(args.judgments, args.topics)
    texts = {q.id: q.text for q in judgments.queries}
    grades = {q.text: dict(q.grades) for q in judgments.queries if q.grades}
    user = simulator.UserModel(args.user, args.decay, perseverance=args.perseverance)
    truth = simulator.truth(grades, user, simulator.zipf(sorted(grades), args.skew, args.seed))
    logging, _ = rankings(args.logging, texts)
    if not any(logging.get(t) for t in grades):
        raise RelevanceInputError(args.logging, "no qid of the run is a judged query with grades: nothing to show")
    data = simulator.simulate(truth, user, logging, args.searches, args.max_rank, args.seed, args.noise)
    written = simulator.write_ubi_file(data, Path(args.output))
    print(
        f"wrote {args.output}: {len(data)} searches, {written} events ({int(data.clicks.sum())} clicks), "
        f"{args.user} users"
    )
    for name, ranking in (
        ("logging " + args.logging, logging),
        *((p, rankings(p, texts)[0]) for p in args.value or ()),
    ):
        print(f"exact clicks per search of {name}: {simulator.value(truth, user, ranking, args.max_rank):.6f}")
    return 0
