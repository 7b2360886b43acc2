"""What a branch changes, as values: roles moved, upstream parameters, overlay deltas,
derived lines with their reasons, reboots.

Each function takes the two sides (BASE and the working tree) as values — locks, overlays,
a comparison, derived files — so ``paramdiff.review.branch`` only wires them. Upstream changes are
read from a ``Comparison`` (``role@old`` vs ``role@new``), so whatever the comparison learns
(e.g. pairing renamed parameters) shows up in the review too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paramdiff.comparison.side_by_side import SAME, Comparison
from paramdiff.config.lock import Lock, LockEntry
from paramdiff.derive.derived import Derived, Line, natural_key
from paramdiff.model.metadata import Metadata
from paramdiff.model.source import Source
from paramdiff.model.values import format_value, same_value
from paramdiff.overlay.file import Delta, Overlay

REBOOT_FLAG = "RebootRequired"


@dataclass
class Attention:
    """Something a reviewer must not approve as is, with where to fix it."""

    what: str
    fix: str
    file: str | None = None
    line: int | None = None


@dataclass
class RoleMove:
    """A role whose locked file moved between the base and the head."""

    pin: str
    role: str
    repo: str
    path: str
    old_commit: str | None  # None: the role is new
    new_commit: str | None  # None: the role was removed
    old_ref: str | None
    new_ref: str | None
    bytes_changed: bool

    @property
    def compare_url(self) -> str | None:
        if not (self.old_commit and self.new_commit) or self.old_commit == self.new_commit:
            return None
        return f"https://github.com/{self.repo}/compare/{self.old_commit}...{self.new_commit}"

    def blob_url(self, commit: str | None) -> str | None:
        if not commit:
            return None
        return f"https://github.com/{self.repo}/blob/{commit}/{self.path.replace(' ', '%20')}"


@dataclass
class ParamChange:
    """One upstream parameter of a moved role, before and after."""

    pin: str
    role: str
    name: str
    status: str
    old: str  # as a person reads it (enum label), "—" when absent
    new: str
    old_at: str  # file:line
    new_at: str
    reboot: bool


@dataclass
class DeltaChange:
    """An overlay delta added, removed, changed or gone stale."""

    kind: str  # added | removed | changed | reason edited | stale
    param: str
    value: str
    was: str
    reason: str
    file: str
    line: int
    note: str = ""


@dataclass
class LineChange:
    """A derived-file line added, removed or changed."""

    kind: str  # added | removed | changed
    name: str
    old: str
    new: str
    reason: str
    reboot: bool


@dataclass
class ProfileReview:
    """What changed in one profile between the base and the head."""

    profile: str
    pin: str
    derived: str
    moves: list[RoleMove] = field(default_factory=list)
    params: list[ParamChange] = field(default_factory=list)
    deltas: list[DeltaChange] = field(default_factory=list)
    lines: list[LineChange] = field(default_factory=list)
    header_lines_changed: int = 0
    # The pin's verification record (verified/): what it confirms, or why it is stale now
    record: str = ""
    record_stale: bool = False
    attention: list[Attention] = field(default_factory=list)
    # What today's rules refuse in BASE's own files (file and line as at BASE): shown, labelled
    # BASE, never counted as needing attention (the branch is what is being approved).
    base_notes: list[Attention] = field(default_factory=list)


@dataclass
class Review:
    """Every profile's changes against the base."""

    base: str  # as given (or the merge base's description)
    base_commit: str
    profiles: list[ProfileReview] = field(default_factory=list)
    attention: list[Attention] = field(default_factory=list)

    @property
    def needs_attention(self) -> bool:
        return bool(self.attention) or any(p.attention for p in self.profiles)


# --------------------------------------------------------------------------- roles


def role_moves(old: Lock | None, new: Lock | None, profile: str) -> list[RoleMove]:
    """Every locked role of ``profile`` whose commit or bytes differ between the two locks."""

    def entries(lock: Lock | None) -> dict[tuple[str, str], LockEntry]:
        if lock is None:
            return {}
        return {(pin, role): e for (p, pin, role), e in lock.entries.items() if p == profile}

    before, after = entries(old), entries(new)
    moves = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if (
            a is not None
            and b is not None
            and (a.commit, a.sha256, a.includes)
            == (
                b.commit,
                b.sha256,
                b.includes,
            )
        ):
            continue
        either = b or a
        assert either is not None
        moves.append(
            RoleMove(
                pin=key[0],
                role=key[1],
                repo=either.repo,
                path=either.path,
                old_commit=a.commit if a else None,
                new_commit=b.commit if b else None,
                old_ref=a.ref if a else None,
                new_ref=b.ref if b else None,
                bytes_changed=a is None
                or b is None
                or (a.sha256, a.includes) != (b.sha256, b.includes),
            )
        )
    return moves


# --------------------------------------------------------------------------- overlay


REASON_EDITED = "reason edited"  # a delta whose value, was and ref stand


