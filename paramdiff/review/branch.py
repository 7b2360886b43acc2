"""`paramdiff review [BASE]`: what a pull request changes, for the person approving it.

Two snapshots of the project — BASE (read from git objects, never checked out) and the
working tree — each with its sources.yaml, sources.lock, overlays and derived files. This
module wires them (git, contexts, rebuilt derived files); ``review.changes`` compares them.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

import git

from paramdiff.comparison.side_by_side import compare
from paramdiff.config.lock import LOCK_FILE, require_entry
from paramdiff.config.roles import PARAM_FORMATS
from paramdiff.config.sources import SOURCES_FILE, load_config
from paramdiff.derive.derived import Derived
from paramdiff.derive.record import load_record, record_path
from paramdiff.digests import sha256_of
from paramdiff.errors import ConfigError, DriftError, InputError, ParamdiffError, StaleOverlayError
from paramdiff.files import INPUT_LIMIT, project_path, read_regular
from paramdiff.jobs.report import report_inputs
from paramdiff.overlay.file import Overlay, load_overlay
from paramdiff.parse.param_text import parse_params
from paramdiff.pin import Pin
from paramdiff.project import Project
from paramdiff.render.derived_file import render as render_params
from paramdiff.render.derived_file import render_derived
from paramdiff.render.report_markdown import render_report
from paramdiff.render.sinks import Output, Outputs, check_file, join_lines, output_for
from paramdiff.review.changes import (
    REASON_EDITED,
    Attention,
    ProfileReview,
    Review,
    RoleMove,
    delta_changes,
    line_changes,
    param_changes,
    role_moves,
    stale_deltas,
)
from paramdiff.review.comment import render_json, render_markdown

DEFAULT_BRANCHES = ("main", "master")


def review_files(
    options: Project, base: str | None = None, fmt: str = "markdown", output: Path | None = None
) -> Outputs:
    """`paramdiff review`: the review's lines (``fmt``: markdown or json) and where they go
    (``output``, refused before the review runs; None: stdout); its failure, a DriftError
    naming what needs attention (the command's exit 1), is raised after they are written."""
    target = review_output(options, output) if output is not None else None
    result = review(options, base)
    lines = render_json(result) if fmt == "json" else render_markdown(result, base)
    failure = None
    if result.needs_attention:
        items = [*result.attention, *(a for p in result.profiles for a in p.attention)]
        failure = DriftError([a.what for a in items], "see the review")
    return Outputs([(lines, target)], failure=failure)


def review_output(options: Project, output: Path) -> Output:
    """Where ``review -o PATH`` writes (``-``: stdout), checked before the review runs: never
    over the project's own files, never through a symlink out of the current directory
    (a pull request can commit ``review.md -> /etc/passwd``; paramdiff/outputs.py)."""
    return output_for(
        options.root, output, None, "paramdiff review -o PATH", options.project_files()
    )


def review(options: Project, base: str | None) -> Review:
    """Compare the project at BASE with the working tree."""
    repo, commit, label = resolve_base(options.root, base)
    result = Review(base=label, base_commit=commit)
    with base_snapshot(repo, commit, options.root) as base_root:
        old = options.replace(root=base_root) if base_root else None
        for name in options.config().profiles:
            result.profiles.append(_profile_review(options, old, name))
        for name in old.config().profiles if old else {}:
            if name not in options.config().profiles:
                result.attention.append(
                    Attention(f"profile {name} was removed", "confirm it is meant to go")
                )
    return result


# --------------------------------------------------------------------------- BASE from git


def resolve_base(root: Path, base: str | None) -> tuple[Any, str, str]:
    """(git repo, commit sha, label) of BASE; the default is the merge base of HEAD with the
    default branch (origin's HEAD, else main or master)."""

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


def _default_branch(repo: Any) -> str:

    try:
        head = repo.git.symbolic_ref("refs/remotes/origin/HEAD")  # refs/remotes/origin/main
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
def base_snapshot(repo: Any, commit: str, root: Path) -> Iterator[Path | None]:
    """A temporary folder holding the project's own files as they were at ``commit``
    (sources.yaml, sources.lock, overlays, derived files, ``file:`` roles), read from git
    objects.

    Yields None when sources.yaml did not exist at ``commit``.
    """
    top = Path(repo.working_tree_dir or ".").resolve()
    prefix = PurePosixPath(root.resolve().relative_to(top).as_posix())
    tree = repo.commit(commit).tree

    def read(rel: str) -> bytes | None:
        try:
            blob = tree / (prefix / rel).as_posix().removeprefix("./")
        except KeyError:
            return None
        return _base_blob(blob, f"BASE {commit[:12]}:{rel}")

    with tempfile.TemporaryDirectory(prefix="paramdiff-base-") as tmp:
        out = Path(tmp)
        sources = read(SOURCES_FILE)
        if sources is None:
            yield None
            return
        (out / SOURCES_FILE).write_bytes(sources)
        wanted = {LOCK_FILE}
        for p in load_config(out).profiles.values():
            wanted |= {x for x in (p.overlay, p.derived_path(p.default_pin)) if x}
            # a file: role (a field dump) is a file of the project, read at BASE like the rest
            wanted |= {s.path for specs in p.pins.values() for s in specs.values() if s.is_local}
        for rel in sorted(wanted):
            data = read(rel)
            if data is not None:
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / rel).write_bytes(data)
        yield out


