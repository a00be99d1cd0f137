"""The persistent index cache: an embedded index built once, then loaded by later runs and sibling xdist workers.

An entry is keyed by everything the index is made of: the engine (its identity and its code), the corpus (its
file's git blob id), the id field, the index config and every file it references (`*_path`: synonyms, stop words,
mappings), so changing any of them misses the cache. The mapping and its analyzers are always made from the config;
an entry holds only what the build computed (`EmbeddedIndex.state()`): its numpy arrays side by side in one `.npy`
file of bytes, loaded without unpickling (memory-mapped, copy on write, when large), each array a view at the
offset, dtype and shape that `index.json`, holding the rest, records. `manifest.json`, written last, records the
SHA-256 of both and its own: a file damaged, truncated or edited by hand (ids swapped in `index.json`) is never
trusted. Entries are written to a temporary directory and renamed into place, under a file lock: the first worker
builds, the others wait and load. An entry that fails any check is rebuilt, with a note naming the file. A cache
this user cannot write (read-only, another user's) is not used: the index is built in memory, with a warning.

The checksums find damage, not forgery: whoever can write the cache can write a manifest to match.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from pytest_relevance.engines.embedded.embedded_index import IDENTITY, EmbeddedIndex
from pytest_relevance.util.fingerprints import blob_sha1, file_sha1, referenced_files

FORMAT = 3  # bumped when the layout of an entry changes
MANIFEST, STATE, ARRAYS = "manifest.json", "index.json", "arrays.npy"  # an entry's files
_MAPPED = 1 << 20  # an entry's arrays are memory-mapped rather than read from this many bytes on
_ALIGN = 64  # each array starts at a multiple of this offset in the file, so every view is aligned
KEEP = 3  # entries kept: the most recently used (a few configs or branches in turn), so the cache does not grow


def open_cached(
    root: Path, corpus: Sequence[dict[str, Any]], config: dict[str, Any], id_field: str, source: str
) -> EmbeddedIndex:
    """The index of these inputs from the cache under `root`, built and saved there first when it is not."""
    fingerprint = getattr(corpus, "fingerprint", None)
    if fingerprint is None:
        index, seconds = _build(corpus, config, id_field, source)
        index.cache_note = f"index: built in {seconds:.1f} s, not cached (the corpus was not read from a file)"
        return index
    key = index_key(fingerprint, config, id_field, source)
    entry = root / key
    from pytest_relevance.util.locks import locked

    with contextlib.ExitStack() as held:
        try:
            loaded, problem = _load(entry, key, corpus, config, id_field, source)
            if loaded is not None:
                return loaded
            root.mkdir(parents=True, exist_ok=True)
            # no timeout: the lock is held only by a sibling building this entry, and the system releases it if
            # that dies
            held.enter_context(locked(root / f".{key}.lock", None, entry, "the index cache's lock"))
            loaded, _ = _load(entry, key, corpus, config, id_field, source)  # a sibling built it meanwhile
            if loaded is not None:
                return loaded
        except OSError as exc:  # the stamp, the folder or the lock: a cache this user cannot write
            return _uncached(root, exc, *_build(corpus, config, id_field, source))
        index, seconds = _build(corpus, config, id_field, source)
        try:
            _save(root, key, index)
        except OSError as exc:
            return _uncached(root, exc, index, seconds)
    index.cache_note = f"index: built in {seconds:.1f} s, cached"
    if problem:
        index.cache_note += f" (the cached entry {entry} was unusable, {problem}; rebuilt)"
    return index


def _uncached(root: Path, exc: OSError, index: EmbeddedIndex, seconds: float) -> EmbeddedIndex:
    """The index built in memory, as pytest's own cache carries on when it cannot write: with a warning (said once
    a session, however many xdist workers meet it) rather than a failed gate."""
    index.cache_note = f"index: built in {seconds:.1f} s, not cached"
    index.cache_warning = (
        f"the index cache {root} cannot be written ({type(exc).__name__}: {exc}), so the index is built in memory, "
        "on every run until it can be; make it writable by this user, or point pytest's cache_dir elsewhere"
    )
    return index


def index_key(fingerprint: str, config: dict[str, Any], id_field: str, source: str) -> str:
    """The entry's name: a hash of every input of the build."""
    base = Path(source).parent if Path(source).parent.is_dir() else Path(".")
    files = {str((base / name).absolute()): file_sha1(base / name) for name in sorted(referenced_files(config))}
    inputs = {
        "format": FORMAT,
        "engine": IDENTITY,
        "code": _code_fingerprint(),
        "numpy": np.__version__,
        "corpus": fingerprint,
        "id_field": id_field,
        "files": files,
    }
    try:
        body = json.dumps(config, sort_keys=True, default=repr)
    except TypeError:  # YAML keys of mixed types do not sort; the file's own order is as stable
        body = repr(config)
    return blob_sha1(json.dumps(inputs, sort_keys=True).encode() + body.encode())


