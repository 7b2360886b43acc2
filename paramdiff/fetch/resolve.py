"""Pinned, verified fetches: resolve refs, download, verify twice, cache, lock.

Two entry points share one engine (``engine.py``):
- ``fetch`` (the command, here): may resolve refs and rewrite ``sources.lock``.
- ``materialize`` (used by compare/derive/check, in ``engine.py``): only ever the locked
  commits and bytes; fills the cache when needed, never touches the lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paramdiff.config.lock import Lock, LockEntry, read_lock
from paramdiff.config.lockwrite import commit_entries
from paramdiff.config.roles import SourceSpec
from paramdiff.config.sources import Config, Profile
from paramdiff.errors import FetchError
from paramdiff.fetch.cache import Cache
from paramdiff.fetch.engine import (
    FetchedRole,
    IncludeFinder,
    TransportChoice,
    _Engine,
    _no_includes,
)


@dataclass
class FetchResult:
    """What fetching one pin did, role by role, and whether the lock was written."""

    profile: str
    pin: str
    roles: list[FetchedRole]
    lock_written: bool = False

    def table(self, update: bool = False) -> list[list[str]]:
        rows = []
        for r in self.roles:
            e = r.entry
            where = "this repository" if e.is_local else f"{e.repo}@{e.commit[:12]}"
            row = [r.spec.role, where, e.path, str(e.size), r.status]
            if update:
                old = _pinned(r.previous) if r.previous else "(new)"
                moved = "unchanged" if not r.changed else "file changed"
                row.append(f"{old} -> {_pinned(e)}, {moved}")
            rows.append(row)
        return rows


def _pinned(e: LockEntry) -> str:
    """What pins an entry: its commit, or a repository file's own digest."""
    return f"sha256 {e.sha256[:12]}" if e.is_local else e.commit[:12]


Job = tuple[SourceSpec, LockEntry | None, bool]  # spec, its lock entry, resolve the ref?


def _jobs(
    lock: Lock, profile: Profile, pin: str, specs: dict[str, SourceSpec], update: bool
) -> tuple[list[Job], list[Job]]:
    """One pin's jobs, and the checks plain fetch runs before it moves an entry."""
    jobs: list[Job] = []
    checks: list[Job] = []
    for role, spec in specs.items():
        entry = lock.get(profile.name, pin, role)
        stale = entry is not None and not entry.matches(spec)
        if entry is not None and stale and not update and not entry.is_local:
            # sources.yaml changed for this role, or the lock was edited: they look the same.
            # The entry is replaced only once it verifies as it stands (its own repo, commit,
            # path, size, digests, includes), so an edited entry fails and stays as it was;
            # what replaces it comes from sources.yaml alone.
            as_locked = spec._replace(
                repo=entry.repo, ref=entry.ref, path=entry.path, format=entry.format
            )
            checks.append((as_locked, entry, False))
        # A file of this repository is pinned as it stands on every fetch: fetch is how a
        # team says "this dump is the one"; every other command insists on the pinned bytes.
        resolve = update or stale or entry is None or spec.is_local
        jobs.append((spec, None if stale else entry, resolve))
    return jobs, checks


def _changed(old: LockEntry, spec: SourceSpec) -> str:
    """Only the keys of a role's lock entry that sources.yaml no longer says, so fetch's
    status column stays short (#31: it was ~150 characters)."""
    keys = [
        f"{key} {was}"
        for key, was, now in (
            ("repo", old.repo, spec.repo),
            ("ref", old.ref, spec.ref),
            ("path", old.path, spec.path),
            ("format", old.format, spec.format),
        )
        if was != now
    ]
    return ", ".join(keys)


def fetch_targets(
    config: Config,
    targets: Sequence[tuple[Profile, str | None]],
    cache: Cache,
    transports: TransportChoice | None,
    *,
    update: bool = False,
    includes: IncludeFinder = _no_includes,
) -> list[FetchResult]:
    """Fetch every role of every (profile, pin). The lock is written once, after everything
    verified — every target or none — under a file lock, changing only the entries this run
    added or moved (``config.lockwrite``)."""
    base = read_lock(config.root) or Lock()
    planned, checks = [], []
    for profile, wanted in targets:
        pin, specs = profile.pin(wanted)
        jobs, pin_checks = _jobs(base, profile, pin, specs, update)
        planned.append((profile.name, pin, jobs))
        checks += pin_checks
    every_job = [job for _, _, jobs in planned for job in jobs]
    if transports is None:
        for spec, _entry, resolve in every_job:
            if resolve and not spec.is_local:
                why = "--update re-resolves refs" if update else "not locked yet"
                raise FetchError(
                    f"{spec.describe()}: {why}, and --offline cannot resolve refs",
                    "run paramdiff fetch without --offline once",
                )
    done = iter(
        _Engine(cache, transports, includes, config.root).many([*checks, *every_job])[len(checks) :]
    )
    results = [FetchResult(name, pin, [next(done) for _ in jobs]) for name, pin, jobs in planned]
    changes = {}
    for r in results:
        for role in r.roles:
            old = base.get(r.profile, r.pin, role.spec.role)
            if old != role.entry:
                changes[(r.profile, r.pin, role.spec.role)] = role.entry
            if old is not None and not old.matches(role.spec):
                role.previous = old
                role.status += f" (sources.yaml changed; the lock had {_changed(old, role.spec)})"
    written = commit_entries(config.root, base, changes)
    for r in results:
        r.lock_written = written
    return results


def fetch(
    config: Config,
    profile: Profile,
    pin: str | None,
    cache: Cache,
    transports: TransportChoice | None,
    *,
    update: bool = False,
    includes: IncludeFinder = _no_includes,
) -> FetchResult:
    """Fetch every role of one pin (see ``fetch_targets``)."""
    return fetch_targets(
        config, [(profile, pin)], cache, transports, update=update, includes=includes
    )[0]
