"""Results kept per digest of everything they are computed from: the YAML memo's idea (parsed
documents per sha256 of their bytes), one level up.

A pin's derived file, its comparison's lines and its check are functions of the pinned
upstream bytes (named by their sha256 in sources.lock), the project's own files
(sources.yaml, the lock, the overlay, a ``file:`` role's dump, the committed outputs a check
reads) and paramdiff itself (its code and data). The key is the sha256 of all of them, so
a result is read back only for the very inputs it was computed from; a change to any of
them is a new key and the result is computed again. A pin that reads a file nothing pins
— a launch's defaults file or a Gazebo model in the repository (whose ``<include>``s
resolve through the file system and GZ_SIM_RESOURCE_PATH) — is never kept, nor is any run
given ``--model``, ``--launch`` or ``--world``.

Measured (docs/performance.md): a warm `check` of this repository's four pins 0.37 s →
0.13 s, `derive --check` 0.18 → 0.10 s. ``PARAMDIFF_MEMO=0`` computes everything (the bench
reports both). An entry that cannot be read or parsed is a miss; one that cannot be written
is left unwritten: the memo is never the reason a command fails.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import posixpath
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .config.lock import LOCK_FILE
from .config.sources import SOURCES_FILE
from .digests import sha256_of
from .errors import ParamdiffError
from .fetch.verified import VerifiedIndex
from .files import read_regular, write_atomic
from .model.locked import LockedFile
from .parse.launch import names_file, parse_launch, pinned_role

if TYPE_CHECKING:
    from .pin import Pin

MEMO_FORMAT = "paramdiff-memo 1"
ENV_MEMO = "PARAMDIFF_MEMO"  # "0": compute every result, keep none
PACKAGE = Path(__file__).resolve().parent


def fingerprint(folder: Path) -> str:
    """Every file under ``folder`` (bytecode caches aside) by path, size and modification
    time: how Python itself decides a .pyc is stale."""
    entries = []
    for where, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            path = os.path.join(where, name)
            st = os.stat(path)
            entries.append(f"{os.path.relpath(path, folder)} {st.st_size} {st.st_mtime_ns}")
    return sha256_of("\n".join(entries).encode())


@functools.cache
def code_fingerprint() -> str:
    """paramdiff's code and data as installed, and the interpreter that runs them."""
    return sha256_of(f"{sys.version}\n{fingerprint(PACKAGE)}".encode())


class Memo(NamedTuple):
    """One result's place in the cache: ``results/<key>``."""

    path: Path

    def get(self, pin: Pin) -> Any | None:
        """The kept result, when the cache still holds every pinned file of ``pin`` as
        verified (what a computation would read: a damaged file is a miss, as there)."""
        if not pinned_files_intact(pin):
            return None
        try:
            entry = json.loads(read_regular(self.path))
        except (OSError, ValueError, ParamdiffError):
            return None  # missing, damaged, or not a regular file: computed again
        if not isinstance(entry, dict) or entry.get("format") != MEMO_FORMAT:
            return None
        value = entry.get("value")
        if entry.get("sha256") != sha256_of(json.dumps(value).encode()):
            return None  # edited or damaged: computed again (the parsed entries' rule)
        return value

    def put(self, value: Any) -> None:
        digest = sha256_of(json.dumps(value).encode())
        data = json.dumps({"format": MEMO_FORMAT, "sha256": digest, "value": value}).encode()
        # an unwritable cache costs the next run the time, nothing else
        with contextlib.suppress(OSError, ParamdiffError):
            if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
                return  # a FIFO, device or link planted where the entry goes: never written
            write_atomic(self.path, data)


def pin_memo(pin: Pin, kind: str, *options: object) -> Memo | None:
    """Where ``kind``'s result for this pin and these options is kept; None when the memo is
    off or the pin reads a file no digest pins."""
    if os.environ.get(ENV_MEMO, "1") == "0":
        return None
    inputs = pin_inputs(pin)
    if inputs is None:
        return None
    key = sha256_of(json.dumps([MEMO_FORMAT, code_fingerprint(), kind, options, inputs]).encode())
    return Memo(pin.project.cache().root / "results" / key[:2] / key)


def pinned_files_intact(pin: Pin) -> bool:
    """Whether the cache holds each locked file of the pin's upstream roles (and each file it
    includes) as this cache verified it for that repo, commit and path, the bytes hashing to
    the lock's sha256 (hashed as read, not kept: Cache.holds)."""
    lock, cache = pin.lock(), pin.project.cache()
    if lock is None:
        return False
    index = VerifiedIndex(cache.root)
    for spec in pin.specs.values():
        entry = lock.get(pin.profile.name, pin.pin, spec.role)
        if spec.is_local:
            continue  # its bytes are in the key (pin_inputs)
        if entry is None:
            return False
        for f in (LockedFile(spec.path, entry.size, entry.sha256, entry.blob), *entry.includes):
            seen = index.get(spec.repo, entry.commit, f.path)
            if seen is None or (seen.size, seen.sha256, seen.blob) != (f.size, f.sha256, f.blob):
                return False
            if not cache.holds(seen.sha256, seen.size):
                return False
    return True


def pin_inputs(pin: Pin) -> dict[str, Any] | None:
    """The project's files a pin's results are computed from, each by its sha256 (None for
    one that is missing: the computation says what is wrong); None when the pin reads a file
    nothing pins, so its results are never kept."""
    profile = pin.profile
    if not _only_pinned_files(pin):
        return None
    paths = [SOURCES_FILE, LOCK_FILE, profile.overlay or ""]
    paths += [spec.path for spec in pin.specs.values() if spec.is_local]
    return {
        "profile": profile.name,
        "pin": pin.pin,
        "files": {p: file_digest(pin.config.root, p) for p in paths if p},
    }


def file_digest(root: Path, path: str) -> str | None:
    """sha256 of a project file, None when it is not there (or not a regular file)."""
    try:
        return sha256_of(read_regular(root / path))
    except (OSError, ParamdiffError):
        return None


def _only_pinned_files(pin: Pin) -> bool:
    """Whether every model and every defaults file the profile's launches and checks read is
    a pinned role (or the derived file itself)."""
    profile = pin.profile
    roles = (*profile.target_models, *(d.model for d in profile.launches if d.model))
    if any(role not in pin.specs for role in roles):
        return False
    target = profile.derived_path(pin.pin) or ""
    try:
        launches = [parse_launch(d.command) for d in profile.launches]
    except ParamdiffError:
        return False  # the computation says what is wrong with the command
    for launch in launches:
        for f in launch.files:
            frame = f.origin.startswith("frame")
            pinned = pinned_role(pin.specs, posixpath.normpath(f.path), exact=frame)
            if pinned is None and not (target and names_file(f.path, target)):
                return False
    return True
