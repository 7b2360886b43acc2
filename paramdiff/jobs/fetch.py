"""`paramdiff fetch`: every target pin fetched, verified and locked, and after --update what
moved upstream."""

from __future__ import annotations

from collections.abc import Iterator

from paramdiff.config.roles import PARAM_FORMATS
from paramdiff.errors import InputError
from paramdiff.fetch.cache import Cache
from paramdiff.fetch.engine import FetchedRole
from paramdiff.fetch.includes import pinned_includes
from paramdiff.fetch.resolve import FetchResult, fetch_targets

# fetch always reaches upstream, so the transports load here, before the download pool
# starts: its workers then do not queue on the import lock, and reach a shared mirror's
# MANIFEST.json in the order they were submitted (the first role's error is the one shown).
from paramdiff.fetch.transports import MirrorTransport as _loaded_before_the_pool  # noqa: F401
from paramdiff.model.values import same_value
from paramdiff.parse.any import parse_any
from paramdiff.project import Project
from paramdiff.render.fit import fit_rows
from paramdiff.render.texttable import table


def fetch_project(
    project: Project, profile: str | None, pin: str | None, update: bool
) -> Iterator[str]:
    """`paramdiff fetch`: every target pin fetched, verified and locked; lines to print."""
    config = project.config()
    results = fetch_targets(
        config,
        config.fetch_targets(profile, pin),
        project.cache(),
        project.transports(),
        update=update,
        includes=pinned_includes,
    )
    for result in results:
        yield f"{result.profile} {result.pin}:"
        yield from fetch_table(result.table(update))
        if update:
            others = [p for p in config.profile(result.profile).pins if p != result.pin]
            yield from update_hint(project.cache(), result, others)
    # One write for every target (or none): see fetch.resolve.fetch_targets.
    yield "sources.lock " + ("written" if any(r.lock_written for r in results) else "unchanged")


def fetch_table(rows: list[list[str]]) -> Iterator[str]:
    """One pin's roles in at most 100 columns (#31): a role's file is two lines, its source
    (repo@commit) above its path, and what a status or an update adds in parentheses is a
    line below the table, so no path or commit is ever broken."""
    headers = ["role", "file", "size", "status"]
    cells: list[list[str]] = []
    notes: list[str] = []
    for role, source, path, size, status, *update in rows:
        status, _, note = status.partition(" (")
        cells += [[role, source, size, status], ["", path, "", ""]]
        if note:
            notes.append(f"  {role}: {note.removesuffix(')')}")
        notes += [f"  {role}: {moved}" for moved in update]
    yield from table(headers, fit_rows(headers, cells), markdown=False)
    yield from notes


def update_hint(cache: Cache, result: FetchResult, other_pins: list[str]) -> Iterator[str]:
    """After `fetch --update`: how many parameters moved, and the commands that show them."""
    for r in result.roles:
        if r.previous is None or not r.changed or r.spec.format not in PARAM_FORMATS:
            continue
        changed = _changed_names(cache, r)
        if changed is None:
            continue
        shown = ", ".join(changed[:6]) + (
            f" (+{len(changed) - 6} more)" if len(changed) > 6 else ""
        )
        where = f"--profile {result.profile} --pin {result.pin} --role {r.spec.role}"
        yield (
            f"{r.spec.role}: {len(changed)} parameters changed upstream "
            f"({r.previous.commit[:12]} -> {r.entry.commit[:12]}): {shown or 'none'}"
        )
        if changed:
            yield (
                f"  each one's values over upstream history: paramdiff history {changed[0]} "
                + where
            )
        if other_pins:
            yield (
                f"  against another pin: paramdiff compare pins {other_pins[0]} {result.pin} "
                f"--profile {result.profile} --role {r.spec.role}"
            )


def _changed_names(cache: Cache, r: FetchedRole) -> list[str] | None:
    """Names whose value differs between the previous and the new version (None when the
    previous version is no longer in the content-addressed cache, or does not parse)."""
    assert r.previous is not None
    cached = {i.path: cache.get(i.sha256) for i in r.previous.includes}
    old = cache.get(r.previous.sha256)
    old_files = {path: data for path, data in cached.items() if data is not None}
    if old is None or len(old_files) != len(cached):
        return None
    try:
        a = parse_any(
            old, r.spec.path, r.spec.format, lenient=True, read_include=old_files.__getitem__
        ).params
        b = parse_any(
            r.data, r.spec.path, r.spec.format, lenient=True, read_include=r.includes.__getitem__
        ).params
    except (InputError, KeyError):
        return None
    return sorted(
        n
        for n in set(a) | set(b)
        if n not in a or n not in b or not same_value(a[n].value, b[n].value)
    )
