"""`paramdiff review [BASE]`: what a pull request changes, for the person approving it.

Two snapshots of the project — BASE (read from git objects, never checked out) and the
working tree — each with its sources.yaml, sources.lock, overlays and derived files. Per
profile: which roles moved (old → new commit), which upstream parameters changed as a
result, which overlay deltas were added, removed or went stale, how the derived file's
lines change and why, and which of the changed parameters need a reboot.

Upstream changes are read through ``comparison.compare`` (``role@old`` vs ``role@new``),
so whatever the comparison learns (e.g. pairing renamed parameters) shows up here too.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ..errors import ConfigError, ParamdiffError
from ..formats import format_value, same_value
from ..lock import LOCK_FILE, Lock, LockEntry
from ..sources import PARAM_FORMATS, SOURCES_FILE

if TYPE_CHECKING:
    from ..derive import Derived, Line
    from ..overlays import Delta, Overlay
    from ..project import Options, PinContext

REBOOT_FLAG = "RebootRequired"
DEFAULT_BRANCHES = ("main", "master")


@dataclass
class Attention:
    """Something a reviewer must not approve as is, with where to fix it."""

    what: str
    fix: str
    file: str | None = None
    line: int | None = None


@dataclass
class RoleMove:
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
    kind: str  # added | removed | changed | stale
    param: str
    value: str
    was: str
    reason: str
    file: str
    line: int
    note: str = ""


@dataclass
class LineChange:
    kind: str  # added | removed | changed
    name: str
    old: str
    new: str
    reason: str
    reboot: bool


@dataclass
class ProfileReview:
    profile: str
    pin: str
    derived: str
    moves: list[RoleMove] = field(default_factory=list)
    params: list[ParamChange] = field(default_factory=list)
    deltas: list[DeltaChange] = field(default_factory=list)
    lines: list[LineChange] = field(default_factory=list)
    header_lines_changed: int = 0
    attention: list[Attention] = field(default_factory=list)


@dataclass
class Review:
    base: str  # as given (or the merge base's description)
    base_commit: str
    profiles: list[ProfileReview] = field(default_factory=list)
    attention: list[Attention] = field(default_factory=list)

    @property
    def needs_attention(self) -> bool:
        return bool(self.attention) or any(p.attention for p in self.profiles)


# --------------------------------------------------------------------------- BASE from git


def resolve_base(root: Path, base: str | None) -> tuple[object, str, str]:
    """(git repo, commit sha, label) of BASE; the default is the merge base of HEAD with the
    default branch (origin's HEAD, else a local main or master)."""
    import git

    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise ConfigError(
            f"{root} is not inside a git repository",
            "run paramdiff review in the project's git checkout",
        ) from None
    if base is None:
        default = _default_branch(repo)
        merge = repo.merge_base("HEAD", default)
        if not merge:
            raise ConfigError(
                f"HEAD and {default} share no history", "give BASE: paramdiff review BASE"
            )
        return repo, merge[0].hexsha, f"merge base with {default}"
    try:
        commit = repo.commit(base)
    except (git.BadName, ValueError):
        raise ConfigError(
            f"BASE '{base}' is not a commit in {repo.working_tree_dir}",
            "give a branch, tag or commit, e.g. paramdiff review origin/main",
        ) from None
    return repo, commit.hexsha, base


def _default_branch(repo: object) -> str:
    import git

    assert isinstance(repo, git.Repo)
    try:
        head = repo.git.symbolic_ref("refs/remotes/origin/HEAD")  # e.g. refs/remotes/origin/main
        return str(head).removeprefix("refs/remotes/")
    except git.GitCommandError:
        pass
    for name in DEFAULT_BRANCHES:
        for ref in (f"origin/{name}", name):
            try:
                repo.commit(ref)
                return ref
            except (git.BadName, ValueError):
                continue
    raise ConfigError(
        "no default branch (origin/HEAD, main or master) to take the merge base with",
        "give BASE: paramdiff review BASE",
    )


@contextmanager
def base_snapshot(repo: object, commit: str, root: Path) -> Iterator[Path | None]:
    """A temporary folder holding the project's own files as they were at ``commit``
    (sources.yaml, sources.lock, overlays, derived files), read from git objects.

    Yields None when sources.yaml did not exist at ``commit``.
    """
    import git

    assert isinstance(repo, git.Repo)
    top = Path(repo.working_tree_dir or ".").resolve()
    prefix = PurePosixPath(root.resolve().relative_to(top).as_posix())
    tree = repo.commit(commit).tree

    def read(rel: str) -> bytes | None:
        path = (prefix / rel).as_posix().removeprefix("./")
        try:
            blob = tree / path
        except KeyError:
            return None
        return bytes(blob.data_stream.read())

    with tempfile.TemporaryDirectory(prefix="paramdiff-base-") as tmp:
        out = Path(tmp)
        sources = read(SOURCES_FILE)
        if sources is None:
            yield None
            return
        (out / SOURCES_FILE).write_bytes(sources)
        from ..sources import load_config

        wanted = {LOCK_FILE}
        for p in load_config(out).profiles.values():
            wanted |= {x for x in (p.overlay, p.derived_path(p.default_pin)) if x}
        for rel in sorted(wanted):
            data = read(rel)
            if data is not None:
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / rel).write_bytes(data)
        yield out


