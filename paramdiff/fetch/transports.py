"""How bytes reach us: GitHub's raw-file host (https), git itself (git), or a mirror.

Each transport answers two questions: which commit does a ref name now
(``resolve``), and what bytes does a path hold at a commit (``get``). Verifying
those bytes is fetch's job, not the transport's: a transport only reports the
hashes its source claims, when it has any.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, urlparse

import git

from paramdiff.errors import FetchError
from paramdiff.fetch import GIT_BASE, RAW_BASE
from paramdiff.fetch.http import MIRROR_HINT, HttpClient, SizeLimit, too_slow
from paramdiff.fetch.watchdog import CommandDeadline
from paramdiff.files import read_regular

HEX40 = re.compile(r"^[0-9a-f]{40}$")
LOCKED_SIZE = "the size sources.lock records"


class TransportError(FetchError):
    """A transport failure; fetch adds which role, repo, ref and path it was for."""


class MissingFile(TransportError):
    """The source has no such path at that commit (or no such commit)."""

    missing = True  # fetch adds: if the lock named that commit, was it edited?


@dataclass(frozen=True)
class Fetched:
    """Bytes from a transport and the digests the source claims for them."""

    data: bytes
    blob: str | None = None  # git blob id the source claims, if it has one
    sha256: str | None = None  # sha256 the source claims, if it has one


class Transport(Protocol):
    """``locked_size`` is the size sources.lock records for the file, when it has one: a
    download that grows past it is cut off and refused, not read to the end."""

    name: str

    def resolve(self, repo: str, ref: str) -> str: ...

    def get(self, repo: str, commit: str, path: str, locked_size: int | None = None) -> Fetched: ...

    def stop(self) -> None:
        """End the downloads in flight and refuse new ones (another download failed)."""

    def close(self) -> None:
        """Release connections, once the downloads returned."""


# --------------------------------------------------------------------------- git helpers


def _git() -> Any:

    return git.Git()


def _time_left(deadline: CommandDeadline | None, what: str) -> dict[str, float]:
    """GitPython's ``kill_after_timeout`` for a git command of a fetch: it may run until the
    command's deadline, then git (and its helpers) are killed."""
    if deadline is None:
        return {}
    _past(deadline, what)
    return {"kill_after_timeout": deadline.left()}


def _past(deadline: CommandDeadline | None, what: str) -> None:
    """An error once the command's deadline passed (or the command stopped)."""
    if deadline is not None and (deadline.left() <= 0 or deadline.stopped.is_set()):
        raise TransportError(
            f"{what} did not finish within its {deadline.seconds:g}s deadline",
            too_slow(deadline.seconds),
        )


def ls_remote(url: str, ref: str, deadline: CommandDeadline | None = None) -> str:
    """Resolve ``ref`` on ``url`` with ``git ls-remote``; argument list only, ``--`` first;
    within the command's ``deadline`` when given."""

    if HEX40.match(ref):
        return ref
    what = f"git ls-remote {url}"
    try:
        out = _git().execute(["git", "ls-remote", "--", url, ref], **_time_left(deadline, what))
    except git.GitCommandError as exc:
        _past(deadline, what)
        raise TransportError(
            f"git ls-remote {url} failed: {git_stderr(exc) or exc.status}",
            f"check the repository URL and the network, or {MIRROR_HINT}",
        ) from None
    found: dict[str, str] = {}
    for line in str(out).splitlines():
        sha, _, name = line.partition("\t")
        found[name] = sha
    for name in (f"refs/tags/{ref}^{{}}", f"refs/heads/{ref}", f"refs/tags/{ref}", ref):
        if name in found:
            return found[name]
    raise TransportError(
        f"ref '{ref}' does not exist in {url}",
        "check the branch or tag name in sources.yaml (or pin a 40-hex commit)",
    )


def git_stderr(exc: Any) -> str:
    """git's complaint on one line (an error is one line). GitPython wraps stderr as
    ``stderr: '...'``; git fetch over file:// prints the local and the remote side's
    ``fatal:`` lines in whichever order they arrive, so those are sorted (the same
    failure gives the same message)."""
    text = str(getattr(exc, "stderr", "") or "").strip()
    if text.startswith("stderr: '") and text.endswith("'"):
        text = text[len("stderr: '") : -1]
    lines = list(dict.fromkeys(" ".join(ln.split()) for ln in text.splitlines() if ln.strip()))
    fatal = sorted(ln for ln in lines if ln.startswith(("fatal:", "error:")))
    return "; ".join(fatal or lines)[:200]


