"""The gate's error rates on real runs: false fails under exchangeable nulls, power against a planted drop, and the
calibration of the minimum detectable effect (MDE).

    python benchmarks/bench_decisions.py [--quick]     # error rates, power, MDE calibration
    python benchmarks/bench_decisions.py --ppi [--quick]     # judge-corrected estimates, validated by simulation

Cranfield (graded qrels, 225 queries) and real Lucene 9 BM25 runs of five query shapes (../shared/data/lucene).
Queries are put in three strata by length (short, medium, long; with "all", 4 strata) and gated on ndcg@10, mrr@10,
p@10 and recall@100: 16 stratum x metric rows, tolerance 0.005, relevance_alpha 0.05.

- Exchangeable null: for a pair of systems X, Y each query's ranking goes to the baseline from X or Y by a coin
  flip and the other one to the candidate, so the true effect is zero on every query. A test that fails is a false
  fail. Measured with `relevance_alpha_scope = test` (max-T) and `comparison` (each row at alpha, the old gate).
- Planted drop: in 10% of the queries (drawn among those with a relevant result in the top 10), that first relevant
  result is pushed down ten places. On an unchanged system (baseline = candidate but for the drop), and on top of
  an exchangeable pair (the drop has the pair's noise around it). The share of tests that fail is the power.
- MDE calibration: on an exchangeable pair, the gate's MDE of stratum.ndcg@10; then pushes (as above) are applied
  to random queries of the stratum until the stratum's mean ndcg@10 dropped by the MDE. The share of those drops
  flagged on that row should be about 80%.
- PPI (--ppi): human grades as truth (Cranfield's qrels, ESCI's grades in ../shared/data/ubi-esci), a simulated
  judge with a stated confusion matrix, 40 queries graded by both: how often the 95% interval of the judge-corrected
  ndcg@10 holds the true value, and its width against the human-only interval.

Skips, saying why, where the data is absent.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# ../shared/data beside the checkout (or beside the folder of worktrees that holds it)
DATA = next((up / "shared" / "data" for up in ROOT.parents if (up / "shared" / "data").is_dir()), ROOT / "absent")
CRANFIELD, LUCENE = DATA / "cranfield", DATA / "lucene" / "runs"
SYSTEMS = ("a_match_or", "c_best_fields_tb0", "d_best_fields_tb03", "e_most_fields", "g_bool_must_should")
METRICS = "ndcg@10 mrr@10 p@10 recall@100"
PUSH = 10  # places the first relevant result of the top 10 falls
SHARE = 0.10  # of the queries that a planted drop touches


def load() -> tuple[object, dict[str, dict[str, list[str]]]]:
    """Cranfield's judgments (grades 1-4 where 1 is best -> 4..1) in three strata by query length, and the runs."""
    from pytest_relevance.judgments.model import Judgments, Query

    texts, text = [], None
    for line in (CRANFIELD / "cran.qry").read_text().splitlines():
        if line.startswith(".I "):
            texts.append("")
            text = None
        elif line.startswith(".W"):
            text = True
        elif text:
            texts[-1] += line + " "
    grades: dict[int, dict[str, int]] = {}
    for line in (CRANFIELD / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and 1 <= int(parts[2]) <= 4:
            grades.setdefault(int(parts[0]), {})[parts[1]] = 5 - int(parts[2])
    judged = sorted(n for n in grades if n <= len(texts))
    lengths = sorted(len(texts[n - 1].split()) for n in judged)
    cuts = lengths[len(lengths) // 3], lengths[2 * len(lengths) // 3]

    def stratum(n: int) -> str:
        words = len(texts[n - 1].split())
        return "short" if words < cuts[0] else "medium" if words < cuts[1] else "long"

    queries = tuple(Query(str(n), " ".join(texts[n - 1].split()), stratum(n), {}, grades[n]) for n in judged)
    judgments = Judgments(queries, "cranfield", "cranqrel")
    runs = {}
    for name in SYSTEMS:
        ranked: dict[str, list[tuple[int, str]]] = {}
        for line in (LUCENE / f"{name}.trec").read_text().splitlines():
            qid, _, doc, rank, *_ = line.split()
            ranked.setdefault(qid, []).append((int(rank), doc))
        runs[name] = {q.id: [doc for _, doc in sorted(ranked.get(q.id, []))] for q in queries}
    return judgments, runs


def settings(scope: str) -> object:
    from pytest_relevance.config.keys import SETTINGS
    from pytest_relevance.config.settings import read

    values = {key: default for key, (_, default) in SETTINGS.items()}
    values.update(relevance_metrics=METRICS, relevance_alpha="0.05", relevance_alpha_scope=scope)
    return read(values.__getitem__)


def verdict(judgments: object, baseline: dict, candidate: dict, config: object) -> object:
    from pytest_relevance.evaluation.evaluation import evaluate
    from pytest_relevance.gate.entry import make_entry
    from pytest_relevance.gate.verdict import decide

    metrics = config.metrics  # type: ignore[attr-defined]
    entry = make_entry(evaluate(baseline, judgments, metrics), "cranfield", "lucene", config.tolerance, "")  # type: ignore[attr-defined, arg-type]
    current = evaluate(candidate, judgments, metrics)  # type: ignore[arg-type]
    return decide("bench", entry, current, judgments, "lucene", config)  # type: ignore[arg-type]


def exchangeable(x: dict, y: dict, rnd: random.Random) -> tuple[dict, dict]:
    baseline, candidate = {}, {}
    for qid in x:
        first, second = (x[qid], y[qid]) if rnd.random() < 0.5 else (y[qid], x[qid])
        baseline[qid], candidate[qid] = first, list(second)
    return baseline, candidate


def pushed(ranking: list[str], grades: dict) -> list[str] | None:
    """The ranking with the first relevant result of its top 10 pushed down PUSH places (None: no such result)."""
    first = next((i for i, doc in enumerate(ranking[:10]) if grades.get(doc, 0) > 0), None)
    if first is None:
        return None
    out = list(ranking)
    out.insert(first + PUSH, out.pop(first))
    return out


def plant(run: dict, judgments: object, rnd: random.Random) -> dict:
    """SHARE of the queries, drawn among those with a relevant result in the top 10, get the push."""
    grades = {q.id: q.grades for q in judgments.queries}  # type: ignore[attr-defined]
    able = [qid for qid in run if pushed(run[qid], grades[qid]) is not None]
    chosen = rnd.sample(able, round(SHARE * len(run)))
    return {qid: pushed(docs, grades[qid]) if qid in chosen else docs for qid, docs in run.items()}  # type: ignore[misc]


def drop_by(run: dict, judgments: object, ids: list[str], target: float, rnd: random.Random) -> tuple[dict, float]:
    """Pushes applied to random queries among `ids` until their mean ndcg@10 fell by `target` (the last push is
    kept only if it lands nearer the target than stopping before it)."""
    from pytest_relevance.metrics.ranking import parse_metric, score_query

    metric = parse_metric("ndcg@10")
    grades = {q.id: q.grades for q in judgments.queries}  # type: ignore[attr-defined]
    out, fallen = dict(run), 0.0
    order = list(ids)
    rnd.shuffle(order)
    for qid in order:
        moved = pushed(run[qid], grades[qid])
        if moved is None:
            continue
        step = (
            score_query(grades[qid], run[qid], [metric]).values[metric.spec]
            - score_query(grades[qid], moved, [metric]).values[metric.spec]
        ) / len(ids)
        if step <= 0:
            continue
        if fallen + step > target and (fallen + step - target) > (target - fallen):
            break
        out[qid], fallen = moved, fallen + step
        if fallen >= target:
            break
    return out, fallen


def rate(hits: int, total: int) -> str:
    share = hits / total if total else 0.0
    error = 1.96 * (share * (1 - share) / total) ** 0.5 if total else 0.0
    return f"{hits}/{total} = {share:.1%} (+-{error:.1%})"


def main(quick: bool) -> None:
    if not (CRANFIELD.is_dir() and LUCENE.is_dir()):
        print(f"skipped: {CRANFIELD} or {LUCENE} is not present")
        return
    judgments, runs = load()
    pairs = [(a, b) for i, a in enumerate(SYSTEMS) for b in SYSTEMS[i + 1 :]]
    # the comparison scope's per-row sign-flip test is pure Python (as before max-T): fewer of its draws
    per_pair = {"test": 6 if quick else 40, "comparison": 3 if quick else 12}
    planted = {"test": 3 if quick else 12, "comparison": 2 if quick else 4}
    test_scope, comparison_scope = settings("test"), settings("comparison")
    sizes = {name: len(ids) for name, ids in judgments.groups.items()}  # type: ignore[attr-defined]
    print(f"Cranfield: {len(judgments.queries)} judged queries, strata {sizes}")  # type: ignore[attr-defined]
    print(f"systems: {', '.join(SYSTEMS)}; {len(pairs)} pairs; metrics {METRICS}; tolerance 0.005; alpha 0.05")

    start = time.perf_counter()
    for scope, config in (("test", test_scope), ("comparison", comparison_scope)):
        rnd, failed, total = random.Random(20260115), 0, 0
        for x, y in pairs:
            for _ in range(per_pair[scope]):
                baseline, candidate = exchangeable(runs[x], runs[y], rnd)
                failed += verdict(judgments, baseline, candidate, config).status == "regressed"  # type: ignore[attr-defined]
                total += 1
        print(f"false fails, exchangeable nulls, relevance_alpha_scope = {scope}: {rate(failed, total)}")

    for scope, config in (("test", test_scope), ("comparison", comparison_scope)):
        rnd = random.Random(7)
        alone, noisy, total = 0, 0, 0
        for x, y in pairs:
            for _ in range(planted[scope]):
                dropped = plant(runs[x], judgments, rnd)
                alone += verdict(judgments, runs[x], dropped, config).status == "regressed"  # type: ignore[attr-defined]
                baseline, candidate = exchangeable(runs[x], runs[y], rnd)
                noisy += verdict(judgments, baseline, plant(candidate, judgments, rnd), config).status == "regressed"  # type: ignore[attr-defined]
                total += 1
        print(f"power, planted drop ({SHARE:.0%} of queries, first relevant of the top 10 down {PUSH}), scope {scope}:")
        print(f"  on an unchanged system: {rate(alone, total)}; on an exchangeable pair: {rate(noisy, total)}")

    rnd = random.Random(11)
    flagged, total, sizes = 0, 0, []
    strata = judgments.groups  # type: ignore[attr-defined]
    for x, y in pairs:
        for stratum, ids in strata.items():
            for _ in range(2 if quick else 5):
                baseline, candidate = exchangeable(runs[x], runs[y], rnd)
                null = verdict(judgments, baseline, candidate, test_scope)
                row = next(c for c in null.rows if c.row.stratum == stratum and c.row.metric == "ndcg@10")  # type: ignore[attr-defined]
                effect = row.evidence.mde
                dropped, fallen = drop_by(candidate, judgments, list(ids), effect, rnd)
                if abs(fallen - effect) > 0.25 * effect:
                    continue  # too few queries to push for this drop
                after = verdict(judgments, baseline, dropped, test_scope)
                hit = next(c for c in after.rows if c.row.stratum == stratum and c.row.metric == "ndcg@10")  # type: ignore[attr-defined]
                flagged += hit.status == "regression"
                total += 1
                sizes.append(effect)
    print(
        f"MDE calibration (stratum.ndcg@10, drops of the MDE planted, scope test): flagged {rate(flagged, total)}; "
        f"MDEs from {min(sizes):.3f} to {max(sizes):.3f}"
    )
    print(f"({time.perf_counter() - start:.0f} s)")


# ---------------------------------------------------------------- judge-corrected estimates (PPI)

#: P(judge's grade | human grade), rows by human grade. Cranfield 0 (not in the qrels) .. 4 (most relevant): the
#: judge is lenient on irrelevant documents and blurs neighbouring grades.
CRANFIELD_JUDGE = (
    (0.80, 0.12, 0.06, 0.02, 0.00),
    (0.30, 0.40, 0.20, 0.10, 0.00),
    (0.15, 0.20, 0.35, 0.25, 0.05),
    (0.05, 0.10, 0.25, 0.40, 0.20),
    (0.05, 0.05, 0.10, 0.30, 0.50),
)
#: ESCI irrelevant 0, complement 1, substitute 2, exact 3: the judge takes substitutes for exact matches.
ESCI_JUDGE = (
    (0.70, 0.10, 0.15, 0.05),
    (0.20, 0.50, 0.20, 0.10),
    (0.05, 0.10, 0.45, 0.40),
    (0.02, 0.03, 0.15, 0.80),
)
LABELLED = 40  # queries people graded too
DRAWS = 1000


def ppi_validation(
    name: str, queries: list[tuple[dict, list[str]]], confusion: tuple, quick: bool, resample: bool = False
) -> None:
    """Human grades are the truth; each draw a simulated judge grades every judged document and every document of
    the top 10 by `confusion`, and LABELLED queries drawn at random keep their human grades too. The estimand is the
    mean ndcg@10 on human grades over all the queries. With `resample`, each draw's queries are drawn with
    replacement from the collection first, so the interval is also tested on what it claims about queries not in
    the set (the fixed set alone leaves the between-query term of its variance nothing to cover, and over-covers)."""
    from pytest_relevance.evaluation.ppi import plain_mean, ppi_mean
    from pytest_relevance.metrics.ranking import parse_metric, score_query

    metric = parse_metric("ndcg@10")

    def ndcg(grades: dict, ranking: list[str]) -> float:
        return score_query(grades, ranking, [metric]).values[metric.spec]

    truths = [ndcg(grades, ranking) for grades, ranking in queries]
    target = sum(truths) / len(truths)
    rnd = random.Random(5)
    levels = range(len(confusion))
    covered = human_covered = 0
    widths, human_widths, judge_bias = [], [], []
    draws = 100 if quick else DRAWS
    for _ in range(draws):
        drawn_queries = [rnd.randrange(len(queries)) for _ in queries] if resample else range(len(queries))
        judged, truth = [], [truths[i] for i in drawn_queries]
        for i in drawn_queries:
            grades, ranking = queries[i]
            pool = set(grades) | set(ranking[:10])
            drawn = {doc: rnd.choices(levels, confusion[int(grades.get(doc, 0))])[0] for doc in sorted(pool)}
            judged.append(ndcg({d: g for d, g in drawn.items() if g > 0}, ranking))
        labelled = rnd.sample(range(len(truth)), LABELLED)
        estimate = ppi_mean(judged, [(judged[i], truth[i]) for i in labelled])
        human = plain_mean([truth[i] for i in labelled])
        covered += estimate.low <= target <= estimate.high
        human_covered += human.low <= target <= human.high
        widths.append(estimate.high - estimate.low)
        human_widths.append(human.high - human.low)
        judge_bias.append(sum(judged) / len(judged) - sum(truth) / len(truth))
    print(
        f"PPI, {name}{', queries resampled' if resample else ''} ({len(queries)} queries, {LABELLED} human-graded, "
        f"{draws} draws): true ndcg@10 {target:.4f}; judge-only bias {sum(judge_bias) / draws:+.4f}; 95% interval "
        f"covers it in {covered / draws:.1%} of draws (human-only {human_covered / draws:.1%}); mean width "
        f"{sum(widths) / draws:.4f} vs human-only {sum(human_widths) / draws:.4f}; narrower in "
        f"{sum(w < h for w, h in zip(widths, human_widths, strict=True)) / draws:.1%} of draws"
    )


def esci_queries() -> list[tuple[dict, list[str]]] | None:
    """ESCI's graded products per query (exact 3, substitute 2, complement 1, irrelevant 0), each query's products
    ranked in a seeded random order: a ranker that is right sometimes."""
    import json

    path = DATA / "ubi-esci" / "esci_us_judgments.json"
    if not path.is_file():
        return None
    levels = {100.0: 3, 10.0: 2, 1.0: 1, 0.0: 0}
    rnd = random.Random(3)
    out = []
    for item in json.loads(path.read_text())["judgmentRatings"]:
        grades = {r["docId"]: levels[float(r["rating"])] for r in item["ratings"]}
        ranking = sorted(grades)
        rnd.shuffle(ranking)
        out.append((grades, ranking))
    return out


def ppi(judgments: object, runs: dict, quick: bool) -> None:
    cranfield = [(dict(q.grades), runs["a_match_or"][q.id]) for q in judgments.queries]  # type: ignore[attr-defined]
    esci = esci_queries()
    for resample in (False, True):
        ppi_validation("Cranfield, a_match_or", cranfield, CRANFIELD_JUDGE, quick, resample)
        if esci is None:
            print("PPI, ESCI: ../shared/data/ubi-esci is not present, skipped")
        else:
            ppi_validation("ESCI", esci, ESCI_JUDGE, quick, resample)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if "--ppi" in sys.argv:
        if CRANFIELD.is_dir() and LUCENE.is_dir():
            ppi(*load(), "--quick" in sys.argv)
        else:
            print(f"skipped: {CRANFIELD} or {LUCENE} is not present")
    else:
        main("--quick" in sys.argv)