# --------------------------------------------------------------------------- the comparison


def review(options: Options, base: str | None) -> Review:
    """Compare the project at BASE with the working tree."""
    root = options.root
    repo, commit, label = resolve_base(root, base)
    result = Review(base=label, base_commit=commit)
    with base_snapshot(repo, commit, root) as base_root:
        old_options = replace(options, root=base_root) if base_root else None
        new_config = options.config
        old_config = old_options.config if old_options else None
        for name in new_config.profiles:
            result.profiles.append(_profile_review(options, old_options, name))
        for name in old_config.profiles if old_config else {}:
            if name not in new_config.profiles:
                result.attention.append(
                    Attention(f"profile {name} was removed", "confirm it is meant to go")
                )
    return result


def _profile_review(new: Options, old: Options | None, name: str) -> ProfileReview:
    from ..project import PinContext

    new_ctx = PinContext(new, name, None)
    old_ctx = _old_context(old, name, new_ctx.pin)
    out = ProfileReview(name, new_ctx.pin, new_ctx.profile.derived_path(new_ctx.pin) or "")
    out.moves = _moves(old_ctx.lock if old_ctx else None, new_ctx.lock, name)
    try:
        _consistent_lock(new_ctx)
        out.params = _param_changes(old, new, name, out.moves)
        overlay = _overlay(new_ctx, strict=True)
        if overlay is not None:
            out.deltas = _delta_changes(_overlay(old_ctx, strict=False), overlay)
            out.deltas += _stale_deltas(new_ctx, overlay, out)
        new_build = _build(new_ctx, out)
        old_build = _build(old_ctx, None) if old_ctx else None
        if new_build is not None:
            out.lines, out.header_lines_changed = _line_changes(
                old_ctx, old_build, new_ctx, new_build
            )
            _outputs_up_to_date(new_ctx, new_build, out)
    except ParamdiffError as exc:
        out.attention.append(Attention(exc.what, exc.fix or "", exc.file, exc.line))
    return out


def _overlay(ctx: PinContext | None, strict: bool) -> Overlay | None:
    """The profile's overlay as the snapshot has it, whether or not it is stale."""
    from ..overlays import load_overlay

    if ctx is None or not ctx.profile.overlay:
        return None
    try:
        return load_overlay(ctx.config.root, ctx.profile.overlay)
    except ConfigError:
        if strict:
            raise
        return None  # BASE's overlay did not parse: every delta now counts as added