# --------------------------------------------------------------------------- transports


class HttpsTransport:
    """Raw files from GitHub (or any host with the same URL layout); refs via ls-remote."""

    name = "https"

    def __init__(
        self,
        raw_base: str = RAW_BASE,
        git_base: str = GIT_BASE,
        client: HttpClient | None = None,
    ) -> None:
        self.raw_base = raw_base.rstrip("/")
        self.git_base = git_base.rstrip("/")
        self.client = client or HttpClient()

    def resolve(self, repo: str, ref: str) -> str:
        return ls_remote(f"{self.git_base}/{repo}.git", ref, self.client.deadline)

    def get(self, repo: str, commit: str, path: str, locked_size: int | None = None) -> Fetched:
        limit = None if locked_size is None else SizeLimit(locked_size, LOCKED_SIZE)
        url = f"{self.raw_base}/{repo}/{commit}/{quote(path)}"
        return Fetched(self.client.get(url, limit))

    def stop(self) -> None:
        self.client.stop()

    def close(self) -> None:
        self.client.close()


class GitTransport:
    """Fetch just the pinned commit into a cached bare repository and read the blob with git.

    For hosts without a raw-file endpoint. ``git_base`` may be ``file://`` only when
    the user passed it explicitly (``--git-base``); sources.yaml cannot ask for it. With a
    ``deadline`` (fetch's), ``ls-remote`` and ``git fetch`` are killed when it passes.
    """

    name = "git"

    def __init__(
        self, cache_dir: Path, git_base: str = GIT_BASE, deadline: CommandDeadline | None = None
    ) -> None:
        self.cache_dir = cache_dir
        self.git_base = git_base.rstrip("/")
        self.deadline = deadline
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def url(self, repo: str) -> str:
        return f"{self.git_base}/{repo}.git"

    def stop(self) -> None:
        """Nothing to stop: a running git command ends by itself (a job not started yet is
        cancelled by the engine)."""

    def close(self) -> None:
        pass

    def resolve(self, repo: str, ref: str) -> str:
        return ls_remote(self.url(repo), ref, self.deadline)

    def _bare(self, repo: str) -> Any:

        path = self.cache_dir / "git" / f"{repo}.git"
        if not (path / "HEAD").exists():
            try:
                path.mkdir(parents=True, exist_ok=True)
                return git.Repo.init(path, bare=True)
            except OSError as exc:
                raise TransportError(
                    f"cannot create the git cache at {path}: {exc.strerror}",
                    "make the cache directory writable or pass --cache-dir",
                ) from None
        return git.Repo(path)

    def get(self, repo: str, commit: str, path: str, locked_size: int | None = None) -> Fetched:

        with self._guard:
            lock = self._locks.setdefault(repo, threading.Lock())
        with lock:
            bare = self._bare(repo)
            try:
                bare.git.execute(["git", "cat-file", "-e", f"{commit}^{{commit}}"])
            except git.GitCommandError:
                what = f"git fetch of {commit} from {self.url(repo)}"
                try:
                    bare.git.execute(
                        ["git", "fetch", "--quiet", "--depth=1", "--", self.url(repo), commit],
                        **_time_left(self.deadline, what),
                    )
                except git.GitCommandError as exc:
                    _past(self.deadline, what)
                    raise TransportError(
                        f"git fetch of {commit} from {self.url(repo)} failed: {git_stderr(exc)}",
                        "check the commit exists upstream and the host allows fetching it (and "
                        f"the network), or {MIRROR_HINT}",
                    ) from None
            try:
                blob = bare.git.execute(["git", "rev-parse", "--verify", f"{commit}:{path}"])
                size = int(bare.git.execute(["git", "cat-file", "-s", str(blob).strip()]))
                if locked_size is not None and size > locked_size:
                    raise TransportError(
                        f"{path} at commit {commit[:12]} has {size} bytes; "
                        f"sources.lock records {locked_size}",
                        "do not trust this file: restore the lock from git, or review the "
                        "change and run paramdiff fetch --update",
                    )
                data = bare.git.execute(
                    ["git", "cat-file", "blob", str(blob).strip()],
                    stdout_as_string=False,
                    strip_newline_in_stdout=False,
                )
            except git.GitCommandError:
                raise MissingFile(
                    f"{path} does not exist at commit {commit[:12]}",
                    "check the path in sources.yaml against the repository at that commit",
                ) from None
        return Fetched(bytes(data), blob=str(blob).strip())

    def commits_touching(self, repo: str, ref: str, paths: list[str]) -> list[dict[str, str]]:
        """Every commit on ``ref`` that changed any of ``paths``, newest first (sha, date,
        subject).

        Fetches the ref's full history into the cached bare repository (blobs are read
        later, one per commit, by ``get``).
        """

        with self._guard:
            lock = self._locks.setdefault(repo, threading.Lock())
        with lock:
            bare = self._bare(repo)
            deepen = ["--unshallow"] if (Path(bare.git_dir) / "shallow").exists() else []
            try:
                bare.git.execute(["git", "fetch", "--quiet", *deepen, "--", self.url(repo), ref])
                out = bare.git.execute(
                    ["git", "log", "--format=%H%x1f%cI%x1f%s", "FETCH_HEAD", "--", *paths]
                )
            except git.GitCommandError as exc:
                raise TransportError(
                    f"git history of {repo} {ref} from {self.url(repo)} failed: {git_stderr(exc)}",
                    "check the ref exists upstream and the host allows fetching it",
                ) from None
        commits = []
        for line in str(out).splitlines():
            sha, date, subject = line.split("\x1f", 2)
            commits.append({"sha": sha, "date": date, "subject": subject})
        return commits


