"""`paramdiff review BASE`: what a branch changes, in real git repositories."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import git
import pytest
from helpers import C1, C2, ROOT, build_mirror, location_args, run_cli, small_upstream

from paramdiff.review.changes import LineChange, ParamChange, ProfileReview, Review
from paramdiff.review.comment import MARKDOWN_LIMIT, render_markdown

SITL_MODELS_OLD = "b2fbaefe57ecc28cc219c0cdc6670adde124cc9e"  # master in the mirror
SITL_MODELS_NEW = "8d6a5dcc04182a28c6e6c1850601e175bf792fa6"


def invoke(*args: str) -> object:
    return run_cli(list(args))


def commit_all(repo: git.Repo, message: str) -> None:
    repo.git.add(A=True)
    repo.git.commit(m=message, author="t <t@example.com>")


def new_repo(root: Path) -> git.Repo:
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cw:
        cw.set_value("user", "name", "t")
        cw.set_value("user", "email", "t@example.com")
    return repo


def generate(loc: list[str]) -> None:
    for cmd in (["fetch"], ["derive"], ["report"]):
        out = invoke(*cmd, *loc)
        assert out.exit_code == 0, out.output


# --------------------------------------------------------------------------- small fixtures


@pytest.fixture
def small_repo(project: Path, tmp_path: Path) -> tuple[Path, list[str], git.Repo]:
    """The small project pinned to C1, committed; the branch then moves it to C2."""
    sources = project / "sources.yaml"
    hw = "hardware: {repo: acme/params, ref: master, path: boats/hw.params"
    sources.write_text(sources.read_text().replace(hw, hw.replace("master", C1)))
    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    repo = new_repo(project)
    generate(loc)
    commit_all(repo, "base")
    return project, loc, repo


def move_hardware_and_add_delta(root: Path, loc: list[str], was: int = 16) -> None:
    sources = root / "sources.yaml"
    sources.write_text(sources.read_text().replace(C1, C2))
    with (root / "overlays/boat.yaml").open("a") as f:
        f.write(f"  - param: CRUISE_THROTTLE\n    value: 30\n    was: {was}\n")
        f.write("    reason: the simulated hull needs more throttle\n")
    for cmd in (["fetch", "--update"], ["derive"], ["report"]):
        invoke(*cmd, *loc)


def test_review_names_moves_upstream_changes_deltas_and_derived_lines(
    small_repo: tuple[Path, list[str], git.Repo],
) -> None:
    root, loc, repo = small_repo
    move_hardware_and_add_delta(root, loc)
    commit_all(repo, "move hardware, add a delta")
    out = invoke("review", "HEAD~1", *loc)
    assert out.exit_code == 0, out.output
    text = out.output
    assert f"[`{C1[:12]}`](https://github.com/acme/params/blob/{C1}/boats/hw.params)" in text
    assert f"https://github.com/acme/params/compare/{C1}...{C2}" in text
    # WP_RADIUS 2 -> 1 upstream, and so in the derived file, with the upstream line as reason
    assert "| 1.0 | hardware | `WP_RADIUS` | 2 | 1 |" in text
    assert "| changed | `WP_RADIUS` | 2 | 1 |  | upstream changed: hardware@c2c2c2c2c2c2 " in text
    assert "| added | `CRUISE_THROTTLE` | 30 | 16 | `overlays/boat.yaml:" in text
    assert "| changed | `CRUISE_THROTTLE` | 16 | 30 |  | delta (overlays/boat.yaml:" in text
    assert "Nothing is stale" in text
    data = json.loads(invoke("review", "HEAD~1", "--format", "json", *loc).output)
    moves = data["profiles"][0]["moves"]
    assert [(m["role"], m["old_commit"], m["new_commit"]) for m in moves] == [("hardware", C1, C2)]
    assert data["needs_attention"] is False


def test_a_stale_delta_needs_attention_at_its_overlay_line(
    small_repo: tuple[Path, list[str], git.Repo],
) -> None:
    root, loc, _ = small_repo
    move_hardware_and_add_delta(root, loc, was=17)  # upstream has 16: stale
    out = invoke("review", "HEAD", *loc, "-o", str(root.parent / "review.md"))
    assert out.exit_code == 1
    text = (root.parent / "review.md").read_text()
    line = 1 + (root / "overlays/boat.yaml").read_text().splitlines().index(
        "  - param: CRUISE_THROTTLE"
    )
    assert f"- `overlays/boat.yaml:{line}`: delta CRUISE_THROTTLE is stale: written against 17" in (
        text
    )
    assert f"| stale | `CRUISE_THROTTLE` | 30 | 17 | `overlays/boat.yaml:{line}` |" in text


def test_review_defaults_to_the_merge_base_with_main(
    small_repo: tuple[Path, list[str], git.Repo],
) -> None:
    root, loc, repo = small_repo
    repo.git.checkout(b="move")
    move_hardware_and_add_delta(root, loc)
    commit_all(repo, "move")
    out = invoke("review", *loc)
    assert out.exit_code == 0, out.output
    assert out.output.startswith("## paramdiff review: merge base with main (`")
    assert "`WP_RADIUS`" in out.output


def test_review_outside_git_and_unknown_base_are_input_errors(
    project: Path, tmp_path: Path, small_repo: tuple[Path, list[str], git.Repo]
) -> None:
    bare = tmp_path / "nogit"
    bare.mkdir()
    (bare / "sources.yaml").write_text((project / "sources.yaml").read_text())
    out = invoke("review", "--root", str(bare))
    assert out.exit_code == 2
    assert out.output.strip() == (
        f"Error: {bare} is not inside a git repository — run paramdiff review in the "
        "project's git checkout"
    )
    _, loc, _ = small_repo
    out = invoke("review", "no-such-branch", *loc)
    assert out.exit_code == 2
    assert "Error: BASE 'no-such-branch' is not a commit in " in out.output


EXCLUDE_FENCE = (
    "    - {params: [FENCE_TOTAL], reason: MAVProxy and Mission Planner never load it}\n"
)


def test_base_refused_by_todays_loader_rules_is_not_this_branchs_problem(
    project: Path, tmp_path: Path
) -> None:
    """BASE carries FENCE_TOTAL (a name MAVProxy never loads from a file); the branch leaves it
    out and passes check. BASE's file is only compared: review exits 0 and names nothing at a
    line of the working tree's derived file."""
    repos = small_upstream()
    for files in repos["acme/params"]["files"].values():  # type: ignore[union-attr]
        files["boats/hw.params"] += b"FENCE_TOTAL      0\n"
    build_mirror(tmp_path / "mirror", repos)
    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    repo = new_repo(project)
    assert invoke("fetch", *loc).exit_code == 0
    commit_all(repo, "base: derive would refuse FENCE_TOTAL")
    overlay = project / "overlays/boat.yaml"
    overlay.write_text(overlay.read_text().replace("sections:", EXCLUDE_FENCE + "sections:"))
    generate(loc)
    assert invoke("check", *loc).exit_code == 0
    commit_all(repo, "leave FENCE_TOTAL out")
    out = invoke("review", "HEAD~1", *loc)
    assert out.exit_code == 0, out.output
    assert "does not load" not in out.output
    assert "Nothing is stale" in out.output
    assert "| removed | `FENCE_TOTAL` | 0 |  |  | left out by overlays/boat.yaml:" in out.output


