"""`paramdiff review` as markdown (for a pull request) or JSON (everything, for tools).

The markdown must fit in one GitHub PR comment (65,536 characters), so it is capped at
``MARKDOWN_LIMIT``: tables are cut to fewer rows until it fits, each cut table saying how
many rows it left out and where the full list is (``--format json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict

from paramdiff.config.roles import LOCAL_REPO
from paramdiff.render.safe_text import visible_lines
from paramdiff.render.texttable import markdown_cell, markdown_table
from paramdiff.review.changes import Attention, DeltaChange, ProfileReview, Review, RoleMove

MARKDOWN_LIMIT = 60_000
ROW_CAPS = (None, 400, 100, 25, 5, 0)


def render_json(r: Review) -> Iterator[str]:
    data = asdict(r)
    data["needs_attention"] = r.needs_attention
    for p, prof in zip(data["profiles"], r.profiles, strict=True):
        for m, move in zip(p["moves"], prof.moves, strict=True):
            m["compare_url"] = move.compare_url
    # ASCII: every control, bidi or other non-ASCII character is a \\u escape, valid JSON
    yield json.dumps(data, indent=1)


def render_markdown(r: Review, base_arg: str | None = None) -> Iterator[str]:
    """The largest version of the review that stays under ``MARKDOWN_LIMIT`` characters."""
    full = f"paramdiff review {base_arg or r.base_commit[:12]} --format json"
    lines: list[str] = []
    for cap in ROW_CAPS:  # made visible before measuring: an escape counts in the limit
        lines = visible_lines(list(_markdown(r, cap, full)))
        if sum(len(ln) + 1 for ln in lines) <= MARKDOWN_LIMIT:
            break
    else:  # even counts alone are too long (hundreds of profiles): the summary only
        lines = visible_lines(list(_summary(r, full)))
    yield from lines


def _summary(r: Review, full: str) -> Iterator[str]:
    yield from _title(r)
    for p in r.profiles:
        yield (
            f"- {p.profile} {p.pin}: {len(p.moves)} role(s) moved, {len(p.params)} upstream "
            f"parameter(s), {len(p.deltas)} delta change(s), {len(p.lines)} derived line(s), "
            f"{len(p.attention)} item(s) needing attention"
        )
    yield ""
    yield f"The full review: `{full}`"


def _title(r: Review) -> Iterator[str]:
    yield f"## paramdiff review: {r.base} (`{r.base_commit[:12]}`) → this branch"
    yield ""
    items = [*r.attention, *(a for p in r.profiles for a in p.attention)]
    stale = [p for p in r.profiles if p.record_stale]
    if not items and not stale:
        yield "Nothing is stale: the lock, the overlays and the derived files agree."
        yield ""
        return
    if stale:  # the record is a claim of the report's: the headline never hides it
        records = ", ".join(f"{p.profile} {p.pin}" for p in stale)
        agree = "The lock, the overlays and the derived files agree, but" if not items else "And"
        yield (
            f"{agree} the verification record of {records} is **stale**: it read back an "
            "earlier derived file (see its profile below)."
        )
        yield ""
    if not items:
        return
    yield f"**{len(items)} item(s) need attention:**"
    yield ""
    for a in items:
        yield f"- {_attention(a)}"
    yield ""


def _attention(a: Attention) -> str:
    where = f"`{a.file}:{a.line}`: " if a.file and a.line else f"`{a.file}`: " if a.file else ""
    return f"{where}{markdown_cell(a.what)} — {markdown_cell(a.fix)}"


def _markdown(r: Review, cap: int | None, full: str) -> Iterator[str]:
    yield from _title(r)
    for p in r.profiles:
        yield from _profile(p, cap, full)


def _profile(p: ProfileReview, cap: int | None, full: str) -> Iterator[str]:
    yield f"### {p.profile} (pin {p.pin})"
    yield ""
    yield from _base_notes(p)
    if p.record:
        yield f"**Verification record{' (stale)' if p.record_stale else ''}:** {p.record}"
        yield ""
    if not (p.moves or p.params or p.deltas or p.lines or p.header_lines_changed):
        yield "No change to its inputs, overlay or derived file."
        yield ""
        return
    for title, headers, rows, empty in _sections(p):
        yield title
        yield ""
        yield from _table(headers, rows, cap, full, empty)
    # What a running vehicle would load is the derived file: its changed lines decide reboots.
    reboot = [c.name for c in p.lines if c.reboot]
    if reboot:
        yield (
            f"**Reboot required** after loading the derived file into a running vehicle "
            f"({len(reboot)}): " + ", ".join(f"`{n}`" for n in reboot)
        )
        yield ""


def _base_notes(p: ProfileReview) -> Iterator[str]:
    """What today's rules refuse in BASE's own files: labelled BASE, with BASE's lines."""
    if not p.base_notes:
        return
    yield (
        "BASE's own files do not rebuild under today's rules (compared with BASE's committed "
        "derived file instead; nothing for this branch to fix):"
    )
    yield ""
    for a in p.base_notes:
        where = f"`{a.file}:{a.line}`" if a.file and a.line else f"`{a.file}`" if a.file else ""
        yield f"- BASE {where}: {markdown_cell(a.what)}" if where else f"- BASE: {a.what}"
    yield ""


