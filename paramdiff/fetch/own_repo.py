"""The project's own git history, read like an upstream's: the history of a ``file:`` role
(a field dump committed in this repository) comes from ``git log`` of the checkout."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import git

from paramdiff.errors import UsageError
from paramdiff.fetch.transports import Fetched


@dataclass
class OwnRepository:
    """``commits_touching`` and ``get`` as jobs.value_history.value_history reads them; the
    repository is opened once (value_history reads a blob per commit)."""

    root: Path

    @cached_property
    def _repo(self) -> git.Repo:
        try:
            return git.Repo(self.root, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise UsageError(
                f"{self.root} is not in a git repository, so a file of it has no history",
                "commit the file (git init; git add; git commit), then ask again",
            ) from None

    def _in_repo(self, repo: git.Repo, path: str) -> str:
        """``path`` (relative to the project root) as git names it (relative to the top)."""
        top = Path(repo.working_tree_dir or self.root).resolve()
        return (self.root.resolve() / path).relative_to(top).as_posix()

    def commits_touching(self, _repo: str, _ref: str, paths: list[str]) -> list[dict[str, str]]:
        """Every commit of HEAD that changed any of ``paths``, newest first."""
        repo = self._repo
        names = [self._in_repo(repo, p) for p in paths]
        try:
            out = repo.git.log("--format=%H%x1f%cI%x1f%s", "HEAD", "--", *names)
        except git.GitCommandError:  # no commit yet
            return []
        commits = []
        for line in str(out).splitlines():
            sha, date, subject = line.split("\x1f", 2)
            commits.append({"sha": sha, "date": date, "subject": subject})
        return commits

    def get(self, _repo: str, commit: str, path: str) -> Fetched:
        repo = self._repo
        try:
            blob = repo.commit(commit).tree / self._in_repo(repo, path)
        except KeyError:  # the file did not exist at that commit
            return Fetched(b"")
        return Fetched(blob.data_stream.read())