def _old_context(old: Options | None, name: str, pin: str) -> PinContext | None:
    from ..project import PinContext

    if old is None or name not in old.config.profiles:
        return None
    profile = old.config.profiles[name]
    return PinContext(old, name, pin if pin in profile.pins else None)


def _consistent_lock(ctx: PinContext) -> None:
    from ..lock import require_entry

    for spec in ctx.specs.values():
        require_entry(ctx.lock, ctx.profile.name, ctx.pin, spec)


def _build(ctx: PinContext, out: ProfileReview | None) -> Derived | None:
    """The derived file as derive would write it; None (and, for the working tree, an
    attention item) when the overlay is stale — the stale deltas are listed separately."""
    from ..derive import build
    from ..errors import StaleOverlayError

    try:
        return build(ctx)
    except StaleOverlayError as exc:
        seen = out is None or any((a.file, a.line) == (exc.file, exc.line) for a in out.attention)
        if out is not None and not seen:
            out.attention.append(Attention(exc.what, exc.fix or "", exc.file, exc.line))
        return None


# --------------------------------------------------------------------------- roles


def _moves(old: Lock | None, new: Lock | None, profile: str) -> list[RoleMove]:
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


def _param_changes(
    old: Options | None, new: Options, profile: str, moves: list[RoleMove]
) -> list[ParamChange]:
    """Every parameter a moved role's file changed, read as ``role@old`` vs ``role@new``."""
    from ..comparison import SAME, compare
    from ..project import PinContext

    out: list[ParamChange] = []
    for m in moves:
        if not (m.bytes_changed and m.old_commit and m.new_commit and old is not None):
            continue
        new_ctx = PinContext(new, profile, m.pin)
        if new_ctx.spec(m.role).format not in (*PARAM_FORMATS, "sdf"):
            continue
        old_ctx = PinContext(old, profile, m.pin)
        a = replace(old_ctx.source(m.role), role=f"{m.role}@{m.old_commit[:12]}")
        b = replace(new_ctx.source(m.role), role=f"{m.role}@{m.new_commit[:12]}")
        comp = compare([a, b], new_ctx.classifier(), new_ctx.metadata)
        meta = new_ctx.metadata
        for name, row in comp.rows.items():
            if row.status == SAME:
                continue
            pa, pb = comp.params[a.role].get(name), comp.params[b.role].get(name)
            info = meta.get(name) if meta else None
            out.append(
                ParamChange(
                    pin=m.pin,
                    role=m.role,
                    name=name,
                    status=row.status,
                    old=comp.cell(a.role, name),
                    new=comp.cell(b.role, name),
                    old_at=str(pa.origin) if pa else "",
                    new_at=str(pb.origin) if pb else "",
                    reboot=bool(info and info.flag(REBOOT_FLAG)),
                )
            )
    return out


# --------------------------------------------------------------------------- overlay


def _delta_changes(old: Overlay | None, new: Overlay) -> list[DeltaChange]:
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
        elif (a.value, a.was, a.reason, a.ref) != (b.value, b.was, b.reason, b.ref):
            note = f"was {format_value(a.value)} (was: {_was(a)})"
            out.append(_delta("changed", b, new.file, note))
    return out


def _was(d: Delta) -> str:
    return "null" if d.was is None else format_value(d.was)


def _delta(kind: str, d: Delta, file: str, note: str = "") -> DeltaChange:
    return DeltaChange(kind, d.param, format_value(d.value), _was(d), d.reason, file, d.line, note)


def _stale_deltas(ctx: PinContext, overlay: Overlay, out: ProfileReview) -> list[DeltaChange]:
    """Deltas whose ``was`` no longer equals upstream at the locked commit (every one, not
    only the first that derive stops at)."""
    base = ctx.source(overlay.base)
    stale = []
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
        note = f"{overlay.base} at {(base.commit or '')[:12]} now has {now}"
        stale.append(_delta("stale", d, overlay.file, note))
        fix = (
            f"review the delta against the new upstream value, then set was: "
            f"{upstream.text if upstream else 'null'}"
        )
        what = f"delta {d.param} is stale: written against {_was(d)}, but {note}"
        if not any(a.line == d.line and a.file == overlay.file for a in out.attention):
            out.attention.append(Attention(what, fix, overlay.file, d.line))
    return stale


