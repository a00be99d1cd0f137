"""Input fingerprints in the baseline: each entry records the git blob id of the corpus, the index config (and the
files it references), the query template and the judgments it was measured on, and the hash of what the judgments
say; every run says which of them changed since, and judgments edited under the same `version:` cannot be compared.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*QUIET, *args)


def _git_blob(path: Path) -> str:
    """What `git hash-object` prints, computed here independently of the package."""
    data = path.read_bytes()
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()


def _entry(pytester: pytest.Pytester) -> dict:
    (entry,) = json.loads((pytester.path / "relevance-baseline.json").read_text())["entries"].values()
    return entry


def test_an_entry_records_the_blob_id_of_each_input(demo: pytest.Pytester) -> None:
    assert _run(demo, "--relevance-update").ret == 0
    fixtures = demo.path / "fixtures"
    inputs = _entry(demo)["inputs"]
    assert inputs["corpus"] == _git_blob(fixtures / "corpus.ndjson")
    assert inputs["index config"] == _git_blob(fixtures / "index.yaml")
    assert inputs["query template"] == _git_blob(fixtures / "query.yaml")
    assert inputs["judgments"] == _git_blob(fixtures / "judgments.yaml")
    assert inputs["judgments meaning"].startswith("sha256:")
    result = _run(demo)
    assert result.ret == 0
    assert "since the baseline" not in result.stdout.str()  # nothing changed: one line a test, as before
    result = _run(demo, "-v")
    result.stdout.fnmatch_lines(["  since the baseline: corpus, index config, query template, judgments unchanged"])


@pytest.mark.parametrize(
    ("name", "file", "edit"),
    [
        ("query template", "query.yaml", lambda text: text.replace("title^3", "title^2")),
        ("index config", "index.yaml", lambda text: text + "# a comment is a change of the file\n"),
        ("corpus", "corpus.ndjson", lambda text: text + '{"id": "p9999", "title": "spare part"}\n'),
    ],
)
def test_editing_one_input_names_it_alone(demo: pytest.Pytester, name: str, file: str, edit) -> None:
    assert _run(demo, "--relevance-update").ret == 0
    path = demo.path / "fixtures" / file
    path.write_text(edit(path.read_text()))
    result = _run(demo, "--relevance-tolerance", "0.9", "-v")
    others = ", ".join(n for n in ("corpus", "index config", "query template", "judgments") if n != name)
    result.stdout.fnmatch_lines([f"*since the baseline: {name} changed; {others} unchanged*"])


def test_a_reformatted_judgments_file_is_no_change(demo: pytest.Pytester) -> None:
    assert _run(demo, "--relevance-update").ret == 0
    judgments = demo.path / "fixtures" / "judgments.yaml"
    judgments.write_text("# reviewed in December\n" + judgments.read_text())
    result = _run(demo, "-v")
    assert result.ret == 0
    # the blob id changed, what the judgments say did not
    result.stdout.fnmatch_lines(["*since the baseline: corpus, index config, query template, judgments unchanged*"])


def test_judgments_edited_without_a_new_version_cannot_be_compared(demo: pytest.Pytester) -> None:
    assert _run(demo, "--relevance-update").ret == 0
    judgments = demo.path / "fixtures" / "judgments.yaml"
    lines = judgments.read_text().splitlines()
    graded = next(i for i, line in enumerate(lines) if ": 3" in line)
    lines[graded] = lines[graded].replace(": 3", ": 1", 1)  # one grade lowered, `version:` left as it was
    judgments.write_text("\n".join(lines) + "\n")
    result = _run(demo)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*relevance: cannot compare with relevance-baseline.json for test_gate.py::test_demo*",
            "*the judgments changed without a new version: *Give the judgments file a new `version:`*",
            "*since the baseline: judgments changed; corpus, index config, query template unchanged*",
        ]
    )
    assert "relevance regression" not in result.stdout.str()


def test_an_entry_without_fingerprints_still_compares_with_a_note(demo: pytest.Pytester) -> None:
    assert _run(demo, "--relevance-update").ret == 0
    path = demo.path / "relevance-baseline.json"
    data = json.loads(path.read_text())
    for entry in data["entries"].values():
        del entry["inputs"]
    path.write_text(json.dumps(data, indent=2))
    result = _run(demo)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*since the baseline: not known, the entry records no input fingerprints*"])
    assert _run(demo, "--relevance-update").ret == 0
    assert "inputs" in _entry(demo)  # an update records them
