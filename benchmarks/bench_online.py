"""Counterfactual click estimates against the simulator's truth: sign accuracy, CI coverage and Kendall tau.

    python benchmarks/bench_online.py [--seeds 200] [--searches 20000] [--users pbm,cascade,dbn] [--esci FILE]

ESCI grades (../shared/data/ubi-esci) are the truth; query traffic is Zipf (exponent 1, a seeded order); the
logging ranker orders each query's judged products by grade level plus Gaussian noise (sd 2 levels), and each
search shows it perturbed (rank plus noise of sd 1), top 10. The 10 candidates re-rank the logging list's top 15
by a mix of its order, the grade level and noise (fixed list below). For each seed and user model: simulate the
searches, fit the PBM, estimate every candidate's delta against the logging ranking with DM, IPS, SNIPS and DR, and
compare with the exact delta under the user model. The estimators always assume PBM: cascade and DBN users measure
how they fare when that is wrong. Prints, per user model and estimator: sign accuracy where |true delta| >= 0.02
clicks per search, coverage of the 95% interval over searches (`ci`) and of the query-clustered bootstrap interval
(`ci_queries`), mean Kendall tau between the estimated and true order of the candidates, and
the share of estimates that were not estimable.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from pytest_relevance.judgments.formats import read
from pytest_relevance.online import simulator as sim
from pytest_relevance.online.click_model import fit_pbm
from pytest_relevance.online.estimators import estimate

ESCI = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ubi-esci" / "esci_us_judgments.json"
CANDIDATES = [(-1.0, 0.0), (-0.5, 0.5), (-0.25, 0.0), (0.0, 1.0), (0.0, 2.0), (0.25, 0.5), (0.5, 0.0), (1.0, 1.0)]
CANDIDATES += [(1.5, 0.0), (3.0, 0.5)]  # (weight of the grade level, sd of the noise)
ESTIMATORS = ("dm", "ips", "snips", "dr")
DEPTH, TOP, MEANINGFUL = 10, 15, 0.02


def levels(grades: dict[str, dict[str, float]]) -> dict[str, dict[str, int]]:
    order = {g: i for i, g in enumerate(sorted({g for docs in grades.values() for g in docs.values()}))}
    return {t: {d: order[g] for d, g in docs.items()} for t, docs in grades.items()}


def logging_ranker(level: dict[str, dict[str, int]], rng: np.random.Generator) -> dict[str, list[str]]:
    out = {}
    for text, docs in level.items():
        ids = sorted(docs)
        key = np.array([docs[d] for d in ids], dtype=float) + 2.0 * rng.standard_normal(len(ids))
        out[text] = [ids[i] for i in np.argsort(-key, kind="stable")]
    return out


def candidate(logging: dict[str, list[str]], level, weight: float, noise: float, rng) -> dict[str, list[str]]:
    out = {}
    for text, docs in logging.items():
        head = docs[:TOP]
        key = -0.5 * np.arange(len(head)) + weight * np.array([level[text][d] for d in head])
        key = key + noise * rng.standard_normal(len(head))
        out[text] = [head[i] for i in np.argsort(-key, kind="stable")] + docs[TOP:]
    return out


def kendall(x: list[float], y: list[float]) -> float:
    """Kendall's tau-a between two orders of the same items."""
    n, total = len(x), 0.0
    for i in range(n):
        for j in range(i + 1, n):
            total += np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
    return total / (n * (n - 1) / 2)


def run(grades, user_kind: str, seeds: int, searches: int) -> dict[str, dict[str, float]]:
    level = levels(grades)
    user = sim.UserModel(user_kind)
    tallies = {
        name: {"signs": [], "covered": [], "clustered": [], "tau": [], "not": 0, "all": 0} for name in ESTIMATORS
    }
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        found = sim.truth(grades, user, sim.zipf(sorted(grades), 1.0, seed))
        logging = logging_ranker(level, rng)
        data = sim.simulate(found, user, logging, searches, DEPTH, seed, noise=1.0)
        model = fit_pbm(data)
        base = sim.value(found, user, logging, DEPTH)
        truths, estimates = [], {name: [] for name in ESTIMATORS}
        for weight, noise in CANDIDATES:
            cand = candidate(logging, level, weight, noise, rng)
            true = sim.value(found, user, cand, DEPTH) - base
            truths.append(true)
            found_all = estimate(data, model, logging, cand, ESTIMATORS, seed, by_stratum=False).estimates["all"]
            for name, e in found_all.items():
                tally = tallies[name]
                tally["all"] += 1
                if not e.estimable or e.ci is None or e.delta is None:
                    tally["not"] += 1
                    estimates[name].append(float("nan"))
                    continue
                estimates[name].append(e.delta)
                tally["covered"].append(e.ci[0] <= true <= e.ci[1])
                if e.ci_queries is not None:
                    tally["clustered"].append(e.ci_queries[0] <= true <= e.ci_queries[1])
                if abs(true) >= MEANINGFUL:
                    tally["signs"].append(np.sign(e.delta) == np.sign(true))
        for name in ESTIMATORS:
            pairs = [(e, t) for e, t in zip(estimates[name], truths, strict=True) if e == e]
            if len(pairs) > 1:
                tallies[name]["tau"].append(kendall([e for e, _ in pairs], [t for _, t in pairs]))
    return {
        name: {
            "sign accuracy": float(np.mean(t["signs"])) if t["signs"] else float("nan"),
            "signs judged": len(t["signs"]),
            "coverage": float(np.mean(t["covered"])) if t["covered"] else float("nan"),
            "clustered coverage": float(np.mean(t["clustered"])) if t["clustered"] else float("nan"),
            "kendall tau": float(np.mean(t["tau"])) if t["tau"] else float("nan"),
            "not estimable": t["not"] / t["all"],
        }
        for name, t in tallies.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--searches", type=int, default=20000)
    parser.add_argument("--users", default="pbm,cascade,dbn")
    parser.add_argument("--esci", type=Path, default=ESCI, help="esci_us_judgments.json (default: ../shared/data)")
    args = parser.parse_args()
    if not args.esci.is_file():
        print(f"skipped: {args.esci} is absent", file=sys.stderr)
        return 0
    grades = {q.text: dict(q.grades) for q in read("srw", args.esci).queries}
    print(
        f"{len(grades)} ESCI queries, {args.searches} searches a seed, {args.seeds} seeds, {len(CANDIDATES)} candidates"
    )
    for kind in args.users.split(","):
        start = time.perf_counter()
        results = run(grades, kind, args.seeds, args.searches)
        print(f"\n{kind} users (estimators assume PBM), {time.perf_counter() - start:.0f} s")
        head = f"{'estimator':<10} {'sign acc (|d|>=0.02)':>21} {'n':>5} {'95% coverage':>13} "
        print(head + f"{'query-clustered':>16} {'tau':>6} {'not est.':>9}")
        for name, r in results.items():
            print(
                f"{name:<10} {r['sign accuracy']:>21.3f} {r['signs judged']:>5} {r['coverage']:>13.3f} "
                f"{r['clustered coverage']:>16.3f} "
                f"{r['kendall tau']:>6.3f} {r['not estimable']:>9.3f}"
            )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
