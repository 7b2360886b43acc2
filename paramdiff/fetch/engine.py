"""The engine ``fetch`` and ``materialize`` share: locked bytes from the cache, verified;
downloads (and verifies) only what the cache lacks.

``materialize`` (compare/derive/check) lives here, apart from the fetch command's lock writing
(``fetch.py``): a warm run finds every file in the cache and never imports the transports,
the HTTP client or ``socket`` (they load with the first download: ~8 ms of imports).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from paramdiff.config.lock import LOCK_FILE, Lock, LockEntry, require_entry
from paramdiff.config.roles import SourceSpec
from paramdiff.config.sources import Profile
from paramdiff.digests import git_blob_id, sha256_of
from paramdiff.errors import ConfigError, FetchError, UsageError
from paramdiff.fetch import DEFAULT_DEADLINE, ENV_DEADLINE, GIT_BASE, RAW_BASE
from paramdiff.fetch.cache import Cache
from paramdiff.fetch.verified import VerifiedFile, VerifiedIndex
from paramdiff.files import INPUT_LIMIT, TEXT_LIMIT, project_path, read_regular
from paramdiff.model.locked import LockedFile
from paramdiff.parse.param_text import MAX_PARAMS

if TYPE_CHECKING:
    from paramdiff.fetch.http import HttpClient
    from paramdiff.fetch.transports import Fetched, GitTransport, MirrorTransport, Transport
    from paramdiff.fetch.watchdog import CommandDeadline

ENV_MIRROR = "PARAMDIFF_MIRROR"
ENV_GIT_BASE = "PARAMDIFF_GIT_BASE"
MAX_WORKERS = 4
MIRROR_UNREACHABLE = "check the network and the mirror's URL (--mirror / PARAMDIFF_MIRROR)"


def deadline_from_env(environ: dict[str, str] | None = None) -> float:
    """Seconds for all of a command's downloads: PARAMDIFF_HTTP_DEADLINE, else 120."""
    text = (os.environ if environ is None else environ).get(ENV_DEADLINE, "").strip()
    if not text:
        return DEFAULT_DEADLINE
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise UsageError(
            f"{ENV_DEADLINE}={text[:40]!r} is not a number of seconds",
            f"set it to a positive number (the default is {DEFAULT_DEADLINE:g}), or unset it",
        )
    return seconds


def input_limit(fmt: str, main: bool = True) -> int:
    """The most bytes paramdiff reads of a pinned file: metadata (apm.pdef.json, ~2 MB) up to
    files.INPUT_LIMIT; a parameter file, model, name list or included file, which a person
    writes, up to files.TEXT_LIMIT (as for the same files named on the command line)."""
    return INPUT_LIMIT if fmt == "pdef" and main else TEXT_LIMIT


