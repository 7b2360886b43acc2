"""The file boundary: bounded reads of regular files, and writes that never leave half a file.

Every file paramdiff reads (parameter files, SDF, sources.yaml, overlays, the lock, cache
entries, files named on the command line) goes through ``read_regular``: a FIFO, a device,
a socket or a directory is refused by name before a byte is read (opening never blocks:
O_NONBLOCK), and a file over ``INPUT_LIMIT`` bytes is refused before it is read, so no input
can hang a run or take its memory. Every file it writes goes through ``write_atomic``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import threading
from pathlib import Path

from paramdiff.errors import InputError, ParamdiffError, quote

# The largest input: real ones are far smaller (the biggest, ArduPilot's apm.pdef.json, is
# about 2 MB; a parameter file is tens of kB), so 8 MiB refuses only what is not one, and
# the largest file it lets through (340,000 NAME VALUE lines) shows in 7 s and 360 MB.
INPUT_LIMIT = 8 * 1024 * 1024
# The largest text file a person writes or commits: parameter files, SDF models, YAML, the
# derived file and reports (the largest real one, the BlueBoat report, is ~140 kB). At 8 MiB a
# file of distinct short names took 15 s and 855 MB to show; at 1 MiB, 1.5 s and 120 MB.
TEXT_LIMIT = 1024 * 1024


def describe_kind(mode: int) -> str:
    """What a non-regular file is, in words a user knows."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    for test, name in kinds:
        if test(mode):
            return name
    return "not a regular file"


# How an input is opened: O_NONBLOCK, so a FIFO planted where a file goes cannot block the
# open (the caller then refuses it as not a regular file); never a controlling terminal.
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)