def _base_blob(blob: Any, label: str) -> bytes:
    """A BASE file's bytes, its size checked from git's object header (``git cat-file -s``)
    before a byte is read: a file the working tree's reader would refuse (INPUT_LIMIT) is
    refused here before it takes memory or a temp file (a 1 GB lock compresses to a few MB
    in git)."""
    if blob.type != "blob":
        raise InputError(
            f"is a git {blob.type}, not a file", "make it a regular file on BASE", file=label
        )
    if blob.size > INPUT_LIMIT:
        raise InputError(
            f"is {blob.size} bytes in git, over paramdiff's input limit of {INPUT_LIMIT} bytes",
            "review against a BASE whose project files are the YAML and parameter files they "
            "should be (those are far smaller)",
            file=label,
        )
    return bytes(blob.data_stream.read())


# --------------------------------------------------------------------------- one profile


def _profile_review(new: Project, old: Project | None, name: str) -> ProfileReview:
    new_ctx = Pin(new, name, None)
    old_ctx = _old_context(old, name, new_ctx.pin)
    out = ProfileReview(name, new_ctx.pin, new_ctx.profile.derived_path(new_ctx.pin) or "")
    out.moves = role_moves(old_ctx.lock() if old_ctx else None, new_ctx.lock(), name)
    try:
        for spec in new_ctx.specs.values():
            require_entry(new_ctx.lock(), name, new_ctx.pin, spec)
        out.params = [c for m in out.moves for c in _param_changes(old, new, name, m)]
        _overlay_changes(old_ctx, new_ctx, out)
        new_build = _build(new_ctx, out)
        if new_build is not None:
            old_build = _base_build(old_ctx, out)
            old_values = _committed_values(old_ctx, old_build)
            out.lines = line_changes(old_build, old_values, new_build, new_ctx.metadata())
            out.header_lines_changed = len(
                set(_header_lines(old_ctx, old_build)) ^ set(_header_lines(new_ctx, new_build))
            )
            _outputs_up_to_date(new_ctx, new_build, out)
            _record_note(old_ctx, new_ctx, out)
    except ParamdiffError as exc:
        out.attention.append(Attention(exc.what, exc.fix or "", exc.file, exc.line))
    return out


def _old_context(old: Project | None, name: str, pin: str) -> Pin | None:
    if old is None or name not in old.config().profiles:
        return None
    profile = old.config().profiles[name]
    return Pin(old, name, pin if pin in profile.pins else None)


def _param_changes(old: Project | None, new: Project, profile: str, m: RoleMove) -> list[Any]:
    """The parameters a moved role's file changed, read as ``role@old`` vs ``role@new``."""
    if not (m.bytes_changed and m.old_commit and m.new_commit and old is not None):
        return []
    new_ctx = Pin(new, profile, m.pin)
    if new_ctx.spec(m.role).format not in (*PARAM_FORMATS, "sdf"):
        return []
    old_ctx = Pin(old, profile, m.pin)
    a = old_ctx.source(m.role)._replace(role=f"{m.role}@{m.old_commit[:12]}")
    b = new_ctx.source(m.role)._replace(role=f"{m.role}@{m.new_commit[:12]}")
    comp = compare([a, b], new_ctx.classifier(), new_ctx.metadata())
    return param_changes(m.pin, m.role, comp, a.role, b.role, new_ctx.metadata())


def _overlay(ctx: Pin | None, strict: bool) -> Overlay | None:
    """The profile's overlay as the snapshot has it, whether or not it is stale."""
    if ctx is None or not ctx.profile.overlay:
        return None
    try:
        return load_overlay(ctx.config.root, ctx.profile.overlay)
    except ConfigError:
        if strict:
            raise
        return None  # BASE's overlay did not parse: every delta now counts as added


def _overlay_changes(old: Pin | None, new: Pin, out: ProfileReview) -> None:
    overlay = _overlay(new, strict=True)
    if overlay is None:
        return
    out.deltas = delta_changes(_overlay(old, strict=False), overlay)
    for change, attention in stale_deltas(overlay, new.source(overlay.base)):
        out.deltas.append(change)
        out.attention.append(attention)


def _build(ctx: Pin, out: ProfileReview) -> Derived | None:
    """The working tree's derived file as derive writes it; None when the overlay is stale
    (the stale deltas are already listed as needing attention)."""
    try:
        return ctx.derived()
    except StaleOverlayError as exc:
        if not any((a.file, a.line) == (exc.file, exc.line) for a in out.attention):
            out.attention.append(Attention(exc.what, exc.fix or "", exc.file, exc.line))
        return None


