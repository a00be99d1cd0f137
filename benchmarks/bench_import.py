"""What having the plugin installed costs a pytest run with no relevance test.

    python benchmarks/bench_import.py [--repeat 15]

Times `pytest --collect-only` on a small generated project (20 plain tests) with the plugin and without it,
interleaved in the same run, and prints the medians and their difference. Goal: <= 20 ms. Other installed plugins
(hypothesis' alone costs over a second) would drown 20 ms in noise, so both sides run with plugin autoloading off
and the plugin is loaded explicitly (`-p pytest_relevance.plugin.hooks`) on one side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(command: list[str], cwd: Path) -> float:
    # bytecode caching on, as in any installed environment (some sandboxes set PYTHONDONTWRITEBYTECODE, which makes
    # every import compile from source)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pytest.ini").write_text("[pytest]\n")
        for i in range(4):
            (root / f"test_m{i}.py").write_text("".join(f"def test_{j}():\n    pass\n" for j in range(5)))
        base = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        with_plugin, without = [], []
        for _ in range(args.repeat):
            with_plugin.append(timed([*base, "-p", "pytest_relevance.plugin.hooks"], root))
            without.append(timed(base, root))
    a, b = statistics.median(with_plugin), statistics.median(without)
    print(f"pytest --collect-only, 20 plain tests, median of {args.repeat}")
    print(f"  with pytest-relevance:    {a * 1000:8.1f} ms")
    print(f"  without it:               {b * 1000:8.1f} ms")
    print(f"  cost of the plugin:       {(a - b) * 1000:8.1f} ms (goal <= 20 ms)")


if __name__ == "__main__":
    main()