@cache
def _code_fingerprint() -> str:
    """A hash of the engine's source and data files (and the clock, which reads dates): an entry built by other
    code is never loaded, even where a change forgot to bump the engine version."""
    package = Path(__file__).resolve().parent
    files = sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files.append(package.parent.parent / "inputs" / "clock.py")
    return blob_sha1(b"".join(str(p.relative_to(package.parent.parent)).encode() + p.read_bytes() for p in files))


def _build(
    corpus: Sequence[dict[str, Any]], config: dict[str, Any], id_field: str, source: str
) -> tuple[EmbeddedIndex, float]:
    start = time.perf_counter()
    index = EmbeddedIndex(corpus, config, id_field, source)
    return index, time.perf_counter() - start


def _load(
    entry: Path, key: str, corpus: Sequence[dict[str, Any]], config: dict[str, Any], id_field: str, source: str
) -> tuple[EmbeddedIndex | None, str | None]:
    """(the index, None) from a sound entry; (None, None) when there is none; (None, what is wrong, naming the file)
    otherwise. Raises OSError when the entry cannot be stamped: it is in a cache this user cannot write (another
    user's)."""
    start = time.perf_counter()
    try:
        os.utime(entry)  # recently used: kept when a new entry is saved
    except FileNotFoundError:
        return None, None
    name = MANIFEST  # the file being read, which a problem names
    try:
        digests = _manifest(entry, key)
        for name in (STATE, ARRAYS):  # every file checked before any is trusted
            if _digest(entry / name) != digests.get(name):
                raise _Damaged(f"does not match its checksum in {MANIFEST}")
        name = STATE
        state = json.loads((entry / STATE).read_bytes().decode("utf-8"))
        name, path = ARRAYS, entry / ARRAYS
        blob = np.load(path, mmap_mode="c" if path.stat().st_size >= _MAPPED else None, allow_pickle=False)
        if blob.dtype != np.uint8 or blob.ndim != 1:
            raise _Damaged(f"holds {blob.dtype} in {blob.ndim} dimensions, not bytes")
        name = STATE
        index = EmbeddedIndex(corpus, config, id_field, source, _with_arrays(state, np.asarray(blob)))
    except _Damaged as exc:
        return None, f"{name} {exc}"
    except Exception as exc:  # anything wrong with the entry (not with the inputs, which built it) means rebuild
        return None, f"{name}: {type(exc).__name__}: {exc}"
    milliseconds = (time.perf_counter() - start) * 1000
    index.cache_note = f"index: cached ({index.n:,} docs, loaded in {milliseconds:.0f} ms)"
    return index, None


class _Damaged(Exception):
    """What is wrong with one of an entry's files, said after its name."""