def read_regular(path: Path | str, limit: int = INPUT_LIMIT, label: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    FileNotFoundError passes through unchanged (callers say what a missing file means);
    anything else that is wrong is an InputError naming ``label`` (default: the path).
    """
    name = label or str(path)
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(
                "is a symlink loop (ELOOP: the links lead back to themselves)",
                "point the link at a real file",
                file=name,
            ) from None
        raise InputError(
            f"cannot read the file: {exc.strerror or exc}",
            "check the path and its permissions",
            file=name,
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        if info.st_size > limit and stat.S_ISREG(info.st_mode):
            raise _too_big(name, info.st_size, limit)
        raise InputError(
            f"is {describe_kind(info.st_mode)}, not a regular file",
            "name a regular file here",
            file=name,
        )
    with os.fdopen(fd, "rb") as fh:
        try:
            # Sized to the file: read(limit + 1) allocated 8 MiB (0.7 ms for a 1.7 MB file).
            data = fh.read(info.st_size + 1)
            if len(data) > info.st_size:  # it grew since fstat: the rest, up to the limit
                data += fh.read(limit + 1 - len(data))
        except OSError as exc:
            raise InputError(
                f"cannot read the file: {exc.strerror or exc}", "check the file", file=name
            ) from None
    if len(data) > limit:  # it grew while we read it
        raise _too_big(name, len(data), limit)
    return data


def missing_file_problem(path: Path | str) -> str | None:
    """Why ``path`` cannot be opened as a file, in words (None: it can be stat'ed): a symlink
    loop is not "no such file" (os.path.exists says False for both)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symlink loop (ELOOP: the links lead back to themselves)"
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return f"is a symlink to {quote(os.readlink(path))}, which does not exist"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "no such file"
        return f"cannot read the file: {exc.strerror or exc}"
    return None


def project_path(root: Path, rel: str, generated: bool = False) -> Path:
    """``root / rel`` for a file the project owns (sources.yaml, the lock, overlays, derived
    files, reports, models in the repository), refused when a symlink on the way leads out of
    the project or into its ``.git``: a pull request must not make `check` print, or `derive`
    overwrite, a file elsewhere (``derived/x.params -> /proc/self/environ``, ``-> ~/.bashrc``,
    ``-> ../.git/config``). A ``generated`` file (derived file, report, picture) may not be a
    symlink at all: paramdiff writes it, so a link there is never what the project meant."""
    path = root / rel
    inside = Path(os.path.realpath(root))
    resolved = Path(os.path.realpath(path))
    fix = "replace the link with the file itself; project files stay in the project"
    if resolved != inside and not resolved.is_relative_to(inside):
        where = f"leads outside the project (a symlink to {str(resolved)[:80]})"
        raise InputError(where, fix, file=rel)
    if resolved.is_relative_to(inside / ".git"):
        raise InputError("leads into the project's .git folder (a symlink)", fix, file=rel)
    if generated and path.is_symlink():
        raise InputError(
            f"is a symlink (to {os.readlink(path)[:80]}); paramdiff writes this file",
            "delete the link; paramdiff writes the file in its place",
            file=rel,
        )
    return path


def _too_big(name: str, size: int, limit: int) -> InputError:
    return InputError(
        f"file is {size} bytes, over paramdiff's input limit of {limit} bytes",
        "pass the parameter file, model or YAML it should be (those are far smaller)",
        file=name,
    )


_umask_lock = threading.Lock()


def current_umask() -> int:
    """The process umask: from /proc (Linux, no side effect), else by setting it and back
    (under a lock, so two threads never see the interim value)."""
    try:
        for line in read_regular("/proc/self/status", limit=1 << 16).decode().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ParamdiffError, ValueError, IndexError):
        pass
    with _umask_lock:
        mask = os.umask(0o022)
        os.umask(mask)
        return mask


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path``; True when written, False when it already held these bytes.

    - a regular file (or a symlink to one: the link stays, its target is replaced) is written
      via a temp file in the target's directory, fsynced and renamed: a failure leaves the old
      bytes; the new file keeps the old one's mode, or gets 0666 minus the umask;
    - a character device or a pipe (``/dev/stdout``, ``/dev/null``) is written straight;
    - a directory, socket or block device is refused. Nothing unbounded is ever read.
    """
    try:
        info: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _write_error(path, exc) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        return _write_stream(path, data, info.st_mode)
    if info is not None and _through_proc(path):
        return _write_stream(path, data, info.st_mode)  # a magic link (/dev/stdout > file)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if info is not None and info.st_size == len(data) and _holds(target, data):
        return False
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~current_umask()
    _replace(target, data, mode, path)
    return True


def _through_proc(path: Path) -> bool:
    """Whether ``path`` reaches its file through /proc (``/dev/stdout`` -> /proc/self/fd/1):
    a descriptor the shell opened, to write through, never to rename over."""
    return _proc_link(path) is not None


def _proc_link(path: Path | str) -> str | None:
    """The /proc/... hop of ``path``'s symlink chain, if it has one."""
    current = os.path.abspath(path)
    for _ in range(40):
        if current.startswith("/proc/"):
            return current
        if not os.path.islink(current):
            return None
        current = os.path.join(os.path.dirname(current), os.readlink(current))
    return None


def own_descriptor(path: Path | str) -> int | None:
    """N when ``path`` is this process's descriptor N (/dev/stdout, /dev/fd/N,
    /proc/self/fd/N): written through that descriptor, so its offset moves on as the
    shell expects (``-o /dev/stdout > file`` then more output)."""
    hop = _proc_link(path)
    if hop is None:
        return None
    parts = hop.split("/")  # ['', 'proc', 'self' or pid, 'fd', 'N']
    if len(parts) == 5 and parts[2] in ("self", str(os.getpid())) and parts[3] == "fd":
        return int(parts[4]) if parts[4].isdigit() else None
    return None


def _holds(path: Path, data: bytes) -> bool:
    try:
        return read_regular(path, limit=len(data)) == data
    except (OSError, ParamdiffError):
        return False


def _replace(target: Path, data: bytes, mode: int, shown: Path) -> None:
    """Write a temp file beside ``target`` and rename it over ``target``, inside the folder
    reached by opening each folder of its real path with O_NOFOLLOW: a folder swapped for a
    symlink after the caller resolved (and checked) the path fails the write, and a last
    component swapped for one is replaced, never written through."""

    tmp_name = None
    folder_fd = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        folder_fd = _open_folder_nofollow(os.path.realpath(target.parent))
        for _ in range(100):
            # os.urandom is what secrets.token_hex reads; the secrets module would bring hmac,
            # hashlib and random (~6 ms) into every command that may write a file
            tmp_name = f".{target.name}.paramdiff-{os.urandom(6).hex()}.tmp"
            try:
                fd = os.open(tmp_name, _TEMP_FLAGS, 0o600, dir_fd=folder_fd)
                break
            except FileExistsError:
                tmp_name = None
        else:  # pragma: no cover - 100 collisions of 48 random bits
            raise FileExistsError(f"no free temp name beside {target}")
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, target.name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        tmp_name = None
    except OSError as exc:
        raise _write_error(shown, exc) from None
    finally:
        if folder_fd is not None:
            if tmp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp_name, dir_fd=folder_fd)
            os.close(folder_fd)


_TEMP_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_folder_nofollow(real: str) -> int:
    """A descriptor of the folder ``real`` (a path with its symlinks resolved), each
    component opened relative to the last with O_NOFOLLOW: a link there now is ELOOP."""
    fd = os.open("/", _FOLDER_FLAGS)
    try:
        for part in Path(real).parts[1:]:
            step = os.open(part, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = step
    except OSError:
        os.close(fd)
        raise
    return fd


def _write_stream(path: Path, data: bytes, mode: int) -> bool:
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
        raise ParamdiffError(
            f"cannot write {path}: it is {describe_kind(mode)}",
            "choose a regular file, a pipe or a character device as the output path",
        )
    try:
        own = own_descriptor(path)
        if own is not None:
            sys.stdout.flush()  # whatever was printed before goes first
            view = memoryview(data)
            while view:
                view = view[os.write(own, view) :]
            return True
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
    except OSError as exc:
        raise _write_error(path, exc) from None
    return True


def _write_error(path: Path, exc: OSError) -> ParamdiffError:
    return ParamdiffError(
        f"cannot write {path}: {exc.strerror or exc}",
        "make the directory writable or choose another output path",
    )


def first_difference(path: Path, lines: list[str]) -> int:
    """The 1-based line where ``path`` first differs from ``lines`` (1 when it is missing)."""
    try:
        have = read_regular(path, limit=TEXT_LIMIT).decode(errors="replace").splitlines()
    except (OSError, InputError):
        return 1
    for i, (a, b) in enumerate(zip(have, lines, strict=False), start=1):
        if a != b:
            return i
    return min(len(have), len(lines)) + 1
