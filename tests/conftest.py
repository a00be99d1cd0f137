"""Shared test setup."""

from __future__ import annotations

import shutil
from pathlib import Path

# the same for the embedded engine's C extensions: numpy warns when it is imported a second time
import numpy  # noqa: F401
import pytest

# pytester's in-process runs drop modules first imported during the inner run; yaml's C extension cannot be imported
# twice, so a re-imported yaml would pair with a stale libyaml. Importing it here keeps one yaml for the whole session.
import yaml  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's pytester, whose sessions (in process, in a subprocess and in xdist's workers) leave out the plugins
    that other packages of the dev install bring (hypothesis, osmem-server, anyio) and no generated project uses: a
    session in a subprocess (each xdist worker too) takes 0.8 s of CPU without them, 2.5 s with them."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:osmem -p no:anyio")
    return pytester


@pytest.fixture
def demo(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project holding a copy of this repository's demo fixtures and the one-line demo gate."""
    shutil.copytree(ROOT / "fixtures", pytester.path / "fixtures")
    pytester.makeini("[pytest]\nrelevance_metrics = ndcg@10 mrr@10 recall@100\n")
    pytester.makepyfile(
        test_gate="def test_demo(relevance_index, relevance_snapshot):\n"
        "    assert relevance_snapshot == relevance_index.run()\n"
    )
    return pytester


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The `languages_full` tests run only when asked for (`-m languages_full`): the default run samples the same
    reference."""
    if "languages_full" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="the full other-languages reference runs with -m languages_full")
    for item in items:
        if "languages_full" in item.keywords:
            item.add_marker(skip)
