"""A whole project without ../shared: metadata, frame defaults, layers, validate, report and
check on small fixtures (tests/fixtures/offline), served from a local mirror."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    C1,
    C2,
    FIXTURES,
    OVERLAY_YAML,
    SOURCES_YAML,
    CliResult,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
    tree_bytes,
)

OFFLINE = FIXTURES / "offline"
AP = "cd" * 20  # the ardupilot and metadata repositories' one commit

PROFILE_EXTRA = """\
    frames:
      rover-skid: [rover_defaults, rover_skid_defaults]
    sitl_frame: rover-skid
    sitl_vehicle: Rover
"""
ROLES_EXTRA = f"""\
        metadata: {{repo: acme/meta, ref: main, path: Rover-4.7/apm.pdef.json, format: pdef}}
        rover_defaults: {{repo: acme/ardupilot, ref: {AP}, path: rover.parm, format: params}}
        rover_skid_defaults:
          {{repo: acme/ardupilot, ref: {AP}, path: rover-skid.parm, format: params}}
"""


def offline_sources() -> str:
    text = SOURCES_YAML.replace("    pins:\n", PROFILE_EXTRA + "    pins:\n")
    return text + ROLES_EXTRA


def offline_upstream() -> dict[str, dict[str, object]]:
    repos = small_upstream()
    one = [{"sha": AP, "parents": [], "date": "2026-03-01T00:00:00Z", "subject": "defaults"}]
    repos["acme/meta"] = {
        "branches": {"main": AP},
        "commits": one,
        "files": {AP: {"Rover-4.7/apm.pdef.json": (OFFLINE / "meta.pdef.json").read_bytes()}},
    }
    repos["acme/ardupilot"] = {
        "branches": {},
        "commits": one,
        "files": {
            AP: {
                "rover.parm": (OFFLINE / "rover.parm").read_bytes(),
                "rover-skid.parm": (OFFLINE / "rover-skid.parm").read_bytes(),
            }
        },
    }
    return repos


def fetched_offline_project(tmp_path: Path) -> tuple[Path, list[str]]:
    """The small boat project with metadata and frame defaults, fetched from its mirror in
    ``tmp_path``; its root and location args."""
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(offline_sources())
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", offline_upstream())
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    result = invoke("fetch", *loc)
    assert result.exit_code == 0, result.output
    return root, loc


@pytest.fixture
def offline(tmp_path: Path) -> tuple[Path, list[str]]:
    return fetched_offline_project(tmp_path)


def invoke(*args: str) -> CliResult:
    return run_cli(list(args))


def generate(loc: list[str]) -> None:
    for command in ("derive", "report"):
        result = invoke(command, *loc)
        assert result.exit_code == 0, result.output


def test_check_passes_with_metadata_and_frame_defaults(offline: tuple[Path, list[str]]) -> None:
    root, loc = offline
    generate(loc)
    result = invoke("check", "-v", *loc)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (
        "ok    boat 1.0: derived/boat_sitl.params validates against Rover-4.7/apm.pdef.json"
        in lines
    )
    assert "ok    boat 1.0: no frame default of rover-skid survives unchosen" in lines
    assert lines[-1] == "check passed"
    derived = (root / "derived/boat_sitl.params").read_text()
    assert "sim_vehicle.py's frame rover-skid loads rover.parm then rover-skid.parm first." in (
        derived
    )
    assert "No launch line: the profile declares no launches" in derived
    assert "They set SERVO1_FUNCTION 73 / SERVO3_FUNCTION 74." in derived
    report = (root / "reports/boat-1.0.md").read_text()
    assert "loads rover.parm → rover-skid.parm → boat_sitl.params; the last file wins" in report


def test_layers_show_what_sitl_runs(offline: tuple[Path, list[str]]) -> None:
    _, loc = offline
    result = invoke("layers", *loc)
    assert result.exit_code == 0, result.output
    rows = {ln.split()[0]: ln.split() for ln in result.output.splitlines() if ln[:1].isupper()}
    # The derived file overrides the frame's outputs with the real boat's (at its own line,
    # which moves with the header).
    derived = invoke("derive", "-o", "-", *loc).output.splitlines()
    line = 1 + next(i for i, ln in enumerate(derived) if ln.startswith("SERVO1_FUNCTION"))
    assert rows["SERVO1_FUNCTION"][:3] == ["SERVO1_FUNCTION", "74", f"boat_sitl.params:{line}"]
    # ... and names the source line its value came from.
    assert rows["SERVO1_FUNCTION"][3:5] == ["(from", "hardware:8)"]
    assert "73 @ rover-skid.parm:2" in " ".join(rows["SERVO1_FUNCTION"])
    # A frame default nobody overrides survives, in a category the derived file leaves out.
    assert rows["SIM_TIDE_DIR"][:3] == ["SIM_TIDE_DIR", "90", "rover.parm:4"]
    assert result.output.splitlines()[-1].startswith("0 frame default(s) differ")


def test_a_frame_default_left_unchosen_fails_check_with_the_fix(
    offline: tuple[Path, list[str]],
) -> None:
    root, loc = offline
    overlay = root / "overlays/boat.yaml"
    overlay.write_text(
        overlay.read_text().replace(
            "    - {category: script, reason: no scripts in SITL}\n",
            "    - {category: script, reason: no scripts in SITL}\n"
            "    - {params: [CRUISE_THROTTLE], reason: tuned per hull}\n",
        )
    )
    generate(loc)
    result = invoke("check", "-v", *loc)
    assert result.exit_code == 1
    assert (
        "layers: CRUISE_THROTTLE runs 40 from rover-skid.parm:4 (frame default) but the "
        "hardware sets 16 (boats/hw.params:19)" in result.output
    )
    assert "carry CRUISE_THROTTLE in the derived file (select it in overlays/boat.yaml)" in (
        result.output
    )
    layers = invoke("layers", *loc)
    assert "CRUISE_THROTTLE" in layers.output and "UNCHOSEN" in layers.output


def test_validate_reports_errors_and_advisories(
    offline: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, loc = offline
    f = tmp_path / "mine.params"
    f.write_text("SERVO1_MIN 300\nCOMPASS_DEV_ID 5\nWP_RADIUS 5\nFRAME_CLASS 9\n")
    result = invoke("validate", *loc, str(f))
    assert result.exit_code == 1
    assert f"warning: {f}:1: SERVO1_MIN " in result.output
    assert f"{f}:2: COMPASS_DEV_ID is read-only" in result.output
    good = tmp_path / "good.params"
    good.write_text("SERVO1_MIN 1100\nWP_RADIUS 5\n")
    ok = invoke("validate", *loc, str(good))
    assert ok.exit_code == 0, ok.output
    assert ok.output.splitlines()[-1] == (f"{good}: 2 parameters valid for Rover-4.7/apm.pdef.json")
    # Warnings only (exit 0): the summary counts them, never "valid" under them (#19).
    advised = tmp_path / "advised.params"
    advised.write_text("SERVO1_MIN 300\nWP_RADIUS 5\nSERVO1_MAX 9000\n")
    warned = invoke("validate", *loc, str(advised))
    assert warned.exit_code == 0, warned.output
    *warnings, last = warned.output.splitlines()
    assert len(warnings) == 2 and all(w.startswith("warning: ") for w in warnings)
    assert last == (
        f"{advised}: 3 parameters checked against Rover-4.7/apm.pdef.json: 2 warning(s) above"
    )
    strict = invoke("validate", *loc, "--strict", str(f))
    # The findings are listed first, one per line; the Error line itself is one line, last.
    *findings, last = strict.output.splitlines()
    assert any(ln.startswith("  - ") and "SERVO1_MIN" in ln for ln in findings)
    assert last.startswith("Error: 3 problem(s) found (listed above) — correct these values")


def test_unknown_names_fail_validate(offline: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, loc = offline
    f = tmp_path / "typo.params"
    f.write_text("CRUISE_SPED 2\n")
    result = invoke("validate", *loc, str(f))
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        f"Error: {f}:1: CRUISE_SPED is not a 4.7 parameter: ArduPilot would silently ignore it"
        f" — correct these values in {f}"
    )


def test_three_way_carries_metadata_labels(offline: tuple[Path, list[str]]) -> None:
    _, loc = offline
    out = invoke("compare", "three-way", *loc, "--format", "json", "--param", "SERVO1_FUNCTION")
    assert out.exit_code == 0, out.output
    row = json.loads(out.output)["parameters"][0]
    assert row["display_name"] == "Servo output function"
    md = invoke("compare", "three-way", *loc, "--format", "markdown", "--only-differences")
    assert md.exit_code == 0 and "| SERVO1_FUNCTION" in md.output


def test_derive_in_other_formats_to_stdout(offline: tuple[Path, list[str]]) -> None:
    root, loc = offline
    before = tree_bytes(root)
    mp = invoke("derive", *loc, "--format", "mp", "-o", "-")
    assert mp.exit_code == 0 and "SERVO1_TRIM,1500" in mp.output.splitlines()
    qgc = invoke("derive", *loc, "--format", "qgc", "-o", "-")
    assert "1\t1\tSERVO1_TRIM\t1500\t" in qgc.output
    no_path = invoke("derive", *loc, "--format", "qgc")
    assert no_path.exit_code == 2
    assert no_path.output.strip() == "Error: give -o PATH (or -o - for stdout) for this format"
    assert tree_bytes(root) == before


def test_history_reads_the_mirror(offline: tuple[Path, list[str]]) -> None:
    _, loc = offline
    out = invoke("history", *loc, "WP_RADIUS")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[2].split()[:2] == [C1[:12], "2026-01-01"] and lines[2].endswith("WP_RADIUS=2")
    assert lines[3].split()[:2] == [C2[:12], "2026-02-01"] and lines[3].endswith("WP_RADIUS=1")


def test_a_frame_the_profile_lacks_is_an_error(offline: tuple[Path, list[str]]) -> None:
    _, loc = offline
    out = invoke("layers", *loc, "--frame", "motorboat")
    assert out.exit_code == 2
    assert out.output.strip() == (
        "Error: profile 'boat' has no frame 'motorboat' — use one of: rover-skid, or declare "
        "frames in sources.yaml"
    )


def test_models_passed_on_the_command_line_are_checked(offline: tuple[Path, list[str]]) -> None:
    _, loc = offline
    generate(loc)
    out = invoke("check", "-v", *loc, "--profile", "boat", "--model", str(FIXTURES / "model.sdf"))
    assert out.exit_code == 1
    assert "but SERVO1_FUNCTION is 74 (ThrottleRight)" in out.output
    assert "net direction is backwards: SERVO3_REVERSED 1 × multiplier 70" in out.output


def test_a_joint_roles_fix_points_at_sources_yaml(
    offline: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """motor_port_joint sits on the starboard side (geometry: ThrottleRight, as SERVO1 is),
    while joint_roles says 73: the fix is in sources.yaml, and check says so (it said "in the
    model" and pointed at the model's <control> blocks)."""
    _, loc = offline
    generate(loc)
    links = ""
    for joint, y in (("motor_port_joint", -0.3), ("motor_stbd_joint", 0.3)):
        links += (
            f'<link name="{joint}_link"><pose>-0.5 {y} 0 0 0 0</pose></link>'
            f'<joint name="{joint}" type="revolute"><parent>base</parent>'
            f"<child>{joint}_link</child><axis><xyz>1 0 0</xyz></axis></joint>"
        )
    text = (FIXTURES / "model.sdf").read_text()
    model = tmp_path / "swapped" / "model.sdf"
    model.parent.mkdir()
    model.write_text(text.replace("<plugin ", f'<link name="base"/>{links}<plugin ', 1))
    out = invoke("check", "-v", *loc, "--profile", "boat", "--model", str(model))
    assert out.exit_code == 1
    assert (
        "channel 0 (motor_port_joint, SERVO1): joint_roles in sources.yaml says motor_port_joint "
        "is 73 (ThrottleLeft), but its geometry says 74 (ThrottleRight) — in sources.yaml: "
        "`joint_roles: {motor_port_joint: 74}`"
    ) in out.output
    assert "correct joint_roles of profile boat in sources.yaml" in out.output.splitlines()[-1]


def test_a_pinned_target_model_fails_check_as_the_report_shows_it(
    offline: tuple[Path, list[str]],
) -> None:
    """A pinned model in target_models is checked once per pin (the report reads the same
    check): its mismatches still fail `check`, on the overlay, beside the report's list."""
    root, loc = offline
    sources = root / "sources.yaml"
    extra = "    sitl_frame: rover-skid\n"
    sources.write_text(
        sources.read_text().replace(extra, extra + "    target_models: [sitl_models]\n")
    )
    generate(loc)
    out = invoke("check", "-v", *loc, "--format", "github")
    assert out.exit_code == 1
    label = "sitl_models (acme/models:boat/model.sdf)"
    findings = [line for line in out.output.splitlines() if line.startswith("::error ")]
    mine = [line for line in findings if f"{label}: " in line]
    assert mine and all("overlays/boat.yaml,line=1," in line for line in mine)
    assert any("but SERVO1_FUNCTION is 74 (ThrottleRight)" in line for line in mine)
    report = (root / "reports/boat-1.0.md").read_text()
    assert f"**{len(mine)} mismatches**" in report
    assert f"fix the <control> blocks of {label}" in out.output
    # Without -v the passed checks fold into a line; the annotations are all still there (#31)
    folded = invoke("check", *loc, "--format", "github")
    assert folded.exit_code == 1
    assert [ln for ln in folded.output.splitlines() if ln.startswith("::error ")] == findings
    assert not [ln for ln in folded.stdout.splitlines() if "acknowledged (" in ln]
