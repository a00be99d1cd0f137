"""The index cache: the gate cold (index built and cached) and warm (index loaded), against the reference script
measured in the same run, and the demo gate with `-n 2` against a serial run, cold and warm.

    python benchmarks/bench_cache.py                 # 10k/1k and the demo
    python benchmarks/bench_cache.py 10k 50k         # these scale sizes, then the demo

Scale sizes are bench_scale.py's synthetic catalogues and reference script. Cold is `--relevance-rebuild` (the index
is built and written to the cache, as on a first run), warm is the next run (the index is loaded). Each command is
run `ROUNDS` times, interleaved with the others so that the machine's load falls on all of them alike; the median
is printed. Goals (issue 25): 10k/1k cold ratio <= 1.3 and warm <= 0.6; 50k and 200k warm <= 0.5; the demo with
`-n 2` within 1.2x of the serial run, cold and warm. Printed last: the floor, one empty test serial and with
`-n 2`, which is what starting the xdist workers costs before any relevance work; each demo line also gives the
time beyond its floor, the part this plugin can change.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engines"))

from bench_scale import SIZES, generate, measure
from test_embedded import DEMO_TEST

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 3
# pytest with this plugin, its cache and xdist only (bench_scale's measure disables plugin autoloading)
GATE = [
    sys.executable,
    "-m",
    "pytest",
    "-q",
    "-p",
    "pytest_relevance.plugin.hooks",
    "-p",
    "xdist.plugin",
    "-m",
    "relevance",
]


def medians(folder: Path, commands: dict[str, list[str]]) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(ROUNDS):
        for name, command in commands.items():
            times[name].append(measure(command, folder)[0])
    return {name: statistics.median(values) for name, values in times.items()}


def scale(name: str) -> None:
    n_docs, n_queries = SIZES[name]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, n_docs, n_queries)
        measure([*GATE, "--relevance-update"], folder)
        # cold then warm in each round: the warm run loads what the cold one just built
        times = medians(
            folder,
            {
                "cold": [*GATE, "--relevance-rebuild"],
                "warm": GATE,
                "reference": [sys.executable, "reference.py", str(folder)],
            },
        )
        reference = times["reference"]
        print(f"{name}/{n_queries}: reference {reference:.2f} s; gate cold {times['cold']:.2f} s (ratio "
              f"{times['cold'] / reference:.2f}), warm {times['warm']:.2f} s (ratio {times['warm'] / reference:.2f})",
              flush=True)  # fmt: skip


def demo() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copytree(ROOT / "fixtures", folder / "fixtures")
        (folder / "pytest.ini").write_text("[pytest]\nrelevance_metrics = ndcg@10 mrr@10 recall@100\n")
        # two relevance tests, so that under -n 2 both workers open the index
        (folder / "test_gate.py").write_text(DEMO_TEST + DEMO_TEST.replace("test_demo", "test_demo_again"))
        measure([*GATE, "--relevance-update"], folder)
        parallel = [*GATE, "-n", "2"]
        times = medians(
            folder,
            {
                "serial cold": [*GATE, "--relevance-rebuild"],
                "serial warm": GATE,
                "-n 2 cold": [*parallel, "--relevance-rebuild"],
                "-n 2 warm": parallel,
            },
        )
        # what xdist costs before any work: the same two commands on one empty test
        (folder / "test_gate.py").write_text("import numpy\n\ndef test_gate():\n    pass\n")
        floor = medians(folder, {"serial": GATE[:-2], "-n 2": [*GATE[:-2], "-n", "2"]})
        for kind in ("cold", "warm"):
            serial, two = times[f"serial {kind}"], times[f"-n 2 {kind}"]
            print(f"demo {kind}: serial {serial:.2f} s, -n 2 {two:.2f} s, ratio {two / serial:.2f}; beyond the "
                  f"floor: serial {serial - floor['serial']:.2f} s, -n 2 {two - floor['-n 2']:.2f} s, ratio "
                  f"{(two - floor['-n 2']) / (serial - floor['serial']):.2f}", flush=True)  # fmt: skip
        print(
            f"floor (one empty test): serial {floor['serial']:.2f} s, -n 2 {floor['-n 2']:.2f} s, ratio "
            f"{floor['-n 2'] / floor['serial']:.2f}",
            flush=True,
        )


def main() -> None:
    for name in sys.argv[1:] or ["10k"]:
        scale(name)
    demo()


if __name__ == "__main__":
    main()
