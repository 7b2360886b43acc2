"""When the pin moves: compare two pins, and one parameter across upstream history."""

from __future__ import annotations

from typing import Any


def update_hint(opts: Any, result: Any) -> list[str]:
    """After `fetch --update`: how many parameters moved, and the command that shows them."""
    from .errors import InputError
    from .formats import parse_params

    lines = []
    for r in result.roles:
        if r.previous is None or not r.changed or r.spec.format in ("sdf", "names", "pdef"):
            continue
        old = opts.cache.get(r.previous.sha256)
        if old is None:
            continue
        try:
            a = parse_params(old, r.spec.path, r.spec.format, lenient=True).params
            b = parse_params(r.data, r.spec.path, r.spec.format, lenient=True).params
        except InputError:
            continue
        changed = sorted(
            n for n in set(a) | set(b) if n not in a or n not in b or a[n].value != b[n].value
        )
        lines.append(
            f"{r.spec.role}: {len(changed)} parameters changed upstream "
            f"({r.previous.commit[:12]} -> {r.entry.commit[:12]}); run: "
            f"paramdiff history 'PARAM' --role {r.spec.role}"
        )
    return lines


def history(
    opts: Any, profile: str | None, pin: str | None, role: str, pattern: str
) -> list[list[str]]:
    """The value of ``pattern`` (a name or glob) in ``role``'s file at every commit that
    changed the file, oldest first, from the mirror's MANIFEST."""
    import fnmatch

    from .errors import ConfigError
    from .formats import format_value, parse_params
    from .project import PinContext
    from .transports import MirrorTransport

    ctx = PinContext(opts, profile, pin)
    spec = ctx.spec(role)
    choice = opts.transports()
    if choice is None or not choice.mirror:
        raise ConfigError(
            "history reads upstream commits from a mirror's MANIFEST.json",
            "pass --mirror DIR|URL or set PARAMDIFF_MIRROR (git log is not wired in yet)",
        )
    mirror = choice.for_source(spec)
    assert isinstance(mirror, MirrorTransport)
    rows: list[list[str]] = []
    last_sha = None
    for commit in reversed(mirror.commits(spec.repo)):
        info = mirror.paths_at(spec.repo, commit["sha"]).get(spec.path)
        if info is None or info["sha256"] == last_sha:
            continue
        last_sha = info["sha256"]
        got = mirror.get(spec.repo, commit["sha"], spec.path)
        params = parse_params(got.data, spec.path, spec.format, lenient=True).params
        names = sorted(n for n in params if fnmatch.fnmatchcase(n, pattern.upper()))
        values = ", ".join(f"{n}={format_value(params[n].value)}" for n in names) or "(not set)"
        rows.append([commit["sha"][:12], commit["date"][:10], commit["subject"][:60], values])
    return rows
