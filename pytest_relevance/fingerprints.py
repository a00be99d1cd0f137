"""Content fingerprints of input files: git's blob SHA-1 of their bytes.

Git's own object id, so a fingerprint can be checked with `git hash-object FILE` and compared with what a commit
holds. The index cache keys its entries with them (corpus, index config, the files the config references).
"""

from __future__ import annotations

import hashlib
from pathlib import Path


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
