"""Where the report model goes: report files by suffix (Markdown, JSON, HTML, TREC runs) and GitHub's step summary.

The renderers only render; this module picks one by the file's suffix and writes, so no renderer imports another
and the report model (`data.py`) imports none of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.reports import html, markdown
from pytest_relevance.util.files import write_output


def to_json(reports: list[dict[str, Any]]) -> str:
    return json.dumps({"pytest-relevance-report": 1, "tests": reports}, indent=2, sort_keys=True) + "\n"


REPORT_SUFFIXES = (".md", ".json", ".html", ".trec")


def write(path: str, reports: list[dict[str, Any]]) -> list[Path]:
    """Write reports in the format the suffix names: .md, .json, .html, or .trec (the runs, for trec_eval); returns
    the files written."""
    target = Path(path)
    if target.suffix.lower() not in REPORT_SUFFIXES:
        raise RelevanceInputError(target, f"the suffix names the format: {', '.join(REPORT_SUFFIXES)}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RelevanceInputError(target, f"cannot be written: its folder cannot be made ({exc.strerror})") from None
    if target.suffix.lower() == ".trec":
        return _write_runs(target, reports)
    renderers = {".md": markdown.render, ".json": to_json, ".html": html.render}
    write_output(target, renderers[target.suffix.lower()](reports))
    return [target]


def _write_runs(target: Path, reports: list[dict[str, Any]]) -> list[Path]:
    """Each test's run (its rankings, to the depth its metrics read) as a TREC run file tagged with the test id.
    One file holds one run (trec_eval refuses a query's document twice), so with several tests each run goes to
    `STEM.<test name>.trec` beside PATH."""
    from pytest_relevance.judgments.trec import format_run

    written = []
    for report in reports:
        name = target
        if len(reports) > 1:
            test = re.sub(r"[^A-Za-z0-9_.-]+", "_", report["test"].rpartition("::")[2]).strip("_") or "test"
            name = target.with_name(f"{target.stem}.{test}{target.suffix}")
        write_output(name, format_run(report["rankings"], report["test"]))
        written.append(name)
    return written


def write_step_summary(path: str, reports: list[dict[str, Any]]) -> None:
    """Append to $GITHUB_STEP_SUMMARY (other steps write there too): failing tests in full, passing ones one line
    each, so a green run adds a few hundred bytes."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(markdown.render(reports, compact=True))
