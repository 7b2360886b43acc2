"""A content-addressed cache of verified upstream files: ``<dir>/sha256/<ab>/<digest>``.

Entries are immutable: a digest's bytes never change, so a cache hit needs no
network and a corrupted entry is detected (and ignored) by re-hashing.
"""

from __future__ import annotations

import os
import posixpath
import sys
from pathlib import Path

from ..digests import sha256_of
from ..errors import FetchError, InputError, ParamdiffError
from ..files import read_regular, write_atomic

ENV_CACHE = "PARAMDIFF_CACHE"


def default_cache_dir() -> Path:
    """$PARAMDIFF_CACHE, else the user cache dir as platformdirs names it."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env)
    linux = _linux_cache_dir()
    if linux is not None:
        return linux
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("paramdiff"))


def _linux_cache_dir() -> Path | None:
    """platformdirs' answer on Linux where every version since 3.0 agrees on it, without its
    import (5.5 ms: tempfile, shutil, random): $XDG_CACHE_HOME/paramdiff when that is an
    absolute path, $HOME/.cache/paramdiff when it is unset or blank and $HOME is absolute.
    Anything else (a relative XDG_CACHE_HOME, an Android app, another OS) asks platformdirs."""
    if (
        sys.platform != "linux"
        or hasattr(sys, "getandroidapilevel")
        or "ANDROID_ROOT" in os.environ
    ):
        return None
    xdg, home = os.environ.get("XDG_CACHE_HOME", ""), os.environ.get("HOME", "")
    if posixpath.isabs(xdg):
        return Path(xdg, "paramdiff")
    if not xdg.strip() and posixpath.isabs(home):
        return Path(os.path.expanduser("~/.cache"), "paramdiff")
    return None


class Cache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, sha256: str) -> Path:
        return self.root / "sha256" / sha256[:2] / sha256

    def get(self, sha256: str) -> bytes | None:
        """The entry's bytes, or None: missing, damaged, or not a regular file (a FIFO, a
        directory, a device planted in the cache is never read, and counts as a miss)."""
        try:
            data = read_regular(self.path_for(sha256))
        except (FileNotFoundError, InputError):
            return None
        # A damaged entry is a miss, never a source of wrong bytes.
        return data if sha256_of(data) == sha256 else None

    def put(self, data: bytes) -> str:
        digest = sha256_of(data)
        path = self.path_for(digest)
        if self.get(digest) is None:
            try:
                _clear(path)  # whatever sits there is not a good entry: replace it, never use it
                write_atomic(path, data)
            except (OSError, ParamdiffError) as exc:
                what = exc.what if isinstance(exc, ParamdiffError) else (exc.strerror or str(exc))
                raise FetchError(
                    f"cannot write the cache entry {path}: {what}",
                    "make the cache directory writable, or pass --cache-dir / set PARAMDIFF_CACHE",
                ) from None
        return digest


def _clear(path: Path) -> None:
    """Remove whatever non-regular thing (a symlink, a FIFO, a directory) sits where a cache
    entry goes."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        if path.is_dir() and not path.is_symlink():
            import shutil  # only to clear a planted directory (it loads zlib, bz2, lzma: 1.6 ms)

            shutil.rmtree(path)  # inside our own cache directory: whatever was planted there
        else:
            path.unlink()