def test_base_a_rule_refuses_is_labelled_base_with_bases_line(
    small_repo: tuple[Path, list[str], git.Repo],
) -> None:
    """A BASE overlay today's rules refuse (a delta on an excluded parameter) is shown as
    BASE's, at BASE's line, and does not make the review fail."""
    root, loc, repo = small_repo
    overlay = root / "overlays/boat.yaml"
    good = overlay.read_text()
    bad = good + "  - param: AHRS_ORIENTATION\n    value: 0\n    was: 8\n    reason: level\n"
    overlay.write_text(bad)
    commit_all(repo, "base: a delta on an excluded parameter")
    overlay.write_text(good)
    commit_all(repo, "drop it")
    out = invoke("review", "HEAD~1", *loc)
    assert out.exit_code == 0, out.output
    line = len(good.splitlines()) + 1
    assert (
        f"- BASE `overlays/boat.yaml:{line}`: delta AHRS_ORIENTATION targets a parameter the "
        "overlay excludes" in out.output
    )
    assert "Nothing is stale" in out.output


def test_markdown_is_capped_with_counts_and_a_pointer() -> None:
    prof = ProfileReview("boat", "1.0", "derived/boat.params")
    prof.params = [
        ParamChange("1.0", "hardware", f"P{i:05d}", "differs", "1", "2", "a:1", "b:1", False)
        for i in range(3000)
    ]
    prof.lines = [
        LineChange("changed", f"P{i:05d}", "1", "2", "upstream changed: " + "x" * 80, True)
        for i in range(3000)
    ]
    r = Review(base="HEAD~1", base_commit="ab" * 20, profiles=[prof])
    text = "".join(ln + "\n" for ln in render_markdown(r, "HEAD~1"))
    assert len(text) <= MARKDOWN_LIMIT
    assert "more of 3000 row(s); the full list: `paramdiff review HEAD~1 --format json`" in text
    small = "".join(ln + "\n" for ln in render_markdown(Review("HEAD~1", "ab" * 20, [])))
    assert "more of" not in small