# --------------------------------------------------------------------------- derived file


def _line_changes(
    old_ctx: PinContext | None, old: Derived | None, new_ctx: PinContext, new: Derived
) -> tuple[list[LineChange], int]:
    """The derived file's parameter lines, BASE vs what derive writes now, each with why.

    BASE is rebuilt from BASE's own inputs (its lock, overlay and sources.yaml); when that
    is impossible (a stale overlay at BASE) the committed file at BASE is read instead.
    """
    from ..derive import render

    old_lines = {ln.name: ln for ln in old.lines} if old else {}
    old_values = _committed_values(old_ctx, old)
    new_lines = {ln.name: ln for ln in new.lines}
    meta = new_ctx.metadata
    out = []
    for name in sorted(set(old_values) | set(new_lines), key=_natural):
        a, b = old_values.get(name), new_lines.get(name)
        if b is not None and a is not None and same_value(a, b.value):
            continue
        kind = "added" if a is None else "removed" if b is None else "changed"
        info = meta.get(name) if meta else None
        out.append(
            LineChange(
                kind=kind,
                name=name,
                old="" if a is None else format_value(a),
                new="" if b is None else format_value(b.value),
                reason=_why(name, old_lines.get(name), b, old, new),
                reboot=bool(info and info.flag(REBOOT_FLAG)),
            )
        )
    header_old = _header_lines(old_ctx, old)
    header_new = [ln for ln in render(new) if ln.startswith("#") and "DELTA" not in ln]
    return out, len(set(header_old) ^ set(header_new))


def _natural(name: str) -> list[object]:
    from ..derive import natural_key

    return natural_key(name)


def _committed_values(ctx: PinContext | None, built: Derived | None) -> dict[str, float]:
    if built is not None:
        return built.params()
    data = _committed_bytes(ctx)
    if data is None:
        return {}
    from ..formats import parse_params

    parsed = parse_params(data, "base", "params", lenient=True)
    return {n: p.value for n, p in parsed.params.items()}


def _committed_bytes(ctx: PinContext | None) -> bytes | None:
    if ctx is None:
        return None
    rel = ctx.profile.derived_path(ctx.pin)
    path = ctx.config.root / rel if rel else None
    return path.read_bytes() if path and path.exists() else None


def _header_lines(ctx: PinContext | None, built: Derived | None) -> list[str]:
    from ..derive import render

    if built is not None:
        text = list(render(built))
    else:
        data = _committed_bytes(ctx)
        text = data.decode(errors="replace").splitlines() if data else []
    return [ln for ln in text if ln.startswith("#") and "DELTA" not in ln]


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


def _outputs_up_to_date(ctx: PinContext, built: Derived, out: ProfileReview) -> None:
    """The committed derived file and report are what this branch's inputs produce."""
    from ..derive import render
    from ..report import gather, render_report
    from ..sinks import check_file

    result = check_file(ctx.config.root / built.target, render(built), built.target)
    if not result.up_to_date:
        out.attention.append(
            Attention(
                f"{built.target} is not what derive writes from this branch's inputs",
                f"run: {built.regenerate}",
                built.target,
                1,
            )
        )
    report = ctx.profile.report_path(ctx.pin)
    if report:
        result = check_file(ctx.config.root / report, render_report(gather(ctx, built)), report)
        if not result.up_to_date:
            out.attention.append(
                Attention(
                    f"{report} is not what report writes from this branch's inputs",
                    f"run: paramdiff report --profile {ctx.profile.name} --pin {ctx.pin}",
                    report,
                    1,
                )
            )
