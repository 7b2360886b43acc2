"""The two digests every upstream file is verified by: sha256 and git's blob id."""

from __future__ import annotations

import hashlib


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def git_blob_id(data: bytes) -> str:
    """git's object id of a file: sha1("blob <size>\0" + bytes)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