HEX64 = re.compile(r"^[0-9a-f]{64}$")


def manifest_problem(doc: Any) -> str | None:
    """What is wrong with a parsed MANIFEST.json, or None. Everything later code indexes is
    checked here: branch heads and commits are 40-hex (a branch may not name a path such as
    ``../../x``), files map commit → path → {blob, sha256, size}."""
    if not isinstance(doc, dict):
        return "the top level is not an object"
    for repo, entry in doc.items():
        if not isinstance(entry, dict):
            return f"{str(repo)[:80]!r} is not an object"
        branches, files = entry.get("branches") or {}, entry.get("files") or {}
        commits = entry.get("commits") or []
        if not isinstance(branches, dict) or not all(
            isinstance(v, str) and HEX40.match(v) for v in branches.values()
        ):
            return f"{repo}: branches must map names to 40-hex commits"
        if not isinstance(commits, list) or not all(
            isinstance(c, dict) and isinstance(c.get("sha"), str) and HEX40.match(c["sha"])
            for c in commits
        ):
            return f"{repo}: commits must be objects with a 40-hex sha"
        if not isinstance(files, dict):
            return f"{repo}: files must map commits to paths"
        for commit, paths in files.items():
            if not HEX40.match(str(commit)) or not isinstance(paths, dict):
                return f"{repo}: files key {str(commit)[:80]!r} is not a 40-hex commit"
            for path, info in paths.items():
                if not _file_info_ok(info):
                    return f"{repo}@{str(commit)[:12]}: {str(path)[:80]!r} lacks blob/sha256/size"
    return None


def _file_info_ok(info: Any) -> bool:
    return (
        isinstance(info, dict)
        and isinstance(info.get("blob"), str)
        and bool(HEX40.match(info["blob"]))
        and isinstance(info.get("sha256"), str)
        and bool(HEX64.match(info["sha256"]))
        and isinstance(info.get("size"), int)
        and info["size"] >= 0
    )


