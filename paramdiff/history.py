"""When the pin moves: compare two pins, and one parameter across upstream history."""

from __future__ import annotations

from typing import Any


def update_hint(opts: Any, result: Any) -> list[str]:
    """After `fetch --update`: how many parameters moved, and the command that shows them."""
    from .errors import InputError
    from .formats import same_value
    from .sources import PARAM_FORMATS
    from .table import parse_any

    lines = []
    for r in result.roles:
        if r.previous is None or not r.changed or r.spec.format not in PARAM_FORMATS:
            continue
        # The previous version, includes and all, is still in the content-addressed cache.
        old_files = {i.path: opts.cache.get(i.sha256) for i in r.previous.includes}
        old = opts.cache.get(r.previous.sha256)
        if old is None or None in old_files.values():
            continue
        try:
            a = parse_any(
                old, r.spec.path, r.spec.format, lenient=True, read_include=old_files.__getitem__
            ).params
            b = parse_any(
                r.data,
                r.spec.path,
                r.spec.format,
                lenient=True,
                read_include=r.includes.__getitem__,
            ).params
        except (InputError, KeyError):
            continue
        changed = sorted(
            n
            for n in set(a) | set(b)
            if n not in a or n not in b or not same_value(a[n].value, b[n].value)
        )
        shown = ", ".join(changed[:6]) + (
            f" (+{len(changed) - 6} more)" if len(changed) > 6 else ""
        )
        where = f"--profile {result.profile} --pin {result.pin} --role {r.spec.role}"
        lines.append(
            f"{r.spec.role}: {len(changed)} parameters changed upstream "
            f"({r.previous.commit[:12]} -> {r.entry.commit[:12]}): {shown or 'none'}"
        )
        if changed:
            lines.append(
                f"  each one's values over upstream history: paramdiff history {changed[0]} {where}"
            )
        others = [p for p in opts.config.profile(result.profile).pins if p != result.pin]
        if others:
            lines.append(
                f"  against another pin: paramdiff compare pins {others[0]} {result.pin} "
                f"--profile {result.profile} --role {r.spec.role}"
            )
    return lines


def history(
    opts: Any, profile: str | None, pin: str | None, role: str, pattern: str
) -> list[list[str]]:
    """The value of ``pattern`` (a name or glob) in ``role``'s file at every upstream commit
    that changed the file, oldest first: from a mirror's MANIFEST.json, else from git log."""
    import fnmatch

    from .errors import ConfigError
    from .formats import format_value
    from .project import PinContext
    from .sources import PARAM_FORMATS
    from .table import parse_any
    from .transports import GitTransport, MirrorTransport

    ctx = PinContext(opts, profile, pin)
    spec = ctx.spec(role)
    if spec.format not in PARAM_FORMATS:
        raise ConfigError(
            f"role '{role}' is a {spec.format} file, not a parameter set",
            "follow a parameter role such as hardware or sitl",
        )
    choice = opts.transports()
    if choice is None:
        raise ConfigError(
            "history needs upstream commits, and --offline forbids reaching them",
            "run it without --offline (with --mirror DIR|URL where there is no network)",
        )
    source = choice.for_source(spec)
    commits: list[dict[str, Any]]
    if isinstance(source, MirrorTransport):
        commits = [
            c
            for c in source.commits(spec.repo)
            if spec.path in source.paths_at(spec.repo, c["sha"])
        ]
    else:
        source = GitTransport(opts.cache.root, choice.git_base)
        # The files it includes today count too: a value can move in any of them.
        entry = ctx.lock.get(ctx.profile.name, ctx.pin, role) if ctx.lock else None
        included = [i.path for i in entry.includes] if entry else []
        commits = source.commits_touching(spec.repo, spec.ref, [spec.path, *included])
    rows: list[list[str]] = []
    last: list[bytes] = []
    for commit in reversed(commits):
        sha = commit["sha"]
        read: list[bytes] = [source.get(spec.repo, sha, spec.path).data]

        def read_include(path: str, sha: str = sha, read: list[bytes] = read) -> bytes:
            data = source.get(spec.repo, sha, path).data
            read.append(data)
            return data

        params = parse_any(
            read[0], spec.path, spec.format, lenient=True, read_include=read_include
        ).params
        if read == last:
            continue  # the commit changed neither this file nor anything it includes
        last = read
        names = sorted(n for n in params if fnmatch.fnmatchcase(n, pattern.upper()))
        values = ", ".join(f"{n}={format_value(params[n].value)}" for n in names) or "(not set)"
        rows.append([sha[:12], commit["date"][:10], commit["subject"][:60], values])
    return rows
