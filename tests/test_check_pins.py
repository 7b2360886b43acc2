"""`paramdiff check` without --pin covers every locked pin (issue #19, item 8): each pin's lock
entries verified (commit, size, sha256, git blob), its committed outputs only where it has
them. On the small offline project with a second pin, and on the real mirror."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import C1, C2, CliResult, build_mirror, copy_project, location_args, run_cli
from test_offline_project import OVERLAY_YAML, offline_sources, offline_upstream

from paramdiff.config.sources import load_config

OLD_HW = f"hardware: {{repo: acme/params, ref: {C1},"


def two_pin_sources() -> str:
    """The offline boat with pin 0.9 beside 1.0 (the default): 0.9's hardware file is the
    older commit's. The derived path has no {pin} (it is 1.0's); the report has one."""
    head, pin = offline_sources().split('      "1.0":\n')
    older = pin.replace("hardware: {repo: acme/params, ref: master,", OLD_HW)
    assert older != pin
    return f'{head}      "1.0":\n{pin}      "0.9":\n{older}'


def invoke(*args: str) -> CliResult:
    return run_cli(list(args))


@pytest.fixture
def two_pins(tmp_path: Path) -> tuple[Path, list[str]]:
    """Fetched (every pin), derived (1.0) and reported (both pins)."""
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(two_pin_sources())
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", offline_upstream())
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    for args in (["fetch"], ["derive"], ["report"], ["report", "--pin", "0.9"]):
        result = invoke(*args, *loc)
        assert result.exit_code == 0, (args, result.output)
    return root, loc


def edit_lock(root: Path, pin: str, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` once, inside ``pin``'s part of sources.lock."""
    lock = root / "sources.lock"
    text = lock.read_text()
    start = text.index(f"'{pin}':")
    end = text.find("\n    '", start + 1)
    end = len(text) if end < 0 else end
    part = text[start:end]
    assert old in part, part
    lock.write_text(text[:start] + part.replace(old, new, 1) + text[end:])


def test_check_covers_every_pin_and_only_the_outputs_each_has(
    two_pins: tuple[Path, list[str]],
) -> None:
    _, loc = two_pins
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    for pin, files in (("1.0", 7), ("0.9", 7)):
        assert f"ok    boat {pin}: sources.lock matches sources.yaml" in lines
        assert (
            f"ok    boat {pin}: the {files} locked file(s) verify (commit, size, sha256, git blob)"
            in lines
        )
        assert f"ok    boat {pin}: reports/boat-{pin}.md is up to date" in lines
    assert "ok    boat 1.0: derived/boat_sitl.params is up to date" in lines
    # 0.9 has no derived file of its own: the committed one is 1.0's, checked once, as 1.0's.
    assert not [ln for ln in lines if ln.startswith("ok    boat 0.9: derived/")]
    assert not [ln for ln in lines if ln.startswith("warn  boat 0.9")]
    assert lines[-1] == "check passed"
    # Without -v each pin's passed checks are one line counting them (#31)
    folded = invoke("check", *loc)
    assert folded.exit_code == 0, folded.output
    oks = [ln for ln in folded.stdout.splitlines() if ln.startswith("ok ")]
    assert [ln.split(":")[0] for ln in oks] == ["ok    boat 1.0", "ok    boat 0.9"]
    counted = len([ln for ln in lines if ln.startswith("ok    boat 0.9")])
    assert oks[1] == f"ok    boat 0.9: {counted} checks passed (paramdiff check -v lists them)"
    # Asked for by name, the pin says why its derived file is not checked.
    named = invoke("check", "-v", "--pin", "0.9", *loc)
    assert named.exit_code == 0, named.output
    assert (
        "warn  boat 0.9: derived/boat_sitl.params is pin 1.0's file (default_pin), so it is not "
        "checked for pin 0.9; put {pin} in the profile's derived path to commit one per pin"
    ) in named.stdout


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        (
            f"commit: {C1}",
            f"commit: {'ef' * 20}",
            "hw.params does not exist at commit efefefefefef",
        ),
        (f"commit: {C1}", f"commit: {C2}", "boats/hw.params): sha256 mismatch — sources.lock says"),
        (
            "size: ",
            "size: 1",
            "calibration (acme/params@master -> c2c2c2c2c2c2 blacklist.txt): got",
        ),
    ],
)
def test_an_edited_entry_of_a_pin_that_is_not_the_default_fails_check(
    two_pins: tuple[Path, list[str]], old: str, new: str, error: str
) -> None:
    """Before, check read only the default pin's entries: these edits passed."""
    root, loc = two_pins
    edit_lock(root, "0.9", old, new)
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 2, out.output
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("Error: ")
    assert error in out.stderr


