"""The real pins from ../shared/upstream (skipped, saying so, when the mirror is absent)."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import FIXTURES, ROOT, copy_project, location_args, run_cli

from paramdiff.render.derived_file import read_provenance


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory, upstream: Path) -> tuple[Path, list[str]]:
    """A fresh copy of the committed project, fetched from the mirror with an empty cache."""
    mirror = upstream
    base = tmp_path_factory.mktemp("checkout")
    copy_project(base)
    (base / "sources.lock").unlink()
    loc = location_args(base, base / ".cache", mirror)
    # No --profile and no --pin: every pin of every profile, as the committed lock holds.
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 0, result.output
    return base, loc


def invoke(*args: str) -> object:
    return run_cli(list(args))


def test_fresh_fetch_reproduces_the_committed_lock(checkout: tuple[Path, list[str]]) -> None:
    base, _ = checkout
    lock = (base / "sources.lock").read_text()
    assert lock == (ROOT / "sources.lock").read_text()
    for commit in (
        "d0aedc92e37187df5366c0dd9a6b9fc876d518c5",
        "b2fbaefe57ecc28cc219c0cdc6670adde124cc9e",
        "48513edd82350bdf4e915a1cbee16ebb0e3b3557",
    ):
        assert f"commit: {commit}" in lock
    assert "sha256: ade90628be18" in lock


def test_three_way_rows_read_off_the_files(checkout: tuple[Path, list[str]]) -> None:
    _, loc = checkout
    out = invoke("compare", "three-way", *loc, "--format", "csv")
    rows = {ln.split(",")[0]: ln.split(",") for ln in out.output.splitlines()}
    assert rows["SERVO1_FUNCTION"][1:5] == ["74", "26", "73", "differs"]
    assert rows["SERVO1_MIN"][1:5] == ["1100", "1000", "1000", "differs"]
    assert rows["SERVO3_REVERSED"][1:5] == ["1", "0", "0", "differs"]
    assert rows["MOT_THST_ASYM"][1:5] == ["1.6", "1", "", "differs"]
    # ARMING_CHECK (4.6 sitl, 1 = all checks) is ARMING_SKIPCHK (4.7 hardware) renamed and
    # inverted: converted, it is 0 (skip nothing) against the hardware's 1043938.
    assert "ARMING_CHECK" not in rows
    skip = {r[0]: r for r in csv.reader(out.output.splitlines())}["ARMING_SKIPCHK"]
    assert skip[1:5] == ["1043938", "1", "", "renamed, differs"]
    assert skip[-1] == "ARMING_CHECK"
    assert rows["AHRS_ORIENTATION"][5] == "board"
    nl = [r for n, r in rows.items() if n.startswith("NL_")]
    assert len(nl) == 52 and {r[5] for r in nl} == {"script"}
    text = invoke("compare", "three-way", *loc, "--param", "SERVO1_FUNCTION").output
    assert "74 (ThrottleRight)" in text and "26 (GroundSteering)" in text
    assert "only firmware 4.6 defines: CAM_RC_TYPE" in text
    arming = invoke("compare", "three-way", *loc, "--param", "ARMING_CHECK").output
    row = next(ln for ln in arming.splitlines() if ln.startswith("ARMING_SKIPCHK "))
    assert "1 (All) → 0 (none)" in row and "renamed, differs" in row
    assert "  ARMING_CHECK → ARMING_SKIPCHK" in arming.splitlines()
    assert "only firmware 4.7 defines: " in text and "ARMING_SKIPCHK" in text


def test_committed_outputs_are_the_golden_files(checkout: tuple[Path, list[str]]) -> None:
    """derive/report output == the committed files (regenerate: see README, goldens)."""
    _, loc = checkout
    out = invoke("check", "-v", "--pin", "4.7", *loc)
    assert out.exit_code == 0, out.output
    assert "ok    blueboat 4.7: derived/blueboat_sitl.params is up to date" in out.output
    assert "ok    blueboat 4.7: reports/blueboat-4.7.md is up to date" in out.output
    assert "ok    blueboat 4.7: no frame default of rover-skid survives unchosen" in out.output
    report = (ROOT / "reports/blueboat-4.7.md").read_text()
    assert "port and starboard swapped" in report
    assert "| `SERVO3_REVERSED` | 1 (BlueBoat120.params:867) | 0 |" in report


def test_the_second_pins_committed_report_is_up_to_date(checkout: tuple[Path, list[str]]) -> None:
    _, loc = checkout
    out = invoke("check", "-v", "--pin", "4.6", *loc)
    assert out.exit_code == 0, out.output
    assert "ok    blueboat 4.6: reports/blueboat-4.6.md is up to date" in out.output


def test_check_against_sitl_models_fails_channel_by_channel(
    checkout: tuple[Path, list[str]],
) -> None:
    _, loc = checkout
    model = (
        ROOT.parent / "shared/upstream/raw/ArduPilot/SITL_Models/"
        "b2fbaefe57ecc28cc219c0cdc6670adde124cc9e/Gazebo/models/blueboat/model.sdf"
    )
    out = invoke("check", "-v", *loc, "--model", str(model))
    assert out.exit_code == 2
    assert "--model needs --profile" in out.output
    out = invoke("check", "-v", *loc, "--profile", "blueboat", "--model", str(model))
    assert out.exit_code == 1
    assert (
        "channel 0 (motor_port_joint, SERVO1): geometry: drives motor_port_joint, the port "
        "thruster (link motor_port_link at (x -0.488, y +0.295, z -0.272) m, Gazebo model frame: "
        "x forward, y left, z up), which ArduPilot drives as 73 (ThrottleLeft); parameters: "
        "SERVO1_FUNCTION is 74 (ThrottleRight)"
    ) in out.output
    assert (
        "channel 2 (motor_stbd_joint, SERVO3): model range 1000–2000 vs SERVO3_MIN/MAX "
        "1100–1900" in out.output
    )
    assert "in the model: `<jointName>motor_stbd_joint</jointName>`" in out.output
    matching = str(FIXTURES / "model_matching.sdf")
    good = invoke("check", "-v", *loc, "--profile", "blueboat", "--model", matching)
    assert good.exit_code == 0, good.output
    assert "model_matching.sdf: 2 channel(s) agree with derived/blueboat_sitl.params" in good.output


def test_hand_edits_make_check_fail_with_the_fix(checkout: tuple[Path, list[str]]) -> None:
    base, loc = checkout
    derived = base / "derived/blueboat_sitl.params"
    original = derived.read_bytes()
    derived.write_bytes(original.replace(b"\nCRUISE_SPEED 1\n", b"\nCRUISE_SPEED 2\n"))
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 1
    assert (
        "derived/blueboat_sitl.params differs from what derive writes — paramdiff derive "
        "--profile blueboat --pin 4.7" in out.output
    )
    derived.write_bytes(original)
    overlay = base / "overlays/blueboat_sitl.yaml"
    text = overlay.read_text()
    overlay.write_text(text.replace("was: 1510", "was: 1520", 1))
    line = 1 + text.splitlines().index("  - param: SERVO1_TRIM")
    out = invoke("check", "-v", *loc)
    overlay.write_text(text)
    assert out.exit_code == 1
    assert (
        f"overlays/blueboat_sitl.yaml:{line}: delta SERVO1_TRIM is stale: written against "
        "1520, but "
        "hardware at d0aedc92e371 now has 1510 "
        "(params/ardupilot/ArduRover/4.7/Navigator/BlueBoat120.params:858)" in out.output
    )


def test_layers_show_frame_defaults_and_flag_unchosen(
    checkout: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, loc = checkout
    out = invoke("layers", *loc)
    assert out.exit_code == 0, out.output
    line = next(ln for ln in out.output.splitlines() if ln.startswith("SERVO1_FUNCTION"))
    assert "74" in line and "73 @ rover-skid.parm:4" in line
    partial = tmp_path / "partial.params"
    partial.write_text("SERVO1_FUNCTION 74\nSERVO3_FUNCTION 73\n")
    out = invoke("layers", *loc, str(partial))
    assert (
        "WP_RADIUS runs 3 from rover.parm:35 (frame default) but the hardware sets 1" in out.output
    )
    assert "CRUISE_THROTTLE runs 75 from rover-skid.parm:3" in out.output


def test_validate_flags_unknown_names(checkout: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, loc = checkout
    f = tmp_path / "v.params"
    f.write_text("ARMING_CHECK 1\nSERVO1_FUNCTION 999\n")
    out = invoke("validate", *loc, str(f))
    assert out.exit_code == 1
    assert (
        "v.params:1: ARMING_CHECK is not a 4.7 parameter: ArduPilot would silently ignore it"
        in out.output
    )
    assert "SERVO1_FUNCTION 999 is not one of its values" in out.output


def test_bluerov2_heavy_includes_are_resolved_and_traced(checkout: tuple[Path, list[str]]) -> None:
    base, loc = checkout
    lock = (base / "sources.lock").read_text()
    for included in (
        "params/ardupilot/ArduSub/4.7/base.params",
        "params/ardupilot/ArduSub/4.7/heavy.params",
        "params/ardupilot/ArduSub/hardware/boards/navigator.params",
        "params/ardupilot/ArduSub/hardware/tmp119.params",
        "params/ardupilot/ArduSub/hardware/power_sense_module.params",
    ):
        assert f"path: {included}" in lock
    out = invoke("compare", "three-way", *loc, "--profile", "bluerov2_heavy")
    assert out.exit_code == 0, out.output
    text = out.output
    assert "VERSION MISMATCH: hardware says 4.7, sitl says 4.5" in text
    assert (
        "sitl: 4.5 (declared in sources.yaml; metadata Sub-4.7/apm.pdef.json; none pinned" in text
    )
    # Later include wins, both places named (the text table wraps a long place within 100
    # columns; markdown keeps each cell on its row).
    assert any(ln.startswith("hardware  SERVO14_FUNCTION") for ln in text.splitlines())
    md = invoke("compare", "three-way", *loc, "--profile", "bluerov2_heavy", "--format", "markdown")
    row = next(
        ln for ln in md.output.splitlines() if ln.startswith("| hardware | SERVO14_FUNCTION")
    )
    assert "182 at params/ardupilot/ArduSub/4.7/navigator/Heavy BlueROV2.params:16" in row
    assert "-1 at params/ardupilot/ArduSub/4.7/base.params:18" in row
    assert "BTN10_SFUNCTION is set again to the same value" in " ".join(text.split())
    csv = invoke("compare", "three-way", *loc, "--profile", "bluerov2_heavy", "--format", "csv")
    rows = {ln.split(",")[0]: ln.split(",") for ln in csv.output.splitlines()}
    assert rows["SERVO1_FUNCTION"][1:5] == ["33", "", "33", "missing in sitl"]
    assert rows["SERVO8_FUNCTION"][1:5] == ["40", "", "40", "missing in sitl"]
    assert rows["LEAK1_PIN"][5] == "board"
    # The Mission Planner-style lines of an included file are read too.
    assert rows["BATT_AMP_PERVLT"][1] == "37.8788"


def test_bluerov2_heavy_derived_file_traces_each_line_to_its_include(
    checkout: tuple[Path, list[str]],
) -> None:
    base, loc = checkout
    derived = (base / "derived/bluerov2_heavy_sitl.params").read_text()
    assert "# hardware:../heavy.params:5-12\nSERVO1_FUNCTION 33\n" in derived
    where = read_provenance(derived.splitlines())
    assert where["SERVO1_FUNCTION"] == "hardware:../heavy.params:5"
    assert where["SERVO8_FUNCTION"] == "hardware:../heavy.params:12"
    assert where["SERVO14_FUNCTION"] == "hardware:16"
    assert where["ATC_INPUT_TC"] == "hardware:../base.params:22"
    params = [ln.split()[0] for ln in derived.splitlines() if ln and not ln.startswith("#")]
    assert list(where) == params  # every value traced, in file order
    assert "LEAK1_PIN" not in derived and "AHRS_ORIENTATION" not in derived
    assert "#     %include params/ardupilot/ArduSub/4.7/heavy.params\n" in derived
    # The first declared launch check verifies (the default frame, vectored, simulates 6).
    assert "#   sim_vehicle.py -v ArduSub -f vectored_6dof --add-param-file=" in derived
    out = invoke("layers", *loc, "--profile", "bluerov2_heavy")
    assert out.exit_code == 2
    assert out.output == (
        "Error: profile 'bluerov2_heavy' pins no sim_vehicle.py frame defaults, so there are "
        "no layers to show — pin the frame's files (ArduPilot's Tools/autotest/default_params/"
        "*.parm) as roles and list them under 'frames:' in sources.yaml\n"
    )
    out = invoke("check", "-v", *loc, "--profile", "bluerov2_heavy")
    assert out.exit_code == 0, out.output
    assert (
        "sitl_models (clydemcqueen/bluerov2_gz:models/bluerov2_heavy/model.sdf): 8 channel(s) "
        "agree with derived/bluerov2_heavy_sitl.params" in out.output
    )


def test_check_covers_every_profile_by_default(checkout: tuple[Path, list[str]]) -> None:
    _, loc = checkout
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 0, out.output
    assert "ok    blueboat 4.7: reports/blueboat-4.7.md is up to date" in out.output
    assert "ok    bluerov2_heavy 4.7: reports/bluerov2_heavy-4.7.md is up to date" in out.output


def test_compare_pins_shows_what_moved_between_4_6_and_4_7(
    checkout: tuple[Path, list[str]],
) -> None:
    _, loc = checkout
    out = invoke("compare", "pins", "4.6", "4.7", *loc, "--format", "csv")
    assert out.exit_code == 0, out.output
    rows = {ln.split(",")[0]: ln.split(",") for ln in out.output.splitlines()}
    assert rows["name"][1:3] == ["hardware@4.6", "hardware@4.7"]
    assert rows["FS_ACTION"][1:4] == ["4", "6", "differs"]
    assert rows["EK3_SRC2_POSZ"][1:4] == ["1", "0", "differs"]
    assert "ARMING_CHECK" not in rows and "SR0_EXTRA1" not in rows
    table = {r[0]: r for r in csv.reader(out.output.splitlines())}
    # Renamed rows are paired, each side under its own name; old values converted.
    assert table["ARMING_SKIPCHK"][1:4] == ["4124", "1043938", "renamed"]
    assert table["MAV1_EXTRA1"][1:4] == ["10", "1", "renamed, differs"]
    assert table["MAV1_EXTRA1"][-1] == "SR0_EXTRA1"
    assert table["RNGFND1_MAX"][1:4] == ["20000", "100", "renamed, differs"]
    assert table["RNGFND1_MIN"][1:4] == ["20", "0.2", "renamed"]
    assert table["EK3_FLOW_MAX"][1:4] == ["2.5", "2.5", "renamed"]
    shown = invoke("compare", "pins", "4.6", "4.7", *loc, "--param", "RNGFND1_MAX*").output
    row = next(ln for ln in shown.splitlines() if ln.startswith("RNGFND1_MAX "))
    assert "20000 cm → 200 m" in row and "100 m" in row
    assert "  RNGFND1_MAX_CM → RNGFND1_MAX" in shown.splitlines()
    doc = json.loads(
        invoke("compare", "pins", "4.6", "4.7", *loc, "--format", "json", "--param", "SR0_*").output
    )
    extra1 = next(p for p in doc["parameters"] if p["name"] == "MAV1_EXTRA1")
    assert extra1["values"]["hardware@4.6"]["name"] == "SR0_EXTRA1"
    assert extra1["values"]["hardware@4.6"]["label"] == "10 Hz"  # 4.6 metadata for the old name
    assert extra1["values"]["hardware@4.7"]["name"] == "MAV1_EXTRA1"
    counts = Counter(r[3] for r in table.values() if r[0] != "name")
    assert counts["renamed"] + counts["renamed, differs"] == 38
    text = invoke("compare", "pins", "4.6", "4.7", *loc, "--role", "sitl", "--only-differences")
    assert text.exit_code == 0, text.output
    assert "0 parameters shown: none" in text.output  # the same SITL file at both pins
    bad = invoke("compare", "pins", "4.7", *loc)
    assert bad.exit_code == 2 and "give at least two pins" in bad.output


def test_history_of_fs_action_across_the_mirror(checkout: tuple[Path, list[str]]) -> None:
    _, loc = checkout
    out = invoke("history", "FS_ACTION", *loc)
    assert out.exit_code == 0, out.output
    rows = [ln.split()[-1] for ln in out.output.splitlines()[2:]]
    assert rows == ["FS_ACTION=4", "FS_ACTION=6", "FS_ACTION=6"]
    heavy = invoke("history", "SERVO14_FUNCTION", *loc, "--profile", "bluerov2_heavy")
    assert heavy.exit_code == 0, heavy.output
    # Through the includes: lights moved from 59/60 to 181/182 upstream.
    values = [ln.split()[-1] for ln in heavy.output.splitlines()[2:]]
    assert values[0] == "SERVO14_FUNCTION=60" and values[-1] == "SERVO14_FUNCTION=182"


def test_derive_for_another_pin_does_not_overwrite_the_default_pins_file(
    checkout: tuple[Path, list[str]],
) -> None:
    base, loc = checkout
    before = (base / "derived/blueboat_sitl.params").read_bytes()
    out = invoke("derive", *loc, "--pin", "4.6")
    assert out.exit_code == 2
    assert out.output == (
        "Error: derived/blueboat_sitl.params is pin 4.7's file (the profile's default_pin) — "
        "give -o PATH (or -o -) for pin 4.6, or put {pin} in the profile's derived path in "
        "sources.yaml\n"
    )
    assert (base / "derived/blueboat_sitl.params").read_bytes() == before
    printed = invoke("derive", *loc, "--pin", "4.6", "-o", "-")
    assert printed.exit_code == 0, printed.output
    assert "params/ardupilot/ArduRover/4.6/Navigator/BlueBoat120.params" in printed.output


def test_a_per_pin_derived_path_lets_each_pin_write_its_own_file(
    checkout: tuple[Path, list[str]],
) -> None:
    base, loc = checkout
    sources = base / "sources.yaml"
    original = sources.read_text()
    sources.write_text(
        original.replace(
            "derived: derived/blueboat_sitl.params", "derived: derived/blueboat_sitl-{pin}.params"
        )
    )
    try:
        out = invoke("derive", *loc, "--pin", "4.6")
        assert out.exit_code == 0, out.output
        written = base / "derived/blueboat_sitl-4.6.params"
        assert "Regenerate: paramdiff derive --profile blueboat --pin 4.6" in written.read_text()
    finally:
        sources.write_text(original)
        (base / "derived/blueboat_sitl-4.6.params").unlink(missing_ok=True)


def test_arming_check_converts_as_the_4_7_firmware_did_on_the_real_boat(upstream: Path) -> None:
    """BlueBoat120.params at 4.6 says ARMING_CHECK 4124; at 4.7 the boat says ARMING_SKIPCHK
    1043938. The conversion with Rover-4.6's documented bits gives exactly that."""
    from paramdiff.comparison.renames import arming_checks_to_skips
    from paramdiff.model.metadata import parse_pdef

    mirror = upstream / "raw" / "ArduPilot" / "ParameterRepository"
    pdef = next(mirror.glob("*/Rover-4.6/apm.pdef.json"))
    meta = parse_pdef(pdef.read_bytes(), str(pdef), "4.6").get("ARMING_CHECK")
    assert arming_checks_to_skips(4124, meta) == 1043938


