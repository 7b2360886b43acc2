"""A content-addressed cache of verified upstream files: ``<dir>/sha256/<ab>/<digest>``, and
what parsing them gave, kept beside them: ``<dir>/parsed/<kind>/<ab>/<source sha256>``.

Entries are immutable: a digest's bytes never change, so a cache hit needs no
network and a corrupted entry is detected (and ignored) by re-hashing.

A parsed entry (fetch/parsed.py: the metadata; fetch/thrust_sheets.py: a thruster workbook's
sheets) is plain text, never pickle or marshal (the cache directory is not trusted code), under
a header naming the format, the kind, the source's sha256 and the sha256 of the payload. An
entry that fails any of them is a miss, and the caller parses again.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
from pathlib import Path

from paramdiff.digests import sha256_of
from paramdiff.errors import FetchError, InputError, ParamdiffError
from paramdiff.files import INPUT_LIMIT, READ_FLAGS, read_regular, write_atomic

ENV_CACHE = "PARAMDIFF_CACHE"


def default_cache_dir() -> Path:
    """$PARAMDIFF_CACHE, else the user cache dir as platformdirs names it."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env)
    # Only a run not told where its cache is needs platformdirs: with tempfile, shutil and
    # random, which it imports, ~7 ms (python -X importtime) of every warm command.
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("paramdiff"))


HASH_CHUNK = 256 * 1024
PARSED_FORMAT = "paramdiff-parsed 7"


class Cache:
    def __init__(self, root: Path) -> None:
        self.root = root
        # Entries verified in this run (one Cache per run): a file is read and hashed once,
        # however many profiles and roles share it (`check` read the calibration list 3 times).
        self._verified: dict[str, bytes] = {}
        self._held: dict[str, int] = {}  # sha256 -> size verified by ``holds`` (bytes not kept)

    def path_for(self, sha256: str) -> Path:
        return self.root / "sha256" / sha256[:2] / sha256

    def get(self, sha256: str) -> bytes | None:
        """The entry's bytes, or None: missing, damaged, or not a regular file (a FIFO, a
        directory, a device planted in the cache is never read, and counts as a miss)."""
        if sha256 in self._verified:
            return self._verified[sha256]
        try:
            data = read_regular(self.path_for(sha256))
        except (FileNotFoundError, InputError):
            return None
        # A damaged entry is a miss, never a source of wrong bytes.
        if sha256_of(data) != sha256:
            return None
        self._verified[sha256] = data
        return data

    def present(self, sha256: str, size: int) -> bool:
        """Whether a regular file of ``size`` bytes sits at the entry's path (not hashed:
        ``get`` hashes it when it is read)."""
        if sha256 in self._verified:
            return len(self._verified[sha256]) == size
        try:
            info = os.stat(self.path_for(sha256), follow_symlinks=False)
        except OSError:
            return False
        return stat.S_ISREG(info.st_mode) and info.st_size == size

    def holds(self, sha256: str, size: int) -> bool:
        """Whether the entry is a regular file of ``size`` bytes that hashes to ``sha256``,
        as ``get`` checks it, hashed as it is read through one small buffer and not kept: read
        whole, a 2 MB metadata file cost ~1 ms of fresh memory (page faults) besides its ~1 ms
        hash (measured: 2.35 ms for two, 4.1 ms read whole)."""
        if sha256 in self._verified:
            return len(self._verified[sha256]) == size
        if sha256 in self._held:
            return self._held[sha256] == size
        try:
            fd = os.open(self.path_for(sha256), READ_FLAGS)
        except OSError:
            return False
        try:  # checked before a file object is made: os.fdopen refuses a directory
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size != size or size > INPUT_LIMIT:
                return False
            with os.fdopen(fd, "rb", buffering=0, closefd=False) as fh:
                digest, read = _hash_stream(fh, size)
        finally:
            os.close(fd)
        if read != size or digest != sha256:
            return False  # damaged (or changed while read): a miss
        self._held[sha256] = size
        return True

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

    # -- parsed entries

    def parsed_path(self, kind: str, source_sha256: str) -> Path:
        return self.root / "parsed" / kind / source_sha256[:2] / source_sha256

    def read_parsed_payload(self, kind: str, source_sha256: str) -> tuple[bytes, int, str] | None:
        """The entry's bytes, where its payload starts and the payload's sha256, when the
        header and the digest check out, else None. The payload is hashed in place (never
        copied: copying and faulting in 1.8 MB of metadata took ~1.4 ms)."""
        try:  # a regular file of bounded size (a FIFO planted in the cache must not hang a run)
            data = read_regular(self.parsed_path(kind, source_sha256))
        except (OSError, InputError):
            return None
        end = data.find(b"\n")
        if end < 0:
            return None
        digest = hashlib.sha256(memoryview(data)[end + 1 :]).hexdigest()
        if data[:end] != f"{PARSED_FORMAT} {kind} {source_sha256} {digest}".encode():
            return None
        return data, end + 1, digest

    def read_parsed(self, kind: str, source_sha256: str) -> list[bytes] | None:
        """The entry's payload as lines, when its header and digest check out, else None."""
        entry = self.read_parsed_payload(kind, source_sha256)
        return None if entry is None else entry[0][entry[1] :].split(b"\n")

    def read_parsed_head(
        self, kind: str, source_sha256: str, head_lines: int
    ) -> tuple[list[bytes], bytes, int] | None:
        """The payload's first ``head_lines`` lines, the entry's bytes and where the rest of
        the payload starts in them, when the entry checks out and has that many lines."""
        entry = self.read_parsed_payload(kind, source_sha256)
        if entry is None:
            return None
        data, pos, _ = entry
        head = []
        for _ in range(head_lines):
            end = data.find(b"\n", pos)
            if end < 0:
                return None
            head.append(data[pos:end])
            pos = end + 1
        return head, data, pos

    def write_parsed(self, kind: str, source_sha256: str, payload: bytes) -> None:
        """Best effort: a cache that cannot be written only costs the next run a parse. Never
        written through a link, FIFO or device planted where the entry goes."""
        path = self.parsed_path(kind, source_sha256)
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return
        except FileNotFoundError:
            pass
        except OSError:
            return
        digest = hashlib.sha256(payload).hexdigest()
        head = f"{PARSED_FORMAT} {kind} {source_sha256} {digest}\n".encode()
        with contextlib.suppress(ParamdiffError):  # write_atomic's error for an unwritable dir
            write_atomic(path, head + payload)


def _hash_stream(fh: io.RawIOBase, size: int) -> tuple[str, int]:
    """sha256 of at most ``size`` + 1 bytes of ``fh``, and how many there were."""
    digest = hashlib.sha256()
    view = memoryview(bytearray(min(HASH_CHUNK, size + 1)))
    total = 0
    try:
        while total <= size:
            n = fh.readinto(view)
            if not n:
                break
            digest.update(view[:n])
            total += n
    except OSError:
        return "", -1
    return digest.hexdigest(), total


def _clear(path: Path) -> None:
    """Remove whatever non-regular thing (a symlink, a FIFO, a directory) sits where a cache
    entry goes."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        if path.is_dir() and not path.is_symlink():
            import shutil  # (once in a cache's life, if ever: its import is ~3 ms)

            shutil.rmtree(path)  # inside our own cache directory: whatever was planted there
        else:
            path.unlink()
