"""sources.lock: which commit and which bytes each role of each pin resolved to."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from paramdiff.config.roles import LOCAL_REPO, SourceSpec
from paramdiff.config.validators import (
    check_keys,
    check_ref,
    check_relpath,
    check_repo,
    mapping,
    sequence,
    text,
)
from paramdiff.config.yamlfile import KeyPath, YamlDoc, dump_yaml, load_yaml
from paramdiff.digests import sha256_of
from paramdiff.errors import ConfigError, quote
from paramdiff.files import TEXT_LIMIT, project_path, read_regular, write_atomic
from paramdiff.model.locked import LockedFile

LOCK_FILE = "sources.lock"
LOCK_VERSION = 1
HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
HEADER = (
    "# sources.lock — written by `paramdiff fetch`; do not edit by hand.\n"
    "# Re-resolve refs with `paramdiff fetch --update`.\n"
)


@dataclass(frozen=True, slots=True)
class LockEntry:
    """One role's locked file: repository, ref and commit, path, format, size, digests, includes.
    Equal entries lock the same bytes: ``line`` (where sources.lock states it) is not compared."""

    # what to_yaml writes and equality compares
    FIELDS: ClassVar = (
        "repo",
        "ref",
        "commit",
        "path",
        "format",
        "size",
        "sha256",
        "blob",
        "includes",
    )

    repo: str
    ref: str
    commit: str
    path: str
    format: str
    size: int
    sha256: str
    blob: str
    includes: tuple[LockedFile, ...] = ()
    line: int = field(default=0, compare=False)

    def matches(self, spec: SourceSpec) -> bool:
        return (self.repo, self.ref, self.path, self.format) == (
            spec.repo,
            spec.ref,
            spec.path,
            spec.format,
        )

    @property
    def is_local(self) -> bool:
        return self.repo == LOCAL_REPO

    def files(self) -> list[LockedFile]:
        """The locked file, then each file it includes."""
        return [LockedFile(self.path, self.size, self.sha256, self.blob), *self.includes]

    def to_yaml(self) -> dict[str, Any]:
        if self.is_local:  # a file of this repository: no repository, ref or commit
            d = {"file": self.path, **{k: getattr(self, k) for k in LOCAL_FIELDS}}
            if self.includes:  # its BlueOS %include files, also of this repository
                d["includes"] = [i._asdict() for i in self.includes]
            return d
        d = {k: getattr(self, k) for k in self.FIELDS}
        if not self.includes:
            d.pop("includes")
        else:
            d["includes"] = [i._asdict() for i in self.includes]
        return d


@dataclass(slots=True)
class Lock:
    """sources.lock: every entry by (profile, pin, role)."""

    entries: dict[tuple[str, str, str], LockEntry] = field(default_factory=dict)
    sha256: str = ""  # of the bytes parsed (read_lock): what a result kept for it names

    def get(self, profile: str, pin: str, role: str) -> LockEntry | None:
        return self.entries.get((profile, pin, role))

    def render(self) -> str:
        tree: dict[str, Any] = {}
        for (profile, pin, role), entry in sorted(self.entries.items()):
            tree.setdefault(profile, {}).setdefault(pin, {})[role] = entry.to_yaml()
        return HEADER + dump_yaml({"version": LOCK_VERSION, "profiles": tree})


LOCAL_FIELDS = ("format", "size", "sha256", "blob")


def _hex(
    doc: YamlDoc, at: KeyPath, fields: Any, key: str, pattern: re.Pattern[str], what: str
) -> str:
    value = fields[key]
    if not isinstance(value, str) or not pattern.match(value):
        raise doc.error(
            (*at, key),
            f"{key} {quote(repr(value))} is not {what}",
            "the lock was edited by hand; restore it from git or run paramdiff fetch --update",
        )
    return value


def _size(doc: YamlDoc, at: KeyPath, value: Any) -> int:
    # Bounded: a locked size becomes a read bound, and 2**63 overflowed the read (exit 3).
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 2**40:
        raise doc.error(
            at, f"size {quote(repr(value))} is not a byte count", "restore the lock from git"
        )
    return value


def _digests(doc: YamlDoc, at: KeyPath, fields: Any) -> tuple[int, str, str]:
    """(size, sha256, blob) of an entry or an include."""
    return (
        _size(doc, (*at, "size"), fields["size"]),
        _hex(doc, at, fields, "sha256", HEX64, "a sha256 hex digest"),
        _hex(doc, at, fields, "blob", HEX40, "a git blob id"),
    )


def _local_entry(doc: YamlDoc, path: KeyPath, raw: Any) -> LockEntry:
    """A file of this repository: its path, format and digests; no repository or commit."""
    check_keys(doc, path, raw, {"file", *LOCAL_FIELDS}, {"includes"})
    size, sha256, blob = _digests(doc, path, raw)
    return LockEntry(
        repo=LOCAL_REPO,
        ref="",
        commit="",
        path=check_relpath(raw["file"], doc, (*path, "file")),
        format=text(doc, (*path, "format"), raw["format"]),
        size=size,
        sha256=sha256,
        blob=blob,
        includes=_includes(doc, path, raw),
        line=doc.line(path),
    )


def _includes(doc: YamlDoc, path: KeyPath, raw: Any) -> tuple[LockedFile, ...]:
    includes = []
    for i, inc in enumerate(sequence(doc, (*path, "includes"), raw.get("includes"))):
        ipath = (*path, "includes", i)
        check_keys(doc, ipath, inc, {"path", "size", "sha256", "blob"}, set())
        path_ = check_relpath(inc["path"], doc, (*ipath, "path"))
        includes.append(LockedFile(path_, *_digests(doc, ipath, inc)))
    return tuple(includes)


def _entry(doc: YamlDoc, path: KeyPath, raw: Any) -> LockEntry:
    if isinstance(raw, dict) and "file" in raw:
        return _local_entry(doc, path, raw)
    check_keys(
        doc,
        path,
        raw,
        {"repo", "ref", "commit", "path", "format", "size", "sha256", "blob"},
        {"includes"},
    )
    includes = _includes(doc, path, raw)
    size, sha256, blob = _digests(doc, path, raw)
    return LockEntry(
        repo=check_repo(raw["repo"], doc, (*path, "repo")),
        ref=check_ref(text(doc, (*path, "ref"), raw["ref"]), doc, (*path, "ref")),
        commit=_hex(doc, path, raw, "commit", HEX40, "a 40-hex commit"),
        path=check_relpath(raw["path"], doc, (*path, "path")),
        format=text(doc, (*path, "format"), raw["format"]),
        size=size,
        sha256=sha256,
        blob=blob,
        includes=includes,
        line=doc.line(path),
    )


def parse_lock(data: bytes, file: str = LOCK_FILE) -> Lock:
    doc = load_yaml(data, file)
    raw = check_keys(doc, (), doc.data, {"version", "profiles"}, set())
    if type(raw["version"]) is not int or raw["version"] != LOCK_VERSION:
        raise doc.error(
            ("version",),
            f"unsupported lock version {quote(repr(raw['version']))} (this paramdiff writes "
            f"version {LOCK_VERSION})",
            "upgrade paramdiff, or delete sources.lock and run: paramdiff fetch",
        )
    lock = Lock()
    for profile, pins in mapping(doc, ("profiles",), raw["profiles"]).items():
        for pin, roles in mapping(doc, ("profiles", profile), pins).items():
            for role, entry in mapping(doc, ("profiles", profile, pin), roles).items():
                path = ("profiles", profile, pin, role)
                lock.entries[(str(profile), str(pin), str(role))] = _entry(doc, path, entry)
    return lock


def read_lock(root: Path) -> Lock | None:
    try:
        data = read_regular(project_path(root, LOCK_FILE), limit=TEXT_LIMIT, label=LOCK_FILE)
    except FileNotFoundError:
        return None
    lock = parse_lock(data)
    lock.sha256 = sha256_of(data)
    return lock


def write_lock(root: Path, lock: Lock) -> bool:
    """Write the lock if its bytes change; True when written."""
    return write_atomic(project_path(root, LOCK_FILE), lock.render().encode())


def require_entry(lock: Lock | None, profile: str, pin: str, spec: SourceSpec) -> LockEntry:
    """The locked entry for a role, consistent with sources.yaml, or an error naming the fix."""
    fix = f"run: paramdiff fetch --profile {profile} --pin {pin}"
    if lock is None:
        raise ConfigError(f"no {LOCK_FILE} yet", fix)
    entry = lock.get(profile, pin, spec.role)
    if entry is None:
        raise ConfigError(
            f"{LOCK_FILE} has no entry for {profile} {pin} {spec.role}", fix, file=LOCK_FILE
        )
    if not entry.matches(spec):
        raise ConfigError(
            f"{LOCK_FILE} entry for {profile} {pin} {spec.role} ({entry.repo}@{entry.ref} "
            f"{entry.path}) does not match sources.yaml ({spec.repo}@{spec.ref} {spec.path})",
            f"if you changed sources.yaml, {fix}; if not, the lock was edited: restore it from git",
            file=LOCK_FILE,
            line=entry.line,
        )
    return entry
