"""The BlueBoat's model side end to end on the real pins (#27): the committed derived model is
what derive writes, check fails when it is edited, the header's launch passes check --launch
with it and no acknowledgement, and the report quotes the T200."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import copy_project, location_args, run_cli

HEADER_LAUNCH = (
    "sim_vehicle.py -v Rover -f rover-skid --model JSON "
    "--add-param-file=derived/blueboat_sitl.params"
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, upstream: Path) -> tuple[Path, list[str]]:
    base = tmp_path_factory.mktemp("model-side")
    copy_project(base)
    loc = location_args(base, base / ".cache", upstream)
    result = run_cli(["fetch", "--profile", "blueboat", *loc])
    assert result.exit_code == 0, result.output
    return base, loc


def test_the_committed_model_is_what_derive_writes(project: tuple[Path, list[str]]) -> None:
    _, loc = project
    out = run_cli(["derive", "--profile", "blueboat", "--check", *loc])
    assert out.exit_code == 0, out.output
    assert "derived/blueboat_model.sdf is up to date" in out.output


@pytest.mark.parametrize("command", [["derive"], ["report"], ["derive", "--pin", "4.6"]])
def test_o_never_writes_over_the_derived_model(
    project: tuple[Path, list[str]], command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """-o is a user's own file: the derived model is one derive writes, so -o may not name it
    (it had written the params file over the model)."""
    base, loc = project
    monkeypatch.chdir(base)  # -o is relative to where the user stands
    before = (base / "derived/blueboat_model.sdf").read_bytes()
    out = run_cli([*command, "--profile", "blueboat", *loc, "-o", "derived/blueboat_model.sdf"])
    assert out.exit_code == 2, out.output
    assert "is profile blueboat's derived model" in out.output, out.output
    assert (base / "derived/blueboat_model.sdf").read_bytes() == before


def test_an_edited_model_fails_check_with_the_fix(project: tuple[Path, list[str]]) -> None:
    base, loc = project
    model = base / "derived/blueboat_model.sdf"
    original = model.read_bytes()
    model.write_bytes(
        original.replace(b"<servo_min>1100</servo_min>", b"<servo_min>1000</servo_min>", 1)
    )
    try:
        out = run_cli(["check", "--profile", "blueboat", "--pin", "4.7", *loc])
    finally:
        model.write_bytes(original)
    assert out.exit_code == 1
    assert "blueboat 4.7: derived/blueboat_model.sdf differs from what derive writes" in out.output
    # summary first (#31): what failed is the first line, before the passed count and diffs
    assert out.stdout.splitlines()[0].startswith("FAIL  blueboat 4.7: derived/blueboat_model.sdf")
    assert "paramdiff derive --profile blueboat --pin 4.7" in out.output


def test_the_header_launch_passes_with_the_derived_model_and_no_acknowledgement(
    project: tuple[Path, list[str]],
) -> None:
    base, loc = project
    header = (base / "derived/blueboat_sitl.params").read_text()
    assert "# Gazebo runs the model derived/blueboat_model.sdf" in header
    out = run_cli(
        ["check", "-v", "--profile", "blueboat", "--pin", "4.7", "--launch", HEADER_LAUNCH, *loc]
    )
    assert out.exit_code == 0, out.output
    assert "steering reversed" not in out.output
    assert not [
        line
        for line in out.output.splitlines()
        if "(command line)" in line and "acknowledged" in line
    ]
    report = (base / "reports/blueboat-4.7.md").read_text()
    assert "### Launch `gazebo` — passes\n" in report
    assert "**+51.44 N** forward and **-39.91 N** reverse (ratio 1.29)" in report
    assert "MOT_THST_ASYM 1.6" in report and "is **0.59**" in report
    assert "+28.0 / -28.0 N → **+51.4 / -39.9 N**" in report


def test_an_edited_thruster_table_is_refused(
    tmp_path: Path, project: tuple[Path, list[str]]
) -> None:
    """The T200 workbook edited where it is read from (a copy of the mirror's bytes with one
    byte changed): its sha256 is not the lock's, so nothing derives from it."""
    base, _ = project
    xlsx = "T200-Public-Performance-Data-10-20V-September-2019.xlsx"
    mirror = tmp_path / "mirror"
    shutil.copytree(Path(project[1][5]), mirror, ignore=shutil.ignore_patterns("*.xlsx"))
    for src in Path(project[1][5]).rglob(xlsx):
        dst = mirror / src.relative_to(project[1][5])
        data = bytearray(src.read_bytes())
        data[len(data) // 2] ^= 0xFF
        dst.write_bytes(bytes(data))
    loc = location_args(base, tmp_path / "cache", mirror)
    out = run_cli(["derive", "--profile", "blueboat", "--check", *loc])
    assert out.exit_code == 2, out.output
    (error,) = out.stderr.splitlines()
    assert error.startswith("Error: ") and "sha256" in error and xlsx in error, error