@dataclass(slots=True)
class TransportChoice:
    """Which transport serves a source: a mirror for everything, a global override,
    or the source's own ``transport:`` (https by default).

    Its HTTP transports share one client, so one deadline (``deadline`` seconds, from the
    first download) bounds all the command's downloads and ``stop`` ends them all;
    ``progress`` is told of every wait before a retry."""

    cache_dir: Path
    mirror: str | None = None
    override: str | None = None
    git_base: str = GIT_BASE
    raw_base: str | None = None
    deadline: float = DEFAULT_DEADLINE
    progress: Callable[[str], None] | None = None
    _made: dict[str, Transport] = field(default_factory=dict, init=False, repr=False)
    _client: HttpClient | None = field(default=None, init=False, repr=False)
    _clock: CommandDeadline | None = field(default=None, init=False, repr=False)

    @classmethod
    def from_env(
        cls,
        cache_dir: Path,
        mirror: str | None = None,
        override: str | None = None,
        git_base: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> TransportChoice:
        """Options win over the environment (PARAMDIFF_MIRROR, PARAMDIFF_GIT_BASE); the
        deadline is PARAMDIFF_HTTP_DEADLINE's."""
        return cls(
            cache_dir=cache_dir,
            mirror=mirror or os.environ.get(ENV_MIRROR) or None,
            override=override,
            git_base=git_base or os.environ.get(ENV_GIT_BASE) or GIT_BASE,
            deadline=deadline_from_env(),
            progress=progress,
        )

    def _command_deadline(self) -> CommandDeadline:
        """The deadline the command's downloads and git commands share; it starts with the
        first transport made (the first ref resolved or file fetched)."""
        if self._clock is None:
            from paramdiff.fetch.watchdog import CommandDeadline

            self._clock = CommandDeadline(self.deadline)
        return self._clock

    def _http(self, fix: str | None = None) -> HttpClient:
        if self._client is None:
            from paramdiff.fetch.http import UNREACHABLE, HttpClient, HttpSettings

            settings = HttpSettings(deadline=self.deadline)
            clock = self._command_deadline()
            self._client = HttpClient(settings, self.progress, fix or UNREACHABLE, clock)
        return self._client

    def stop(self) -> None:
        """End every download in flight: one failed, so the command fails."""
        for transport in self._made.values():
            transport.stop()

    def close(self) -> None:
        """Release the HTTP sessions (after ``stop``, once the downloads returned)."""
        for transport in self._made.values():
            transport.close()

    def for_source(self, spec: SourceSpec) -> Transport:
        name = "mirror" if self.mirror else (self.override or spec.transport or "https")
        if name not in self._made:
            if name == "mirror":
                if not self.mirror:
                    raise ConfigError(
                        f"role '{spec.role}' asks for the mirror transport but no mirror is set",
                        f"pass --mirror DIR|URL or set {ENV_MIRROR}",
                    )
                from paramdiff.fetch.transports import MirrorTransport

                self._made[name] = MirrorTransport(self.mirror, self._http(MIRROR_UNREACHABLE))
            elif name == "git":
                from paramdiff.fetch.transports import GitTransport

                self._made[name] = GitTransport(
                    self.cache_dir, self.git_base, self._command_deadline()
                )
            else:
                from paramdiff.fetch.transports import HttpsTransport

                self._made[name] = HttpsTransport(
                    raw_base=self.raw_base or RAW_BASE, git_base=self.git_base, client=self._http()
                )
        return self._made[name]

    def history_source(self, spec: SourceSpec) -> MirrorTransport | GitTransport:
        """Where a file's upstream history is read: the mirror's MANIFEST when there is a
        mirror, else ``git log`` over a cached clone (raw-file hosts have no history)."""
        from paramdiff.fetch.transports import GitTransport, MirrorTransport

        source = self.for_source(spec)
        if isinstance(source, MirrorTransport):
            return source
        return GitTransport(self.cache_dir, self.git_base)


@dataclass(slots=True)
class FetchedRole:
    """One role's locked bytes (and its includes') and whether they came from the cache."""

    spec: SourceSpec
    entry: LockEntry
    data: bytes
    status: str  # cached | downloaded | read (a file of this repository)
    previous: LockEntry | None = None
    includes: dict[str, bytes] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        """New, or different bytes in the file or in any file it includes."""
        p = self.previous
        return p is None or p.sha256 != self.entry.sha256 or p.includes != self.entry.includes


# (spec, path, its bytes) -> the repository paths the file includes
IncludeFinder = Callable[[SourceSpec, str, bytes], list[str]]


_FIELDS = re.compile(r"[\s,:=]+")


def _name_of(line: str) -> str:
    """The parameter name a line of a parameter file sets, "" for none: ``NAME VALUE``,
    ``NAME,VALUE``, ``NAME: VALUE`` or QGC's ``SYSID COMPID NAME VALUE TYPE`` (a count to
    bound, not a parse: the readers say what is wrong with a line)."""
    fields = _FIELDS.split(line.strip())
    if not fields[0] or fields[0].startswith(("#", "//", "%")):
        return ""
    return fields[2] if len(fields) >= 5 and fields[0].isdigit() else fields[0]


def _changed_locally(entry: LockEntry, now: LockEntry) -> None:
    """A ``file:`` role (or a file it includes) whose bytes are not what the lock pinned."""
    was = {f.path: f for f in entry.files()}
    for f in now.files():
        old = was.pop(f.path, None)
        if old == f:
            continue
        locked = f"locked: {old.size} bytes, {old.sha256[:12]}…" if old else "not in the lock"
        raise ConfigError(
            f"changed after {LOCK_FILE} pinned it (now {f.size} bytes, sha256 "
            f"{f.sha256[:12]}…; {locked})",
            "review the change (git diff), then pin it again: paramdiff fetch",
            file=f.path,
        )
    for path in was:
        raise ConfigError(
            f"changed after {LOCK_FILE} pinned it (its include set no longer names {path})",
            "review the change (git diff), then pin it again: paramdiff fetch",
            file=entry.path,
        )
    raise ConfigError(  # the same bytes under another format or path: an edited entry
        f"does not match its entry in {LOCK_FILE}",
        "review the change (git diff), then pin it again: paramdiff fetch",
        file=entry.path,
    )


def _no_includes(spec: SourceSpec, path: str, data: bytes) -> list[str]:
    return []


class _Engine:
    def __init__(
        self,
        cache: Cache,
        transports: TransportChoice | None,
        includes: IncludeFinder = _no_includes,
        root: Path | None = None,
    ) -> None:
        self.cache = cache
        self.verified = VerifiedIndex(cache.root)
        self.transports = transports
        self.includes = includes
        self.root = root  # the project's: where ``file:`` roles are read

    def _local(self, spec: SourceSpec, entry: LockEntry | None, repin: bool) -> FetchedRole:
        """A file of this repository, read where it stands. ``fetch`` pins what is there now
        (``repin``); everything else insists on the bytes the lock pinned, so a dump edited
        after the lock is named, never silently used."""
        if self.root is None:  # pragma: no cover - every caller passes the project root
            raise ConfigError(f"{spec.describe()}: no project root to read it from")
        data = self._read_local(spec, spec.path)
        includes: dict[str, bytes] = {}
        pending = [(spec.path, data)]
        while pending:  # a BlueOS %include of a project file: read and pinned like the file
            parent, parent_data = pending.pop(0)
            for inc in self.includes(spec, parent, parent_data):
                if inc not in includes and inc != spec.path:
                    includes[inc] = self._read_local(spec, inc)
                    pending.append((inc, includes[inc]))
        new_entry = LockEntry(
            repo=spec.repo,
            ref="",
            commit="",
            path=spec.path,
            format=spec.format,
            size=len(data),
            sha256=sha256_of(data),
            blob=git_blob_id(data),
            includes=tuple(
                LockedFile(p, len(b), sha256_of(b), git_blob_id(b))
                for p, b in sorted(includes.items())
            ),
        )
        if not repin and entry is not None and entry != new_entry:
            _changed_locally(entry, new_entry)
        return FetchedRole(spec, new_entry, data, "read", previous=entry, includes=includes)

    def _read_local(self, spec: SourceSpec, path: str) -> bytes:
        """A project file a ``file:`` role reads (itself or an include): inside the project
        after symlinks, within the size later commands read, and (the role's own file) within
        the parameter count they parse — refused at fetch, not pinned for every later command
        to refuse."""
        assert self.root is not None
        data = read_regular(project_path(self.root, path), TEXT_LIMIT, path)
        names = {_name_of(line) for line in data.decode("utf-8", "replace").splitlines()}
        names.discard("")
        if len(names) > MAX_PARAMS:
            raise ConfigError(
                f"{spec.describe()}: {path} sets {len(names)} parameter names, over paramdiff's "
                f"limit of {MAX_PARAMS} (no ArduPilot vehicle has that many)",
                "check that the path in sources.yaml names the parameter dump it should",
                file=path,
            )
        return data

    def _transport(self, spec: SourceSpec, what: str) -> Transport:
        if self.transports is None:
            raise FetchError(
                f"{spec.describe()}: {what} is not in the cache and --offline forbids the network",
                "run paramdiff fetch without --offline (or with --mirror) first; if "
                f"{LOCK_FILE} was edited, restore it from git",
            )
        return self.transports.for_source(spec)

    def _within_limit(self, spec: SourceSpec, path: str, size: int, by: str) -> None:
        """Refuse a file larger than paramdiff reads of its kind (files.TEXT_LIMIT for a
        parameter file, model or name list; INPUT_LIMIT for metadata), before it is used:
        SECURITY.md's limits hold for pinned files as for files named on the command line."""
        limit = input_limit(spec.format, path == spec.path)
        if size > limit:
            what = "metadata file" if limit == INPUT_LIMIT else "text file"
            raise FetchError(
                f"{spec.describe()}: {path} is {size} bytes ({by}), over paramdiff's limit of "
                f"{limit} bytes for a {what}",
                "check that the path in sources.yaml names the file it should (real ones are "
                "far smaller)",
            )

    def _cached(
        self, spec: SourceSpec, commit: str, path: str, locked: LockedFile | None
    ) -> tuple[bytes, VerifiedFile] | None:
        """Cached bytes, only if this cache verified them for (repo, commit, path) and they
        are what the lock records. Anything else is a miss: re-verified at the source."""
        if locked is not None:
            seen = self.verified.as_locked(spec.repo, commit, locked)
        else:
            seen = self.verified.get(spec.repo, commit, path)
        if seen is None:
            return None
        self._within_limit(spec, path, seen.size, "as cached")
        data = self.cache.get(seen.sha256)  # re-hashed: the very bytes the record verified
        if data is None or len(data) != seen.size:
            return None
        return data, seen

    def _download(
        self, spec: SourceSpec, commit: str, path: str, locked: LockedFile | None
    ) -> tuple[bytes, str, str]:
        """Bytes of ``path`` at ``commit``, verified against the lock and the source's claims."""
        where = f"{spec.role} ({spec.repo}@{spec.ref} -> {commit[:12]} {path})"
        # spec.describe() already names the role's path: name it again only for an include.
        what = "the file" if path == spec.path else f"{path}, which it includes,"
        if locked is not None:  # refused before a byte is downloaded
            self._within_limit(spec, path, locked.size, f"as {LOCK_FILE} records")
        transport = self._transport(spec, f"{what} at {commit[:12]}")
        try:
            got: Fetched = transport.get(spec.repo, commit, path, locked.size if locked else None)
        except FetchError as exc:
            fix = exc.fix
            if locked is not None and getattr(exc, "missing", False):
                fix = f"{fix}; if {LOCK_FILE} was edited, restore it from git"
            raise FetchError(f"{where}: {exc.what}", fix) from None
        data = got.data
        self._within_limit(spec, path, len(data), "as downloaded")
        digest, blob = sha256_of(data), git_blob_id(data)
        claims = []
        if locked is not None:
            claims += [
                ("sha256", locked.sha256, digest, LOCK_FILE),
                ("blob", locked.blob, blob, LOCK_FILE),
            ]
            if locked.size != len(data):
                raise FetchError(
                    f"{where}: got {len(data)} bytes but {LOCK_FILE} records {locked.size}",
                    "the upstream file or the lock was altered; restore the lock from git, or "
                    "review the change and run paramdiff fetch --update",
                )
        if got.sha256:
            claims.append(("sha256", got.sha256, digest, "the source's manifest"))
        if got.blob:
            claims.append(("blob", got.blob, blob, "the source's git tree"))
        for kind, want, have, by in claims:
            if want != have:
                raise FetchError(
                    f"{where}: {kind} mismatch — {by} says {want[:16]}…, the bytes hash to "
                    f"{have[:16]}…",
                    "do not trust this file: if the lock was edited restore it from git; if "
                    "upstream or the mirror changed, review it and run paramdiff fetch --update",
                )
        self.cache.put(data)
        self.verified.put(VerifiedFile(spec.repo, commit, path, len(data), digest, blob))
        return data, digest, blob

    def one(self, spec: SourceSpec, entry: LockEntry | None, resolve: bool) -> FetchedRole:
        if spec.is_local:
            return self._local(spec, entry, repin=resolve)
        if resolve or entry is None:
            transport = self._transport(spec, "the ref")  # its error names the role already
            try:
                commit = transport.resolve(spec.repo, spec.ref)
            except FetchError as exc:
                raise FetchError(f"{spec.describe()}: {exc.what}", exc.fix) from None
        else:
            commit = entry.commit
        same_commit = entry is not None and entry.commit == commit and entry.matches(spec)
        locked = (
            LockedFile(spec.path, entry.size, entry.sha256, entry.blob)
            if (entry is not None and same_commit)
            else None
        )
        hit = self._cached(spec, commit, spec.path, locked)
        if hit is not None:
            data, digest, blob, status = hit[0], hit[1].sha256, hit[1].blob, "cached"
        else:
            data, digest, blob = self._download(spec, commit, spec.path, locked)
            status = "downloaded"
        old_includes = {i.path: i for i in entry.includes} if (entry and same_commit) else {}
        includes, locked_files, fetched = self._walk_includes(
            spec, commit, (data, digest), old_includes
        )
        if fetched:
            status = "downloaded"
        new_entry = LockEntry(
            repo=spec.repo,
            ref=spec.ref,
            commit=commit,
            path=spec.path,
            format=spec.format,
            size=len(data),
            sha256=digest,
            blob=blob,
            includes=tuple(sorted(locked_files, key=lambda f: f.path)),
        )
        if entry and same_commit and new_entry.includes != entry.includes:
            # Same commit, same main file, but the include set moved: only a hand edit does that.
            raise FetchError(
                f"{spec.describe()}: the includes in {LOCK_FILE} do not match the file",
                "restore the lock from git or run paramdiff fetch --update",
            )
        return FetchedRole(spec, new_entry, data, status, previous=entry, includes=includes)

    def _walk_includes(
        self,
        spec: SourceSpec,
        commit: str,
        main: tuple[bytes, str],
        locked: dict[str, LockedFile],
    ) -> tuple[dict[str, bytes], list[LockedFile], bool]:
        """Every file the main file (bytes, sha256) includes (transitively), at the same
        commit, each verified like the main file; and whether any had to be downloaded."""
        includes: dict[str, bytes] = {}
        locked_files: list[LockedFile] = []
        downloaded = False
        pending = [(spec.path, main[0])]
        while pending:
            parent, parent_data = pending.pop(0)
            for inc in self.includes(spec, parent, parent_data):
                if inc in includes:
                    continue
                old = locked.get(inc)
                hit = self._cached(spec, commit, inc, old)
                if hit is not None:
                    inc_data, digest, blob = hit[0], hit[1].sha256, hit[1].blob
                else:
                    inc_data, digest, blob = self._download(spec, commit, inc, old)
                    downloaded = True
                includes[inc] = inc_data
                locked_files.append(LockedFile(inc, len(inc_data), digest, blob))
                pending.append((inc, inc_data))
        return includes, locked_files, downloaded

    def many(self, jobs: Sequence[tuple[SourceSpec, LockEntry | None, bool]]) -> list[FetchedRole]:
        """Every job's role, at most MAX_WORKERS downloading at once. The first job that
        fails ends them all: the others are cancelled, or stopped mid-download (their
        sockets shut), so a stalled host costs the command one deadline, not one per wave."""
        if len(jobs) == 1 or all(self._in_cache(*job) for job in jobs):
            # No pool (nor its import) when nothing downloads: a warm run's verification is
            # hashing, which threads only slow down (measured: check, 4 pins, -25 ms).
            return [self.one(*job) for job in jobs]
        from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

        pool = ThreadPoolExecutor(max_workers=MAX_WORKERS)
        futures = [pool.submit(self.one, *job) for job in jobs]
        failed = True  # until every job returned; Ctrl-C while waiting stops the rest too
        try:
            wait(futures, return_when=FIRST_EXCEPTION)
            first = next((f.exception() for f in futures if f.done() and f.exception()), None)
            if first is not None:
                raise first  # a ParamdiffError, or a bug (exit 3)
            failed = False
            return [f.result() for f in futures]
        finally:
            if failed:
                for future in futures:
                    future.cancel()  # those not started never will
                self._stop()
            pool.shutdown(wait=True, cancel_futures=True)
            if failed and self.transports is not None:
                self.transports.close()

    def _in_cache(self, spec: SourceSpec, entry: LockEntry | None, resolve: bool) -> bool:
        """Whether ``one`` would read every file of the job from the cache (a local role, or
        a locked one whose file and includes this cache verified with the lock's digests and
        still has, by size: ``one`` hashes it as it reads it): it reaches no network."""
        if spec.is_local:
            return True
        if resolve or entry is None:
            return False
        for f in entry.files():
            seen = self.verified.as_locked(spec.repo, entry.commit, f)
            if seen is None or not self.cache.present(seen.sha256, seen.size):
                return False  # (a damaged entry found later is fetched again by ``one``)
        return True

    def _stop(self) -> None:
        if self.transports is not None:
            self.transports.stop()


def verify_cached(
    profile: Profile, pin: str | None, cache: Cache, lock: Lock | None, role: str
) -> LockEntry | None:
    """``role``'s lock entry when the cache holds its locked bytes, checked as ``materialize``
    checks a cache hit (the lock entry against sources.yaml, the verified record against the
    lock, the bytes' size and sha256) but hashed as read, not kept: for a file that includes
    none and is read only when its parsed form is missing (the metadata). None: the bytes
    are not there (or the lock records includes to check), so ``materialize`` it."""
    pin, specs = profile.pin(pin)
    spec = specs[role]
    entry = require_entry(lock, profile.name, pin, spec)
    if entry.includes or entry.size > input_limit(spec.format):
        return None  # (materialize says what is wrong with an oversized one)
    seen = VerifiedIndex(cache.root).as_locked(spec.repo, entry.commit, entry.files()[0])
    return entry if seen is not None and cache.holds(seen.sha256, seen.size) else None


def materialize(
    profile: Profile,
    pin: str | None,
    cache: Cache,
    transports: TransportChoice | None,
    lock: Lock | None,
    roles: list[str] | None = None,
    includes: IncludeFinder = _no_includes,
    root: Path | None = None,
) -> dict[str, FetchedRole]:
    """The locked bytes of each role; downloads (and verifies) only what the cache lacks.
    ``root``: the project's, where ``file:`` roles are read."""
    pin, specs = profile.pin(pin)
    wanted = [specs[r] for r in (roles or list(specs)) if r in specs]
    jobs = [(spec, require_entry(lock, profile.name, pin, spec), False) for spec in wanted]
    results = _Engine(cache, transports, includes, root).many(jobs)
    return {r.spec.role: r for r in results}


def locked_bytes(
    profile: Profile,
    pin: str | None,
    cache: Cache,
    transports: TransportChoice | None,
    lock: Lock | None,
    role: str,
) -> bytes:
    """One role's locked bytes (a file that includes none: the metadata), as ``materialize``
    reads and verifies them; what a parsed entry's reader calls when the entry is missing."""
    return materialize(profile, pin, cache, transports, lock, roles=[role])[role].data
