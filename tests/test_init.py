"""`paramdiff init PROFILE`: a starter project in another (empty) git repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest
from helpers import ROOT, location_args, run_cli, tree_bytes

from paramdiff.config.sources import load_config
from paramdiff.jobs.init import ADOPTER_FILES, shipped, shipped_profiles

SEED_DERIVED = "blueboat_gazebo/params/blueboat_sitl.params"


def invoke(*args: str) -> object:
    return run_cli(list(args))


def test_package_data_is_this_repositorys_profiles() -> None:
    """init's data is shipped in the package; it must be the profiles this repository keeps."""
    assert shipped("sources.yaml") == (ROOT / "sources.yaml").read_bytes()
    for overlay in (ROOT / "overlays").glob("*.yaml"):
        assert shipped(f"overlays/{overlay.name}") == overlay.read_bytes(), overlay.name
    assert shipped_profiles() == ["blueboat", "bluerov2_heavy", "holybro_x500"]


def test_package_data_is_this_repositorys_workflow_and_pre_commit_config() -> None:
    """What init gives an adopter is what this repository runs itself."""
    for rel, name in ADOPTER_FILES.items():
        assert shipped(name) == (ROOT / rel).read_bytes(), rel


def test_the_pre_commit_config_runs_the_hook_paramdiff_offers() -> None:
    """The shipped .pre-commit-config.yaml is a valid pre-commit config whose hook is the one
    .pre-commit-hooks.yaml offers (same id, entry, files, pass_filenames)."""
    clientlib = pytest.importorskip("pre_commit.clientlib")
    config = clientlib.load_config(str(ROOT / ".pre-commit-config.yaml"))
    (hook,) = [h for repo in config["repos"] for h in repo["hooks"]]
    (offered,) = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    keys = ("id", "name", "entry", "pass_filenames", "files")
    assert {k: hook[k] for k in keys} == {k: offered[k] for k in keys}