# --------------------------------------------------------------------------- the real mirror


def test_review_of_a_moved_sitl_models_ref_on_the_real_mirror(
    upstream: Path, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("sources.yaml", "sources.lock", "overlays", "derived", "reports"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, root / name)
    repo = new_repo(root)
    commit_all(repo, "base")
    loc = location_args(root, tmp_path / "cache", upstream)
    sources = root / "sources.yaml"
    text = sources.read_text()
    old = "ref: master\n          path: Gazebo/models/blueboat/model.sdf"
    sources.write_text(text.replace(old, old.replace("master", SITL_MODELS_NEW), 1))
    with (root / "overlays/blueboat_sitl.yaml").open("a") as f:
        f.write("  - param: CRUISE_THROTTLE\n    value: 30\n    was: 16\n")
        f.write("    reason: the simulated hull needs more throttle to reach cruise speed\n")
    for cmd in (["fetch", "--profile", "blueboat", "--pin", "4.7"], ["derive"], ["report"]):
        out = invoke(*cmd, *loc)
        assert out.exit_code == 0, out.output
    commit_all(repo, "move sitl_models, add a delta")
    out = invoke("review", "HEAD~1", *loc)
    assert out.exit_code == 0, out.output
    review = out.output
    assert len(review) < MARKDOWN_LIMIT
    assert f"[`{SITL_MODELS_OLD[:12]}`]" in review and f"[`{SITL_MODELS_NEW[:12]}`]" in review
    assert f"compare/{SITL_MODELS_OLD}...{SITL_MODELS_NEW}" in review
    assert "| added | `CRUISE_THROTTLE` | 30 | 16 | `overlays/blueboat_sitl.yaml:" in review
    assert "| changed | `CRUISE_THROTTLE` | 16 | 30 |  | delta (overlays/blueboat_sitl.yaml:" in (
        review
    )
    assert "### bluerov2_heavy (pin 4.7)\n\nNo change" in review


def test_reboots_are_listed_for_the_derived_files_changed_lines() -> None:
    prof = ProfileReview("boat", "1.0", "derived/boat.params")
    prof.params = [
        ParamChange("1.0", "hardware", "MAV1_RAW_CTRL", "differs", "1", "2", "", "", True)
    ]
    prof.lines = [LineChange("changed", "SERVO1_FUNCTION", "73", "74", "upstream changed", True)]
    text = "\n".join(render_markdown(Review("HEAD~1", "ab" * 20, [prof])))
    assert "| 1.0 | hardware | `MAV1_RAW_CTRL` | 1 | 2 | yes |" in text
    assert "| changed | `SERVO1_FUNCTION` | 73 | 74 | yes | upstream changed |" in text
    assert text.rstrip().endswith(
        "**Reboot required** after loading the derived file into a running vehicle (1): "
        "`SERVO1_FUNCTION`"
    )
