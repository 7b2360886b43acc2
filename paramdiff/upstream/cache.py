"""A content-addressed cache of verified upstream files: ``<dir>/sha256/<ab>/<digest>``.

Entries are immutable: a digest's bytes never change, so a cache hit needs no
network and a corrupted entry is detected (and ignored) by re-hashing.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..digests import sha256_of
from ..errors import FetchError
from ..files import read_regular, write_atomic

ENV_CACHE = "PARAMDIFF_CACHE"


def default_cache_dir() -> Path:
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("paramdiff"))


class Cache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, sha256: str) -> Path:
        return self.root / "sha256" / sha256[:2] / sha256

    def get(self, sha256: str) -> bytes | None:
        try:  # a FIFO or device planted in the cache is an error naming it, never read
            data = read_regular(self.path_for(sha256))
        except FileNotFoundError:
            return None
        # A damaged entry is a miss, never a source of wrong bytes.
        return data if sha256_of(data) == sha256 else None

    def put(self, data: bytes) -> str:
        digest = sha256_of(data)
        path = self.path_for(digest)
        if self.get(digest) is None:
            try:
                write_atomic(path, data)
            except Exception as exc:
                raise FetchError(
                    f"cannot write the cache entry {path}: {exc}",
                    "make the cache directory writable, or pass --cache-dir / set PARAMDIFF_CACHE",
                ) from None
        return digest