def test_package_data_is_installed_with_the_package(tmp_path: Path) -> None:
    """setuptools copies the starter files into the built package (what a wheel holds)."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "paramdiff", src / "paramdiff")
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    done = subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py",
         "--build-lib", str(tmp_path / "lib")],
        cwd=src, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = tmp_path / "lib" / "paramdiff" / "data"
    assert sorted(p.relative_to(data).as_posix() for p in data.rglob("*.yaml")) == [
        "overlays/blueboat_sitl.yaml",
        "overlays/bluerov2_heavy_sitl.yaml",
        "overlays/holybro_x500_sitl.yaml",
        "pre-commit-config.yaml",  # init's .pre-commit-config.yaml
        "renames.yaml",  # the renames compare pairs (paramdiff/comparison/renames_yaml.py)
        "sources.yaml",
    ]
    assert (data / "workflows" / "paramdiff.yml").read_bytes() == (
        ROOT / ".github/workflows/paramdiff.yml"
    ).read_bytes()
    assert (data / "renames.json").is_file()  # what diff reads (paramdiff/comparison/renames.py)


def test_init_writes_one_profile_with_the_derived_path_adjusted(tmp_path: Path) -> None:
    out = invoke("init", "blueboat", "--derived", SEED_DERIVED, "--root", str(tmp_path))
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[:2] == [
        "sources.yaml written",
        "overlays/blueboat_sitl.yaml written",
    ]
    config = load_config(tmp_path)
    assert list(config.profiles) == ["blueboat"]
    profile = config.profiles["blueboat"]
    assert profile.derived == SEED_DERIVED
    assert profile.overlay == "overlays/blueboat_sitl.yaml"
    assert sorted(profile.pins) == ["4.6", "4.7"]
    ours = load_config(ROOT)
    assert [c.name for c in config.categories] == [c.name for c in ours.categories]
    for pin, specs in ours.profiles["blueboat"].pins.items():
        assert {r: (s.repo, s.ref, s.path, s.format) for r, s in profile.pins[pin].items()} == {
            r: (s.repo, s.ref, s.path, s.format) for r, s in specs.items()
        }
    assert (tmp_path / "overlays/blueboat_sitl.yaml").read_bytes() == (
        ROOT / "overlays/blueboat_sitl.yaml"
    ).read_bytes()
    assert out.output.splitlines()[2:] == [
        ".github/workflows/paramdiff.yml written",
        ".pre-commit-config.yaml written",
        ".gitignore: .sources.lock.lock, .*.paramdiff-*.tmp added",
        "next: paramdiff fetch && paramdiff derive && paramdiff report && paramdiff check",
    ]
    for rel, name in ADOPTER_FILES.items():
        assert (tmp_path / rel).read_bytes() == shipped(name)
    assert (tmp_path / ".gitignore").read_text() == (
        "# paramdiff: its lock file and interrupted writes' temp files\n"
        ".sources.lock.lock\n.*.paramdiff-*.tmp\n"
    )


def test_init_keeps_an_existing_workflow_and_adds_only_missing_ignore_lines(
    tmp_path: Path,
) -> None:
    (tmp_path / ".github/workflows").mkdir(parents=True)
    (tmp_path / ".github/workflows/paramdiff.yml").write_text("mine\n")
    (tmp_path / ".gitignore").write_text("build/\n.sources.lock.lock\n*.pyc")  # no newline
    out = invoke("init", "blueboat", "--root", str(tmp_path))
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[2:5] == [
        ".pre-commit-config.yaml written",
        ".gitignore: .*.paramdiff-*.tmp added",
        ".github/workflows/paramdiff.yml kept (it exists; paramdiff's is in paramdiff/data)",
    ]
    assert (tmp_path / ".github/workflows/paramdiff.yml").read_text() == "mine\n"
    assert (tmp_path / ".gitignore").read_text() == (
        "build/\n.sources.lock.lock\n*.pyc\n"
        "# paramdiff: its lock file and interrupted writes' temp files\n.*.paramdiff-*.tmp\n"
    )
    # idempotent: a second project in the same folder adds nothing to .gitignore
    before = (tmp_path / ".gitignore").read_bytes()
    for rel in ("sources.yaml", "overlays/blueboat_sitl.yaml"):
        (tmp_path / rel).unlink()
    out = invoke("init", "blueboat", "--root", str(tmp_path))
    assert out.exit_code == 0, out.output
    assert not any(line.startswith(".gitignore") for line in out.output.splitlines())
    assert (tmp_path / ".gitignore").read_bytes() == before


def test_what_git_leaves_untracked_after_fetch_is_ignored(tmp_path: Path) -> None:
    """The lock file fetch creates, and a temp file an interrupted write leaves, are ignored
    by git itself with init's .gitignore."""
    repo = git.Repo.init(tmp_path)
    assert invoke("init", "blueboat", "--root", str(tmp_path)).exit_code == 0
    (tmp_path / ".sources.lock.lock").write_text("")
    (tmp_path / "derived").mkdir()
    (tmp_path / "derived" / ".blueboat_sitl.params.paramdiff-0123456789ab.tmp").write_text("")
    untracked = repo.git.status("--porcelain", "--untracked-files=all").splitlines()
    assert sorted(line[3:] for line in untracked) == [
        ".github/workflows/paramdiff.yml",
        ".gitignore",
        ".pre-commit-config.yaml",
        "overlays/blueboat_sitl.yaml",
        "sources.yaml",
    ]