class MirrorTransport:
    """A mirror laid out like raw.githubusercontent.com, with MANIFEST.json beside ``raw/``.

    ``base`` is a directory or an http(s) URL. The manifest supplies branch heads
    (for resolve) and blob ids and sha256 (claims fetch verifies).
    """

    name = "mirror"

    def __init__(self, base: str, client: HttpClient | None = None) -> None:
        self.base = base.rstrip("/")
        scheme = urlparse(self.base).scheme
        self.is_http = scheme in ("http", "https")
        if not self.is_http and scheme not in ("", "file"):
            raise FetchError(
                f"unsupported mirror URL scheme '{scheme}:' in {base}",
                "pass a directory or an http(s) URL to --mirror",
            )
        if scheme == "file":
            self.base = urlparse(self.base).path
        self.client = client or HttpClient()
        self._manifest: dict[str, Any] | None = None
        self._failure: TransportError | None = None
        self._guard = threading.Lock()

    def _read(self, rel: str, limit: SizeLimit | None = None) -> bytes:
        if self.is_http:
            return self.client.get(f"{self.base}/{quote(rel)}", limit)
        root = Path(self.base).resolve()
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            raise TransportError(f"{rel} escapes the mirror", "fix the path")
        # A regular file, bounded like a download: the recorded size, else the HTTP default.
        bound = limit.size if limit is not None else self.client.settings.max_body
        try:
            return read_regular(target, limit=bound)
        except FileNotFoundError:
            raise TransportError(
                f"{target} does not exist in the mirror", "refresh the mirror or check the path"
            ) from None
        except OSError as exc:
            raise TransportError(
                f"cannot read {target}: {exc.strerror}", "check the mirror"
            ) from None

    def manifest(self) -> dict[str, Any]:
        """MANIFEST.json, read once per run; a failure is remembered too, so a mirror that
        stalls or lies costs one deadline, not one per role."""
        with self._guard:
            if self._failure is not None:
                raise self._failure
            if self._manifest is None:
                try:
                    self._manifest = self._load_manifest()
                except TransportError as exc:
                    self._failure = exc
                    raise
            return self._manifest

    def _load_manifest(self) -> dict[str, Any]:
        try:
            data = self._read("MANIFEST.json")
        except FetchError as exc:
            raise TransportError(
                f"mirror {self.base} has no readable MANIFEST.json ({exc.what})",
                "point --mirror / PARAMDIFF_MIRROR at the folder holding MANIFEST.json and raw/",
            ) from None
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            raise TransportError(
                f"{self.base}/MANIFEST.json is not JSON (or nests too deeply)",
                "refresh the mirror",
            ) from None
        problem = manifest_problem(doc)
        if problem:
            raise TransportError(
                f"{self.base}/MANIFEST.json is not a mirror manifest: {problem}",
                "refresh the mirror (see the mirror layout in the README)",
            )
        return dict(doc)

    def _repo(self, repo: str) -> dict[str, Any]:
        entry = self.manifest().get(repo)
        if entry is None:
            raise TransportError(
                f"the mirror at {self.base} does not carry {repo}",
                "add the repository to the mirror or use the https transport",
            )
        return entry

    def resolve(self, repo: str, ref: str) -> str:
        if HEX40.match(ref):
            return ref
        branches = self._repo(repo).get("branches") or {}
        if ref not in branches:
            known = ", ".join(sorted(branches)) or "none recorded"
            raise TransportError(
                f"ref '{ref}' does not exist in the mirror's {repo} (branches: {known})",
                "check the ref in sources.yaml, or pin a 40-hex commit",
            )
        return str(branches[ref])

    def get(self, repo: str, commit: str, path: str, locked_size: int | None = None) -> Fetched:
        info = (self._repo(repo).get("files") or {}).get(commit, {}).get(path)
        if info is None:
            raise MissingFile(
                f"{path} does not exist at commit {commit[:12]} in the mirror",
                "check the path in sources.yaml against the repository at that commit",
            )
        limit = None
        if locked_size is not None:
            limit = SizeLimit(locked_size, LOCKED_SIZE)
        elif info["size"] <= self.client.settings.max_body:
            # The manifest comes from the same (untrusted) server as the file: its claim may
            # lower the bound, never raise it past the download cap.
            limit = SizeLimit(info["size"], "the size the mirror's MANIFEST.json records")
        data = self._read(f"raw/{repo}/{commit}/{path}", limit)
        return Fetched(data, blob=info.get("blob"), sha256=info.get("sha256"))

    def stop(self) -> None:
        self.client.stop()

    def close(self) -> None:
        self.client.close()

    def commits(self, repo: str) -> list[dict[str, Any]]:
        """The repository's commits, newest first (for history)."""
        return list(self._repo(repo).get("commits") or [])

    def commits_touching(self, repo: str, ref: str, paths: list[str]) -> list[dict[str, str]]:
        """The mirrored commits that hold ``paths[0]``, newest first (sha, date, subject).

        The MANIFEST lists what was mirrored, not what changed: callers skip commits whose
        bytes did not move."""
        return [
            {"sha": c["sha"], "date": c["date"], "subject": c["subject"]}
            for c in self.commits(repo)
            if paths[0] in self.paths_at(repo, c["sha"])
        ]

    def paths_at(self, repo: str, commit: str) -> dict[str, Any]:
        return dict((self._repo(repo).get("files") or {}).get(commit, {}))
