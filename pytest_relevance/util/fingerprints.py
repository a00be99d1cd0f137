"""Content fingerprints of input files: git's blob SHA-1 of their bytes.

Git's own object id, so a fingerprint can be checked with `git hash-object FILE` and compared with what a commit
holds (`git cat-file blob ID` gives the content back). The index cache keys its entries with them (corpus, index
config, the files the config references), and every baseline entry records them for the inputs it was measured on,
so that the gate can say which input changed since (`baseline.since_baseline`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

#: the inputs a baseline entry fingerprints, in the order the gate names them
INPUTS = ("corpus", "index config", "query template", "judgments")


def blob_sha1(data: bytes) -> str:
    """The id git gives these bytes as a blob: sha1(b"blob <size>\\0" + data), in hex."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def file_sha1(path: Path) -> str | None:
    """The blob id of a file's bytes; None when it cannot be read (absent, a directory, no permission)."""
    try:
        return blob_sha1(path.read_bytes())
    except OSError:
        return None


def referenced_files(value: Any) -> set[str]:
    """Every file an index config names: the value of any `*_path` key, nested or dotted (`index.analysis...`)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, str) and key.endswith("_path") and isinstance(inner, str):
                found.add(inner)
            else:
                found |= referenced_files(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= referenced_files(inner)
    return found


def index_inputs(corpus: str, index_config: Path, config: Any, template: Path) -> dict[str, Any]:
    """The fingerprints of what a fixture index and its runs are made of: the corpus (its blob id, as
    `corpus.CorpusFile.fingerprint` has it), the index config with every file it references (by the name it uses),
    the query template."""
    inputs: dict[str, Any] = {
        "corpus": corpus,
        "index config": file_sha1(index_config),
        "query template": file_sha1(template),
    }
    files = {name: file_sha1(index_config.parent / name) for name in sorted(referenced_files(config))}
    if files:
        inputs["index config files"] = files
    return inputs


def judgments_inputs(source: Path, meaning: str) -> dict[str, Any]:
    """The judgments file's blob id, and the hash of what the judgments say (`judgments.content_version`): a file
    reformatted is no change, a grade edited is one even where `version:` stayed."""
    return {"judgments": file_sha1(source), "judgments meaning": meaning}
