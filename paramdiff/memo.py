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
import site
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .config.lock import LOCK_FILE
from .config.sources import SOURCES_FILE
from .digests import sha256_of
from .errors import ParamdiffError
from .fetch.verified import VerifiedIndex
from .files import project_path, read_regular, write_atomic
from .parse.launch import file_kind, parse_launch

if TYPE_CHECKING:
    from .pin import Pin

MEMO_FORMAT = "paramdiff-memo 1"
ENV_MEMO = "PARAMDIFF_MEMO"  # "0": compute every result, keep none
PACKAGE = Path(__file__).resolve().parent


def fingerprint(folder: Path) -> str:
    """Every file under ``folder`` (bytecode caches aside): a module by path, size and
    modification time (how Python itself decides a .pyc is stale) and its change time (which
    no ``touch`` sets back), any other file (the package's data: tables, physics,
    vehicleinfo) by its bytes."""
    entries = []
    for where, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            path = os.path.join(where, name)
            st = os.stat(path)
            what = f"{st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"
            if not name.endswith(".py"):
                what = sha256_of(read_regular(path))
            entries.append(f"{os.path.relpath(path, folder)} {what}")
    return sha256_of("\n".join(entries).encode())


def installed() -> list[str]:
    """The distributions installed beside paramdiff, by name and version (their
    ``.dist-info`` folders): PyYAML, defusedxml and click read and print what is kept."""
    names: list[str] = []
    for folder in (*site.getsitepackages(), site.getusersitepackages()):
        with contextlib.suppress(OSError):
            names += sorted(e.name for e in os.scandir(folder) if e.name.endswith(".dist-info"))
    return names


@functools.cache
def code_fingerprint() -> str:
    """paramdiff's code and data as installed, what is installed with it, and the
    interpreter that runs them."""
    parts = [sys.version, fingerprint(PACKAGE), *installed()]
    return sha256_of("\n".join(parts).encode())


class NotKept(Exception):
    """A project file the key would hold is not a plain file of the project (a symlink out
    of it, a FIFO, a folder): the computation refuses it, so nothing is kept for it."""


class Memo(NamedTuple):
    """One result's place in the cache (``results/<key>``) and how to look at its inputs
    again: their key, and each file's identity (inode, size, modification and change times)."""

    path: Path
    key: str
    key_now: Callable[[], tuple[str, list[Any]] | None]
    files: list[Any]

    def get(self) -> Any | None:
        """The kept result (None: none, or damaged)."""
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
        """Keep ``value``, unless an input changed while it was computed: it may have read
        the new bytes, and must not be kept under the old ones' key."""
        if self.key_now() != (self.key, self.files):
            return  # (a file replaced and put back meanwhile has another change time)
        digest = sha256_of(json.dumps(value).encode())
        data = json.dumps({"format": MEMO_FORMAT, "sha256": digest, "value": value}).encode()
        # an unwritable cache costs the next run the time, nothing else
        with contextlib.suppress(OSError, ParamdiffError):
            if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
                return  # a FIFO, device or link planted where the entry goes: never written
            write_atomic(self.path, data)


def remembered(
    pin: Pin,
    kind: str,
    options: tuple[object, ...],
    make: Callable[[], Any],
    committed: tuple[str, ...] = (),
) -> Any:
    """``make()``'s value (plain JSON data), or the one kept for the very same inputs
    (``pin_memo``); a value made is kept for the next run."""
    memo = pin_memo(pin, kind, *options, committed=committed)
    # Read back only while the cache holds every pinned file as verified: a computation
    # would read them, and a damaged one is a miss there.
    if memo is not None and pinned_files_intact(pin):
        kept = memo.get()
        if kept is not None:
            return kept
    value = make()
    if memo is not None:
        memo.put(value)
    return value


