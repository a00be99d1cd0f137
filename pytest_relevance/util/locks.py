"""File locks shared by runs and xdist workers: the baseline's writes and the index cache's builds.

flock (msvcrt on Windows), so the system releases a lock whose holder died, and no third-party lock package is needed.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from pytest_relevance.errors import RelevanceInputError


@contextlib.contextmanager
def locked(lock: Path, timeout: float | None, owner: Path, what: str) -> Iterator[None]:
    """An exclusive lock held on the file `lock`, created if need be and removed when released; after `timeout`
    seconds (None: no limit) of waiting, an error about `owner` that names `what` is locked.

    The lock file lives beside what it guards, so that whoever may write that may take its lock (a folder in the
    shared temp directory belonged to the first user who made it). Removing a lock file races with a run that opened
    it just before: that run finds, once it holds the lock, that the name no longer leads to the file it locked, and
    tries again. A run that dies without removing it leaves an unlocked file, which the next run takes and removes.
    """
    fd = _wait(lambda: _try_lock(lock), timeout, owner, f"{what} ({lock})")
    try:
        yield
    finally:
        _unlock(fd, lock)


def _wait(take: Callable[[], int | None], timeout: float | None, owner: Path, what: str) -> int:
    """The descriptor `take` returns once it holds the lock; the error naming `what` after `timeout` seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while (fd := take()) is None:
        if deadline is not None and time.monotonic() > deadline:
            raise RelevanceInputError(
                owner, f"another pytest run has held {what} for {timeout} s; wait for it to finish, then run again"
            )
        time.sleep(0.05)
    return fd


def _try_lock(lock: Path) -> int | None:
    """The descriptor of the lock file, locked, or None when another run holds it. Read-only is enough to lock, so
    a lock file another user's run created (mode 0644) can be taken too."""
    fd = os.open(lock, os.O_RDONLY | os.O_CREAT, 0o666)
    try:
        if _lock_fd(fd):
            with contextlib.suppress(FileNotFoundError):
                if os.path.samestat(os.fstat(fd), os.stat(lock)):
                    return fd
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)  # closing also unlocks a file that was removed (or replaced) before it was locked
    return None


if sys.platform == "win32":
    import msvcrt

    def _lock_fd(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int, lock: Path) -> None:
        """Windows cannot remove a file another run has open; that run removes it when it is done."""
        os.close(fd)
        with contextlib.suppress(OSError):
            lock.unlink()

    def directory_locked(
        directory: Path, timeout: float | None, owner: Path, what: str
    ) -> contextlib.AbstractContextManager[None]:
        """Windows cannot lock a directory: a lock file in the temp directory, named by the directory's path, stands
        in for it (Windows' temp directory is the user's own)."""
        import hashlib
        import tempfile

        digest = hashlib.sha256(str(directory).encode()).hexdigest()[:16]
        return locked(Path(tempfile.gettempdir()) / f"pytest-relevance-{digest}.lock", timeout, owner, what)

else:
    import fcntl

    def _lock_fd(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int, lock: Path) -> None:
        """Removed while still held, so that no run can lock the old file and think it holds the lock."""
        try:
            with contextlib.suppress(OSError):  # not removed: a file left unlocked, which the next run takes
                lock.unlink()
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def directory_locked(directory: Path, timeout: float | None, owner: Path, what: str) -> Iterator[None]:
        """An exclusive lock on `directory` itself (flock on its descriptor), for the files in it: nothing is
        created, so a run killed while it holds the lock leaves no file for `git add -A` to pick up, and whoever
        may read the directory may take it. After `timeout` seconds of waiting, an error about `owner`."""
        fd = _wait(lambda: _try_lock_directory(directory), timeout, owner, f"{what} (a lock on {directory})")
        try:
            yield
        finally:
            os.close(fd)

    def _try_lock_directory(directory: Path) -> int | None:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if _lock_fd(fd):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        return None
