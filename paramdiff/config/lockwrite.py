"""Changing sources.lock safely: under a file lock, read-modify-write, all or nothing.

Two ``paramdiff fetch`` runs at once (one per profile, say) each read the lock, fetch,
and write it back; without coordination the second write drops the first one's entries.
So a fetch computes its entries without holding anything (downloads can be slow),
then, holding an exclusive lock on ``.sources.lock.lock`` beside the lock:

1. re-reads sources.lock as it is *now*;
2. refuses if another run meanwhile changed an entry this run also changes (to
   something else) — last-writer-wins would silently undo the other run;
3. changes only this run's entries, keeps everything else as it is on disk;
4. writes the whole file once (temp file, fsync, rename): every target or none, and a
   failed write (a full disk) leaves the old lock byte for byte.

The file lock is ``filelock.FileLock`` (flock(2) on POSIX, LockFileEx on Windows), held
by an open descriptor, so a killed process never leaves a stale lock behind. The lock file
itself stays (removing it would race with a waiter); it is empty and git-ignored.
"""

from __future__ import annotations

import errno
import stat
from pathlib import Path

import filelock

from paramdiff.config.lock import LOCK_FILE, Lock, LockEntry, read_lock, write_lock
from paramdiff.errors import FetchError, ParamdiffError
from paramdiff.files import describe_kind

LOCK_GUARD = ".sources.lock.lock"
WAIT_SECONDS = 120.0  # another fetch may be downloading; give up (with a message) after this

Key = tuple[str, str, str]


def commit_entries(
    root: Path, base: Lock, changes: dict[Key, LockEntry], wait: float = WAIT_SECONDS
) -> bool:
    """Write ``changes`` (entries this run added or moved, computed from ``base``) into the
    lock on disk. True when the file was written."""
    if not changes:
        return False

    guard = root / LOCK_GUARD
    _refuse_odd_guard(root, guard)
    held = filelock.FileLock(guard, timeout=wait)
    try:
        held.acquire()
    except filelock.Timeout:
        raise FetchError(
            f"another process has held {guard} for {wait:g}s (a paramdiff fetch still running?)",
            "wait for it to finish, then run the command again",
        ) from None
    except OSError as exc:
        raise _guard_error(root, guard, exc) from None
    try:
        current = read_lock(root) or Lock()
        _refuse_conflicts(base, current, changes)
        merged = Lock(dict(current.entries))
        merged.entries.update(changes)
        return write_lock(root, merged)
    finally:
        held.release()


def _refuse_odd_guard(root: Path, guard: Path) -> None:
    """The lock file must be an empty regular file paramdiff made (or none yet): a symlink
    (filelock opens with O_NOFOLLOW: ELOOP) or anything else is named for what it is."""
    try:
        mode = guard.lstat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _guard_error(root, guard, exc) from None
    if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
        kind = "a symlink" if stat.S_ISLNK(mode) else describe_kind(mode)
        raise ParamdiffError(
            f"cannot write {root / LOCK_FILE}: its lock file {guard} is {kind}, not a regular file",
            f"remove {guard.name}; paramdiff fetch creates it again as an empty file",
        )


def _guard_error(root: Path, guard: Path, exc: OSError) -> ParamdiffError:
    """What went wrong creating or opening the lock file, with the fix for that cause."""
    what = f"cannot write {root / LOCK_FILE}: cannot open its lock file {guard.name}"
    if exc.errno == errno.ELOOP:  # a symlink put there after the check above
        return ParamdiffError(
            f"{what}: it is a symlink",
            f"remove {guard.name}; paramdiff fetch creates it again as an empty file",
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return ParamdiffError(f"{what} ({exc.strerror or exc})", "make the directory writable")
    return ParamdiffError(
        f"{what} ({exc.strerror or exc})", f"check {guard.parent} and {guard.name} in it"
    )


def _refuse_conflicts(base: Lock, current: Lock, changes: dict[Key, LockEntry]) -> None:
    moved = [
        key
        for key, new in changes.items()
        if current.entries.get(key) not in (base.entries.get(key), new)
    ]
    if moved:
        names = ", ".join(" ".join(k) for k in sorted(moved))
        raise FetchError(
            f"{LOCK_FILE} changed while this fetch ran: another run wrote {names} differently; "
            "nothing was written",
            "run the command again (it starts from the lock as it is now)",
        )