def pin_memo(pin: Pin, kind: str, *options: object, committed: tuple[str, ...] = ()) -> Memo | None:
    """Where ``kind``'s result for this pin and these options is kept; ``committed``: the
    outputs the result compares (a check's derived file, report, top view), by their bytes.
    None when the memo is off, or the pin reads a file no digest pins, or a file the key
    would hold is not a plain file of the project."""
    if os.environ.get(ENV_MEMO, "1") == "0" or not _only_pinned_files(pin):
        return None

    def key_now() -> tuple[str, list[Any]] | None:
        try:
            inputs, files = pin_inputs(pin, committed)
        except NotKept:
            return None
        head = [MEMO_FORMAT, code_fingerprint(), kind, options]
        return sha256_of(json.dumps([*head, inputs]).encode()), files

    now = key_now()
    if now is None:
        return None
    key, files = now
    return Memo(pin.project.cache().root / "results" / key[:2] / key, key, key_now, files)


def pinned_files_intact(pin: Pin) -> bool:
    """Whether the cache holds each locked file of the pin's upstream roles (and each file it
    includes) as this cache verified it for that repo, commit and path, the bytes hashing to
    the lock's sha256 (hashed as read, not kept: Cache.holds); a role the pin verified in
    this run already (check verifies every one first) is not looked at again."""
    lock, cache = pin.lock(), pin.project.cache()
    if lock is None:
        return False
    index, verified = VerifiedIndex(cache.root), pin.verified_roles()
    for spec in pin.specs.values():
        entry = lock.get(pin.profile.name, pin.pin, spec.role)
        if spec.is_local or spec.role in verified:
            continue  # (a local role's bytes are in the key: pin_inputs)
        if entry is None:
            return False
        for f in entry.files():
            seen = index.as_locked(spec.repo, entry.commit, f)
            if seen is None or not cache.holds(seen.sha256, seen.size):
                return False
    return True


def pin_inputs(pin: Pin, committed: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[Any]]:
    """What a pin's results are computed from, by sha256: sources.yaml and the lock as the
    pin parsed them (at the start of the run), the overlay, its ``file:`` dumps and the
    ``committed`` outputs as they are now, each read the way the computation reads it
    (project_path: no symlink out of the project, none at all for a file paramdiff writes);
    and every one of those files' identity. NotKept for one that is not a plain file."""
    root, profile, lock = pin.config.root, pin.profile, pin.lock()
    if not pin.config.sha256 or lock is None or not lock.sha256:
        raise NotKept(LOCK_FILE)  # (read some other way than from the project's files)
    files = {SOURCES_FILE: pin.config.sha256, LOCK_FILE: lock.sha256}
    paths = [(p, False) for p in [profile.overlay or ""] if p]
    paths += [(spec.path, False) for spec in pin.specs.values() if spec.is_local]
    paths += [(p, True) for p in committed if p]
    identities = [_identity(root / SOURCES_FILE), _identity(root / LOCK_FILE)]
    for path, generated in paths:
        where = _inside(root, path, generated)
        files[path] = file_digest(where)
        identities.append(_identity(where))
    return {"profile": profile.name, "pin": pin.pin, "files": files}, identities


def _identity(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _inside(root: Path, path: str, generated: bool = False) -> Path:
    try:
        return project_path(root, path, generated=generated)
    except ParamdiffError:
        raise NotKept(path) from None


def file_digest(path: Path) -> str:
    """sha256 of a project file's bytes, or ``missing``; NotKept for anything but a regular
    file (a FIFO or folder where the file goes is an error the computation reports)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    except OSError:
        raise NotKept(str(path)) from None
    if stat.S_ISLNK(info.st_mode) and path.is_file():
        info = os.stat(path)  # a link inside the project (project_path allowed it)
    if not stat.S_ISREG(info.st_mode):
        raise NotKept(str(path))
    try:
        return sha256_of(read_regular(path))
    except (OSError, ParamdiffError):
        raise NotKept(str(path)) from None


def _only_pinned_files(pin: Pin) -> bool:
    """Whether every model and every defaults file the profile's launches and checks read is
    a pinned role (or the derived file itself)."""
    profile = pin.profile
    roles = (*profile.target_models, *(d.model for d in profile.launches if d.model))
    if any(role not in pin.specs for role in roles):
        return False
    target = profile.derived_path(pin.pin)
    try:
        launches = [parse_launch(d.command) for d in profile.launches]
    except ParamdiffError:
        return False  # the computation says what is wrong with the command
    files = [f for launch in launches for f in launch.files]
    return all(file_kind(pin.specs, f, target)[0] != "local" for f in files)