def _base_build(ctx: Pin | None, out: ProfileReview) -> Derived | None:
    """BASE's derived file rebuilt from BASE's inputs, else None (its committed file is used).

    BASE is what the branch changes, not what it must fix: a BASE the current rules refuse
    (a stale delta, a name a loader leaves out that the branch now excludes) is noted as
    BASE's, with BASE's file and line, and never needs attention.
    """
    if ctx is None:
        return None
    try:
        return ctx.derived()
    except StaleOverlayError:
        return None  # the branch updating a stale delta is the usual case: nothing to say
    except ParamdiffError as exc:
        out.base_notes.append(Attention(exc.what, exc.fix or "", exc.file, exc.line))
        return None


# --------------------------------------------------------------------------- derived files


def _committed_bytes(ctx: Pin | None) -> bytes | None:
    if ctx is None:
        return None
    rel = ctx.profile.derived_path(ctx.pin)
    path = project_path(ctx.config.root, rel) if rel else None
    if path is None:
        return None
    try:  # bounded, regular files only (a committed symlink to /dev/zero is an Error)
        return read_regular(path, label=rel)
    except FileNotFoundError:
        return None


def _committed_values(ctx: Pin | None, built: Derived | None) -> dict[str, float]:
    """BASE's derived values: rebuilt from BASE's inputs, else its committed file."""
    if built is not None:
        return built.params()
    data = _committed_bytes(ctx)
    if data is None:
        return {}
    parsed = parse_params(data, "base", "params", lenient=True)
    return parsed.values()


def _header_lines(ctx: Pin | None, built: Derived | None) -> list[str]:
    if built is not None:
        # Rendered without reading it back with the loaders: only the header is compared, and
        # a BASE the loaders refuse is not this branch's problem (the working tree's file is
        # read back by them in _outputs_up_to_date).
        text = render_derived(built)
    else:
        data = _committed_bytes(ctx)
        text = data.decode(errors="replace").splitlines() if data else []
    # The header ends at the first section; below it, run and DELTA comments belong to values.
    header = itertools.takewhile(lambda ln: not ln.startswith("# --- "), text)
    return [ln for ln in header if ln.startswith("#")]


def _outputs_up_to_date(ctx: Pin, built: Derived, out: ProfileReview) -> None:
    """The committed derived file and report are what this branch's inputs produce."""
    root = ctx.config.root
    if not check_file(
        project_path(root, built.target), render_params(built), built.target
    ).up_to_date:
        out.attention.append(
            Attention(
                f"{built.target} is not what derive writes from this branch's inputs",
                f"run: {built.regenerate}",
                built.target,
                1,
            )
        )
    report = ctx.profile.report_path(ctx.pin)
    if (
        report
        and not check_file(project_path(root, report), render_report(report_inputs(ctx))).up_to_date
    ):
        out.attention.append(
            Attention(
                f"{report} is not what report writes from this branch's inputs",
                f"run: paramdiff report --profile {ctx.profile.name} --pin {ctx.pin}",
                report,
                1,
            )
        )


def _record_note(old: Pin | None, new: Pin, out: ProfileReview) -> None:
    """What the pin's verification record (in the working tree) confirms, or what made it
    stale: this branch's pin moves or delta changes, or nothing of this branch's (it was
    stale at BASE already)."""
    record = load_record(new.config.root, new.profile.name, new.pin)
    if record is None:
        return
    rel = record_path(new.profile.name, new.pin)
    rows = {n: p.value for n, p in new.derived_source().file.params.items()}
    if record.derived_sha256 == sha256_of(join_lines(new.derived_lines()).encode()):
        out.record = f"`{rel}` confirms this branch's derived file: {record.summary(rows)}"
        return
    base = _committed_bytes(old)
    out.record_stale = True
    if base is not None and sha256_of(base) == record.derived_sha256:
        why = f"this branch made it stale ({', '.join(_stale_causes(out))})"
    else:
        why = "it was stale at BASE already"
    out.record = (
        f"`{rel}` is stale: it confirmed `{record.derived_file}` with sha256 "
        f"`{record.derived_sha256[:12]}`; {why}. Run SITL on the new file and "
        f"`paramdiff verify CONNECTION --profile {new.profile.name} --pin {new.pin} --record`"
    )


def _stale_causes(out: ProfileReview) -> list[str]:
    """What of this branch's changed the derived file's bytes: pin moves, delta values, and
    reason-only delta edits (a delta's reason is its DELTA comment line in the derived file,
    so the record's digest no longer matches, though every value stands)."""
    values = [d for d in out.deltas if d.kind != REASON_EDITED]
    reasons = len(out.deltas) - len(values)
    causes = [f"{len(out.moves)} role(s) moved"] if out.moves else []
    causes += [f"{len(values)} overlay delta change(s)"] if values else []
    if reasons:
        causes.append(
            f"{reasons} delta reason-only edit(s): the derived file's DELTA comment lines "
            "changed, so its sha256 did, though no value did"
        )
    return causes or ["the derived file changed"]