def _manifest(entry: Path, key: str) -> dict[str, str]:
    """The checksums of the entry's other files, from a manifest that is whole (it matches its own checksum) and
    was written for this key by this version."""
    manifest = json.loads((entry / MANIFEST).read_bytes().decode("utf-8"))
    if not isinstance(manifest, dict) or manifest.pop("sha256", None) != _seal(manifest):
        raise _Damaged("does not match its own checksum")
    written = manifest.get("format"), manifest.get("engine")
    if written != (FORMAT, IDENTITY) or manifest.get("key") != key:
        raise _Damaged(f"was written by another version (format {written[0]!r}, {written[1]!r}) or for another key")
    return manifest["files"]


def _seal(manifest: dict[str, Any]) -> str:
    """The manifest's own checksum, over its content in a canonical form."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()


def _digest(path: Path) -> str:
    """A file's SHA-256, read in chunks (an entry's arrays may be hundreds of megabytes)."""
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _with_arrays(value: Any, blob: np.ndarray) -> Any:
    """The saved state with each array reference (`{"at": offset, "dtype", "shape"}`) replaced by its view."""
    if isinstance(value, list):  # most lists are terms, strings only: kept as they are after one C-level pass
        if set(map(type, value)) <= {str}:
            return value
        return [_with_arrays(item, blob) if type(item) in (list, dict) else item for item in value]
    if not isinstance(value, dict):
        return value
    if "at" not in value:
        return {key: _with_arrays(item, blob) for key, item in value.items()}
    dtype, shape, at = np.dtype(value["dtype"]), tuple(value["shape"]), int(value["at"])
    size = dtype.itemsize * int(np.prod(shape))
    if dtype.hasobject or at % _ALIGN or not 0 <= at <= at + size <= blob.size:
        raise _Damaged(f"refers to an array out of place ({value})")
    return blob[at : at + size].view(dtype).reshape(shape)


def _save(root: Path, key: str, index: EmbeddedIndex) -> None:
    """Write the entry beside its final place and rename it there (a reader never sees half an entry)."""
    for stale in root.glob(f".tmp-{key}-*"):  # a build killed while saving (this key's lock is held)
        shutil.rmtree(stale, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=root))
    try:
        parts: list[bytes] = []
        size = 0

        def refer(value: Any) -> Any:
            nonlocal size
            if isinstance(value, np.ndarray):
                data = np.ascontiguousarray(value).tobytes()
                parts.append(data + bytes(-len(data) % _ALIGN))
                reference = {"at": size, "dtype": value.dtype.str, "shape": list(value.shape)}
                size += len(parts[-1])
                return reference
            if isinstance(value, list):
                return [refer(item) for item in value]
            if isinstance(value, dict):
                return {k: refer(item) for k, item in value.items()}
            return value

        state = refer(index.state())
        blob = np.frombuffer(b"".join(parts), dtype=np.uint8)
        np.save(folder / ARRAYS, blob, allow_pickle=False)
        (folder / STATE).write_text(json.dumps(state), encoding="utf-8")
        digests = {name: _digest(folder / name) for name in (STATE, ARRAYS)}  # of the files as written
        manifest = {"format": FORMAT, "engine": IDENTITY, "key": key, "files": digests}
        (folder / MANIFEST).write_text(json.dumps({**manifest, "sha256": _seal(manifest)}), encoding="utf-8")
        entry = root / key
        if entry.exists():  # a directory is not replaced by a rename: the unusable one moves aside first
            aside = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=root))
            os.replace(entry, aside / "old")
            shutil.rmtree(aside, ignore_errors=True)
        os.replace(folder, entry)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _prune(root)


def _prune(root: Path) -> None:
    """Remove all but the KEEP most recently used entries (their lock files stay: one may be held)."""

    def used(entry: Path) -> float:
        try:
            return entry.stat().st_mtime
        except OSError:
            return 0.0

    entries = sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")), key=used)
    for entry in entries[:-KEEP]:
        shutil.rmtree(entry, ignore_errors=True)
