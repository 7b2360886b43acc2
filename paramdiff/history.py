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