def test_init_refuses_a_gitignore_linked_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("x\n")
    root = tmp_path / "seed"
    root.mkdir()
    (root / ".gitignore").symlink_to(outside)
    out = invoke("init", "blueboat", "--root", str(root))
    assert out.exit_code == 2
    assert out.output.startswith("Error: .gitignore: leads outside the project")
    assert sorted(p.name for p in root.iterdir()) == [".gitignore"]
    assert outside.read_text() == "x\n"


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "overlays").mkdir()
    (tmp_path / "overlays/blueboat_sitl.yaml").write_text("mine\n")
    before = tree_bytes(tmp_path)
    out = invoke("init", "blueboat", "--root", str(tmp_path))
    assert out.exit_code == 2
    assert out.output.strip() == (
        "Error: overlays/blueboat_sitl.yaml: already exists; paramdiff init never overwrites "
        "— remove or rename overlays/blueboat_sitl.yaml, or run paramdiff init in another "
        "directory"
    )
    assert tree_bytes(tmp_path) == before  # sources.yaml was not written either


def test_init_with_a_folder_linked_outside_writes_nothing(tmp_path: Path) -> None:
    """overlays/ -> a folder outside: init wrote sources.yaml, then refused the overlay (exit
    2 with a file half the project). Every target is checked before the first write."""
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "seed"
    root.mkdir()
    (root / "overlays").symlink_to(outside)
    out = invoke("init", "blueboat", "--root", str(root))
    assert out.exit_code == 2
    assert out.output == (
        "Error: overlays/blueboat_sitl.yaml: leads outside the project (a symlink to "
        f"{str((outside / 'blueboat_sitl.yaml').resolve())[:80]}) — replace the link with the file "
        "itself; project files stay in the project\n"
    )
    assert sorted(p.name for p in root.iterdir()) == ["overlays"]
    assert list(outside.iterdir()) == []


def test_init_below_a_file_or_a_dangling_link_writes_nothing(tmp_path: Path) -> None:
    """A folder on the way that is a file (or a link to nowhere) is found before writing."""
    (tmp_path / "overlays").write_text("a file\n")
    out = invoke("init", "blueboat", "--root", str(tmp_path))
    assert (out.exit_code, out.output) == (
        2,
        "Error: overlays/blueboat_sitl.yaml: cannot create overlays/blueboat_sitl.yaml: "
        "overlays is not a writable folder — make overlays a writable folder, or run "
        "paramdiff init in another directory\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["overlays"]
    (tmp_path / "overlays").unlink()
    (tmp_path / "overlays").symlink_to("nowhere")
    out = invoke("init", "blueboat", "--root", str(tmp_path))
    assert out.exit_code == 2, out.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["overlays"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["no_such_boat"],
            "Error: paramdiff ships no profile 'no_such_boat' — use one of: blueboat, "
            "bluerov2_heavy, holybro_x500",
        ),
        (
            ["blueboat", "--derived", "../elsewhere.params"],
            "Error: --derived ../elsewhere.params is not a path inside the repository — give a "
            "relative path without '..', e.g. blueboat_gazebo/params/blueboat_sitl.params",
        ),
    ],
)
def test_init_input_errors(tmp_path: Path, args: list[str], error: str) -> None:
    out = invoke("init", *args, "--root", str(tmp_path))
    assert (out.exit_code, out.output.strip()) == (2, error)
    assert list(tmp_path.iterdir()) == []


def test_init_then_fetch_derive_report_check_in_an_empty_git_repository(
    upstream: Path, tmp_path: Path
) -> None:
    root = tmp_path / "seed"
    git.Repo.init(root)
    loc = location_args(root, tmp_path / "cache", upstream)
    out = invoke("init", "blueboat", "--derived", SEED_DERIVED, "--root", str(root))
    assert out.exit_code == 0, out.output
    for cmd in (["fetch"], ["derive"], ["report"], ["check"]):
        out = invoke(*cmd, *loc)
        assert out.exit_code == 0, (cmd, out.output)
    derived = (root / SEED_DERIVED).read_text()
    assert f"--add-param-file={SEED_DERIVED}" in derived
    # The same parameter lines as this repository's own derived file.
    ours = (ROOT / "derived/blueboat_sitl.params").read_text()

    def body(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]

    assert body(derived) == body(ours)