def delta_changes(old: Overlay | None, new: Overlay) -> list[DeltaChange]:
    """Deltas added, removed or edited between the two overlays."""

    before = {d.param: d for d in old.deltas} if old else {}
    after = {d.param: d for d in new.deltas}
    out = []
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name), after.get(name)
        if b is None:
            assert a is not None and old is not None
            out.append(_delta("removed", a, old.file))
        elif a is None:
            out.append(_delta("added", b, new.file))
        elif (a.value, a.was, a.ref) != (b.value, b.was, b.ref):
            note = f"was {format_value(a.value)} (was: {_was(a)})"
            out.append(_delta("changed", b, new.file, note))
        elif a.reason != b.reason:  # the value stands; only the derived file's comment moves
            note = f"reason only; it was: {a.reason}"
            out.append(_delta(REASON_EDITED, b, new.file, note))
    return out


def _was(d: Delta) -> str:
    return "null" if d.was is None else format_value(d.was)


def _delta(kind: str, d: Delta, file: str, note: str = "") -> DeltaChange:
    return DeltaChange(kind, d.param, format_value(d.value), _was(d), d.reason, file, d.line, note)


# --------------------------------------------------------------------------- derived file


def param_changes(
    pin: str, role: str, comp: Comparison, old: str, new: str, metadata: Metadata | None
) -> list[ParamChange]:
    """Every row of ``comp`` (columns ``old`` and ``new``, one role at two commits) that
    is not the same, with both values as a person reads them."""
    out = []
    for name, row in comp.rows.items():
        if row.status == SAME:
            continue
        a, b = comp.param(old, name), comp.param(new, name)  # each under its own name
        out.append(
            ParamChange(
                pin=pin,
                role=role,
                name=comp.shown_name(name),  # OLD → NEW for a renamed parameter
                status=str(row.status),
                old=comp.cell(old, name),
                new=comp.cell(new, name),
                old_at=str(a.origin) if a else "",
                new_at=str(b.origin) if b else "",
                reboot=needs_reboot(metadata, name),
            )
        )
    return out


def needs_reboot(metadata: Metadata | None, name: str) -> bool:
    info = metadata.get(name) if metadata is not None else None
    return bool(info and info.flag(REBOOT_FLAG))


def stale_deltas(overlay: Overlay, base: Source) -> list[tuple[DeltaChange, Attention]]:
    """Every delta whose ``was`` no longer equals upstream at the locked commit (derive
    stops at the first; a reviewer wants them all), each with where to fix it."""
    out = []
    for d in overlay.deltas:
        upstream = base.file.params.get(d.param)
        fresh = (
            upstream is None
            if d.was is None
            else upstream is not None and same_value(upstream.value, d.was)
        )
        if fresh:
            continue
        now = f"{upstream.text} ({upstream.origin})" if upstream else "not set"
        where = f"at {base.commit[:12]}" if base.commit else "(this repository's file)"
        note = f"{overlay.base} {where} now has {now}"
        fix = (
            "review the delta against the new upstream value, then set was: "
            f"{upstream.text if upstream else 'null'}"
        )
        what = f"delta {d.param} is stale: written against {_was(d)}, but {note}"
        out.append(
            (_delta("stale", d, overlay.file, note), Attention(what, fix, overlay.file, d.line))
        )
    return out


def line_changes(
    old: Derived | None, old_values: dict[str, float], new: Derived, metadata: Metadata | None
) -> list[LineChange]:
    """The derived file's parameter lines, BASE (``old_values``; ``old`` when BASE could be
    rebuilt, for reasons) vs what derive writes now, each with why it changes."""
    old_lines = {ln.name: ln for ln in old.lines} if old else {}
    new_lines = {ln.name: ln for ln in new.lines}
    out = []
    for name in sorted(set(old_values) | set(new_lines), key=natural_key):
        a, b = old_values.get(name), new_lines.get(name)
        if b is not None and a is not None and same_value(a, b.value):
            continue
        out.append(
            LineChange(
                kind="added" if a is None else "removed" if b is None else "changed",
                name=name,
                old="" if a is None else format_value(a),
                new="" if b is None else format_value(b.value),
                reason=_why(name, old_lines.get(name), b, old, new),
                reboot=needs_reboot(metadata, name),
            )
        )
    return out


def _why(name: str, a: Line | None, b: Line | None, old: Derived | None, new: Derived) -> str:
    """Why one line of the derived file changes: a delta, upstream, or the selection."""
    was = a.delta if a is not None else None
    now = b.delta if b is not None else None
    if now is not None and (was is None or was.value != now.value):
        return f"delta ({new.overlay.file}:{now.line}): {now.reason}"
    if was is not None and now is None:
        return f"delta removed from {new.overlay.file}; upstream {_shipped(b, new)}"
    if b is None:
        rule = _exclusion(name, new)
        if rule:
            return rule
        return f"{new.base.role} at {(new.base.commit or '')[:12]} no longer sets it"
    if a is None:
        if old is not None and name in old.base.file.params:
            return f"now selected ({_shipped(b, new)})"
        return f"new in {_shipped(b, new)}"
    return f"upstream changed: {_shipped(b, new)}"


def _shipped(ln: Line | None, d: Derived) -> str:
    if ln is None or ln.shipped is None:
        return f"{d.base.role} does not set it"
    p = ln.shipped
    return f"{d.base.role}@{(d.base.commit or '')[:12]} {p.file.rsplit('/', 1)[-1]}:{p.line}"


def _exclusion(name: str, d: Derived) -> str | None:
    for rule, params in d.excluded.items():
        if any(p.name == name for p in params):
            return f"left out by {d.overlay.file}:{rule.line} ({rule.label}): {rule.reason}"
    return None