def test_a_stale_report_of_the_second_pin_fails_check(two_pins: tuple[Path, list[str]]) -> None:
    root, loc = two_pins
    report = root / "reports" / "boat-0.9.md"
    report.write_text(report.read_text() + "edited\n")
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 1, out.output
    assert "Error: boat 0.9: reports/boat-0.9.md differs from what report writes" in out.stderr
    assert "paramdiff report --profile boat --pin 0.9" in out.stderr


def test_a_pin_not_fetched_yet_fails_check(two_pins: tuple[Path, list[str]]) -> None:
    root, loc = two_pins
    sources = root / "sources.yaml"
    head, pin = sources.read_text().split('      "0.9":\n')
    sources.write_text(f'{head}      "0.9":\n{pin}      "0.8":\n{pin}')
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 1, out.output
    assert "boat 0.8: sources.lock has no entry for boat 0.8 " in out.stderr
    assert "paramdiff fetch --profile boat --pin 0.8" in out.stderr


# --------------------------------------------------------------------------- the real mirror


@pytest.fixture(scope="module")
def real_checkout(
    tmp_path_factory: pytest.TempPathFactory, upstream: Path
) -> tuple[Path, list[str]]:
    """A copy of the committed project; its cache filled from the mirror."""
    mirror = upstream
    base = tmp_path_factory.mktemp("pins")
    copy_project(base)
    loc = location_args(base, base / ".cache", mirror)
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 0, result.output
    return base, loc


def test_check_covers_blueboat_46_on_the_real_mirror(
    real_checkout: tuple[Path, list[str]],
) -> None:
    base, loc = real_checkout
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 0, out.output
    roles = len(load_config(base).profile("blueboat").pins["4.6"])
    assert (
        f"ok    blueboat 4.6: the {roles} locked file(s) verify (commit, size, sha256, git blob)"
    ) in out.stdout
    assert "ok    blueboat 4.6: reports/blueboat-4.6.md is up to date" in out.stdout
    assert "ok    blueboat 4.7: derived/blueboat_sitl.params is up to date" in out.stdout


def test_an_edited_blueboat_46_commit_fails_check_on_the_real_mirror(
    real_checkout: tuple[Path, list[str]], upstream: Path, tmp_path: Path
) -> None:
    base, _ = real_checkout
    edited = copy_project(tmp_path / "edited", base)
    lock = edited / "sources.lock"
    text = lock.read_text()
    start = text.index("'4.6':")
    commit = text.index("commit: ", start) + len("commit: ")
    lock.write_text(text[:commit] + "ab" * 20 + text[commit + 40 :])
    loc = location_args(edited, base / ".cache", upstream)
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 2, out.output
    assert "-> abababababab " in out.stderr and "does not exist at commit abababababab" in (
        out.stderr
    )
    assert out.stderr.rstrip().endswith("; if sources.lock was edited, restore it from git")


def test_a_pin_nobody_reported_on_is_checked_for_its_lock_alone(
    two_pins: tuple[Path, list[str]],
) -> None:
    """`report` writes the default pin's report: a newcomer's fetch, derive, report, check
    passes. Named with --pin, the missing report fails as before."""
    root, loc = two_pins
    for name in ("boat-0.9.md", "boat-0.9.svg"):
        (root / "reports" / name).unlink()
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 0, out.output
    assert [ln for ln in out.stdout.splitlines() if ln.startswith("ok    boat 0.9")] == [
        "ok    boat 0.9: sources.lock matches sources.yaml",
        "ok    boat 0.9: the 7 locked file(s) verify (commit, size, sha256, git blob)",
    ]
    named = invoke("check", "-v", "--pin", "0.9", *loc)
    assert named.exit_code == 1
    assert "reports/boat-0.9.md differs from what report writes" in named.output
