"""The relevance inputs as a git revision holds them, written to a scratch directory so that they load as files.

`pytest-relevance diff` measures the project at two revisions in one process, and the explanation of a failure
rebuilds the baseline's index from the blob ids its entry recorded (`fingerprints.py`): both need the corpus, index
config (with every file it references, at the paths it names them by), and query template of another revision
beside the working tree's. The files keep their paths relative to the repository's top, so an index config's
`synonyms_path` resolves to the same revision's synonyms. Git is run as a subprocess (`git show`, `git cat-file`):
no library, and only read commands.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError


def _git(top: Path, *args: str, binary: bool = False) -> subprocess.CompletedProcess[Any]:
    try:
        return subprocess.run(["git", "-C", str(top), *args], capture_output=True, text=not binary, check=False)
    except FileNotFoundError:
        raise RelevanceInputError(top, "git is not installed, and comparing revisions needs it") from None


def toplevel(start: Path) -> Path:
    """The top of the git working tree `start` is in; bad input when it is in none."""
    done = _git(start, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise RelevanceInputError(
            start, "not inside a git working tree; diff compares git revisions (run it in the project's repository)"
        )
    return Path(done.stdout.strip()).resolve()


def commit_of(top: Path, ref: str) -> str:
    """The commit `ref` names (a branch, tag, `HEAD~2`, an id); bad input naming the ref when git knows none."""
    done = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if done.returncode != 0 or not done.stdout.strip():
        raise RelevanceInputError(ref, f"git knows no commit by this name in {top}; give a branch, tag or commit id")
    commit: str = done.stdout.strip()
    return commit


def blob(top: Path, blob_id: str) -> bytes | None:
    """The content git stores under a blob id (what a baseline entry recorded), or None when it has none."""
    done = _git(top, "cat-file", "blob", blob_id, binary=True)
    return done.stdout if done.returncode == 0 else None


def materialize(top: Path, commit: str, files: Iterable[Path], scratch: Path, label: str) -> dict[Path, Path]:
    """Each of `files` (absolute, inside `top`) as `commit` has it, written under `scratch` at the same relative
    path; returns working-tree path -> written path. A file the commit lacks is bad input naming it and `label`."""
    written: dict[Path, Path] = {}
    for path in files:
        relative = _relative(top, path)
        done = _git(top, "show", f"{commit}:{relative.as_posix()}", binary=True)
        if done.returncode != 0:
            raise RelevanceInputError(
                relative, f"not in {label}; diff needs each input at both revisions (was it added since?)"
            )
        written[path] = _write(scratch / relative, done.stdout)
    return written


def from_blobs(blobs: dict[Path, str], top: Path, scratch: Path) -> dict[Path, Path] | None:
    """Each working-tree path with the content of its recorded blob id, written under `scratch` at the same
    relative path; None as soon as git lacks one (the baseline was measured on content never committed here)."""
    written: dict[Path, Path] = {}
    for path, blob_id in blobs.items():
        content = blob(top, blob_id)
        if content is None:
            return None
        written[path] = _write(scratch / _relative(top, path), content)
    return written


def _write(target: Path, content: bytes) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    return target


def _relative(top: Path, path: Path) -> Path:
    try:
        return path.resolve().relative_to(top)
    except ValueError:
        raise RelevanceInputError(path, f"outside the git working tree {top}, so no revision holds it") from None
