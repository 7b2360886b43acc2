"""Where `-o` may write (paramdiff/outputs.py): never over the project's own inputs or its other
outputs, never through a symlink that leads out of the current directory — with real symlinks,
hard links and folders in tmp dirs; and the commands (derive, report and its .svg, review)
that go through that one check."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from helpers import run_cli, tree_bytes

from paramdiff.errors import UsageError
from paramdiff.files import _open_folder_nofollow, write_atomic
from paramdiff.outputs import ProjectFiles, checked_output, git_folders


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project folder (the current directory of the user) and a folder outside it."""
    root = tmp_path / "tree"
    for rel, text in {
        "sources.yaml": "version: 1\n",
        "sources.lock": "version: 1\n",
        ".sources.lock.lock": "",
        "overlays/boat.yaml": "deltas: []\n",
        ".git/config": "[core]\n",
        "derived/boat_sitl.params": "A 1\n",
        "reports/boat-1.0.md": "# r\n",
        "reports/boat-1.0.svg": "<svg/>\n",
        "reports/boat-2.0.md": "# r2\n",
        "cache/sha256/ab/abcd": "bytes\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("secret\n")
    return root


def files_of(root: Path) -> ProjectFiles:
    return ProjectFiles(
        root,
        {
            "sources.yaml": "the project's sources.yaml, an input paramdiff reads",
            "sources.lock": "the project's sources.lock, an input paramdiff reads",
            ".sources.lock.lock": "sources.lock's lock file",
            "overlays/boat.yaml": "profile boat's overlay, an input",
            "derived/boat_sitl.params": "profile boat's derived file",
            "reports/boat-1.0.md": "profile boat's report for pin 1.0",
            "reports/boat-1.0.svg": "profile boat's top view for pin 1.0",
            "reports/boat-2.0.md": "profile boat's report for pin 2.0",
        },
        {**git_folders(root), str(root / "cache"): "inside paramdiff's cache directory"},
    )


def refused(path: str | Path, root: Path) -> str:
    with pytest.raises(UsageError) as caught:
        checked_output(Path(path), files_of(root).without("reports/boat-2.0.md"), cwd=root)
    return str(caught.value)


@pytest.mark.parametrize(
    ("path", "what"),
    [
        ("sources.yaml", "is the project's sources.yaml, an input paramdiff reads"),
        ("./sources.lock", "is the project's sources.lock"),
        (".sources.lock.lock", "is sources.lock's lock file"),
        ("overlays/boat.yaml", "is profile boat's overlay"),
        ("overlays/../sources.yaml", "is the project's sources.yaml"),
        (".git/config", "is inside the project's .git"),
        (".git/hooks/pre-commit", "is inside the project's .git"),
        ("cache/sha256/ab/abcd", "is inside paramdiff's cache directory"),
        ("cache/new-entry", "is inside paramdiff's cache directory"),
        ("derived/boat_sitl.params", "is profile boat's derived file"),
        ("reports/boat-1.0.md", "is profile boat's report for pin 1.0"),
        ("reports/boat-1.0.svg", "is profile boat's top view for pin 1.0"),
    ],
)
def test_the_projects_own_files_are_refused(tree: Path, path: str, what: str) -> None:
    message = refused(path, tree)
    assert message.startswith(f"{Path(path)}: {what}")
    assert message.endswith("— choose another output path (-o PATH, or -o - for stdout)")
    # the absolute spelling of the same file is refused alike
    assert what in refused(tree / path, tree)


@pytest.mark.parametrize(
    ("target", "what"),
    [
        (".git/config", "is a link to inside the project's .git"),
        ("sources.yaml", "is a link to the project's sources.yaml"),
        ("overlays/boat.yaml", "is a link to profile boat's overlay"),
        ("reports/boat-1.0.svg", "is a link to profile boat's top view for pin 1.0"),
        ("derived/boat_sitl.params", "is a link to profile boat's derived file"),
        ("cache/sha256/ab/abcd", "is a link to inside paramdiff's cache directory"),
    ],
)
def test_a_link_to_one_of_them_is_refused(tree: Path, target: str, what: str) -> None:
    (tree / "review.md").symlink_to(target)  # relative, as a pull request commits it
    assert refused("review.md", tree).startswith(f"review.md: {what}")
    (tree / "abs.md").symlink_to(tree / target)
    assert what in refused("abs.md", tree)
    before = (tree / target).read_bytes()
    assert (tree / target).read_bytes() == before


def test_a_hard_link_to_sources_yaml_is_refused(tree: Path) -> None:
    os.link(tree / "sources.yaml", tree / "hard.yaml")
    assert refused("hard.yaml", tree).startswith(
        "hard.yaml: is a hard link to the project's sources.yaml"
    )


def test_links_out_of_the_tree_are_refused(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (tree / "rel.md").symlink_to("../outside/secret")  # relative
    (tree / "abs.md").symlink_to(outside / "secret")  # absolute
    (tree / "dangling.md").symlink_to("../outside/nowhere/new.md")  # a dangling link
    (tree / "sub").symlink_to("../outside")  # a link in a folder on the way
    (tree / "a.md").symlink_to("b.md")  # a chain: a -> b -> c -> outside
    (tree / "b.md").symlink_to("c.md")
    (tree / "c.md").symlink_to(outside / "secret")
    (tree / "etc").symlink_to("/etc")
    for typed, shown in [
        ("rel.md", f"{outside}/secret"),
        ("abs.md", f"{outside}/secret"),
        ("dangling.md", f"{outside}/nowhere/new.md"),
        ("sub/review.md", f"{outside}/review.md"),
        ("a.md", f"{outside}/secret"),
        ("etc/passwd", "/etc/passwd"),
        (str(tree / "rel.md"), f"{outside}/secret"),
    ]:
        message = refused(typed, tree)
        assert message.startswith(f"{typed}: leads through a symlink out of the current directory")
        assert message.endswith(
            f"to {shown} — remove the link, or give the path you mean to write itself"
        ), message
    assert "(" + str(tree / "sub") + " is one)" in refused("sub/review.md", tree)
    assert (outside / "secret").read_text() == "secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]


def test_a_link_loop_is_refused(tree: Path) -> None:
    (tree / "loop1").symlink_to("loop2")
    (tree / "loop2").symlink_to("loop1")
    assert refused("loop1", tree).startswith("loop1: is a symlink loop")


def test_plain_cases_are_allowed(tree: Path, tmp_path: Path) -> None:
    project = files_of(tree)
    for typed in [
        "new.md",  # a new file
        "out/deeper/new.md",  # in folders not there yet
        str(tmp_path / "outside" / "typed.md"),  # outside the tree, typed as itself
        str(tmp_path / "outside" / "secret"),  # an existing file there, typed as itself
        "/dev/stdout",  # this process's descriptor (a link to /proc/self/fd/1)
        "/dev/null",
    ]:
        assert checked_output(Path(typed), project, cwd=tree) == Path(typed)
    # the command's own default output
    own = project.without("reports/boat-1.0.md", "reports/boat-1.0.svg")
    assert checked_output(Path("reports/boat-1.0.md"), own, cwd=tree)
    assert checked_output(Path("reports/boat-1.0.svg"), own, cwd=tree)
    # a link that stays inside the tree, dangling or not; a folder linked inside the tree
    (tree / "in.md").symlink_to("notes/real.md")
    (tree / "notes").mkdir()
    (tree / "dangling-in.md").symlink_to("notes/later.md")
    (tree / "alias").symlink_to("notes")
    for typed in ("in.md", "dangling-in.md", "alias/x.md"):
        assert checked_output(Path(typed), project, cwd=tree) == Path(typed)
    # a link outside the tree, in a folder outside it, is the user's own (macOS: /tmp)
    (tmp_path / "elsewhere").symlink_to(tmp_path / "outside")
    assert checked_output(Path(tmp_path / "elsewhere" / "x.md"), project, cwd=tree)


def test_git_folders_follow_a_worktrees_git_file(tmp_path: Path) -> None:
    (tmp_path / "main.git" / "worktrees" / "wt").mkdir(parents=True)
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {tmp_path}/main.git/worktrees/wt\n")
    (tmp_path / "main.git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    assert git_folders(tmp_path / "wt") == {
        str(tmp_path / "wt" / ".git"): "inside the project's .git",
        str(tmp_path / "main.git" / "worktrees" / "wt"): "inside the project's .git",
        str(tmp_path / "main.git"): "inside the project's .git",
    }


def test_the_write_opens_each_folder_without_following_links(tmp_path: Path) -> None:
    """The write after the check: a folder that is a link now (swapped in after the path was
    resolved) is ELOOP, never followed; a last component swapped for a link is replaced."""
    (tmp_path / "real").mkdir()
    (tmp_path / "swapped").symlink_to("real")
    with pytest.raises(OSError) as caught:
        os.close(_open_folder_nofollow(str(tmp_path / "swapped")))
    assert caught.value.errno in (errno.ELOOP, errno.ENOTDIR)
    os.close(_open_folder_nofollow(str(tmp_path / "real")))
    assert write_atomic(tmp_path / "real" / "f.txt", b"x\n")
    assert (tmp_path / "real" / "f.txt").read_bytes() == b"x\n"
    assert [p.name for p in (tmp_path / "real").iterdir()] == ["f.txt"]  # no temp file left


# --------------------------------------------------------------------------- the commands


@pytest.mark.parametrize(
    ("command", "path", "what"),
    [
        (["derive"], "sources.yaml", "is the project's sources.yaml, an input paramdiff reads"),
        (["derive"], "overlays/boat.yaml", "is profile boat's overlay, an input"),
        (["derive"], "sources.lock", "is the project's sources.lock, an input paramdiff reads"),
        (["derive"], "reports/boat-1.0.md", "is profile boat's report for pin 1.0"),
        (["derive", "--format", "mp"], "derived/boat_sitl.params", "is profile boat's derived"),
        (["report"], "derived/boat_sitl.params", "is profile boat's derived file"),
        (["report"], "sources.md", None),  # allowed: a new file, with its .svg beside it
        (["report"], "reports/boat-1.0.md", None),  # its own default output
        (["derive"], "derived/boat_sitl.params", None),  # its own default output
        (["derive"], "-", None),  # stdout
        (["report"], "-", None),
        (["derive"], "TMP/elsewhere/out.params", None),  # outside the tree, typed as itself
        (["report"], "TMP/elsewhere/out.md", None),
        (["review"], "sources.yaml", "is the project's sources.yaml, an input paramdiff reads"),
        (["review"], ".git/config", "is inside the project's .git"),
        (["derive"], ".gitignore", "is the project's .gitignore"),
        (["derive"], ".pre-commit-config.yaml", "is the project's pre-commit configuration"),
        (["report"], ".github/workflows/paramdiff.md", "is inside the project's .github folder"),
        (["review"], "c/new", "is inside paramdiff's cache directory"),
    ],
)
def test_commands_refuse_the_projects_files(
    derived: tuple[Path, list[str]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    command: list[str],
    path: str,
    what: str | None,
) -> None:
    project, loc = derived
    loc = [a if a != str(tmp_path / "c") else "../c" for a in loc]
    (project / ".git").mkdir(exist_ok=True)
    (project / ".git" / "config").write_text("[core]\n")
    (tmp_path / "c").mkdir(exist_ok=True)
    monkeypatch.chdir(project)
    path = path.replace("c/new", "../c/new").replace("TMP", str(tmp_path))
    before = tree_bytes(project)
    result = run_cli([*command, *loc, "-o", path])
    if what is None:
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"Error: {path}: {what}"), result.output
    assert result.output.count("\n") == 1
    assert tree_bytes(project) == before


def test_report_refuses_an_svg_beside_it_that_links_out(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project, loc = derived
    (tmp_path / "victim.svg").write_text("keep\n")
    (project / "mine.svg").symlink_to(tmp_path / "victim.svg")
    monkeypatch.chdir(project)
    result = run_cli(["report", *loc, "-o", "mine.md"])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1].startswith(
        "Error: mine.svg: leads through a symlink out of the current directory"
    )
    assert (tmp_path / "victim.svg").read_text() == "keep\n"


def test_review_through_a_committed_link_writes_nothing(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue #19's CI case: a pull request commits review.md -> a file outside the checkout.
    The output is refused before the review runs (no git repository is needed to say so)."""
    project, loc = derived
    (tmp_path / "passwd").write_text("root:x:0:0\n")
    (project / "review.md").symlink_to(tmp_path / "passwd")
    monkeypatch.chdir(project)
    result = run_cli(["review", *loc, "-o", "review.md"])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: review.md: leads through a symlink out of the current directory, to "
        f"{tmp_path}/passwd — remove the link, or give the path you mean to write itself\n"
    )
    assert (tmp_path / "passwd").read_text() == "root:x:0:0\n"