IRIS = "shared/upstream/raw/ArduPilot/ardupilot_gazebo/082a0fe231f6e63bc8d1598f1cba461d9e2ea7f5"
BLUEBOAT = (
    "shared/upstream/raw/ArduPilot/SITL_Models/b2fbaefe57ecc28cc219c0cdc6670adde124cc9e/"
    "Gazebo/models/blueboat/model.sdf"
)


def test_lock_records_the_included_iris_model(checkout: tuple[Path, list[str]]) -> None:
    base, _ = checkout
    lock = (base / "sources.lock").read_text()
    entry = lock.split("  holybro_x500:", 1)[1].split("      sitl_models:", 1)[1]
    assert entry.split("path: models/iris_with_ardupilot/model.sdf")[0].endswith(
        "- blob: ce0cc3a6d043e2842a92090cac40b18fc8fc834f\n"
        "          path: models/iris_with_standoffs/model.sdf\n"
        "          sha256: 2c4e8ccf4385f329af905cce1cbceff96656da4ace9353c0ec6ca09df3c442d0\n"
        "          size: 13490\n        "
    )


def iris_copy(dest: Path, swap: bool) -> Path:
    """The two iris models in a folder of their own; ``swap`` flips the multiplier signs of
    rotor 0 (Motor1, CCW) and rotor 2 (Motor3, CW)."""
    for name in ("iris_with_ardupilot", "iris_with_standoffs"):
        shutil.copytree(ROOT.parent / IRIS / "models" / name, dest / name)
    model = dest / "iris_with_ardupilot" / "model.sdf"
    if swap:
        text = model.read_text()
        ccw, cw = "<multiplier>838</multiplier>", "<multiplier>-838</multiplier>"
        first_ccw, first_cw = text.index(ccw), text.index(cw)
        text = text[:first_cw] + ccw + text[first_cw + len(cw) :]
        text = text[:first_ccw] + cw + text[first_ccw + len(ccw) :]
        model.write_text(text)
    return model


