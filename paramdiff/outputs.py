"""Where a user-named output (`-o PATH`) may be written: the one check every such writer runs.

The rule (SECURITY.md, "What it writes"):

1. Never over the project's own files: sources.yaml, every overlay it names, sources.lock and
   its `.sources.lock.lock`, a model in the repository it names, another profile's (or pin's)
   derived file, report or top view, anything in `.git` or `.github`, anything in the cache
   directory — nor a symlink or hard link to one of them. ``derive -o sources.yaml`` would
   leave a project whose next ``check`` fails on broken YAML.
2. Never through a symlink that leads out of the directory tree the user is in (the current
   directory): every link met on the way, in the last component wherever it is, or in a
   folder inside the tree (a dangling link too, and each link of a chain), must resolve inside
   the tree. A pull request can commit ``review.md -> /etc/passwd``; CI runs in the checkout.
   A path typed as the place itself is the user's choice (``-o /tmp/review.md``, and links
   in folders outside the tree: macOS's ``/tmp -> /private/tmp``). The one exception is this
   process's own descriptor (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``): written
   through, never renamed over.

The check resolves the path once; the write (files.write_atomic) then opens each folder of the
resolved path with O_NOFOLLOW and renames a temp file into the last one, so a folder swapped
for a link after the check fails the write instead of following it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from paramdiff.errors import UsageError
from paramdiff.files import own_descriptor

LINK_HOPS = 40  # as the kernel's limit (MAXSYMLINKS): a loop is refused, never followed


class ProjectFiles(NamedTuple):
    """What an output may not overwrite: the project's files (path relative to ``root`` ->
    what it is, e.g. "the project's sources.yaml, an input paramdiff reads") and folders
    (absolute or relative to ``root`` -> what it is)."""

    root: Path
    files: Mapping[str, str]
    folders: Mapping[str, str]

    def without(self, *own: str | None) -> ProjectFiles:
        """These files but the command's own outputs (``derive -o`` its default path)."""
        kept = {rel: what for rel, what in self.files.items() if rel not in own}
        return ProjectFiles(self.root, kept, self.folders)


def checked_output(path: Path, project: ProjectFiles, cwd: Path | None = None) -> Path:
    """``path`` when rules 1 and 2 above allow writing it, else a UsageError
    ``<path>: <what it is> — <fix>`` (exit 2). ``-`` (stdout) is the caller's."""
    shown = str(path)
    tree = Path(os.path.realpath(cwd or os.getcwd()))
    if own_descriptor(path) is not None:
        return path  # /dev/stdout and the like: the shell's descriptor, written through
    real, links = _resolve(shown, tree)
    for link, target in links:
        if not _inside(target, tree):
            typed = os.path.normpath(os.path.join(tree, shown))
            hint = "" if link == typed else f" ({link} is one)"
            raise UsageError(
                f"leads through a symlink out of the current directory{hint}, to {_short(real)}",
                "remove the link, or give the path you mean to write itself",
                file=shown,
            )
    what = _project_file(real, project)
    if what is not None:
        via = f"a link to {what}" if links else what
        raise UsageError(
            f"is {via}", "choose another output path (-o PATH, or -o - for stdout)", file=shown
        )
    return path


def _resolve(typed: str, tree: Path) -> tuple[Path, list[tuple[str, Path]]]:
    """The real path ``typed`` leads to, and each symlink on the way that rule 2 checks (the
    link's own location, where it leads). Links in folders outside the tree are followed
    unchecked; a loop or a chain past LINK_HOPS is refused."""
    pending = typed.split(os.sep)
    current = "/" if typed.startswith(os.sep) else str(tree)
    checked: list[tuple[str, Path]] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        if not os.path.islink(candidate):
            current = candidate
            continue
        hops += 1
        if hops > LINK_HOPS:
            raise UsageError(
                "is a symlink loop (or a chain of more than 40 links)",
                "remove the link, or give the path you mean to write itself",
                file=typed,
            )
        is_last = not any(p not in ("", ".") for p in pending)
        if is_last or _inside(Path(current), tree):
            checked.append((candidate, Path(os.path.realpath(candidate))))
        target = os.readlink(candidate)
        pending = target.split(os.sep) + pending
        if target.startswith(os.sep):
            current = "/"
    return Path(current), checked


def _inside(path: Path, tree: Path) -> bool:
    return path == tree or path.is_relative_to(tree)


def _project_file(real: Path, project: ProjectFiles) -> str | None:
    """What ``real`` is among the project's files and folders (by real path, and by inode
    for a hard link), or None."""
    root = Path(os.path.realpath(project.root))
    try:
        info: os.stat_result | None = os.stat(real)
    except OSError:
        info = None
    for rel, what in project.files.items():
        mine = Path(os.path.realpath(root / rel))
        if mine == real:
            return what
        if info is not None and stat.S_ISREG(info.st_mode):
            try:
                other = os.stat(mine)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                return f"a hard link to {what}"
    for folder, what in project.folders.items():
        mine = Path(os.path.realpath(root / folder))
        if _inside(real, mine):
            return what
    return None


def _short(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 200 else f"…{text[-199:]}"


def git_folders(root: Path) -> dict[str, str]:
    """The git folders of the repository holding ``root`` (its ``.git``; for a worktree or
    submodule the ``.git`` file, the folder it names and that folder's ``commondir``), for
    ProjectFiles.folders."""
    what = "inside the project's .git"
    found: dict[str, str] = {}
    here = Path(os.path.realpath(root))
    for folder in (here, *here.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            found[str(dot_git)] = what
            break
        if dot_git.is_file():
            found[str(dot_git)] = what
            gitdir = _named_folder(dot_git, "gitdir: ", folder)
            if gitdir is not None:
                found[str(gitdir)] = what
                common = _named_folder(gitdir / "commondir", "", gitdir)
                if common is not None:
                    found[str(common)] = what
            break
    return found


def _named_folder(file: Path, prefix: str, base: Path) -> Path | None:
    """The folder a git pointer file names (``gitdir: X`` in ``.git``, ``X`` in
    ``commondir``), relative to ``base``; None when there is none."""
    try:
        head = file.read_text(errors="replace").split("\n", 1)[0]
    except OSError:
        return None
    if not head.startswith(prefix) or not head[len(prefix) :].strip():
        return None
    return Path(os.path.normpath(base / head[len(prefix) :].strip()))
