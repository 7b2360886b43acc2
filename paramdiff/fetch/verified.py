"""What the cache has verified: which bytes a (repo, commit, path) held when fetched.

The content-addressed cache (``<cache>/sha256/..``) proves only that bytes hash to a
digest; it says nothing about where they came from. A lock entry names a repo, a
commit and a path, so a cache hit must also prove that *this* repo held *these* bytes
at *that* commit and path — otherwise a lock edited to an invented commit (or blob, or
size) would be satisfied by bytes cached for the real one.

This index remembers exactly that, one small JSON record per (repo, commit, path):
``<cache>/verified/<ab>/<sha256 of the key>.json``, written (atomically) only after a
download verified against the source's own claims and the lock. A record is checked
before it is believed: a regular file, bounded in size, exactly the expected fields and
types, for the key its file name says, with a checksum over its fields. Anything else
is a miss, and a miss is re-verified at the source (or refused with ``--offline``).

One file per key, written by rename, means concurrent fetches never need to merge it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, NamedTuple

from paramdiff.errors import FetchError, ParamdiffError
from paramdiff.files import READ_FLAGS, write_atomic
from paramdiff.model.locked import LockedFile

INDEX_DIR = "verified"
MAX_RECORD_BYTES = 16 * 1024  # a record is ~400 bytes; paths are bounded well below this
FIELDS = {"repo": str, "commit": str, "path": str, "size": int, "sha256": str, "blob": str}


class VerifiedFile(NamedTuple):
    """``path`` at ``commit`` of ``repo`` held ``size`` bytes with these digests."""

    repo: str
    commit: str
    path: str
    size: int
    sha256: str
    blob: str


def _checksum(fields: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _key(repo: str, commit: str, path: str) -> str:
    return hashlib.sha256(f"{repo}\0{commit}\0{path}".encode()).hexdigest()


class VerifiedIndex:
    def __init__(self, cache_root: Path) -> None:
        self.root = cache_root / INDEX_DIR

    def path_for(self, repo: str, commit: str, path: str) -> Path:
        key = _key(repo, commit, path)
        return self.root / key[:2] / f"{key}.json"

    def as_locked(self, repo: str, commit: str, locked: LockedFile) -> VerifiedFile | None:
        """The verified record of ``locked``'s path at ``commit`` when it is what the lock
        records (size, sha256, git blob); None for any other record, or none."""
        seen = self.get(repo, commit, locked.path)
        if seen is None or (seen.size, seen.sha256, seen.blob) != (
            locked.size,
            locked.sha256,
            locked.blob,
        ):
            return None
        return seen

    def get(self, repo: str, commit: str, path: str) -> VerifiedFile | None:
        """The verified record for this key, or None (absent, damaged, or not for this key)."""
        raw = _read_regular(self.path_for(repo, commit, path))
        if raw is None:
            return None
        try:
            doc = json.loads(raw)
        except (ValueError, RecursionError):  # damaged, forged or nested too deep: a miss
            return None
        if not isinstance(doc, dict) or set(doc) != {*FIELDS, "check"}:
            return None
        fields = {k: doc[k] for k in FIELDS}
        if any(type(fields[k]) is not t for k, t in FIELDS.items()):
            return None
        if doc["check"] != _checksum(fields) or (repo, commit, path) != (
            fields["repo"],
            fields["commit"],
            fields["path"],
        ):
            return None
        return VerifiedFile(**fields)

    def put(self, record: VerifiedFile) -> None:
        fields = record._asdict()
        data = json.dumps({**fields, "check": _checksum(fields)}, sort_keys=True).encode()
        target = self.path_for(record.repo, record.commit, record.path)
        try:
            if target.is_symlink() or (target.exists() and not target.is_file()):
                target.unlink()  # a damaged record that is not a file: never read it, replace it
            write_atomic(target, data)
        except (OSError, ParamdiffError) as exc:  # only the file system's refusals: a bug exits 3
            why = exc.strerror if isinstance(exc, OSError) else exc.what
            raise FetchError(
                f"cannot write the cache's verified index {target}: {why or exc}",
                "make the cache directory writable, or pass --cache-dir / set PARAMDIFF_CACHE",
            ) from None


def _read_regular(path: Path) -> bytes | None:
    """At most MAX_RECORD_BYTES of a regular file; None for anything else (a FIFO would
    block a plain open, a device would never end)."""
    try:
        fd = os.open(path, READ_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with contextlib.closing(os.fdopen(fd, "rb", closefd=False)) as fh:
            data = fh.read(MAX_RECORD_BYTES + 1)
        return data if len(data) <= MAX_RECORD_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)