def test_iris_with_two_rotors_spinning_the_wrong_way(
    checkout: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GZ_SIM_RESOURCE_PATH", raising=False)
    _, loc = checkout
    good = iris_copy(tmp_path / "good", swap=False)
    out = invoke("check", "-v", *loc, "--profile", "holybro_x500", "--model", str(good))
    assert out.exit_code == 0, out.output
    assert f"ok    holybro_x500 4.7: {good.as_posix()}: 4 channel(s) agree" in out.output
    bad = iris_copy(tmp_path / "bad", swap=True)
    out = invoke("check", "-v", *loc, "--profile", "holybro_x500", "--model", str(bad))
    assert out.exit_code == 1
    assert (
        "channel 0 (iris_with_standoffs::rotor_0_joint, SERVO1): Motor1 spins the wrong way — "
        "geometry: rotor iris_with_standoffs::rotor_0 at 59° (ArduPilot body frame FRD"
    ) in out.output
    assert "spinning clockwise seen from above (multiplier -838 × joint axis" in out.output
    assert "SERVO1_FUNCTION 33 (Motor1), which QUAD X spins counter-clockwise" in out.output
    assert "channel 2 (iris_with_standoffs::rotor_2_joint, SERVO3): Motor3 spins" in out.output
    assert "SERVO3_FUNCTION 35 (Motor3), which QUAD X spins clockwise" in out.output
    assert "in the model: `<multiplier>838</multiplier>`" in out.output
    assert out.stderr.count("spins the wrong way") == 2  # the summary (stdout lists them first too)


def test_iris_without_its_included_model_is_an_input_error(
    checkout: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GZ_SIM_RESOURCE_PATH", raising=False)
    _, loc = checkout
    model = iris_copy(tmp_path / "m", swap=False)
    shutil.rmtree(tmp_path / "m" / "iris_with_standoffs")
    out = invoke("check", "-v", *loc, "--profile", "holybro_x500", "--model", str(model))
    assert out.exit_code == 2
    assert out.output.startswith(
        f"Error: {model.as_posix()}:4: <include> model://iris_with_standoffs not found"
    )


def test_blueboat_with_renamed_joints_is_still_checked_from_geometry(
    checkout: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, loc = checkout
    text = (ROOT.parent / BLUEBOAT).read_text()
    renamed = text.replace("motor_port_joint", "left_drive").replace(
        "motor_stbd_joint", "right_drive"
    )
    model = tmp_path / "blueboat" / "model.sdf"
    model.parent.mkdir()
    model.write_text(renamed)
    out = invoke("check", "-v", *loc, "--profile", "blueboat", "--model", str(model))
    assert out.exit_code == 1
    assert (
        "channel 0 (left_drive, SERVO1): geometry: drives left_drive, the port thruster "
        "(link motor_port_link at (x -0.488, y +0.295, z -0.272) m, Gazebo model frame: x "
        "forward, y left, z up), which ArduPilot drives as 73 (ThrottleLeft); parameters: "
        "SERVO1_FUNCTION is 74 (ThrottleRight) — in the model: "
        "`<jointName>right_drive</jointName>`"
    ) in out.output
    assert "no entry in joint_roles" not in out.output


def test_each_report_links_its_top_view(checkout: tuple[Path, list[str]]) -> None:
    base, _ = checkout
    for report in ("blueboat-4.7", "bluerov2_heavy-4.7", "holybro_x500-4.7"):
        text = (base / "reports" / f"{report}.md").read_text()
        assert f"![Top view of the model's actuators]({report}.svg)" in text
        svg = (base / "reports" / f"{report}.svg").read_text()
        assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    heavy = (base / "reports" / "bluerov2_heavy-4.7.svg").read_text()
    assert "All 8 channel(s) agree with what SITL runs." in heavy
    boat = (base / "reports" / "blueboat-4.7.svg").read_text()
    assert "findings [1], [2]" in boat


def test_every_shipped_rename_agrees_with_the_4_6_and_4_7_metadata(upstream: Path) -> None:
    """For Rover and Copter: a rename whose old name 4.6 defines and whose new name 4.7 defines
    is not defined under both names by either version, and a ×0.01 conversion is exactly a
    centi-unit becoming its unit (cm → m, cdeg/s → deg/s) in the metadata's own words."""
    from paramdiff.comparison.renames import known_renames
    from paramdiff.model.metadata import parse_pdef

    repo = upstream / "raw" / "ArduPilot" / "ParameterRepository"

    def meta(name: str) -> dict[str, dict[str, object]]:
        path = next(repo.glob(f"*/{name}/apm.pdef.json"))
        return parse_pdef(path.read_bytes(), str(path), name[-3:]).params

    checked = 0
    for vehicle in ("Rover", "Copter"):
        old, new = meta(f"{vehicle}-4.6"), meta(f"{vehicle}-4.7")
        for r in known_renames().values():
            if r.old not in old or r.new not in new:
                continue
            checked += 1
            assert r.old not in new and r.new not in old, (vehicle, r.old, r.new)
            if r.conversion.scale == 0.01:
                units = (old[r.old].get("Units"), new[r.new].get("Units"))
                assert units[0] == f"c{units[1]}", (vehicle, r.old, r.new, units)
    assert checked >= 250
