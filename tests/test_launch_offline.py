"""Declared launches in a whole project without ../shared (tests/fixtures/offline): the
report's launch sections against a golden file, the header's launch line, check's verdict."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import FIXTURES, OVERLAY_YAML, build_mirror, location_args, run_cli
from test_offline_project import offline_sources, offline_upstream

GOLDEN = FIXTURES.parent / "golden" / "launch_sections.md"
# The fixture boat's outputs are SERVO1 ThrottleRight, SERVO3 ThrottleLeft (reversed): the
# built-in skid physics (left motor on output 1) drives it backwards; a Gazebo model with no
# links or joints cannot move it at all; a local file loaded last that rewires the outputs
# for SIM_Rover makes the third launch pass, so it is the header's launch line.
LAUNCHES = """\
    launches:
      - name: built-in
        command: ardurover -w --model rover-skid --defaults rover.parm,rover-skid.parm,derived/boat_sitl.params
      - name: gazebo
        command: ardurover --model JSON --defaults rover-skid.parm,derived/boat_sitl.params
        model: sitl_models
      - name: rewired
        command: ardurover -w --model rover-skid --defaults derived/boat_sitl.params,sim/rewire.parm
"""  # noqa: E501
REWIRE = "SERVO1_FUNCTION 73\nSERVO3_FUNCTION 74\nSERVO3_REVERSED 0\nSERVO3_TRIM 1500\n"


def project(tmp_path: Path, launches: str = LAUNCHES) -> tuple[Path, list[str]]:
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    sources = offline_sources().replace("    pins:\n", launches + "    pins:\n", 1)
    (root / "sources.yaml").write_text(sources)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    (root / "sim").mkdir()
    (root / "sim" / "rewire.parm").write_text(REWIRE)
    build_mirror(tmp_path / "mirror", offline_upstream())
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    for command in ("fetch", "derive", "report"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, result.output
    return root, loc


def section(report: str) -> str:
    return "## Launches" + report.split("## Launches", 1)[1].split("\n## ", 1)[0] + "\n"


def test_launch_sections_match_the_golden_file(tmp_path: Path) -> None:
    root, loc = project(tmp_path)
    got = section((root / "reports/boat-1.0.md").read_text())
    if os.environ.get("WRITE_GOLDEN"):  # regenerate: WRITE_GOLDEN=1 pytest
        GOLDEN.write_text(got)
    assert got == GOLDEN.read_text()
    derived = (root / "derived/boat_sitl.params").read_text()
    assert (
        "#   ardurover -w --model rover-skid --defaults derived/boat_sitl.params,sim/rewire.parm\n"
        "# It loads boat_sitl.params then rewire.parm; the last file loaded wins.\n"
    ) in derived
    result = run_cli(["check", "-v", *loc])
    assert result.exit_code == 1
    assert "launch built-in: throttle reversed: throttle forward → moves backward" in result.output
    assert "launch gazebo: sitl_models: throttle dead" in result.output
    assert "ok    boat 1.0: launch rewired: ardurover -w --model rover-skid" in result.output


def test_a_json_launch_with_no_model_fails_saying_so(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    sources = "".join(
        ln for ln in offline_sources().splitlines(keepends=True) if "sitl_models:" not in ln
    )
    (root / "sources.yaml").write_text(sources)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", offline_upstream())
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    for command in ("fetch", "derive"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, result.output
    launch = "ardurover --model JSON --defaults derived/boat_sitl.params"
    result = run_cli(["layers", *loc, "--launch", launch])
    assert result.exit_code == 1, result.output  # a FAIL line: exit 1, as check does
    assert "1 finding(s) (the FAIL lines above)" in result.output
    assert (
        "FAIL a JSON launch runs a Gazebo model, and the profile names none to verify it against"
        " — list the model in target_models (or the launch's model:) in sources.yaml, or give "
        "--model FILE"
    ) in result.output
    header = (root / "derived/boat_sitl.params").read_text()
    assert "No launch line: the profile declares no launches" in header
    bad = run_cli(["layers", *loc, "--launch", launch, "--frame", "rover-skid"])
    assert bad.exit_code == 2 and "drop --frame" in bad.output


# A launch that passes but loads no derived file (the rewiring file alone) comes first.
PLAIN = """\
      - name: plain
        command: ardurover -w --model rover-skid --defaults sim/rewire.parm
"""


def test_a_launch_loading_no_derived_file_is_never_the_load_line(tmp_path: Path) -> None:
    root, _ = project(tmp_path, LAUNCHES.replace("    launches:\n", "    launches:\n" + PLAIN))
    derived = (root / "derived/boat_sitl.params").read_text()
    assert "#   ardurover -w --model rover-skid --defaults sim/rewire.parm\n" not in derived
    assert "#   ardurover -w --model rover-skid --defaults derived/boat_sitl.params,sim/" in derived
    only_plain = "    launches:\n" + PLAIN
    root, _ = project(tmp_path / "only", only_plain)
    derived = (root / "derived/boat_sitl.params").read_text()
    none = "# No launch line: none of the launches the profile declares loads this file\n"
    assert none in derived
    assert "ardurover -w" not in derived