def _sections(p: ProfileReview) -> list[tuple[str, list[str], list[list[str]], str]]:
    """(title, headers, rows, text when empty) of each table of one profile."""
    n = p.header_lines_changed
    header = f"; {n} provenance header line(s) differ" if n else ""
    return [
        (
            "**Roles moved**",
            ["pin", "role", "file", "old", "new", "bytes"],
            [_move_row(m) for m in p.moves],
            "none",
        ),
        (
            f"**Upstream parameters changed** ({len(p.params)})",
            ["pin", "role", "parameter", "old", "new", "reboot"],
            [[c.pin, c.role, f"`{c.name}`", c.old, c.new, _yes(c.reboot)] for c in p.params],
            "none: the moved files' bytes changed, but no parameter read from them did (the "
            "compare links show the rest)"
            if any(m.bytes_changed and m.old_commit for m in p.moves)
            else "none",
        ),
        (
            f"**Overlay deltas** ({len(p.deltas)})",
            ["change", "parameter", "value", "was", "where", "reason / note"],
            [
                [d.kind, f"`{d.param}`", d.value, d.was, f"`{d.file}:{d.line}`", _note(d)]
                for d in p.deltas
            ],
            "none",
        ),
        (
            f"**Derived file `{p.derived}`** ({len(p.lines)} parameter line(s){header})",
            ["change", "parameter", "old", "new", "reboot", "why"],
            [[c.kind, f"`{c.name}`", c.old, c.new, _yes(c.reboot), c.reason] for c in p.lines],
            "no parameter line changes",
        ),
    ]


def _yes(flag: bool) -> str:
    return "yes" if flag else ""


def _note(d: DeltaChange) -> str:
    return f"{d.reason} ({d.note})" if d.note else d.reason


def _move_row(m: RoleMove) -> list[str]:
    def commit(sha: str | None, ref: str | None) -> str:
        if sha is None:
            return "—"
        if not sha:  # a file of this repository: the pull request's own diff shows it
            return "(this repository)"
        url = m.blob_url(sha)
        return f"[`{sha[:12]}`]({url}) ({ref})" if ref and ref != sha else f"[`{sha[:12]}`]({url})"

    new = commit(m.new_commit, m.new_ref)
    if m.compare_url:
        new += f" · [compare]({m.compare_url})"
    state = "changed" if m.bytes_changed else "same bytes"
    where = f"`{m.path}`" if m.repo == LOCAL_REPO else f"`{m.repo}:{m.path}`"
    return [m.pin, m.role, where, commit(m.old_commit, m.old_ref), new, state]


def _table(
    headers: list[str], rows: list[list[str]], cap: int | None, full: str, empty: str
) -> Iterator[str]:
    if not rows:
        yield empty
        yield ""
        return
    shown = rows if cap is None else rows[:cap]
    if shown:
        yield from markdown_table(headers, shown)
    if len(shown) < len(rows):
        yield ""
        yield f"… {len(rows) - len(shown)} more of {len(rows)} row(s); the full list: `{full}`"
    yield ""
